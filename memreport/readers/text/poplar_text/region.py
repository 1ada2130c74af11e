"""One summary read from a log, from its first line until its lines stop (docs/FORMATS.md §8.14).

The parser (:mod:`.parser`) takes the summary's lines; lines of another
process or stream (another rank's tag, a logger line inside the summary)
are passed over, and a document's prose, rst markup or a few lines of log
between two parts of one summary too, when a part that can follow comes
within :data:`MAX_GAP_LINES` lines.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ....errors import ReadError, Truncated
from ..logtext import UNTAGGED, LogFile, LogLine
from .demux import Passed, TagIndex
from .parser import Parser, heading_kind
from .prefixes import Signature
from .summary import Summary
from .values import ELISION, Line

MAX_GAP_LINES = 40              # prose or log lines between two parts of one summary
MAX_BLANK_RUN = 40              # blank or elided lines in a row before a summary counts as paused
MAX_FOREIGN_LINES = 20_000      # lines of other processes or streams passed over after a summary's last line
# ...but no more than this many, plus FOREIGN_PER_RUN times the widest run of them between two of the summary's
# own lines: after the last rank's summary, the other ranks' summaries are not read again for each (issue #26).
FOREIGN_SLACK = 256
FOREIGN_PER_RUN = 4
MAX_SUMMARY_LINES = 250_000     # no summary Poplar prints is this long


@dataclass
class Region:
    """One summary read from a log: what it printed, where it lies, what its lines share."""

    summary: Summary
    signature: Signature
    first: int             # line number of its first line
    end: int               # offset of the line after its last line
    ended_by: LogLine | None = None    # the line that ended it (None: the file's end)
    next_start: LogLine | None = None  # a heading there that starts another summary


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
