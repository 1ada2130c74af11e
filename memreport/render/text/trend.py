"""A trend in text: the answer first ("Tile 40 first went over in build3"), the table of builds, the tiles out of
memory in the last build with when each went over, the notes, and the answer again last.

Both tables fit the width (100 columns by default, :func:`..layout.fit_table`):
a long build name is shortened in the middle (to 20 characters), then the
change and the total move under each build's row, then names are shortened
further.
"""
from __future__ import annotations

from dataclasses import replace

from ...analysis.results import Trend
from ...units import count
from .. import RenderOptions
from ..cells import Column, history_columns, trend_columns
from ..layout import WIDTH, Step, fit_table, prose, visible, wrap_items
from ..words import trend_notes
from .terminal import shown
from .verdict import gates_lines, trend_headline, trend_lines

TILES_SHOWN = 20   # tiles the text lists (the JSON lists every one)
NAME_KEPT = 20     # a name column is shortened to this before columns move under the rows...
MIN_NAME = 12      # ...and never below this


def fitted_table(columns: list[Column], width: int, shorten: tuple[str, ...] = ()) -> list[str]:
    """The columns laid out within ``width`` (:func:`..layout.fit_table`): the ``shorten`` columns (build names)
    shortened to :data:`NAME_KEPT` first, then the columns that have a ``below`` label moved under each row
    (``total: ..., change: ...``), the last first, then the names shortened down to :data:`MIN_NAME`."""
    steps = [*(Step(key, "shorten", NAME_KEPT) for key in shorten),
             *(Step(c.key, "below") for c in reversed(columns) if c.below),
             *(Step(key, "shorten", MIN_NAME) for key in shorten)]
    columns = [replace(c, cells=tuple(map(visible, c.cells))) for c in columns]  # as shown: widths count escapes
    laid = fit_table(columns, width, steps=steps)
    order = {c.key: i for i, c in enumerate(columns)}
    moved = sorted(laid.moved, key=lambda c: order[c.key])
    lines = [laid.head]
    for i, row in enumerate(laid.rows):
        lines += row
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
    table = fitted_table(history_columns(trend, shown), width, shorten=("first", "since"))
    lines = prose("", heading, width, hang="  ") + table
    rest = trend.num_tiles - len(shown)
    if rest > 0:
        lines += prose("  ", f"{count(rest, 'more tile')} (--format json lists every one)", width, hang="    ")
    return lines


def render_text(trend: Trend, options: RenderOptions | None = None) -> str:
    """The answer, the builds, the tiles, the notes; the answer's first line again last."""
    width = (options and options.width) or WIDTH
    builds = prose("", f"Builds ({len(trend.builds):,}), in the order given:", width) + \
        fitted_table(trend_columns(trend), width, ("build",))
    sections = [trend_lines(trend, width) + gates_lines(trend.gates, width), builds]
    tiles = tiles_lines(trend, width)
    if tiles:
        sections.append(tiles)
    notes = [line for note in trend_notes(trend) for line in prose("Note: ", note, width)]
    if notes:
        sections.append(notes)
    sections.append(trend_headline(trend, width))
    return shown("\n\n".join("\n".join(s) for s in sections) + "\n")
