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
:data:`MAX_GAP_LINES` lines. Memory is bounded by the largest summary and
time is linear in the file.

Out-of-memory messages belong to the summary that follows them in the same
process (PopART prints its ``getSummaryReport()`` after the error); those
after the last summary form a report of their own, which holds nothing but
them.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ....errors import ReadError, Truncated
from ....model import MemoryReport, OutOfMemoryMessage, ReportPosition
from ..logtext import UNTAGGED, LogFile, LogLine
from .demux import Passed, TagIndex
from .messages import Unread, find_messages
from .parser import Parser, heading_kind, summary_like
from .prefixes import Signature, literal_prefix, split_line
from .report import MESSAGES_FORMAT, messages_report, summary_report
from .runs import NEEDLES as RUN_NEEDLES
from .runs import Runs, boundary_worth_reading, run_note
from .summary import Summary
from .values import ELISION, Line
from .walk import Walk, walk_back

NEEDLES = (b"emory", *RUN_NEEDLES)  # memory text; where runs begin and end (.runs)
# Around the needle ("emory" at ``at``), what a line must hold to be read at all: the words of _START and of
# the messages (.messages). Looked at in the raw bytes, a few around the needle, so a log that often says
# "memory" for other reasons stays fast.
_AFTER = (b"Memory Usage", b"Memory Per-Tile", b"Memory per Replica", b"memory usage")
_BEFORE = (b"of ", b"Total ", b"total ", b"Max tile ")
_HOST_BUFFER = re.compile(rb"buffer \d+ $")


def worth_line(buf: bytearray, at: int) -> bool:
    """Whether the needle at ``buf[at]`` is worth its line: "emory" in memory text's words, or a run's edge."""
    return worth_reading(buf, at) if buf[at] == 0x65 else boundary_worth_reading(buf, at)


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


LOOKBACK_LINES = 400            # a summary's first heading is at most this far above its first "emory"
LOOKBACK_BYTES = 256 << 10      # ...within this much of the file (a tagged summary's: 400 of its own lines)
MAX_GAP_LINES = 40              # prose or log lines between two parts of one summary
MAX_BLANK_RUN = 40              # blank or elided lines in a row before a summary counts as paused
MAX_FOREIGN_LINES = 20_000      # lines of other processes or streams passed over after a summary's last line
# ...but no more than this many, plus FOREIGN_PER_RUN times the widest run of them between two of the summary's
# own lines: after the last rank's summary, the other ranks' summaries are not read again for each (issue #26).
FOREIGN_SLACK = 256
FOREIGN_PER_RUN = 4
MAX_SUMMARY_LINES = 250_000     # no summary Poplar prints is this long
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
class Region:
    """One summary read from a log: what it printed, where it lies, what its lines share."""

    summary: Summary
    signature: Signature
    first: int             # line number of its first line
    end: int               # offset of the line after its last line
    ended_by: LogLine | None = None    # the line that ended it (None: the file's end)
    next_start: LogLine | None = None  # a heading there that starts another summary


@dataclass
class _Found:
    """A report in the making: a summary or only messages, with the messages before it."""

    line: int
    region: Region | None
    messages: list[OutOfMemoryMessage] = field(default_factory=list)
    dropped: int = 0
    run: object = None  # the .runs run it belongs to


def content_line(ln: LogLine, content: str, utf16: bool) -> Line:
    """The parser's view of a summary line: indentation (tabs expanded) and text; binary refused."""
    bad = "\ufffd" if "\ufffd" in content else "\x00" if "\x00" in content else None
    if bad is not None:
        at = ln.text.find(bad)
        offset = None if utf16 or at < 0 else ln.offset + len(ln.text[:at].encode("utf-8"))
        what = "not UTF-8 text" if bad == "\ufffd" else "binary data (a NUL byte) in a text report"
        raise ReadError(what, line=ln.no, offset=offset)
    expanded = content.expandtabs(8)
    body = expanded.lstrip()
    return Line(ln.no, len(expanded) - len(body), body.rstrip())


