"""Memory text inside a log of any size: every summary, wherever it is, and the out-of-memory messages.

A log is searched, never read whole (docs/FORMATS.md §8.14): one needle,
``emory``, is in every summary (``Memory Per-Tile``, ``Memory Usage``, ``tile(s)
out of memory``) and in every out-of-memory message, so
:meth:`~memreport.readers.text.logtext.LogFile.find` hands over only the lines
that hold it, at C speed. Around such a line a summary is read with the line
parser: back to its first heading (a bounded look back), then forward until
its lines stop, passing over the lines of other processes and streams
(another rank's tag, a logger line inside the summary). A document's prose,
rst markup or a few lines of log between two parts of one summary are
passed over too, when a part that can follow comes within
:data:`~.region.MAX_GAP_LINES` lines (:mod:`.region`). Memory is bounded by
the largest summary and time is linear in the file.

Out-of-memory messages belong to the summary that follows them in the same
process and program (PopART prints its ``getSummaryReport()`` after the
error); those after the last summary form a report of their own, which
holds nothing but them. The same pass feeds the lines that begin and end a
compilation to ..programs (the segmentation ``memreport compiles`` shares)
and the lines that begin and end a run to :mod:`.runs`; :mod:`.placing`
puts the reports in order with their programs.
"""
from __future__ import annotations

import dataclasses
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ....errors import ReadError
from ....model import MemoryReport, OutOfMemoryMessage
from .. import programs
from ..logtext import UNTAGGED, LogFile, LogLine
from ..programs import Program, Segmenter
from .demux import TagIndex
from .messages import Unread, find_messages
from .parser import heading_kind, summary_like
from .placing import Placed, place_reports
from .prefixes import Signature, literal_prefix, split_line
from .region import Region, read_region
from .report import MESSAGES_FORMAT, messages_report, summary_report
from .runs import NEEDLES as RUN_NEEDLES
from .runs import Runs, boundary_worth_reading, run_note
from .walk import Walk, walk_back

# Memory text; where runs begin and end (.runs); where programs begin and end (..programs).
NEEDLES = (b"emory", *RUN_NEEDLES, *programs.NEEDLES)
# Around the needle ("emory" at ``at``), what a line must hold to be read at all: the words of _START and of
# the messages (.messages). Looked at in the raw bytes, a few around the needle, so a log that often says
# "memory" for other reasons stays fast.
_AFTER = (b"Memory Usage", b"Memory Per-Tile", b"Memory per Replica", b"memory usage")
_BEFORE = (b"of ", b"Total ", b"total ", b"Max tile ")
_HOST_BUFFER = re.compile(rb"buffer \d+ $")


def worth_line(buf: bytearray, at: int) -> bool:
    """Whether the needle at ``buf[at]`` is worth its line: "emory" in memory text's words, a run's edge, or a
    line that may begin or end a program (the sift has turned away the bar frames and paths that cannot)."""
    if buf[at] == 0x65:
        return worth_reading(buf, at)
    return boundary_worth_reading(buf, at) or buf.startswith(programs.NEEDLES, at)


def worth_reading(buf: bytearray, at: int) -> bool:
    """Whether the "emory" at ``buf[at]`` is in a summary's or an out-of-memory message's words."""
    before = bytes(buf[max(0, at - 13):max(0, at - 1)])
    if before.endswith(_BEFORE) or _HOST_BUFFER.search(before):
        return True
    head = bytes(buf[at - 1:at + 17]) if at else b""
    if not head.startswith(_AFTER):
        return False
    return head[0] == 0x4D or before[-2:-1].isdigit()  # "Memory ...", or a tile's "N memory usage:"


