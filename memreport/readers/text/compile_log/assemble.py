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

import dataclasses

from ....model import Compilation, CompileTarget, ExecutableLoad
from .bars import ScriptTimings
from .drafts import Draft, Phase, file_stem, keep_peak, latest_open, seconds_between
from .lines import POPART, POPLAR, TENSORFLOW, BarFrame, Record, Stamp

GRAPH_CONSTRUCTION = "graphConstruction"
PREPARE_LOAD, LOAD = "Preparing to load executable", "Loading executable"
LOAD_PHASES = (PREPARE_LOAD, LOAD)
# Phases that only ever start outside any other (SDK 3.3, §8.8): one starting inside another means the
# other's Ending line was lost (a line cut by another rank's, a log spliced), so the stack starts afresh.
ALWAYS_TOP_LEVEL = (*LOAD_PHASES, "lowerProgsAndCompileGraph")


class Process:
    """The state of one process of one log."""

    def __init__(self, source: str, process: str | None, all_frames: bool = False) -> None:
        self.source, self.process = source, process
        self.drafts: list[Draft] = []
        self.loads: list[ExecutableLoad] = []
        self.current: Draft | None = None        # the compilation Poplar's lines belong to
        self.stack: list[Phase] = []
        self.open_names: dict[str, int] = {}        # phases on the stack by name (an Ending line with no start is
        #                                             passed over at once: a log of unmatched phases is linear)
        self.perf: dict[str, Record] = {}          # PO:PERF timings by phase name, until their Ending line
        self.prepare: tuple[Phase, float | None] | None = None  # a "Preparing to load executable" just ended
        self.since_load = False                     # a compilation came since the last executable load
        self.cache: str | None = None               # "on" or "off", as the process's last cache line said
        self.scanned: set[str] = set()              # files PopART's cache scan named
        self.cache_dir: str | None = None           # POPTORCH_CACHE_DIR
        self.hash_matched = False                   # PopART: "Ir hash matched cached value" before a load
        self.pending_notes: list[str] = []
        self.not_compiled: dict[str, str] = {}      # TensorFlow module -> executable hash, from VLOG 2
        # Open drafts, latest last, closed ones dropped lazily from the end (each pushed and popped once: finding
        # the latest open one is amortised O(1), never a scan of every earlier compilation).
        self.open_drafts: list[Draft] = []
        self.open_tf: list[Draft] = []
        self.open_tf_by_module: dict[str | None, list[Draft]] = {}
        self.timings = ScriptTimings(all_frames)    # PopTorch's bar and a script's Compiled/Loaded lines
        self.tf_seen = False                        # a TensorFlow compilation was opened
        self.cache_created: str | None = None       # PopART created the cache directory: what it compiled missed

    # -- compilations ------------------------------------------------------------------------------------

    def _open(self, record: Record, no: int, framework: str, start_seen: bool = True) -> Draft:
        stamp = record.line.stamp
        draft = Draft(self.source, no, self.process, framework, stamp, cache_said=self.cache, start_seen=start_seen)
        self.drafts.append(draft)
        self.open_drafts.append(draft)
        self.current = draft
        self.since_load = True
        return draft

    def _close(self, draft: Draft, no: int, stamp: Stamp | None, result: str | None = None,
               ended: bool = True) -> None:
        """End ``draft`` at line ``no``; ``ended``: that line is its end (not merely where the next thing starts)."""
        if result is not None and draft.result is None:
            draft.result = result
        draft.open = False
        draft.end_seen = ended
        draft.end_line = no
        draft.end = stamp
        draft.cache_said = self.cache or draft.cache_said
        if self.current is draft:
            self.current = latest_open(self.open_drafts)

    def _close_poplar(self, at_end: bool = False) -> None:
        """Close a compilation seen through Poplar's lines alone (its end is where the next thing starts).

        It ended when Poplar said so (``Graph compilation finished:``) or a
        top-level compile phase ended with no phase still open at the end of
        the log; otherwise the log stops during it.
        """
        draft = self.current
        if draft is not None and draft.framework == POPLAR and draft.open:
            running = at_end and bool(self.stack) and self.stack[0].name not in LOAD_PHASES
            ended = draft.finished_line or (draft.compile_phase and not running)
            self._close(draft, draft.end_line or draft.line, draft.end, "compiled" if ended else None, ended)

    @staticmethod
    def _finished(draft: Draft) -> bool:
        return draft.compile_phase or draft.finished_line

    def _tf_draft(self, module: str | None) -> Draft | None:
        """The open TensorFlow compilation of ``module`` (or, for lines that name none, the latest open one)."""
        if module is None:
            return latest_open(self.open_tf)
        return latest_open(self.open_tf_by_module.get(module, []))

    def _open_tf(self, record: Record, no: int, start_seen: bool = True) -> Draft:
        draft = self._open(record, no, TENSORFLOW, start_seen)
        draft.module = record.name
        self.tf_seen = True
        self.open_tf.append(draft)
        self.open_tf_by_module.setdefault(record.name, []).append(draft)
        return draft

    def _last_popart(self) -> Draft | None:
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
            draft = self._open_tf(record, no)
            draft.hash, draft.begin = record.hash, stamp
            draft.executable_hash = self.not_compiled.pop(record.name or "", None)
            return
        if kind == "tf-xla-cluster":
            self._xla_cluster(record, no)
            return
        named = kind in ("tf-end-xla", "tf-loaded", "tf-engine-begin")
        found = self._tf_draft(record.name if named else None)
        if found is None:
            if kind not in _TF_FRAGMENT or self._tf_draft(None) is not None:
                return
            # A compilation whose Begin line is not in the log (the log begins during it): a fragment.
            self._close_poplar()
            found = self._open_tf(record if named else dataclasses.replace(record, name=None), no, start_seen=False)
            if kind == "tf-end-xla":
                found.hash = record.hash
        draft = found
        draft.end_line = no
        if kind in ("tf-loaded", "tf-miss"):
            assert record.file is not None
            draft.lookup, draft.cache_file = True, record.file
            stem = file_stem(record.file)
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

    def _xla_cluster(self, record: Record, no: int) -> None:
        """``Compiled cluster using XLA!``: logged once per process, after its first cluster; a compilation of
        unknown length where no VLOG line shows one."""
        if self.tf_seen:  # VLOG lines show the compilations (this line follows the first)
            return
        self._close_poplar()
        draft = self._open_tf(dataclasses.replace(record, name=None), no)
        draft.notes.append("TensorFlow's 'Compiled cluster using XLA!', printed once per process after its first "
                           "XLA cluster (on the IPU its executable may have come from the executable cache): later "
                           "compilations print nothing at this log level (TF_CPP_VMODULE=poplar_compiler=1 shows "
                           "each)")
        self._close(draft, no, record.line.stamp, "compiled")

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
            if draft is None or draft.framework not in (POPART, POPLAR) or not draft.open:
                draft = self._open(record, no, POPART, start_seen=False)  # its start is not in the log
            draft.framework = POPART
            self._close(draft, no, stamp, "compiled")
        elif kind in ("popart-loading", "popart-sdk1-loading"):
            self._close_poplar()
            draft = self._open(record, no, POPART)
            draft.begin, draft.result, draft.cache_file = stamp, "loaded", record.file
            assert record.file is not None
            if file_stem(record.file).isdigit():
                draft.hash = file_stem(record.file)
            in_cache_dir = self.cache_dir is not None and record.file.startswith(self.cache_dir.rstrip("/") + "/")
            if self.hash_matched or record.file in self.scanned or in_cache_dir or kind == "popart-sdk1-loading":
                draft.cache = "hit"
            self.hash_matched = False
            self._take_notes(draft)
        elif kind == "popart-returning":
            draft = self.current
            if draft is None or draft.framework != POPART or draft.result != "loaded" or not draft.open:
                draft = self._open(record, no, POPART, start_seen=False)  # no load line before it in the log
                draft.result = "loaded"
            self._close(draft, no, stamp)
        elif kind in ("popart-saving", "popart-sdk1-saving"):
            self._cache_write(record)
        elif kind == "popart-cache-created":
            self.cache, self.cache_created = "on", record.file or "?"

    def _take_notes(self, draft: Draft) -> None:
        draft.notes.extend(self.pending_notes)
        self.pending_notes.clear()

    def _cache_write(self, record: Record) -> None:
        """``Saving serialized Executablex to DIR/<hash>.popef`` after a compilation: the cache write (§8.9)."""
        assert record.file is not None
        draft = self._last_popart()
        stem = file_stem(record.file)
        cache_name = stem.isdigit() or record.kind == "popart-sdk1-saving"
        if draft is None or draft.cache_file is not None or not cache_name or draft.result not in (None, "compiled"):
            return
        draft.cache_file = record.file
        if stem.isdigit():
            draft.hash = stem
        draft.cache = "miss"

    def _poptorch(self, record: Record, no: int) -> None:
        if record.kind == "poptorch-script-timing":
            assert record.ms is not None
            latest = self.drafts[-1] if self.drafts else None
            bar = self.timings.bar
            # Other lines show what it timed: a compilation since the previous timing line, and after any bar.
            shown = latest is not None and latest.line > self.timings.previous_timing and \
                (bar is None or bar.line < latest.line)
            if latest is not None and shown:
                latest.notes.append(f"the script timed its compile or load at {record.ms / 1000:,.3f} s "
                                    f"('Compiled/Loaded model in' at line {no:,})")
            self.timings.script_timing(record.ms / 1000, no, shown)
        elif record.kind == "poptorch-no-cache":  # no cache in a distributed run, or the IPU model (no cache)
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
                self.open_names.clear()
                if draft is not None:  # a top-level phase's time is lost: the phase timings no longer add up
                    draft.phase_unknown = True
            if not self.stack:
                self._top_level_start(record, no)
            self.stack.append(Phase(record.name, no, stamp))
            self.open_names[record.name] = self.open_names.get(record.name, 0) + 1
        elif kind == "phase-end":
            self._phase_end(record, no)
        elif kind == "perf":
            assert record.name is not None
            self.perf[record.name] = record
        elif kind == "target-info" and draft is not None:
            ipus, tiles = record.numbers
            draft.target = CompileTarget(record.text, ipus, tiles)
        elif kind == "compile-finished" and not (self.stack and self.stack[0].name in LOAD_PHASES):
            if draft is None:  # the compilation's start is not in the log
                draft = self._open(record, no, POPLAR, start_seen=False)
            draft.finished_line = True
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
            # A compilation starts with graph construction; any other phase outside all others means the log
            # begins during a compilation (its start is not in the log).
            self._close_poplar()
            self._open(record, no, POPLAR, start_seen=name == GRAPH_CONSTRUCTION).begin = record.line.stamp

    def _phase_end(self, record: Record, no: int) -> None:
        assert record.name is not None
        at = next((i for i in range(len(self.stack) - 1, -1, -1) if self.stack[i].name == record.name), None) \
            if self.open_names.get(record.name) else None
        perf = self.perf.pop(record.name, None)
        rss = [(v, unit) for v, unit in ((record.rss, record.rss_unit),
                                         (perf.rss, perf.rss_unit) if perf is not None else (None, None))
               if v is not None]
        draft = self.current if self.current is not None and self.current.open else None
        ms = record.ms if record.ms is not None else perf.ms if perf is not None else None
        if at is None:  # its start is not in the log (cut out, or before the log began): its RSS still counts
            if record.name == LOAD and not self.stack and ms is not None:
                # A lone "Ending phase: Loading executable (duration 607 ms; ...)", as Graphcore's recompilation
                # note quotes it: a load of that length.
                self._close_poplar()
                self._load_phase_end(Phase(LOAD, no, record.line.stamp), ms, no)
            elif draft is not None and rss and not (self.stack and self.stack[0].name in LOAD_PHASES):
                keep_peak(draft, rss)
            return
        phase = self.stack[at]
        for gone in self.stack[at:]:
            self.open_names[gone.name] -= 1
        del self.stack[at:]
        if ms is None:
            seconds = seconds_between(phase.stamp, record.line.stamp)
            ms = None if seconds is None else seconds * 1000
        top = self.stack[0].name if self.stack else phase.name
        if top in LOAD_PHASES:
            if not self.stack:
                self._load_phase_end(phase, ms, no)
            return
        if draft is None:
            return
        if rss:
            keep_peak(draft, rss)
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

    def _load_phase_end(self, phase: Phase, ms: float | None, no: int) -> None:
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

    def bar(self, frame: BarFrame, no: int) -> None:
        """A frame of PopTorch's compilation bar."""
        self.timings.frame(frame, no)

    def finish(self) -> tuple[list[Compilation], list[ExecutableLoad]]:
        """The compilations and loads of this process, once its log has been read to the end."""
        self._close_poplar(at_end=True)
        found = [self._compilation(d) for d in self.drafts]
        shown = [(c.line, c.end_line or c.line) for c in found]
        found += self.timings.compilations(self.source, self.process, shown)
        if self.cache_created is not None:  # the cache was on and empty: whatever compiled was a miss
            note = f"PopART created the cache directory {self.cache_created!r}: the cache was on and empty (a miss)"
            found = [dataclasses.replace(c, cache="miss", notes=c.notes + (note,))
                     if c.cache is None and c.result in ("compiled", "precompiled") else c for c in found]
        return found, self.loads

    def _compilation(self, draft: Draft) -> Compilation:
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
        notes = list(draft.notes)
        if not draft.start_seen:
            notes.append("its start is not in the log (the log begins during it): its length is unknown")
        if not draft.end_seen:
            notes.append("its end is not in the log (the run stopped or failed during it, or the log ends there)")
        if result is not None and draft.start_seen and draft.end_seen:
            if draft.phases and not draft.phase_unknown:
                duration, source = round(draft.phase_ms / 1000, 3), "phase timings"
            else:
                seconds = seconds_between(draft.begin, draft.end)
                if seconds is not None:
                    duration, source = round(seconds, 6), "timestamps"
        return Compilation(
            source=draft.source, line=draft.line, end_line=draft.end_line, process=draft.process,
            framework=draft.framework, time=draft.stamp.iso if draft.stamp else None, module=draft.module,
            hash=draft.hash, executable_hash=draft.executable_hash, result=result, cache=cache,
            duration_s=duration, duration_from=source, peak_rss_mb=draft.peak_rss,
            tiles_overflowed=draft.tiles_overflowed, target=draft.target, cache_file=draft.cache_file,
            not_cacheable=draft.not_cacheable, notes=tuple(notes), start_in_log=draft.start_seen,
            end_in_log=draft.end_seen, peak_rss_unit=draft.peak_rss_unit)


# TensorFlow lines that come after Begin: without an open compilation, the log begins during one.
_TF_FRAGMENT = ("tf-end-xla", "tf-engine-begin", "tf-engine-end", "tf-loaded", "tf-skip", "tf-precompiled")

_HANDLERS = {
    "tf": Process._tensorflow,
    "popart": Process._popart,
    "poptorch": Process._poptorch,
    "phase": Process._poplar,
    "perf": Process._poplar,
    "target": Process._poplar,
    "compile": Process._poplar,
}