class LogScan:
    """One pass over a log, collecting its reports in file order."""

    def __init__(self, log: LogFile, path: str, progress=None) -> None:
        self.log, self.path, self.progress = log, path, progress
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
        self.tags = TagIndex(log)  # tagged summaries' own lines, others' counted (ranks printing at once)
        self.cycles_only: int | None = None  # a summary's Execution part with no memory text (for the error)
        self.unread = Unread()  # out-of-memory messages not read (a number out of range): the first report's

    # -- the pass

    def run(self) -> list[MemoryReport]:
        for hit in self.log.find(NEEDLES, progress=self.progress, keep=worth_line, sift=may_be_worth_reading):
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
            if body == self.last_body.get(line.tag.process):
                continue  # the same message again (a loop, a retry): nothing new
            self.last_body[line.tag.process] = body
            for message in find_messages(body, hit.no, self.source_dir, self.unread):
                self._add_message(line.tag.process, message)
        self.found.extend(f for f in self.pending.values() if f.messages)
        if not self.found:
            found = f" (a Target section at line {self.target_only:,} gives no memory figures)" \
                if self.target_only else f" ({self.unread.kept[0]})" if self.unread.kept else ""
            if self.cycles_only:
                raise ReadError(f"no memory information found: the summary at line {self.cycles_only:,} holds cycle "
                                f"counts, no memory figures (its Execution part only); {_MEMORY_OPTION}")
            raise ReadError(f"no memory information found{found}: looked for {_LOOKED_FOR}")
        return self._reports()

    def _add_summary(self, region: Region, process: str) -> None:
        self.last_body.pop(process, None)  # a message repeated after a summary is news: another compile's
        run = self.runs.at(region.first, process, summary=True)
        waiting = self.pending.pop(process, None)
        if waiting is not None and waiting.run is not run:  # another program's messages: a report of their own
            self.found.append(waiting)
            waiting = None
        found = _Found(region.first, region, run=run)
        if waiting is not None:
            found.messages, found.dropped = waiting.messages, waiting.dropped
        self.found.append(found)
        self._check_count()
        self._consume(region)

    def _consume(self, region: Region) -> None:
        key = (region.signature.tag, region.signature.logged)
        self.consumed[key] = max(self.consumed.get(key, 0), region.end)

    def _add_message(self, process: str, message: OutOfMemoryMessage) -> None:
        run = self.runs.at(message.line, process, summary=False)
        found = self.pending.get(process)
        if found is not None and found.run is not run:  # each program's messages are its own report
            self.found.append(self.pending.pop(process))
            found = None
        if found is None:
            found = self.pending[process] = _Found(message.line, None, run=run)
            self._check_count()
        if any(_same(message, m) for m in found.messages[-8:]):  # a message logged, then raised, then printed
            return
        if len(found.messages) >= MAX_MESSAGES:
            found.dropped += 1
            return
        found.messages.append(message)

    def _check_count(self) -> None:
        if len(self.found) + len(self.pending) > MAX_REPORTS:
            raise ReadError(f"more than {MAX_REPORTS:,} memory reports in one file: split it")

    def _reports(self) -> list[MemoryReport]:
        """The reports in file order, each with its position (its first line, its place among them)."""
        self.found.sort(key=lambda f: f.line)
        placed: list[tuple[int, MemoryReport]] = []
        log_note = self.runs.note()
        for k, found in enumerate(self.found):
            notes = [f"{found.dropped:,} more out-of-memory message(s) were not kept (at most {MAX_MESSAGES:,})"] \
                if found.dropped else []
            run = self.runs.describe(found.run) if found.run is not None else None  # type: ignore[arg-type]
            if run is not None:
                notes.append(run_note(run))
            if k == 0:
                notes += [log_note, *self.unread.notes()] if log_note else self.unread.notes()
            at = None if run is None else ReportPosition(found.line, 1, 1, run)
            if found.region is None:
                placed.append((found.line, messages_report(found.messages, self.path, notes).evolve(position=at)))
                continue
            for report in summary_report(found.region.summary, self.path, messages=found.messages,
                                         extra_notes=notes):
                first = report.oom_messages[0].line if report.format == MESSAGES_FORMAT else found.line
                placed.append((first, report.evolve(position=at)))
        return positioned(placed)

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


def _same(a: OutOfMemoryMessage, b: OutOfMemoryMessage) -> bool:
    """The same message again (the line number aside)."""
    return (a.kind, a.tile, a.bytes_used, a.bytes_per_tile, a.exchange, a.code_offset, a.stream_bytes,
            a.buffer_index, a.saved_path) == (b.kind, b.tile, b.bytes_used, b.bytes_per_tile, b.exchange,
                                              b.code_offset, b.stream_bytes, b.buffer_index, b.saved_path)


