"""A look back from a line that may be part of a summary, to the summary's first heading (.scan's
``LogScan._first_line`` reads the lines; this walks them)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..logtext import LogLine
from .parser import heading_kind, summary_like
from .prefixes import Signature, split_line

# The first line of a summary under a header its other lines lack (a Python logger's multi-line record).
FIRST_HEADING = re.compile(r"(?:^|\s)(?P<heading>(?:Target|Graph|Memory Usage ?|By Tile \(Excluding Gaps\)|"
                           r"Tile ?# ?[\d,]+ memory usage) ?:)\s*$")


@dataclass(frozen=True)
class Walk:
    """A look back from ``hit``: the summary's first line found (``start``, with summary text ``first``)."""

    hit: LogLine
    content: str  # the hit's summary text
    start: LogLine
    first: str


def walk_back(before: list[LogLine], hit: LogLine, signature: Signature, content: str
              ) -> tuple[LogLine, str, bool]:
    """The earliest heading above ``hit`` among lines that may all be part of its summary; whether the walk
    stopped at a line that is not (else it reached the window's start)."""
    start, first = hit, content
    for ln in reversed(before):
        text = signature.content(ln.text)
        if text is None:
            line = split_line(ln.text)
            if line.tag != signature.tag:
                continue  # another process or stream, printing meanwhile
            match = FIRST_HEADING.search(line.body)
            if match is not None:  # the summary's first line, under a header its other lines lack
                return ln, match["heading"], True
            if line.logged and not signature.logged:
                continue  # a logger line among the summary's lines
            return start, first, True
        stripped = text.strip()
        if not summary_like(stripped):
            return start, first, True
        kind = heading_kind(stripped)
        if kind:
            start, first = ln, text
            if kind == "target":  # nothing comes before a summary's Target
                return start, first, True
    return start, first, False
