"""A trend in text: the answer first ("Tile 40 first went over in build3"), the table of builds, the tiles out of
memory in the last build with when each went over, the notes, and the answer again last.

Both tables fit the width (100 columns by default): a long build name is
shortened in the middle (to 20 characters), then the total and its change
move under each build's row, then names are shortened further.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ...analysis.results import Trend
from ...units import count
from .. import RenderOptions
from ..cells import Column, history_columns, trend_columns
from ..layout import WIDTH, middle_shortened, prose, wrap_items
from ..words import trend_notes
from .verdict import gates_lines, trend_headline, trend_lines

TILES_SHOWN = 20   # tiles the text lists (the JSON lists every one)
NAME_KEPT = 20     # a build's name is shortened to this before the totals move under the rows...
MIN_NAME = 12      # ...and never below this


def _widths(columns: Sequence[Column]) -> list[int]:
    return [max(len(c.head), *(len(cell) for cell in c.cells)) for c in columns]


def table_lines(columns: Sequence[Column], width: int, shorten: Sequence[str] = ()) -> list[str]:
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


def tiles_lines(trend: Trend, width: int) -> list[str]:
    """The tiles out of memory in the last build, the latest to go over first, at most :data:`TILES_SHOWN`."""
    if not trend.num_tiles:
        return []
    shown = trend.histories(TILES_SHOWN)
    heading = (f"Tiles out of memory in {trend.last.label} ({trend.num_tiles:,}), the latest to go over first:")
    lines = prose("", heading, width, hang="  ") + table_lines(history_columns(trend, shown), width, ("first", "since"))
    rest = trend.num_tiles - len(shown)
    if rest > 0:
        lines += prose("  ", f"{count(rest, 'more tile')} (--format json lists every one)", width, hang="    ")
    return lines


def render_text(trend: Trend, options: RenderOptions | None = None) -> str:
    """The answer, the builds, the tiles, the notes; the answer's first line again last."""
    width = (options and options.width) or WIDTH
    builds = prose("", f"Builds ({len(trend.builds):,}), in the order given:", width) + \
        table_lines(trend_columns(trend), width, ("build",))
    sections = [trend_lines(trend, width) + gates_lines(trend.gates, width), builds]
    tiles = tiles_lines(trend, width)
    if tiles:
        sections.append(tiles)
    notes = [line for note in trend_notes(trend) for line in prose("Note: ", note, width)]
    if notes:
        sections.append(notes)
    sections.append(trend_headline(trend, width))
    return "\n\n".join("\n".join(s) for s in sections) + "\n"
