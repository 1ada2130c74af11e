"""What a run's logs say about compilation: each compilation or cache load, each executable load, the findings.

A :class:`CompileHistory` is the sequence of events read from one or more
logs (docs/FORMATS.md §8.7-§8.12), in order; several logs (a cold and a warm
run) are one sequence. Every field is what a log line states, or None where
no line states it: a time the logger did not print, a hash no line names, a
cache nobody mentioned. Analysis (:mod:`memreport.analysis.compiles`) turns a
history into :class:`Finding` records.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .schemas import COMPILES_SCHEMA
from .values import OutOfMemoryMessage

SCHEMA = COMPILES_SCHEMA  # the name is defined once, in .schemas
# "out of memory": an out-of-memory error is the compilation's own or follows it in its process (issue #30);
# "failed": another error ended it before its end line.
RESULTS = ("compiled", "loaded", "precompiled", "skipped", "out of memory", "failed")
CACHE_STATES = ("hit", "miss", "off")
FRAMEWORKS = ("tensorflow", "popart", "poplar")
# How a duration is known: Poplar's phase timings, the difference of two timestamps, PopTorch's compilation bar
# (its elapsed time, whole seconds), or a script's own timing line (``Compiled/Loaded model in X secs``).
DURATION_SOURCES = ("phase timings", "timestamps", "progress bar", "script timing")
FINDING_KINDS = ("recompiled", "cache-not-working", "hash-drift", "late-compile", "executable-switching",
                 "not-cacheable")


@dataclass(frozen=True, order=True)
class LineRef:
    """A line of a log: the file as given and its 1-based line number; ``place`` the same line in a notebook
    (``cell 7 [4], line 12``), shown instead of the number."""

    source: str
    line: int
    place: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.source}:{self.line}" if self.place is None else f"{self.source}, {self.place}"


@dataclass(frozen=True)
class CompileTarget:
    """What Poplar's ``Target info:`` line names (each part None where it is not printed)."""

    arch: str | None
    ipus: int | None
    tiles_per_ipu: int | None


@dataclass(frozen=True)
class Compilation:
    """One compilation, cache load, pre-compilation or skipped compilation, as the log shows it.

    ``result`` is None when the log shows the start and not the outcome (the
    run stopped, or failed, before the end line). ``hash`` is the program's
    hash as printed: TensorFlow's HLO module hash (``0x...``) or PopART's IR
    hash (decimal). ``executable_hash`` is TensorFlow's executable (cache)
    hash, ``0x...``, from a cache file name or the ``has not been compiled
    yet`` line. ``peak_rss_mb`` is the largest host RSS Poplar printed for
    the compilation's phases, in the unit the log printed with it,
    ``peak_rss_unit`` (MiB in SDK 3.x, "MB" in 2.x).

    ``start_in_log`` and ``end_in_log`` say whether the log holds the line
    that starts the compilation and the one that ends it; a compilation
    missing either is *unfinished* (the log begins or ends during it, or the
    run stopped or failed): its duration is unknown, never the sum of the
    phases the log happens to show. ``result`` is what its last line states:
    None when no line states an outcome (the end is missing, or the line
    does not say, as ``Compiled/Loaded model in X secs`` does not).

    ``result`` is "out of memory" when an out-of-memory error is its own
    (the last compilation its process started before the error), and
    "failed" when another error ended it before its end line (issue #30);
    ``failure`` then holds what the error states: the
    :class:`~.values.OutOfMemoryMessage` (its tile and bytes, or that the
    variables do not fit, a profile path), or the error in a few words.
    ``report`` is the 1-based index (``#N``) of the memory report
    ``memreport`` reads from the same file that holds its out-of-memory
    error or its summary (None when none does). ``place`` is its first
    line's place in a notebook (``cell 7 [4], line 12``; None in a log).
    """

    source: str
    line: int
    end_line: int | None
    process: str | None            # the launcher rank ("1,0") of a tagged line; None when untagged
    framework: str                 # tensorflow, popart (PopART, PopXL, PopTorch) or poplar (its lines alone)
    time: str | None               # ISO 8601 of the first line, as the logger printed it (see README)
    module: str | None
    hash: str | None
    executable_hash: str | None
    result: str | None
    cache: str | None
    duration_s: float | None
    duration_from: str | None      # "phase timings" or "timestamps"
    peak_rss_mb: float | None
    tiles_overflowed: int | None
    target: CompileTarget | None
    cache_file: str | None
    not_cacheable: bool = False
    notes: tuple[str, ...] = ()
    start_in_log: bool = True
    end_in_log: bool = True
    peak_rss_unit: str | None = None
    failure: OutOfMemoryMessage | str | None = None
    report: int | None = None
    place: str | None = None

    def __post_init__(self) -> None:
        if self.result is not None and self.result not in RESULTS:
            raise ValueError(f"result must be one of {RESULTS} or None, not {self.result!r}")
        if self.cache is not None and self.cache not in CACHE_STATES:
            raise ValueError(f"cache must be one of {CACHE_STATES} or None, not {self.cache!r}")
        if self.framework not in FRAMEWORKS:
            raise ValueError(f"framework must be one of {FRAMEWORKS}, not {self.framework!r}")
        if self.duration_from is not None and self.duration_from not in DURATION_SOURCES:
            raise ValueError(f"duration_from must be one of {DURATION_SOURCES}, not {self.duration_from!r}")
        if (self.duration_s is None) != (self.duration_from is None):
            raise ValueError("duration_s and duration_from are known together")
        if self.unfinished and self.duration_s is not None:
            raise ValueError("an unfinished compilation has no known duration")
        if (self.failure is not None) != (self.result in ("out of memory", "failed")):
            raise ValueError("a compilation that failed (and only one) says what its failure states")
        if self.report is not None and self.report < 1:
            raise ValueError(f"report is a 1-based index, not {self.report}")

    @property
    def unfinished(self) -> bool:
        """Whether the log lacks its start or its end."""
        return not (self.start_in_log and self.end_in_log)

    @property
    def not_in_log(self) -> tuple[str, ...]:
        """``("start",)``, ``("end",)``, both or neither: the parts of it the log does not hold."""
        return tuple(part for part, held in (("start", self.start_in_log), ("end", self.end_in_log)) if not held)

    @property
    def ref(self) -> LineRef:
        return LineRef(self.source, self.line, self.place)

    @property
    def failed(self) -> bool:
        """Whether an error ended it (out of memory or another)."""
        return self.result in ("out of memory", "failed")

    @property
    def failure_text(self) -> str | None:
        """What its failure states, in a few words (None when it did not fail)."""
        if isinstance(self.failure, OutOfMemoryMessage):
            return oom_words(self.failure)
        return self.failure

    @property
    def cache_key(self) -> str | None:
        """The hash the executable cache is keyed by: TensorFlow's executable hash, PopART's IR hash."""
        return self.executable_hash or (self.hash if self.framework == "popart" else None)

    @property
    def compiles(self) -> bool:
        """Whether Poplar compiled a program here (a compilation or a pre-compilation)."""
        return self.result in ("compiled", "precompiled")