def may_be_worth_reading(window: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Those of the "emory" offsets ``at`` in ``window`` that :func:`worth_reading` may keep, all at once.

    Every line it keeps has "M" before the needle, a digit three bytes
    before it, a space two before it after the last letter of "of",
    "Total" or "tile", or a line end two before it after a space (the
    host-buffer pattern's ``$`` matches before a line end): a log that says
    "memory" on every line is turned away here, in numpy, and only the rest
    is looked at one by one.
    """
    near = at[at >= 3]
    c1, c2, c3 = window[near - 1], window[near - 2], window[near - 3]
    digit = (c3 >= 0x30) & (c3 <= 0x39)
    after_word = (c2 == 0x20) & ((c3 == 0x66) | (c3 == 0x6C) | (c3 == 0x65))  # "of ", "otal ", "tile "
    host_buffer = (c2 == 0x0A) & (c3 == 0x20)
    other = window[near] != 0x65  # another needle than "emory" (.runs): worth_line looks at it
    return np.concatenate([at[at < 3], near[(c1 == 0x4D) | digit | after_word | host_buffer | other]])


def sifter(all_frames: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The scan's sift: the programs' (..programs.sift: most of a log's "ompil" go), then
    :func:`may_be_worth_reading`."""
    def sift(window: np.ndarray, at: np.ndarray) -> np.ndarray:
        return may_be_worth_reading(window, at[programs.sift(window, at, all_frames)])
    return sift


LOOKBACK_LINES = 400            # a summary's first heading is at most this far above its first "emory"
LOOKBACK_BYTES = 256 << 10      # ...within this much of the file (a tagged summary's: 400 of its own lines)
MAX_REPORTS = 1_000             # per file
MAX_MESSAGES = 1_000            # per report
MAX_REFUSED = 1_000             # lines remembered as not starting a summary

# A line that can belong only to a summary: where one is read from (case as Poplar prints it). A run of digits
# is tried from its start only (the lookbehind): from every digit it was quadratic on a line of digits.
_START = re.compile(r"(?:Memory Usage ?|Tile ?# ?[\d,]+ memory usage ?):\s*$|(?:Memory Per-Tile|Total Memory|"
                    r"Memory per Replica) ?:\s+[\d,.]+\s*[kMG]?B\s*$|(?<![\d,])[\d,]+ tile\(s\) out of memory\s*$|"
                    r"Max tile memory \(tile [\d,]+\) ?:")
_START_WORDS = re.compile(r"Memory|memory usage|tile\(s\) out|Max tile")
_CYCLES = re.compile(r"\s*Total cycles\s*:")
_MEMORY_OPTION = ("Poplar prints memory from the graph profile: set the engine option "
                  "autoReport.outputGraphProfile to true")
_LOOKED_FOR = ("a Poplar memory summary (Target, Memory Usage or By Tile sections), a 'Tile # N memory usage:' "
               "block or an out-of-memory message")


@dataclass
class _Found:
    """A report in the making: a summary or only messages, with the messages before it."""

    line: int
    region: Region | None
    messages: list[OutOfMemoryMessage] = field(default_factory=list)
    dropped: int = 0
    run: object = None  # the .runs run it belongs to
    program: Program | None = None  # the compilation it belongs to (..programs)


class LogScan:
    """One pass over a log, collecting its reports in file order, and its programs (:attr:`segmenter`).

    ``places`` names a line's place in a notebook (``cell 7 [4], line 12``);
    ``all_frames``: every frame of a compilation bar counts (a notebook's
    text keeps a bar's last state only, ..programs).
    """

    def __init__(self, log: LogFile, path: str, progress=None, *, places: Callable[[int], str | None] | None = None,
                 all_frames: bool = False) -> None:
        self.log, self.path, self.progress, self.places = log, path, progress, places
        self.utf16 = log.encoding != "utf-8"
        self.source_dir = os.path.dirname(os.path.abspath(path))
        self.consumed: dict[tuple, int] = {}  # (tag, logged) -> offset after the last summary line read
        self.pending: dict[str, _Found] = {}  # process -> messages waiting for the summary that follows
        self.found: list[_Found] = []
        self.target_only: int | None = None   # a Target section with no memory figures (for the error)
        self.last_body: dict[str, str] = {}   # process -> the text of its last line read for messages
        self.walked: dict[Signature, Walk] = {}  # signature -> the last look back from a line of it
        self.refused: set[str] = set()  # summary texts that cannot start a summary (read_region's None at once)
        self.runs = Runs(log)
        self.segmenter = Segmenter(all_frames)
        self.runs.on_failure = self.segmenter.error
        self.sift = sifter(all_frames)
        self.tags = TagIndex(log)  # tagged summaries' own lines, others' counted (ranks printing at once)
        self.cycles_only: int | None = None  # a summary's Execution part with no memory text (for the error)
        self.unread = Unread()  # out-of-memory messages not read (a number out of range): the first report's

    # -- the pass

    def run(self) -> list[MemoryReport]:
        """The file's reports (a ReadError when it holds none)."""
        reports = self.scan()
        if reports:
            return reports
        found = f" (a Target section at line {self.target_only:,} gives no memory figures)" \
            if self.target_only else f" ({self.unread.kept[0]})" if self.unread.kept else ""
        if self.cycles_only:
            raise ReadError(f"no memory information found: the summary at line {self.cycles_only:,} holds cycle "
                            f"counts, no memory figures (its Execution part only); {_MEMORY_OPTION}")
        if self.segmenter.count:
            what = f"{self.segmenter.count:,} compilation(s) or cache load(s)"
            raise ReadError(f"no memory information found{found}: the log holds compile lines only ({what}), no "
                            f"memory summary, out-of-memory message or stated outcome (Poplar's 'Graph compilation "
                            f"finished:'); `memreport compiles {_quoted(self.path)}` lists its compilations")
        raise ReadError(f"no memory information found{found}: looked for {_LOOKED_FOR}")

    def scan(self) -> list[MemoryReport]:
        """The file's reports, in file order (none: an empty list), each knowing its program."""
        for hit in self.log.find(NEEDLES, progress=self.progress, keep=worth_line, sift=self.sift):
            if programs.may_mark(hit.text):
                self.segmenter.line(hit.text, hit.no, hit.offset)
            line = split_line(hit.text)
            if self.runs.take(hit, line.tag.process, line.body):
                self.last_body.pop(line.tag.process, None)  # the same message in the next run is news
                continue
            if _CYCLES.match(line.body):
                self.cycles_only = self.cycles_only or hit.no
                continue
            key = (line.tag, line.logged)
            if hit.offset < self.consumed.get(key, 0):
                continue
            body = line.body
            start = _START.search(body) if _START_WORDS.search(body) else None
            literal = literal_prefix(body[:start.start()]) if start else None
            if start is not None and literal is not None:
                signature = Signature(line.tag, line.logged, literal)
                region = self._region_at(hit, signature, body[len(literal):])
                if region is not None:
                    self._add_summary(region, line.tag.process)
                    continue
            if "emory" not in body or body == self.last_body.get(line.tag.process):
                continue  # no message, or the same message again (a loop, a retry, PopART's second logger)
            self.last_body[line.tag.process] = body
            for message in find_messages(body, hit.no, self.source_dir, self.unread):
                self._add_message(line.tag.process, message)
        self.found.extend(f for f in self.pending.values() if f.messages)
        self.pending.clear()
        return self._reports()

    def _add_summary(self, region: Region, process: str) -> None:
        self.last_body.pop(process, None)  # a message repeated after a summary is news: another compile's
        run = self.runs.at(region.first, process, summary=True)
        program = self.segmenter.last_started(process)
        waiting = self.pending.pop(process, None)
        if waiting is not None and (waiting.run is not run or
                                    waiting.program not in (program, None)):
            self.found.append(waiting)  # another program's messages: a report of their own
            waiting = None
        found = _Found(region.first, region, run=run, program=program)
        if waiting is not None:
            found.messages, found.dropped = waiting.messages, waiting.dropped
            if waiting.program is None and program is not None:  # before any compilation's first line in view:
                for message in waiting.messages:                 # the one whose summary follows (its start
                    self.segmenter.give(program, message)        # not in the log, a bar seen at its total)
        self.found.append(found)
        self._check_count()
        self._consume(region)

    def _consume(self, region: Region) -> None:
        key = (region.signature.tag, region.signature.logged)
        self.consumed[key] = max(self.consumed.get(key, 0), region.end)

    def _add_message(self, process: str, message: OutOfMemoryMessage) -> None:
        if self.places is not None:
            message = dataclasses.replace(message, place=self.places(message.line))
        run = self.runs.at(message.line, process, summary=False)
        program = self.segmenter.oom(process, message)
        found = self.pending.get(process)
        if found is not None and (found.run is not run or found.program is not program):
            self.found.append(self.pending.pop(process))  # each program's messages are its own report
            found = None
        if found is None:
            found = self.pending[process] = _Found(message.line, None, run=run, program=program)
            self._check_count()
        if any(programs.same_message(message, m) for m in found.messages[-8:]):  # logged, raised, printed
            return
        if len(found.messages) >= MAX_MESSAGES:
            found.dropped += 1
            return
        found.messages.append(message)

    def _check_count(self) -> None:
        if len(self.found) + len(self.pending) > MAX_REPORTS:
            raise ReadError(f"more than {MAX_REPORTS:,} memory reports in one file: split it")

    def _reports(self) -> list[MemoryReport]:
        """The reports in file order, each with its position (its first line, its place among them, its run and
        program, the file's programs)."""
        self.found.sort(key=lambda f: f.line)
        placed: list[Placed] = []
        log_note = None if self.segmenter.count else self.runs.note()  # compilations are the programs then
        for k, found in enumerate(self.found):
            notes = [f"{found.dropped:,} more out-of-memory message(s) were not kept (at most {MAX_MESSAGES:,})"] \
                if found.dropped else []
            run = self.runs.describe(found.run) if found.run is not None else None  # type: ignore[arg-type]
            if run is not None:
                notes.append(run_note(run, self.places))
            if k == 0:
                notes += [log_note, *self.unread.notes()] if log_note else self.unread.notes()
            if found.region is None:
                placed.append(Placed(found.line, messages_report(found.messages, self.path, notes), found.run,
                                     found.program, run))
                continue
            for report in summary_report(found.region.summary, self.path, messages=found.messages,
                                         extra_notes=notes):
                first = report.oom_messages[0].line if report.format == MESSAGES_FORMAT else found.line
                placed.append(Placed(first, report, found.run, found.program, run))
        return place_reports(placed, self.log, self.path, self.segmenter, self.runs, self.places)

    # -- one summary

    def _region_at(self, hit: LogLine, signature: Signature, content: str) -> Region | None:
        """The summary holding the line ``hit`` (whose summary text is ``content``), or None if it is not one."""
        key = (signature.tag, signature.logged)
        start, first = self._first_line(hit, signature, content, self.consumed.get(key, self.log.start))
        if start is hit and content in self.refused:
            return None  # the same line again: refused again
        region = read_region(self.log, start, first, signature, self.utf16, tags=self.tags)
        if region is None and start is hit:
            if len(self.refused) >= MAX_REFUSED:
                self.refused.clear()
            self.refused.add(content)
        if region is None or region.summary.has_figures():
            return region
        self._consume(region)  # not a summary, and not to be read again for its next line
        if region.summary.target is not None and self.target_only is None:
            self.target_only = region.first
        return None

    def _first_line(self, hit: LogLine, signature: Signature, content: str, floor: int) -> tuple[LogLine, str]:
        """Looking back from ``hit``: the summary's first heading, and its summary text.

        The window grows only while every line in it may be part of the
        summary, so a line that merely looks like a summary's costs a few KB.
        The look back from the previous such line of this signature is
        remembered: a look back that reaches that line unstopped ends there
        (lines that look like a summary's but never make one, repeated, cost
        one look back each, not one per line; issue #26).
        """
        previous = self.walked.get(signature)
        if previous is not None and previous.hit.offset >= floor and previous.start.offset >= floor:
            if previous.hit.no == hit.no - 1 and summary_like(previous.content.strip()):  # no line between
                if previous.start is previous.hit and heading_kind(previous.content.strip()) is None:
                    start, first = hit, content
                else:
                    start, first = previous.start, previous.first
                self.walked[signature] = Walk(hit, content, start, first)
                return start, first
            floor = previous.hit.offset
        else:
            previous = None
        window = 2 << 10
        while True:
            before, count, top = self._before(hit, signature, floor, window)
            start, first, stopped = walk_back(before, hit, signature, content)
            reached = (count and top <= floor) or (not count and hit.offset - window <= floor)
            if stopped or window >= LOOKBACK_BYTES or count >= LOOKBACK_LINES or reached:
                break
            window *= 8
        if previous is not None and not stopped and count and top == previous.hit.offset and \
                previous.start.offset < previous.hit.offset:
            start, first = previous.start, previous.first  # a heading above the previous line, all lines between
        self.walked[signature] = Walk(hit, content, start, first)
        return start, first

    def _before(self, hit: LogLine, signature: Signature, floor: int, window: int) -> tuple[list[LogLine], int, int]:
        """The lines in ``window`` bytes above ``hit`` that may be its summary's, how many count against
        :data:`LOOKBACK_LINES`, and where the window's first line starts.

        A tagged summary's are the last LOOKBACK_LINES lines of its tag within
        LOOKBACK_BYTES of the file (others' skipped by the index): a rank's
        look back is as long as when it printed alone, whatever the other
        ranks printed in between (issue #26), and still bounded in the file.
        """
        tags = None if signature.tag == UNTAGGED else self.tags
        got = None if tags is None else \
            tags.before(hit, signature.tag, floor, LOOKBACK_LINES, min(window, LOOKBACK_BYTES), LOOKBACK_BYTES)
        if got is not None:
            return got
        before = self.log.lines_before(hit.offset, hit.no, floor=floor, max_lines=LOOKBACK_LINES, max_bytes=window)
        return before, len(before), before[0].offset if before else -1


def _quoted(path: str) -> str:
    """A path as a shell takes it (quoted when it holds anything but safe characters)."""
    return path if re.fullmatch(r"[\w@%+=:,./-]+", path) else shlex.quote(path)
