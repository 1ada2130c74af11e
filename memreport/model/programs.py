"""The programs of one file (issue #30): how many it ran, which failed and how, for the answer over the whole file.

A log holds programs: compilations (each with its outcome: compiled, loaded
from the cache, out of memory, failed otherwise, unfinished), or where a
log has no compile lines, runs (one program each, ended or not by an
error), or in a file of neither, its memory reports themselves. Every
report read from a file carries the same :class:`FilePrograms` in its
position, so the whole-file verdict ("16 of 223 runs failed, out of memory;
worst: run 145, tile 0, 670,344 B used of 262,144 B") is built from it, with
no note to parse: it counts the programs that left no memory report too.
"""
from __future__ import annotations

from dataclasses import dataclass

# What a program is in a file: a compilation (the log has compile lines), a run (a program the log shows by its
# launch and error lines, no compile lines), or a program that is one memory report (a summary, a message block).
PROGRAM_UNITS = ("compilation", "run", "program")
# How a program ended. "compiled", "loaded" (from the executable cache), "skipped" (TensorFlow and PopART skip a
# compilation they need not run), "precompiled"; "out of memory" (an out-of-memory error is its own or follows
# it in its process); "failed" (another error ended it before its end); "unfinished" (the log shows its start
# and not its end, or its end and not its start, and no error); "ended" (a run ended without an error, or a
# compilation whose line does not say whether it compiled or loaded).
PROGRAM_OUTCOMES = ("compiled", "loaded", "skipped", "precompiled", "out of memory", "failed", "unfinished", "ended")
FAILED_OUTCOMES = ("out of memory", "failed")


@dataclass(frozen=True)
class FailedProgram:
    """One program of a file that failed: which, how, what its error says, and where to look.

    ``index`` is its place among the file's :attr:`FilePrograms.count`
    programs (1-based, in order of their first lines); ``outcome`` is "out
    of memory" or "failed"; ``failure`` the error in a few words (the
    out-of-memory message's tile and bytes, "variables do not fit", the
    uncaught exception); ``report`` the 1-based index (``#N``) of the file's
    memory report that holds its error or its summary (None when none
    does: an error that is no out-of-memory message leaves none). ``line``
    is the error's first line and ``place`` the same in a notebook
    (``cell 7 [4], line 12``; None in a plain log). ``tile``,
    ``bytes_used`` and ``bytes_per_tile`` are what its out-of-memory message
    states (None where it states none); ``profile`` a profile path it names.
    """

    index: int
    outcome: str
    failure: str
    report: int | None = None
    line: int | None = None
    place: str | None = None
    process: str | None = None
    tile: int | None = None
    bytes_used: int | None = None
    bytes_per_tile: int | None = None
    profile: str | None = None

    def __post_init__(self) -> None:
        if self.outcome not in FAILED_OUTCOMES:
            raise ValueError(f"a failed program's outcome must be one of {FAILED_OUTCOMES}, not {self.outcome!r}")
        if self.index < 1 or (self.report is not None and self.report < 1):
            raise ValueError(f"a failed program's index and report are 1-based, not {self.index}, {self.report}")

    @property
    def where(self) -> str | None:
        """Its error's place as a reader shows it: ``line 1,234`` or ``cell 7 [4], line 12`` (None: unknown)."""
        return self.place or (None if self.line is None else f"line {self.line:,}")


@dataclass(frozen=True)
class FilePrograms:
    """Every program of one file and those that failed; shared by every report read from that file.

    ``unit`` says what a program is here (:data:`PROGRAM_UNITS`):
    "compilation" for a log with compile lines (``memreport compiles``
    lists the same ones, in the same order), "run" for a log of programs
    told apart by their launch and error lines, "program" for a file whose
    memory reports are its programs. ``count`` counts them all, those that
    left no memory report included; ``failed`` lists those that failed, in
    order (at most :data:`MAX_FAILED` kept: ``failed_count`` counts all).
    ``outcomes`` counts every program by its outcome (:data:`PROGRAM_OUTCOMES`).
    """

    count: int
    unit: str = "program"
    failed: tuple[FailedProgram, ...] = ()
    failed_count: int = 0
    outcomes: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        if self.unit not in PROGRAM_UNITS:
            raise ValueError(f"unit must be one of {PROGRAM_UNITS}, not {self.unit!r}")
        if self.count < 0 or not len(self.failed) <= self.failed_count <= self.count:
            raise ValueError(f"a file's programs need 0 <= failed kept <= failed <= count, not {self}")
        if any(outcome not in PROGRAM_OUTCOMES for outcome, _ in self.outcomes):
            raise ValueError(f"outcomes must be among {PROGRAM_OUTCOMES}")

    @property
    def by_outcome(self) -> dict[str, int]:
        """How many programs ended each way, by outcome."""
        return dict(self.outcomes)


MAX_FAILED = 1_000  # failed programs a file's record keeps (more are counted)
