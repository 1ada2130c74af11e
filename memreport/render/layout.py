"""Text layout shared by every output form: Poplar's own pieces (docs/FORMATS.md §1), the fitting of prose and of
tables of cells (:func:`fitted_table`).

The By Tile histogram rows (a range right-aligned in 10, a 40-star bar, the
count in 7), the ``Maximum`` lines and the ``(X K)`` figure, and the whole
By Tile block, written once here for the text, the page's "as Poplar prints
it" and the Markdown; the width memreport's own prose wraps to beside them
(:func:`prose`), and the shortening of a long name (:func:`middle_shortened`).
"""
from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Sequence
from dataclasses import replace

from ..analysis import Summary
from ..model import Histogram, TileBytes
from ..units import kib
from .cells import Column
from .words import count_phrase

BAR_WIDTH = 40
HISTOGRAM_HEADER = "Range (KB) Histogram (Excluding Gaps)               Count (tiles)"


def bar(count: int, largest: int) -> str:
    """Poplar's bar: ``ceil(40 * count / largest)`` stars, so any non-empty bin shows one."""
    return "*" * (math.ceil(BAR_WIDTH * count / largest) if largest else 0)


ELISION_ROW = f"{'...':>10}"  # where the source left rows out: the bins either side are not adjacent


def histogram_rows(hist: Histogram) -> list[str]:
    """Poplar's histogram rows: range right-aligned in 10, a 40-star bar, the count in 7; an elision line
    where the source left rows out (never a made-up row)."""
    if not hist.bins:
        return [ELISION_ROW] if hist.elided_before else []
    width = len(str(max(b.high_kib for b in hist.bins)))
    largest = max(b.count for b in hist.bins)
    elided = set(hist.elided_before)
    rows = []
    for i, b in enumerate(hist.bins):
        if i in elided or (i and b.low_kib != hist.bins[i - 1].high_kib):
            rows.append(ELISION_ROW)
        span = f"{b.low_kib:>{width}} - {b.high_kib:>{width}}"
        rows.append(f"{span:>10} {bar(b.count, largest):<{BAR_WIDTH}}{b.count:>7,}")
    if len(hist.bins) in elided:
        rows.append(ELISION_ROW)
    return rows


def maximum_line(label: str, peak: TileBytes) -> str:
    """``Maximum (Label): N (X.Y K) on tile T``."""
    return f"Maximum ({label}): {peak.bytes:,} ({kib(peak.bytes)}) on tile {peak.tile}"


WIDTH = 100  # columns memreport's own text fits by default (Poplar's By Tile block keeps its own layout)


# A figure and its unit or noun stay on one line (``638,976 B``, ``1.5 s``, ``3 tiles``, ``0 grew``), an option
# its value (``--symbols 20``): the space between them is held by a no-break space while the text is wrapped (a
# caller's own no-break spaces hold too, and are printed as spaces).
_UNIT = re.compile(r"(\d) (?=[A-Za-z])")
_OPTION = re.compile(r"((?:^|\s)--[a-z][\w-]*) (?=[^\s-])")
_NBSP = "\xa0"


def prose(lead: str, text: str, width: int = WIDTH, hang: str | None = None) -> list[str]:
    """``lead`` then ``text``, wrapped at spaces to ``width`` columns, continued under the text's first
    character (or after ``hang``); a word longer than the line, a path say, stays whole on a line of its own,
    and a figure keeps its unit (``638,976 B``), an option its value (``--symbols 20``)."""
    glued = _OPTION.sub("\\1" + _NBSP, _UNIT.sub("\\1" + _NBSP, text))
    indent = " " * len(lead) if hang is None else hang
    lines = textwrap.wrap(glued, width, initial_indent=lead, subsequent_indent=indent,
                          break_long_words=False, break_on_hyphens=False) or [lead.rstrip()]
    # A word too long for its line moves left into the indent when that makes it fit (else it stays under it).
    lines[1:] = [line[len(line) - width:] if width < len(line) <= width + len(indent) else line
                 for line in lines[1:]]
    return [line.replace(_NBSP, " ") for line in lines]


