"""A log as a sequence of programs: each compilation or cache load, and how it ended (issue #30).

``memreport LOG`` and ``memreport compiles LOG`` segment a log the same
way, with this module: the lines that begin and end a compilation
(docs/FORMATS.md §8.5, §8.7-§8.10) are fed to a :class:`Segmenter`, per
process (the launcher tag's rank), and the errors found around them are
given to the program they belong to. A program begins at the first line of
a compilation: PopTorch's bar when a new one starts (its frame at 0, or a
frame on a later line after a bar that reached its total: lines.new_bar),
PopART's ``Starting compilation``, TensorFlow's ``Begin XLA
compilation``, Poplar's top-level ``lowerProgsAndCompileGraph`` phase, a
cache load (``Loading serialized PopART executable``). A line of another
kind joins the compilation under way (PopTorch's bar, then PopART's and
Poplar's lines of the same compilation); a line of a kind the compilation
has already shown begins the next. It ends at the line that says so
(``Graph compiled``, ``End compiling Poplar engine``, ``Graph compilation
finished:``, the bar at 100/100, ``Returning CachedExecutable``).

Its outcome: "out of memory" when an out-of-memory error follows it in its
process before the next compilation starts (an error belongs to the last
compilation started before it, finished or not), or Poplar states tiles
overflowed; "failed" when another error (an uncaught C++ exception, a
Python traceback) comes while it runs; else what its end line says
(compiled, loaded from the cache, skipped), or "unfinished".

Only lines holding one of :data:`NEEDLES` matter, and of PopTorch's bar
only its frames at 0 and at the total (:func:`sift` drops the others at
byte level, so a log of a million bar frames costs a numpy pass): a
compilation's other frames change nothing here. A notebook's stream text
may hold a bar's last state alone (Jupyter applies ``\\r`` before saving):
read with ``all_frames``, every frame counts.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...model import (
    CompileTarget,
    FailedProgram,
    FilePrograms,
    OutOfMemoryMessage,
    oom_words,
)
from ...model.programs import MAX_FAILED
from .logtext import LogFile

if TYPE_CHECKING:  # imported when a line first marks a program: a log with none (most) never pays for it
    from .compile_log.lines import BarFrame, Record

# Every line that begins or ends a compilation holds one of these: "ompil" (compile/Compile: PopART's Starting
# compilation, Graph compiled, Not compiling engine; TensorFlow's Begin XLA compilation, End compiling Poplar
# engine, Skip engine compilation, Compiled cluster using XLA!, pre-compiled; Poplar's lowerProgsAndCompileGraph
# and Graph compilation finished; PopTorch's bar; a script's Compiled/Loaded model in), "xecutable" (PopART's
# cache loads), "_exec" and "xla_engine" (TensorFlow's cache files). Each needle costs the scan of every log a
# pass (two for "ompil"): Poplar's "Target info:" line is looked for only above a stated outcome (target_before).
NEEDLES = (b"ompil", b"xecutable", b"_exec", b"xla_engine")
TARGET_LINES = 20_000       # how far above a stated outcome its compilation's Target info line is looked for
TARGET_BYTES = 4 << 20      # ...within this much of the log
_AHEAD = 17  # bytes after "ompil" sift looks at: "ation:" (a bar) and its percentage, "ed", "ing", "er" (a path)
MAX_PROGRAMS = 100_000  # programs kept per log (more are counted)
LOWER_AND_COMPILE = "lowerProgsAndCompileGraph"

# Record kinds (compile_log.lines) that begin a program, with the kind of start each is, and those that end one.
_STARTS = {"popart-start": "popart", "tf-begin": "tf", "popart-loading": "load", "popart-sdk1-loading": "load",
           "popart-not-compiling": "popart"}
_ENDS = {"popart-compiled": "compiled", "tf-engine-end": "compiled", "tf-loaded": "loaded", "tf-skip": "skipped",
         "tf-precompiled": "precompiled", "compile-finished": "compiled", "popart-returning": "loaded",
         "popart-not-compiling": "skipped"}


def may_mark(text: str) -> bool:
    """Whether a line may begin or end a program (cheap: a few substring tests)."""
    return "ompil" in text or "xec" in text or "xla_engine" in text


def sift(window: np.ndarray, at: np.ndarray, all_frames: bool = False) -> np.ndarray:
    """A bool mask over the needle offsets ``at`` in ``window``: False for an "ompil" that cannot mark a
    program (a compiler's path, ``poplar_compiler.cc``; "compile time"; a bar frame between 0 and its total,
    unless ``all_frames``), True for every other offset. A few bytes are looked at per offset, all at once."""
    keep = np.ones(at.size, bool)
    index = np.flatnonzero((at + _AHEAD <= window.size) & (window.take(at, mode="clip") == _O))
    if not index.size:
        return keep
    ompil = at[index]  # the needle search found the whole needle there: only what follows it is looked at
    after, then = window[ompil + 5], window[ompil + 6]  # compil-ation, -ing, -ed, CompileGraph; never -er, -e
    drop = ~((after == _A) | (after == _I) | ((after == _E) & ((then == _D) | (then == _G))))
    if not all_frames:  # "Graph compilation: {percentage:3.0f}%|": only "  0%" and "100%" begin or end a program
        bar = (after == _A) & (window[ompil + 10] == _COLON) & (window[ompil + 15] == _PERCENT)
        hundreds, tens, ones = window[ompil + 12], window[ompil + 13], window[ompil + 14]
        zero = (hundreds == _SPACE) & (tens == _SPACE) & (ones == _ZERO)
        full = (hundreds == _ONE) & (tens == _ZERO) & (ones == _ZERO)
        drop |= bar & ~(zero | full)
    keep[index[drop]] = False
    return keep


_O, _A, _I, _E, _D, _G, _COLON, _PERCENT, _SPACE, _ZERO, _ONE = (ord(c) for c in "oaiedG:% 01")


@dataclass
class Program:
    """One program of a log while it is read: where it lies, what its lines and errors said."""

    index: int                  # 1-based, in order of first lines (0: past MAX_PROGRAMS, counted only)
    process: str                # the launcher rank ("1,0"), "" untagged
    line: int
    end_line: int
    starts: set[str] = field(default_factory=set)
    start_seen: bool = True
    ended: bool = False
    result: str | None = None   # compiled, loaded, skipped, precompiled; None: its lines say none (yet)
    bar: tuple[int, int] | None = None   # its bar's last frame kept: (n, total)
    timed: bool = False         # a script's Compiled/Loaded line timed it
    stated: int | None = None   # tiles overflowed, as Poplar's Graph compilation finished: states
    stated_line: int | None = None
    stated_offset: int | None = None
    stated_text: str | None = None
    target: CompileTarget | None = None
    messages: list[OutOfMemoryMessage] = field(default_factory=list)
    error: str | None = None    # another error that came while it ran
    error_line: int | None = None
    printed_oom: int = 0        # tiles out of memory a summary of it printed
    report: int | None = None   # the first memory report of the file that holds its error or summary

    @property
    def outcome(self) -> str:
        """How it ended (model.programs.PROGRAM_OUTCOMES)."""
        if any(m.tile_memory for m in self.messages) or self.stated or self.printed_oom:
            return "out of memory"
        if self.error is not None or self.messages:
            return "failed"
        if self.result is not None:
            return self.result
        return "ended" if self.ended and self.start_seen else "unfinished"

    @property
    def failure(self) -> OutOfMemoryMessage | str | None:
        """What its failure states: the out-of-memory message that says most (a tile and bytes first), or the
        error in a few words; None when it did not fail."""
        if self.outcome not in ("out of memory", "failed"):
            return None
        named = [m for m in self.messages if m.names_tile] or [m for m in self.messages if m.tile_memory] or \
            self.messages
        if named:
            return named[0]
        if self.stated:
            return f"{self.stated:,} tile(s) overflowed, as Poplar states"
        if self.printed_oom:
            return f"{self.printed_oom:,} tile(s) out of memory, as its summary printed"
        return self.error

    def failed(self, place: Callable[[int], str | None] | None = None) -> FailedProgram:
        """The record of it as a failed program (call only when it failed); ``place`` names a line's place in a
        notebook."""
        failure = self.failure
        message = failure if isinstance(failure, OutOfMemoryMessage) else None
        text = oom_words(message) if message is not None else str(failure)
        profile = next((m.saved_path for m in self.messages if m.saved_path), None)
        if message is not None:
            line: int | None = message.line
        else:
            line = self.stated_line if self.stated else self.error_line
        return FailedProgram(self.index, self.outcome, text, self.report, line,
                             place(line) if place is not None and line is not None else None, self.process or None,
                             message.tile if message else None, message.bytes_used if message else None,
                             message.bytes_per_tile if message else None, profile)


class Segmenter:
    """The programs of one log, per process, as its marking lines come in file order (see the module)."""

    def __init__(self, all_frames: bool = False) -> None:
        self.all_frames = all_frames
        self.programs: list[Program] = []
        self.count = 0
        self.current: dict[str, Program] = {}
        self.bars: dict[str, tuple[BarFrame, int]] = {}   # process -> its last bar frame kept, and its line
        self.timing: dict[str, int] = {}                  # process -> its last script timing line
        self.tf: set[str] = set()                         # processes whose TensorFlow VLOG lines show compiles

    # -- the lines --------------------------------------------------------------------------------------

    def line(self, text: str, no: int, offset: int | None = None) -> None:
        """A line that may mark a program (:func:`may_mark`): its bar frames, then its compile line (``offset``:
        where it starts in the log, kept for a stated outcome's look back)."""
        from .compile_log.lines import bar_frames, parse
        if "Graph compilation:" in text:
            for frame in bar_frames(text):
                self.frame(frame, no)
        record = parse(text)
        if record is not None:
            self.record(record, no)
            if record.kind == "compile-finished":
                self.current[record.line.process or ""].stated_offset = offset

    def frame(self, frame: BarFrame, no: int) -> None:
        """One frame of PopTorch's bar: a new bar begins a program, one reaching its total ends it."""
        from .compile_log.lines import new_bar
        if not self.all_frames and 0 < frame.n < frame.total:
            return
        process = frame.process or ""
        last = self.bars.get(process)
        self.bars[process] = (frame, no)
        if last is not None and not new_bar(last[0], last[1], frame, no):
            program = self.current.get(process)
            if program is not None and "bar" in program.starts:
                program.bar = (frame.n, frame.total)
                program.end_line = max(program.end_line, no)
                if frame.n >= frame.total:
                    self._end(program, no, "compiled")
            return
        program = self._start(process, no, "bar")
        program.bar = (frame.n, frame.total)
        if frame.n >= frame.total:
            self._end(program, no, "compiled")

    def record(self, record: Record, no: int) -> None:
        kind = record.kind
        process = record.line.process or ""
        if kind in _STARTS:
            if kind.startswith("tf-"):
                self.tf.add(process)
            program = self._start(process, no, _STARTS[kind])
            if kind in ("popart-loading", "popart-sdk1-loading"):
                program.result = "loaded"
            if kind in _ENDS:
                self._end(program, no, _ENDS[kind])
        elif kind in ("phase-start", "phase-end") and record.name == LOWER_AND_COMPILE:
            if kind == "phase-start":
                self._start(process, no, "poplar")
            else:
                self._end_or_new(process, no, "compiled")
        elif kind in _ENDS:
            program = self._end_or_new(process, no, _ENDS[kind])
            if kind == "compile-finished":
                program.stated, program.stated_line, program.stated_text = record.numbers[0], no, record.text
        elif kind == "tf-xla-cluster" and process not in self.tf:
            self._end(self._start(process, no, "xla-cluster"), no, "compiled")
        elif kind == "popart-load-failed":
            running = self.current.get(process)
            if running is not None and "load" in running.starts and not running.ended:
                running.result = None  # PopART compiles it instead
        elif kind == "poptorch-script-timing":
            self._script_timing(process, no)

    def _script_timing(self, process: str, no: int) -> None:
        """``Compiled/Loaded model in X secs``: it times the compilation since the previous such line (a bar's,
        or one other lines show); with none, it is a compilation or a cache load of its own (it says not which)."""
        program = self.current.get(process)
        previous = self.timing.get(process, 0)
        self.timing[process] = no
        if program is not None and program.line > previous and not program.timed:
            program.timed = True
            if not program.ended:
                self._end(program, no, "compiled")
            program.end_line = max(program.end_line, no)
            return
        program = self._start(process, no, "timing", force=True)
        program.timed, program.ended = True, True

    def _start(self, process: str, no: int, kind: str, force: bool = False) -> Program:
        """The program a start line of ``kind`` belongs to: the one under way unless it has ended or has shown
        this kind of start already; else a new one."""
        program = self.current.get(process)
        if force or program is None or program.ended or kind in program.starts:
            program = self._new(process, no)
        program.starts.add(kind)
        program.end_line = max(program.end_line, no)
        return program

    def _new(self, process: str, no: int, start_seen: bool = True) -> Program:
        self.count += 1
        program = Program(self.count if self.count <= MAX_PROGRAMS else 0, process, no, no, start_seen=start_seen)
        if program.index:
            self.programs.append(program)
        self.current[process] = program
        return program

    def _end(self, program: Program, no: int, result: str) -> None:
        program.ended = True
        program.result = result if program.result in (None, "compiled") or result != "compiled" else program.result
        program.end_line = max(program.end_line, no)

    def _end_or_new(self, process: str, no: int, result: str) -> Program:
        """The program an end line belongs to: the one under way, or one that ended the same way (Poplar's
        lines after PopTorch's bar reached 100); else a program whose start is not in the log."""
        program = self.current.get(process)
        if program is None or (program.ended and program.result != result):
            program = self._new(process, no, start_seen=False)
        self._end(program, no, result)
        return program

    # -- errors ---------------------------------------------------------------------------------------

    def last_started(self, process: str) -> Program | None:
        """The last program ``process`` started (the one an error at this point belongs to), if any."""
        return self.current.get(process)

    def oom(self, process: str, message: OutOfMemoryMessage) -> Program | None:
        """An out-of-memory message: its program's (kept once, however often it is printed)."""
        program = self.current.get(process)
        if program is not None:
            self.give(program, message)
        return program

    def give(self, program: Program, message: OutOfMemoryMessage) -> None:
        """An out-of-memory message that came before ``program``'s first line in view, and is its (the
        summary after the message is the program's)."""
        if not any(same_message(message, m) for m in program.messages[-8:]):
            program.messages.append(message)

    def error(self, process: str, no: int, text: str) -> Program | None:
        """Another error (an uncaught exception): the program under way fails; one that ended is untouched."""
        program = self.current.get(process)
        if program is None or program.ended:
            return None
        if program.error is None:
            program.error, program.error_line = text, no
        return program

    # -- the result -----------------------------------------------------------------------------------

    def file_programs(self, place: Callable[[int], str | None] | None = None) -> FilePrograms:
        """The record every report of the file carries (unit "compilation")."""
        failed = [p for p in self.programs if p.outcome in ("out of memory", "failed")]
        outcomes: dict[str, int] = {}
        for p in self.programs:
            outcomes[p.outcome] = outcomes.get(p.outcome, 0) + 1
        return FilePrograms(self.count, "compilation", tuple(p.failed(place) for p in failed[:MAX_FAILED]),
                            len(failed), tuple(sorted(outcomes.items())))


def target_before(log: LogFile, program: Program) -> CompileTarget | None:
    """The ``Target info:`` line of a program's process nearest above its stated outcome (Poplar prints it as
    the compilation lowers its programs, docs/FORMATS.md §8.8), within :data:`TARGET_LINES` lines; None when
    another compilation's outcome comes first or none is within reach."""
    if program.stated_offset is None or program.stated_line is None:
        return None
    from .compile_log.lines import parse
    above = log.lines_before(program.stated_offset, program.stated_line, max_lines=TARGET_LINES,
                             max_bytes=TARGET_BYTES)
    for ln in reversed(above):
        if "Target info" not in ln.text and "compilation finished" not in ln.text:
            continue
        record = parse(ln.text)
        if record is None or (record.line.process or "") != program.process:
            continue
        if record.kind == "compile-finished":
            return None
        if record.kind == "target-info":
            ipus, tiles = record.numbers
            return CompileTarget(record.text, ipus, tiles)
    return None


def same_message(a: OutOfMemoryMessage, b: OutOfMemoryMessage) -> bool:
    """The same message again (the line aside): logged by two loggers, raised, printed in a traceback."""
    return (a.kind, a.tile, a.bytes_used, a.bytes_per_tile, a.exchange, a.code_offset, a.stream_bytes,
            a.buffer_index, a.saved_path) == (b.kind, b.tile, b.bytes_used, b.bytes_per_tile, b.exchange,
                                              b.code_offset, b.stream_bytes, b.buffer_index, b.saved_path)