def read_region(log: LogFile, start: LogLine, first: str, signature: Signature, utf16: bool,
                stop: re.Pattern[str] | None = None, tags: TagIndex | None = None) -> Region | None:
    """Read one summary from ``start`` (whose summary text is ``first``) until its lines stop.

    Lines of another signature are passed over. A line the summary cannot
    take pauses it: it resumes if a part that can follow comes within
    :data:`MAX_GAP_LINES` lines, and ends otherwise (or at a part that starts
    another summary). ``stop`` matches a line that ends it whatever follows
    (a ``.rep`` event rule). None when ``start`` does not begin a summary.
    ``tags`` gives a tagged summary's own lines and counts the others' (.demux).
    """
    parser = Parser()
    provisional = True   # the first line may carry a header the others lack
    gap: int | None = None
    blanks = foreign = widest = 0
    last: LogLine | None = None
    end: int | None = None
    ended_by: LogLine | None = None
    next_start: LogLine | None = None
    demux = tags is not None and stop is None and signature.tag != UNTAGGED
    lines = tags.lines(start, signature.tag) if demux else log.lines(start.offset, start.no)  # type: ignore[union-attr]
    for ln in _limited(lines, start, parser):
        if last is not None and end is None:
            end = ln.offset
        if isinstance(ln, Passed):  # other processes' lines, as many as one by one below
            budget = MAX_FOREIGN_LINES if last is None else \
                min(MAX_FOREIGN_LINES, FOREIGN_SLACK + FOREIGN_PER_RUN * widest)
            if foreign + ln.count > budget:
                ended_by = ended_by or tags.line(ln.no + max(0, budget - foreign))  # type: ignore[union-attr]
                break
            foreign += ln.count
            continue
        if stop is not None and ln.no != start.no and stop.fullmatch(ln.text):
            ended_by = ended_by or ln
            break
        if ln.no == start.no:
            content: str | None = first
        else:
            content = signature.content(ln.text)
            if provisional:
                if content is None:
                    bare = signature.bare().content(ln.text)
                    if bare is not None and bare.strip():
                        signature, content = signature.bare(), bare
                if content is not None and content.strip():
                    provisional = False
        if content is None:
            foreign += 1
            if foreign > MAX_FOREIGN_LINES or \
                    (last is not None and foreign > FOREIGN_SLACK + FOREIGN_PER_RUN * widest):
                ended_by = ended_by or ln
                break
            continue
        widest = max(widest, foreign)
        if gap is not None and ("\ufffd" in content or "\x00" in content):
            content = ""  # undecodable text between two parts of a summary: passed over like any other
        elif content and not content.strip("\x00"):
            content = ""  # a run of NULs (a log's zero-filled tail after a crash) holds nothing
            if gap is None and last is not None:
                gap, ended_by = 0, ln
        transcoded = utf16 or (log.utf16_from is not None and ln.offset >= log.utf16_from)  # offsets not the file's
        line = content_line(ln, content, transcoded)
        if gap is not None:
            if line.text and line.text not in ELISION and parser.resumes(line):
                gap, ended_by = None, None
            elif line.text and heading_kind(line.text):
                next_start = ln  # a part that starts another summary
                break
            else:
                gap += 1
                if gap > MAX_GAP_LINES:
                    break
                continue
        try:
            taken = parser.feed(line)
        except ReadError as exc:
            raise _cut_short(log, ln, exc) from None
        if not taken:
            if last is None:
                return None
            ended_by = ln
            if heading_kind(line.text):
                next_start = ln
                break
            gap = 0
            continue
        if line.text and line.text not in ELISION:
            last, end, blanks, foreign = ln, None, 0, 0
        else:
            blanks += 1
            if blanks > MAX_BLANK_RUN:
                gap, ended_by = 0, ln
    if last is None:
        return None
    first_line, end = parser.s.first_line or start.no, log.size if end is None else end
    if not parser.s.has_figures():  # not a summary: nothing to check
        return Region(parser.s, signature, first_line, end, ended_by, next_start)
    try:
        summary = parser.finish(None if ended_by is None else ended_by.no)
    except ReadError as exc:
        if ended_by is None and exc.line == last.no:
            raise _cut_short(log, last, exc) from None
        raise
    return Region(summary, signature, first_line, end, ended_by, next_start)


def _limited(lines: Iterator[LogLine | Passed], start: LogLine, parser: Parser) -> Iterator[LogLine | Passed]:
    """``lines`` up to :data:`MAX_SUMMARY_LINES` from ``start``: past it, a summary in an unknown section
    (execution steps) ends there; one in a memory section is an error."""
    limit = start.no + MAX_SUMMARY_LINES
    for ln in lines:
        if isinstance(ln, Passed) and ln.no < limit <= ln.no + ln.count - 1:
            yield Passed(ln.no, ln.offset, limit - ln.no)  # the lines before the limit, then the limit
        if ln.no >= limit or (isinstance(ln, Passed) and ln.no + ln.count > limit):
            if parser.state in ("skip", "top"):
                return
            raise ReadError(f"a memory summary runs on past {MAX_SUMMARY_LINES:,} lines: Poplar prints none so "
                            "long", line=start.no)
        yield ln


def _cut_short(log: LogFile, ln: LogLine, exc: ReadError) -> ReadError:
    """``exc`` as a Truncated error when it is about the file's last line and that line has no end."""
    if isinstance(exc, Truncated) or exc.line != ln.no or not log.ends_unterminated(ln.offset):
        return exc
    return Truncated(f"the file ends mid-line (cut short?): {exc.message}", line=exc.line, offset=exc.offset)


def positioned(placed: list[tuple[int, MemoryReport]]) -> list[MemoryReport]:
    """Reports given with their first lines, in file order, each knowing its position (and keeping its run)."""
    placed = sorted(placed, key=lambda p: p[0])
    return [report.evolve(position=ReportPosition(line, k, len(placed),
                                                  report.position.run if report.position else None))
            for k, (line, report) in enumerate(placed, 1)]