@dataclass(frozen=True)
class ExecutableLoad:
    """One load of an executable onto the IPUs (Poplar's ``Loading executable`` phase).

    ``reload`` is True when no compilation or cache load came between this
    load and the previous one in the same process: the run switched back to
    an executable it had loaded before.
    """

    source: str
    line: int
    process: str | None
    time: str | None
    duration_s: float | None
    reload: bool
    end_line: int
    place: str | None = None  # its first line's place in a notebook (``cell 7 [4], line 12``)

    @property
    def ref(self) -> LineRef:
        return LineRef(self.source, self.line, self.place)


@dataclass(frozen=True)
class CompileLogInfo:
    """One log read: its path, size and what it held."""

    source: str
    size_bytes: int
    compilations: int
    loads: int


@dataclass(frozen=True)
class CompileHistory:
    """Every compilation and executable load of one or more logs, in order (logs in the order given).

    ``repeated`` holds ``(path, same as)`` for each log given again (the
    same file, by another name or the same one): it is read once.
    """

    logs: tuple[CompileLogInfo, ...]
    compilations: tuple[Compilation, ...]
    loads: tuple[ExecutableLoad, ...]
    repeated: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Finding:
    """Something worth an engineer's attention, with the lines that show it."""

    kind: str
    message: str
    lines: tuple[LineRef, ...]

    def __post_init__(self) -> None:
        if self.kind not in FINDING_KINDS:
            raise ValueError(f"kind must be one of {FINDING_KINDS}, not {self.kind!r}")


def oom_words(m: OutOfMemoryMessage) -> str:
    """An out-of-memory message's facts in a few words: ``tile 12: 702,344 B used of 638,976 B`` (as stated)."""
    if m.kind == "tile-memory":
        return f"tile {_figure(m.tile)}: {_figure(m.bytes_used)} B used of {_figure(m.bytes_per_tile)} B"
    if m.kind == "variables":
        saved = f" (profile: {m.saved_path})" if m.saved_path else ""
        return f"variables do not fit onto one or more tiles{saved}"
    if m.kind == "profile-saved":
        return f"out of memory; profile: {m.saved_path}" if m.saved_path else "out of memory (no profile path printed)"
    if m.kind == "report-saved":
        return f"out of memory; summary saved to {m.saved_path}"
    if m.kind == "exchange":
        return f"tile {_figure(m.tile)} receives more data than it has memory (exchange '{m.exchange}')"
    if m.kind == "code":
        return f"tile {_figure(m.tile)}: too much code ({_figure(m.code_offset)} B from the start of memory)"
    return "a host stream buffer does not fit (host memory)"


def _figure(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"
