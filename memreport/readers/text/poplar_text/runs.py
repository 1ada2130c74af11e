"""A log is a sequence of programs: where one ends and the next begins (docs/FORMATS.md §8, issue #23).

A shell loop or a sweep script runs one program after another into one log;
``poprun`` interleaves ranks, each a process of its own (its launcher tag).
Per process, a run begins at its first line of interest or at a launch line
once the run before has begun for real, and a run ends at an uncaught error:
a C++ ``terminate called after throwing an instance of '...'`` (then its
``what():`` line: the process is gone) or a Python traceback (through its
final error line). After a traceback the same process may still print a
summary (``traceback.print_exc()``, then PopART's ``getSummaryReport()``):
that summary stays in the failed run; anything else after it is a new run.

Launch lines, and what each proves (the frameworks' sources):

- banners, printed before a program compiles: TensorFlow's ``Poplar version:
  X (hash) Poplar package: Y`` (poplar_platform.cc, once per process),
  PopART's ``Popart version: X`` (each ``Session``) and ``Poplar version: X``
  (each ``Devicex::prepare``), Poplar's engine's ``Poplar version X (hash)``
  (``PO:ENGINE``, each compilation: its own kind, as it follows the others
  in one process), a Poplar program's own ``Poplar version X``.
  After memory text, or seen already in the run, a banner begins a new run;
- attach lines: a benchmark's ``Trying to attach to IPU 0 - attached`` or
  ``Trying to attach to IPU`` then ``Attached to IPU 0`` (a try that fails is
  no launch), TensorFlow's ``TensorFlow device /device:IPU:0 attached to 1
  IPU with Poplar device ID: 0`` (each device once per process). A successful
  attach seen already in the run (for TensorFlow: the same device) begins a
  new run, and so does one after an out-of-memory message (a program whose
  compilation failed attaches no more); after a summary alone it does not:
  TensorFlow attaches when the program first runs, after its compilation
  printed its summary;
- poprun's ``POPRUN [I] Running command: .../mpirun ... '-x'
  'POPDIST_NUM_IPUS_PER_REPLICA=4' ...``: every rank is launched anew, so
  every process's run has ended (the tags repeat).

Decided: a launch line never splits one process's program where the log can
tell it is one. A PopART script that builds a second session prints its
version lines again in the same process: when their logger headers carry a
process id (``popart:devicex 79.79 I:``, ``09:38:52.878 15288 PO:ENGINE``),
the same id continues the run (unless an error ended it) and another id
begins one, whatever else came before; without ids the rules above decide
(a sweep's programs print none). Process ids are reused across containers
(a program in its own container may be pid 1 each time): runs of such
programs that print ids are told apart by their errors only. A compilation's start (``Starting phase``, ``Begin XLA
compilation``, ``Compiling``) is not a launch: one process compiles many
graphs (TensorFlow one per cluster, PopART one per session).

Only the lines the scan's needles find are looked at, plus the lines
after an error's first line to find where the error ends (its own
process's lines, read once for all errors: :mod:`.error_ends`).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ....model import LogRun
from ..logtext import LogFile, LogLine
from .error_ends import TERMINATE, TRACEBACK, ErrorEnds, opens_traceback

CYCLES = b"Total cycles"  # an execution summary's first figure (the scan names a summary of cycles only)
# The launch needles share the anchors "IPU" and " ve" (the needle search compares the text's 16-bit words once
# per word its anchors need: a needle with an anchor of its own costs a pass over every byte, +10 % on a plain log).
# poprun's launch line is found by what it passes every rank, POPDIST_NUM_IPUS_PER_REPLICA, not by its words.
POPRUN_NEEDLE = b"POPDIST_NUM_IPUS_PER_REPLICA"
NEEDLES = (CYCLES, b"Poplar version", b"Popart version", b"Trying to attach to IPU", b"Attached to IPU",
           b"TensorFlow device /device:IPU", POPRUN_NEEDLE, b"terminate called after throwing",
           b"Traceback (most recent call last)")
_LAUNCH = re.compile(r"(?P<kind>Poplar version|Popart version|Trying to attach to IPU|^Attached to IPU"
                     r"|^TensorFlow device (?P<device>\S+) attached to|^Running command: )")
_BANNERS = ("Poplar version", "Poplar version:", "Popart version")
_POPRUN = re.compile(r"\d\d:\d\d:\d\d\.\d{3} \d+ POPRUN +\[I\] Running command: ")
# The process id in a logger header: SDK 2.3+ ``...Z popart:devicex 79.79 I: `` (pid.tid), old style
# ``09:38:52.878 15288 PO:ENGINE   [I] `` (docs/FORMATS.md §8.4).
_PID = re.compile(r"\d\dZ \S+ +(?P<new>\d+)\.\d+ [TDIWEC]: |\d\d\.\d{3} (?P<old>\d+) \S+ +\[[TDIWEC]\] ")
MAX_RUNS = 100_000      # runs kept per log (more are counted)
MAX_SHOWN = 20          # failed runs named in the log's note


def boundary_worth_reading(buf: bytearray, at: int) -> bool:
    """Whether a needle at ``buf[at]`` is one of :data:`NEEDLES` (the scan's other needle has its own test)."""
    return buf.startswith((b"Poplar v", b"Popart v", b"Trying t", b"Attached", b"TensorFlow d", POPRUN_NEEDLE,
                           b"terminate", b"Traceback", CYCLES), at)


@dataclass
class _Run:
    process: str
    first: int
    last: int
    launches: set[str] = field(default_factory=set)
    pid: str | None = None          # the process id its launch lines' logger headers show
    content: bool = False           # memory text seen in it
    oom: bool = False               # ... an out-of-memory message among it
    failure: str | None = None      # what ended it
    failure_line: int | None = None  # ... its first line
    closes_at: int | None = None    # the error's last line
    dead: bool = False              # ended by a C++ abort: nothing more can come from it
    index: int = 0                  # 1-based, in file order (0: past MAX_RUNS, counted only)


class Runs:
    """The runs of one log, per process, as its lines of interest come (in file order)."""

    def __init__(self, log: LogFile) -> None:
        self.log = log
        self.ends = ErrorEnds(log)
        self.on_failure: Callable[[str, int, str], object] | None = None  # told of every error (its program's)
        self.kept: list[_Run] = []
        self.count = 0
        self.failed = 0
        self.current: dict[str, _Run] = {}

    def _new(self, process: str, no: int) -> _Run:
        self.count += 1
        run = _Run(process, no, no, index=self.count if self.count <= MAX_RUNS else 0)
        if run.index:
            self.kept.append(run)
        self.current[process] = run
        return run

    def _ended(self, run: _Run, no: int) -> bool:
        return run.failure is not None and run.closes_at is not None and no > run.closes_at

    def take(self, hit: LogLine, process: str, body: str) -> bool:
        """Note a line that begins or ends a run; False when it is neither (a line of memory text, perhaps)."""
        if "Tr" in body or "version" in body or "ttached to" in body or "Running c" in body:
            launch = _LAUNCH.search(body)
            if launch is not None and not body.startswith(TRACEBACK):
                self._launch(hit, process, launch, body)
                return True
        if opens_traceback(body):
            self._fail(hit, process, None)
            return True
        terminate = TERMINATE.search(body) if "terminate called" in body else None
        if terminate is not None:
            self._fail(hit, process, terminate["type"])
            return True
        return False

    def _launch(self, hit: LogLine, process: str, launch: re.Match, body: str) -> None:
        """A launch line (see the module's notes for what each kind proves)."""
        kind, no = launch["kind"], hit.no
        if kind == "Running command: ":
            if _POPRUN.search(hit.text):  # poprun launches every rank anew: each process's run has ended
                self.current.clear()
            return
        succeeded = True
        if kind == "Poplar version" and body.startswith(":", launch.end()):
            kind = "Poplar version:"  # TensorFlow's or PopART's; Poplar's engine prints no colon, at each compile
        elif kind.endswith("attached to"):
            kind = f"attach {launch['device']}"
        elif "ttach" in kind:
            kind, succeeded = "attach", kind == "Attached to IPU" or "attached" in body
        pid_match = _PID.search(hit.text) if kind in _BANNERS else None
        pid = (pid_match["new"] or pid_match["old"]) if pid_match else None
        run = self.current.get(process)
        if run is None or self._ended(run, no) or run.dead or run.failure is not None:
            run = self._new(process, no)
        elif pid is not None and run.pid is not None:
            if pid != run.pid:  # another process
                run = self._new(process, no)
        elif kind in run.launches or run.oom or (run.content and kind in _BANNERS):
            run = self._new(process, no)
        if succeeded:
            run.launches.add(kind)
        run.pid = pid or run.pid
        run.last = max(run.last, no)

    def _fail(self, hit: LogLine, process: str, thrown: str | None) -> _Run:
        run = self.current.get(process)
        if run is None or self._ended(run, hit.no) or run.dead:
            run = self._new(process, hit.no)
        end, text = self.ends.end_of(hit, thrown)
        if run.failure is None:
            self.failed += 1
            run.failure_line = hit.no
        run.failure, run.closes_at, run.dead = text, end, thrown is not None
        run.last = max(run.last, end)
        if self.on_failure is not None:
            self.on_failure(process, hit.no, text)
        return run

    def at(self, no: int, process: str, summary: bool) -> _Run:
        """The run memory text at line ``no`` of ``process`` belongs to (a new one after a run that ended)."""
        run = self.current.get(process)
        if run is None or (self._ended(run, no) and (run.dead or not summary)):
            run = self._new(process, no)
        run.content = True
        run.oom = run.oom or not summary
        run.last = max(run.last, no)
        return run

    def describe(self, run: _Run) -> LogRun | None:
        """The run as the model holds it; None when the log is one run (nothing to tell apart)."""
        if run.index == 0 or self.count <= 1:
            return None
        return LogRun(index=run.index, count=self.count, first_line=run.first, last_line=run.last,
                      process=run.process or None, failure=run.failure)

    def note(self) -> str | None:
        """The log's runs in one sentence (None for one run)."""
        if self.count <= 1:
            return None
        failed = [r.index for r in self.kept if r.failure is not None]
        shown = ", ".join(str(k) for k in failed[:MAX_SHOWN]) + (", ..." if len(failed) > MAX_SHOWN else "")
        ranks = {r.process for r in self.kept if r.process}
        across = f" across {len(ranks):,} launcher-tagged processes" if len(ranks) > 1 else ""
        failures = f"; {self.failed:,} failed: run(s) {shown}" if self.failed else "; none failed"
        return f"the log holds {self.count:,} runs (programs){across}{failures}"


def run_note(run: LogRun, places: Callable[[int], str | None] | None = None) -> str:
    """Which run of its log a report comes from, and how that run ended (``places``: a notebook's places)."""
    process = f", rank {run.process}" if run.process else ""
    ended = f"it failed: {run.failure}" if run.failure else "no error seen in it"
    return f"run {run.index:,} of {run.count:,} in the log ({span(run.first_line, run.last_line, places)}{process}): " \
        f"{ended}"


def span(first: int, last: int, places: Callable[[int], str | None] | None = None) -> str:
    """Lines ``first`` to ``last`` in words: ``lines 3-9``, or in a notebook ``cell 5 [3], lines 4-17``."""
    if places is not None:
        start, end = places(first), places(last)
        if start is not None and end is not None:
            if first == last:
                return start
            cell, _, line = start.rpartition(", line ")
            other, _, last_line = end.rpartition(", line ")
            return f"{cell}, lines {line}-{last_line}" if cell == other else f"{start} to {end}"
    return f"line {first:,}" if first == last else f"lines {first:,}-{last:,}"