def by_tile_block(summary: Summary, indent: str = "  ", width: int | None = None) -> list[str]:
    """The "By Tile (Excluding Gaps):" block, from its heading to the out-of-memory line (Poplar's rows as
    printed; memreport's words after its count wrapped to ``width`` when given)."""
    inner = indent + "  "
    lines = [f"{indent}By Tile (Excluding Gaps):", inner + HISTOGRAM_HEADER]
    hist = summary.histogram
    lines += [inner + row for row in histogram_rows(hist)] if hist else [inner + "(the source printed no histogram)"]
    lines.append("")
    if summary.max_including_gaps is not None:
        lines.append(inner + maximum_line("Including Gaps", summary.max_including_gaps))
    if summary.max_excluding_gaps is not None:
        lines.append(inner + maximum_line("Excluding Gaps", summary.max_excluding_gaps))
    oom = count_phrase(summary.oom)
    lines += [inner + oom] if width is None else prose(inner, oom, width, hang=inner + "  ")
    return lines


ELLIPSIS = "..."


def middle_shortened(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: its head and tail around an ellipsis when it is longer."""
    if len(text) <= width:
        return text
    keep = max(width - len(ELLIPSIS), 2)
    head = (keep + 1) // 2
    return text[:head] + ELLIPSIS + text[len(text) - (keep - head):]


def wrap_items(lead: str, listed: str, width: int) -> list[str]:
    """``lead`` then the items, broken after their commas so each line fits ``width`` where it can."""
    lines, line = [], lead
    for i, part in enumerate(listed.split(", ")):
        piece = part if i == 0 else ", " + part
        if i and len(line) + len(piece) > width:
            lines.append(line + ",")
            line = " " * len(lead) + part
        else:
            line += piece
    return lines + [line]


NAME_KEPT = 20     # a name column is shortened to this before columns move under the rows...
MIN_NAME = 12      # ...and never below this


def _widths(columns: Sequence[Column]) -> list[int]:
    return [max(len(c.head), *(len(cell) for cell in c.cells)) for c in columns]


def fitted_table(columns: Sequence[Column], width: int, shorten: Sequence[str] = ()) -> list[str]:
    """Columns laid out within ``width``: the cells of the ``shorten`` columns (build names) shortened in the
    middle to :data:`NAME_KEPT` characters first, then the columns that have a ``below`` label moved under each
    row (``total: ..., change: ...``), then the names shortened down to :data:`MIN_NAME`."""
    def wide(cols: Sequence[Column]) -> int:
        return 2 + sum(_widths(cols)) + 2 * (len(cols) - 1)

    def shortened(cols: list[Column], floor: int) -> list[Column]:
        for key in shorten:
            excess, at = wide(cols) - width, next(i for i, c in enumerate(cols) if c.key == key)
            keep = max(floor, len(cols[at].head), _widths(cols)[at] - excess)
            if excess > 0:
                cols[at] = replace(cols[at], cells=tuple(middle_shortened(c, keep) for c in cols[at].cells))
        return cols

    columns = shortened(list(columns), NAME_KEPT)
    moved: list[Column] = []
    while wide(columns) > width and any(c.below for c in columns):
        last = max(i for i, c in enumerate(columns) if c.below)
        moved.insert(0, columns.pop(last))
    columns = shortened(columns, MIN_NAME)
    widths = _widths(columns)

    def line(cells: Sequence[str]) -> str:
        return ("  " + "  ".join(f"{v:>{w}}" if c.right else f"{v:<{w}}"
                                 for v, c, w in zip(cells, columns, widths))).rstrip()

    lines = [line([c.head for c in columns])]
    for i in range(len(columns[0].cells)):
        lines.append(line([c.cells[i] for c in columns]))
        under = [f"{c.below}: {c.cells[i]}" for c in moved if c.cells[i]]
        if under:
            lines += wrap_items("      ", ", ".join(under), width)
    return lines
