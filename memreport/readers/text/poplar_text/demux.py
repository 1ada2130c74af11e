"""One process's lines among many: poprun ranks printing at once, read in one pass (issue #26).

When R ranks print their summaries at the same time, each line under its
own launcher tag (``[1,r]<stdout>:``), one summary's lines are spread over
R times as many lines of the log. Reading each rank's summary by reading
every line of that stretch and passing over the other ranks' costs R times
the stretch: quadratic in the ranks. A :class:`TagIndex` reads a stretch of
the log once, keeping each line's offset and, for each tag, which of the
lines are its own. A reader of one tag's summary then reads only its own
lines again (a run of them at a time) and learns of the others' lines only
how many lie between two of its own (:class:`Passed`), which is all a
summary's reader asks of them (docs/FORMATS.md §8.3). Memory is 16 bytes per
line of the stretch; the index starts again where a reader starts outside
it, so it holds the stretch the scan is in, not the file.
"""
from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from ..logtext import LogFile, LogLine, Tag
from .prefixes import split_line

EXTEND_LINES = 1_024        # lines indexed at a time, as readers need them
MAX_INDEXED_LINES = 1 << 20  # a reader starting further into the index than this starts it again (16 MB)
MAX_RUN_LINES = 4_096        # own lines read again at once
MAX_READ_ON_BYTES = 256 << 10  # a line further after the index than this is indexed afresh, not read on to


@dataclass(frozen=True)
class Passed:
    """``count`` lines of other processes or streams, the first numbered ``no`` at ``offset``."""

    no: int
    offset: int
    count: int


