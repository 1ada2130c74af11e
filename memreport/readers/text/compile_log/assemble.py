"""Records of one log, in order -> compilations and executable loads: a small state machine per process.

Each process (a launcher rank, or the whole log when untagged) has its own
state: the compilation Poplar's lines attach to, a stack of open phases
paired by name (indentation is not reliable, docs/FORMATS.md §8.8), the
``PO:PERF`` timings waiting for the ``Ending phase`` they precede, and what
the log said about the executable cache. How the lines of one compilation
follow each other is in FORMATS.md §8.7-§8.12; every value kept is one a
line states.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from ....model import Compilation, CompileTarget, ExecutableLoad
from .lines import POPART, POPLAR, TENSORFLOW, Record, Stamp

GRAPH_CONSTRUCTION = "graphConstruction"
PREPARE_LOAD, LOAD = "Preparing to load executable", "Loading executable"
LOAD_PHASES = (PREPARE_LOAD, LOAD)
# Phases that only ever start outside any other (SDK 3.3, §8.8): one starting inside another means the
# other's Ending line was lost (a line cut by another rank's, a log spliced), so the stack starts afresh.
ALWAYS_TOP_LEVEL = (*LOAD_PHASES, "lowerProgsAndCompileGraph")


@dataclass
class _Phase:
    name: str
    line: int
    stamp: Stamp | None


@dataclass
class _Draft:
    """A compilation being assembled from its lines."""

    source: str
    line: int
    process: str | None
    framework: str
    stamp: Stamp | None
    module: str | None = None
    hash: str | None = None
    executable_hash: str | None = None
    result: str | None = None
    cache: str | None = None
    cache_file: str | None = None
    open: bool = True
    end_line: int | None = None
    begin: Stamp | None = None          # the framework's own start and end lines, for a duration by timestamps
    end: Stamp | None = None
    phase_ms: float = 0.0               # Poplar's top-level compile phases, summed
    phases: int = 0
    phase_unknown: bool = False         # a top-level phase whose duration no line states
    compile_phase: bool = False         # a top-level phase other than graph construction ended
    peak_rss: float | None = None
    tiles_overflowed: int | None = None
    target: CompileTarget | None = None
    lookup: bool = False                # TensorFlow: a cache lookup line came (Loaded / Couldn't find)
    past_lookup: bool = False           # TensorFlow: a line that follows the lookup came
    not_cacheable: bool = False
    cache_said: str | None = None       # "on" or "off": what the process's cache lines said by the end
    notes: list[str] = field(default_factory=list)


def _seconds(begin: Stamp | None, end: Stamp | None) -> float | None:
    """``end - begin`` when both carry a date on the same clock (never local minus UTC, never a bare time)."""
    if begin is None or end is None or begin.at is None or end.at is None or begin.clock != end.clock:
        return None
    delta = (end.at - begin.at).total_seconds()
    return delta if delta >= 0 else None


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


class Process:
    """The state of one process of one log."""

    def __init__(self, source: str, process: str | None) -> None:
        self.source, self.process = source, process
        self.drafts: list[_Draft] = []
        self.loads: list[ExecutableLoad] = []
        self.current: _Draft | None = None        # the compilation Poplar's lines belong to
        self.stack: list[_Phase] = []
        self.perf: dict[str, Record] = {}          # PO:PERF timings by phase name, until their Ending line
        self.prepare: tuple[_Phase, float | None] | None = None  # a "Preparing to load executable" just ended
        self.since_load = False                     # a compilation came since the last executable load
        self.cache: str | None = None               # "on" or "off", as the process's last cache line said
        self.scanned: set[str] = set()              # files PopART's cache scan named
        self.cache_dir: str | None = None           # POPTORCH_CACHE_DIR
        self.hash_matched = False                   # PopART: "Ir hash matched cached value" before a load
        self.pending_notes: list[str] = []
        self.not_compiled: dict[str, str] = {}      # TensorFlow module -> executable hash, from VLOG 2

    # -- compilations ------------------------------------------------------------------------------------

    def _open(self, record: Record, no: int, framework: str) -> _Draft:
        stamp = record.line.stamp
        draft = _Draft(self.source, no, self.process, framework, stamp, cache_said=self.cache)
        self.drafts.append(draft)
        self.current = draft
        self.since_load = True
        return draft

    def _close(self, draft: _Draft, no: int, stamp: Stamp | None, result: str | None = None) -> None:
        if result is not None and draft.result is None:
            draft.result = result
        draft.open = False
        draft.end_line = no
        draft.end = stamp
        draft.cache_said = self.cache or draft.cache_said
        if self.current is draft:
            self.current = next((d for d in reversed(self.drafts) if d.open), None)

    def _close_poplar(self) -> None:
        """Close a compilation seen through Poplar's lines alone (its end is where the next thing starts)."""
        draft = self.current
        if draft is not None and draft.framework == POPLAR and draft.open:
            self._close(draft, draft.end_line or draft.line, draft.end, "compiled" if self._finished(draft) else None)

    @staticmethod
    def _finished(draft: _Draft) -> bool:
        return draft.compile_phase or draft.tiles_overflowed is not None

    def _tf_draft(self, module: str | None) -> _Draft | None:
        """The open TensorFlow compilation of ``module`` (or, for lines that name none, the latest open one)."""
        for draft in reversed(self.drafts):
            if draft.open and draft.framework == TENSORFLOW and (module is None or draft.module == module):
                return draft
        return None

    def _last_popart(self) -> _Draft | None:
        """The latest compilation, if it is PopART's or Poplar's (a save after it belongs to it)."""
        last = self.drafts[-1] if self.drafts else None
        return last if last is not None and last.framework in (POPART, POPLAR) else None

    def feed(self, record: Record, no: int) -> None:
        kind = record.kind
        handler = _HANDLERS.get(kind.split("-", 1)[0])
        if handler is not None:
            handler(self, record, no)

    def _tensorflow(self, record: Record, no: int) -> None:
        kind, stamp = record.kind, record.line.stamp
        if kind == "tf-not-compiled":
            assert record.name is not None and record.hash is not None
            self.not_compiled[record.name] = record.hash
            return
        if kind == "tf-cache-off":
            self.cache = "off"
            return
        if kind == "tf-begin":
            self._close_poplar()
            draft = self._open(record, no, TENSORFLOW)
            draft.module, draft.hash, draft.begin = record.name, record.hash, stamp
            draft.executable_hash = self.not_compiled.pop(record.name or "", None)
            return
        found = self._tf_draft(record.name if kind in ("tf-end-xla", "tf-loaded", "tf-engine-begin") else None)
        if found is None:
            return
        draft = found
        draft.end_line = no
        if kind in ("tf-loaded", "tf-miss"):
            assert record.file is not None
            draft.lookup, draft.cache_file = True, record.file
            stem = _stem(record.file)
            if all(c in "0123456789abcdef" for c in stem) and stem:
                draft.executable_hash = "0x" + stem
            if kind == "tf-loaded":
                draft.cache = "hit"
                self._close(draft, no, stamp, "loaded")
            else:
                draft.cache = "miss"
            return
        draft.past_lookup = True
        if kind == "tf-skip":
            draft.notes.append(f"engine compilation skipped: {record.text}")
            self._close(draft, no, stamp, "skipped")
        elif kind == "tf-precompiled":
            draft.result, draft.cache_file = "precompiled", record.file
        elif kind == "tf-not-cacheable":
            draft.not_cacheable = True
        elif kind == "tf-engine-end":
            self._close(draft, no, stamp, "compiled")

    def _popart(self, record: Record, no: int) -> None:
        kind, stamp = record.kind, record.line.stamp
        if kind in ("popart-popef-found", "popart-cache-file-found"):
            assert record.file is not None
            self.cache = "on"
            self.scanned.add(record.file)
        elif kind == "popart-hash-matched":
            self.cache, self.hash_matched = "on", True
        elif kind == "popart-cache-off":
            self.cache = "off"
        elif kind == "popart-false-hit":
            self.cache = "on"
            self.pending_notes.append("a cache file had the same name but another hash (a false cache hit, ignored)")
        elif kind in ("popart-load-failed", "popart-sdk1-unable"):
            self.cache = "on"
            where = f" from {record.file}" if record.file else ""
            self.pending_notes.append(f"could not load the cached executable{where}: {record.text}")
        elif kind in ("popart-start", "popart-not-compiling"):
            draft = self.current
            if draft is not None and draft.framework == POPLAR and draft.open and not draft.compile_phase:
                draft.framework = POPART       # Poplar's graph construction began before PopART said so
            else:
                self._close_poplar()
                draft = self._open(record, no, POPART)
            draft.begin = stamp
            self._take_notes(draft)
            if kind == "popart-not-compiling":
                self._close(draft, no, stamp, "skipped")
        elif kind == "popart-compiled":
            draft = self.current
            if draft is not None and draft.framework in (POPART, POPLAR) and draft.open:
                draft.framework = POPART
                self._close(draft, no, stamp, "compiled")
        elif kind in ("popart-loading", "popart-sdk1-loading"):
            self._close_poplar()
            draft = self._open(record, no, POPART)
            draft.begin, draft.result, draft.cache_file = stamp, "loaded", record.file
            assert record.file is not None
            if _stem(record.file).isdigit():
                draft.hash = _stem(record.file)
            in_cache_dir = self.cache_dir is not None and record.file.startswith(self.cache_dir.rstrip("/") + "/")
            if self.hash_matched or record.file in self.scanned or in_cache_dir or kind == "popart-sdk1-loading":
                draft.cache = "hit"
            self.hash_matched = False
            self._take_notes(draft)
        elif kind == "popart-returning":
            draft = self.current
            if draft is None or draft.framework != POPART or draft.result != "loaded" or not draft.open:
                draft = self._open(record, no, POPART)
                draft.result = "loaded"
            self._close(draft, no, stamp)
        elif kind in ("popart-saving", "popart-sdk1-saving"):
            self._cache_write(record)

    def _take_notes(self, draft: _Draft) -> None:
        draft.notes.extend(self.pending_notes)
        self.pending_notes.clear()

    def _cache_write(self, record: Record) -> None:
        """``Saving serialized Executablex to DIR/<hash>.popef`` after a compilation: the cache write (§8.9)."""
        assert record.file is not None
        draft = self._last_popart()
        stem = _stem(record.file)
        cache_name = stem.isdigit() or record.kind == "popart-sdk1-saving"
        if draft is None or draft.cache_file is not None or not cache_name or draft.result not in (None, "compiled"):
            return
        draft.cache_file = record.file
        if stem.isdigit():
            draft.hash = stem
        draft.cache = "miss"

    def _poptorch(self, record: Record, no: int) -> None:
        if record.kind == "poptorch-no-cache":  # no cache in a distributed run, or the IPU model (no cache)
            self.cache = "off"
        else:  # POPTORCH_CACHE_DIR is set: PopTorch turns PopART's executable cache on
            self.cache, self.cache_dir = "on", record.file

    # -- Poplar's phases -----------------------------------------------------------------------------------

    def _poplar(self, record: Record, no: int) -> None:
        kind, stamp = record.kind, record.line.stamp
        draft = self.current if self.current is not None and self.current.open else None
        if kind == "phase-start":
            assert record.name is not None
            if record.name in ALWAYS_TOP_LEVEL and self.stack:
                self.stack.clear()
                if draft is not None:  # a top-level phase's time is lost: the phase timings no longer add up
                    draft.phase_unknown = True
            if not self.stack:
                self._top_level_start(record, no)
            self.stack.append(_Phase(record.name, no, stamp))
        elif kind == "phase-end":
            self._phase_end(record, no)
        elif kind == "perf":
            assert record.name is not None
            self.perf[record.name] = record
        elif kind == "target-info" and draft is not None:
            ipus, tiles = record.numbers
            draft.target = CompileTarget(record.text, ipus, tiles)
        elif kind == "compile-finished" and draft is not None:
            draft.tiles_overflowed = record.numbers[0]
            if record.numbers[0] is None:
                draft.notes.append(f"Graph compilation finished: {record.text}")
            draft.end_line = no

    def _top_level_start(self, record: Record, no: int) -> None:
        """A phase outside any other: a load, the start of a compilation, or more of the current one."""
        name = record.name
        draft = self.current if self.current is not None and self.current.open else None
        if name in LOAD_PHASES:
            self._close_poplar()
        elif draft is None or (draft.framework == POPLAR and self._finished(draft) and name == GRAPH_CONSTRUCTION):
            # Graph construction after a finished compilation is the next one (it starts twice, nested, per
            # compilation: compilations are counted, not phase starts).
            self._close_poplar()
            self._open(record, no, POPLAR).begin = record.line.stamp

    def _phase_end(self, record: Record, no: int) -> None:
        assert record.name is not None
        at = next((i for i in range(len(self.stack) - 1, -1, -1) if self.stack[i].name == record.name), None)
        perf = self.perf.pop(record.name, None)
        rss = [v for v in (record.rss, perf.rss if perf is not None else None) if v is not None]
        draft = self.current if self.current is not None and self.current.open else None
        if at is None:  # its start is not in the log (cut out, or before the log began): its RSS still counts
            if draft is not None and rss and not (self.stack and self.stack[0].name in LOAD_PHASES):
                draft.peak_rss = max(rss + ([draft.peak_rss] if draft.peak_rss is not None else []))
            return
        phase = self.stack[at]
        del self.stack[at:]
        ms = record.ms if record.ms is not None else perf.ms if perf is not None else None
        if ms is None:
            seconds = _seconds(phase.stamp, record.line.stamp)
            ms = None if seconds is None else seconds * 1000
        top = self.stack[0].name if self.stack else phase.name
        if top in LOAD_PHASES:
            if not self.stack:
                self._load_phase_end(phase, ms, no)
            return
        if draft is None:
            return
        if rss:
            draft.peak_rss = max(rss + ([draft.peak_rss] if draft.peak_rss is not None else []))
        if draft.framework in (POPLAR, POPART) and draft.result is None:
            draft.end_line = no
            if draft.framework == POPLAR:
                draft.end = record.line.stamp
        if not self.stack:
            draft.phases += 1
            if ms is None:
                draft.phase_unknown = True
            else:
                draft.phase_ms += ms
            if phase.name != GRAPH_CONSTRUCTION:
                draft.compile_phase = True

    def _load_phase_end(self, phase: _Phase, ms: float | None, no: int) -> None:
        if phase.name == PREPARE_LOAD:
            self.prepare = (phase, ms)
            return
        start, total = phase, ms
        if self.prepare is not None:
            start = self.prepare[0]
            total = None if ms is None or self.prepare[1] is None else ms + self.prepare[1]
            self.prepare = None
        reload = bool(self.loads) and not self.since_load
        self.loads.append(ExecutableLoad(self.source, start.line, self.process,
                                         start.stamp.iso if start.stamp else None,
                                         None if total is None else round(total / 1000, 3), reload, no))
        self.since_load = False

    # -- the result ------------------------------------------------------------------------------------------

    def finish(self) -> tuple[list[Compilation], list[ExecutableLoad]]:
        """The compilations and loads of this process, once its log has been read to the end."""
        self._close_poplar()
        return [self._compilation(d) for d in self.drafts], self.loads

    def _compilation(self, draft: _Draft) -> Compilation:
        result = draft.result
        cache = draft.cache
        said = self.cache if draft.open else draft.cache_said
        if cache is None and result is not None:
            if draft.framework == TENSORFLOW:
                # The lookup is logged between Begin and End at the same VLOG level (poplar_compiler.cc):
                # a later line of the compilation without one means the cache was off.
                cache = "off" if (draft.past_lookup and not draft.lookup) or said == "off" else None
            elif result in ("compiled", "precompiled", "skipped"):
                cache = {"on": "miss", "off": "off"}.get(said or "")
        duration, source = None, None
        if result is not None:
            if draft.phases and not draft.phase_unknown:
                duration, source = round(draft.phase_ms / 1000, 3), "phase timings"
            else:
                seconds = _seconds(draft.begin, draft.end)
                if seconds is not None:
                    duration, source = round(seconds, 6), "timestamps"
        return Compilation(
            source=draft.source, line=draft.line, end_line=draft.end_line, process=draft.process,
            framework=draft.framework, time=draft.stamp.iso if draft.stamp else None, module=draft.module,
            hash=draft.hash, executable_hash=draft.executable_hash, result=result, cache=cache,
            duration_s=duration, duration_from=source, peak_rss_mb=draft.peak_rss,
            tiles_overflowed=draft.tiles_overflowed, target=draft.target, cache_file=draft.cache_file,
            not_cacheable=draft.not_cacheable, notes=tuple(draft.notes))


_HANDLERS = {
    "tf": Process._tensorflow,
    "popart": Process._popart,
    "poptorch": Process._poptorch,
    "phase": Process._poplar,
    "perf": Process._poplar,
    "target": Process._poplar,
    "compile": Process._poplar,
}