class TagIndex:
    """The lines of a stretch of a log, each with its launcher tag (:func:`~.prefixes.split_line`'s)."""

    def __init__(self, log: LogFile) -> None:
        self.log = log
        self.since, self.first_no, self.offsets = log.start, 1, array("q")
        self.own: dict[Tag, array] = {}  # tag -> positions (in offsets) of its lines
        self._source: Iterator[LogLine] = iter(())
        self.end: int | None = None  # nothing indexed yet: the first reader starts the index

    def _start(self, offset: int, no: int, since: int | None = None) -> None:
        """Index from line ``no`` at ``offset``: the first line starting at or after ``since``."""
        self.since = offset if since is None else since
        self.first_no = no
        self.offsets = array("q")  # of each line indexed, in file order
        self.own = {}
        self._source = self.log.lines(offset, no)
        self.end = None  # offset after the last line, once every line is indexed
        self._extend()

    def _extend(self) -> bool:
        """Index the next lines; False at the end of the text."""
        got = 0
        for ln in islice(self._source, EXTEND_LINES):
            self.own.setdefault(split_line(ln.text).tag, array("q")).append(len(self.offsets))
            self.offsets.append(ln.offset)
            got += 1
        if got < EXTEND_LINES and self.end is None:
            self.end = self.log.size
        return got > 0

    def _find(self, line: LogLine) -> int | None:
        """Where ``line`` is in the index, read on to it if need be (None: not in it)."""
        offsets = self.offsets
        if not offsets or line.offset < self.since or line.offset - offsets[-1] > MAX_READ_ON_BYTES:
            return None  # before the index, or too far after it to index every line between
        while offsets[-1] < line.offset and line.no - self.first_no < MAX_INDEXED_LINES and self._extend():
            pass
        at = line.no - self.first_no
        return at if 0 <= at < min(len(offsets), MAX_INDEXED_LINES) and offsets[at] == line.offset else None

    def _position(self, line: LogLine) -> int:
        """Where ``line`` is in the index (indexing from it afresh when it is not)."""
        at = self._find(line)
        if at is None:
            self._start(line.offset, line.no)
            at = 0
        return at

    def before(self, hit: LogLine, tag: Tag, floor: int, max_lines: int, max_bytes: int, reach: int
               ) -> tuple[list[LogLine], int, int] | None:
        """The window above ``hit`` as a process of ``tag`` printed it: the last ``max_lines`` lines of ``tag``
        among the lines in ``max_bytes`` bytes above ``hit`` (none before ``floor``; a line cut by the window
        left out), how many of them, and where the window's first line starts (-1: no line). None when the
        index cannot tell (read them all then).

        A rank is its own process: its look back counts its own lines, not
        those other ranks printed in between (issue #26). The bound in the
        file is ``max_bytes``, at most ``reach``: so many bytes are indexed
        at most, and hits come in file order: an index started afresh here
        starts ``reach`` bytes above ``hit``, so that it holds the windows
        above the hits that follow, and the summaries read from them.
        """
        floor = max(floor, self.log.start)
        begin = max(floor, hit.offset - max_bytes)
        if begin >= hit.offset or max_lines <= 0:
            return [], 0, -1
        if max_bytes > reach:
            return None
        if not self.offsets or begin < self.since or self._find(hit) is None:
            since = max(self.log.start, hit.offset - reach)
            first = self.log.first_line_from(since, hit.offset, hit.no, self.log.start, reach)
            if first is None:
                return [], 0, -1  # the window holds part of a line only
            self._start(*first, since=since)
        at = self._find(hit)
        if at is None:
            return None
        offsets, own = self.offsets, self.own.get(tag, array("q"))
        top = bisect_left(offsets, begin, 0, at)
        low, high = bisect_left(own, top), bisect_left(own, at)
        if high - low > max_lines:  # more than so many of its own lines: the window starts at the first kept
            low = high - max_lines
            top = own[low]
        mine = own[low:high]
        lines: list[LogLine] = []
        k = 0
        while k < len(mine):  # runs of own lines, each read at once
            stop = k + 1
            while stop < len(mine) and mine[stop] == mine[stop - 1] + 1 and stop - k < MAX_RUN_LINES:
                stop += 1
            texts = self.log.read_lines(offsets[mine[k]:mine[stop - 1] + 1], offsets[mine[stop - 1] + 1])
            lines += [LogLine(self.first_no + mine[k] + j, offsets[mine[k] + j], text) for j, text in enumerate(texts)]
            k = stop
        return lines, len(mine), offsets[top] if at > top else -1

    def _line_end(self, at: int) -> int:
        """The offset after line ``at``'s line end (the next line's start, or the text's end)."""
        while at + 1 >= len(self.offsets) and self.end is None:
            self._extend()
        return self.offsets[at + 1] if at + 1 < len(self.offsets) else self.end  # type: ignore[return-value]

    def line(self, no: int) -> LogLine:
        """Line ``no`` of the index, read again."""
        at = no - self.first_no
        offset = self.offsets[at]
        return LogLine(no, offset, self.log.read_lines([offset], self._line_end(at))[0])

    def lines(self, start: LogLine, tag: Tag) -> Iterator[LogLine | Passed]:
        """``start``, then to the end of the text: each line of ``tag``, and the lines of others between two of
        them as one :class:`Passed` (or several, at most :data:`EXTEND_LINES` lines each)."""
        yield start
        at = self._position(start) + 1
        first_no, offsets = self.first_no, self.offsets
        while True:
            if self.offsets is not offsets:
                return  # indexed afresh from elsewhere meanwhile (only by another reader: never in a scan)
            if at >= len(offsets) and not self._extend():
                return
            own = self.own.get(tag, array("q"))
            k = bisect_left(own, at)
            mine = own[k] if k < len(own) else len(offsets)
            if mine > at:
                yield Passed(first_no + at, offsets[at], mine - at)
                at = mine
                continue
            stop = at + 1  # a run of own lines, read at once
            while k + 1 < len(own) and own[k + 1] == stop and stop - at < MAX_RUN_LINES:
                k, stop = k + 1, stop + 1
            texts = self.log.read_lines(offsets[at:stop], self._line_end(stop - 1))
            for k, text in enumerate(texts):
                yield LogLine(first_no + at + k, offsets[at + k], text)
            at = stop
