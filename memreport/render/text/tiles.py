"""The text's table of tiles (the top tiles, the tiles asked for), fitted to the width.

At 100 columns the table keeps its fixed columns. When a row would pass
the width it reflows, one step at a time until it fits: columns as narrow
as their cells, the member's name under the row, the out-of-memory excess
under its column, then the source of the figures and the second byte
column under the row (``member: tile_1402.elf``). The key fact, out of
memory, stays on the row.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ...analysis import Summary, TopTile
from .. import RenderOptions
from ..cells import USED_NOTE, tile_columns
from ..layout import WIDTH, Step, fit_table, prose, visible, wrap_items
from ..words import OUT_OF_MEMORY
from . import drill
from .terminal import RED, YELLOW, coloured

NEAR_LIMIT = 0.95  # yellow: within 5 % of bytes per tile


def _coloured(row: str, t: TopTile, limit: int | None, color: bool) -> str:
    """Red for an out-of-memory tile, yellow within 5 % of bytes per tile; plain without ``color``."""
    if not color:
        return row
    if t.out_of_memory:
        return coloured(row, RED)
    if limit and t.excluding_gaps is not None and t.excluding_gaps >= NEAR_LIMIT * limit:
        return coloured(row, YELLOW)
    return row


# How the table narrows when a row would pass the width, one step at a time until it fits.
STEPS = (Step("member", "below"), Step("oom", "narrow"), Step("from", "below"), Step("including", "below"),
         Step("used", "below"))


def tiles_lines(summary: Summary, top: Sequence[TopTile], title: str, items: int = 3,
                options: RenderOptions | None = None) -> list[str]:
    """A table of tiles under ``title``: tile, IPU, bytes, % of tile memory, out of memory, largest items,
    regions, liveness.

    Out of memory comes right after the bytes (the key fact stays in view);
    the largest items go on the next line when the row would pass the width
    (``options.width``, 100 columns by default).
    """
    options = options or RenderOptions()
    width = options.width or WIDTH
    report = summary.report
    limit = report.target.bytes_per_tile
    # every cell as it is shown (a member's name from a file, escaped): the widths count the escapes
    columns = [replace(c, cells=tuple(map(visible, c.cells))) for c in tile_columns(summary, top)]
    listed_items = next(c for c in columns if c.key == "items")
    fitting = [c for c in columns if c.key != "items"]
    excess = {c.key: [s.replace(OUT_OF_MEMORY + " ", OUT_OF_MEMORY + "\n", 1) for s in c.cells]
              for c in fitting if c.key == "oom"}  # the excess under the out-of-memory mark
    laid = fit_table(fitting, width, steps=STEPS, narrow=excess,
                     marks=["!" if t.out_of_memory else " " for t in top], strip=False)
    largest, head, tight = listed_items.head, laid.head, laid.tight
    rows = [(row[0], row[1:], listed_items.cells[i]) for i, row in enumerate(laid.rows)]
    # The items stay on the row when every row fits the width; else each table row puts them on a line below.
    inline = not tight and all(len(row) + 2 + len(listed) <= width for row, _, listed in rows) \
        and len(head) + 2 + len(largest) <= width
    lines = [title, f"{head}  {largest}" if inline else head.rstrip()]
    indent = " " * (4 + laid.first_width + 2)
    for i, (t, (row, more, listed)) in enumerate(zip(top, rows)):
        if inline and listed:
            row += f"  {listed}"
        lines += [_coloured(line.rstrip(), t, limit, options.color) for line in [row, *more]]
        moved = [f"{c.below}: {c.cells[i]}" for c in laid.moved if c.cells[i]]
        if moved:
            lines += wrap_items(indent, ", ".join(moved), width)
        if listed and not inline:  # wrapped at the items' commas to the width, continued under the first
            lines += wrap_items(f"{indent}{largest.lower()}: ", listed, width)
        if t.regions:
            regions = ", ".join(f"{visible(name).replace('_', '-')} {size:,} B" for name, size in t.regions.items())
            lines += wrap_items(f"{indent}regions: ", regions, width)
        if t.liveness is not None:
            lines += prose(f"{indent}liveness: ", drill.liveness_phrase(t.liveness), width)
    if any(t.out_of_memory for t in top):
        lines.append("  (! = out of memory)")
    if any(c.key == "used" for c in fitting):
        lines += prose("  ", f"({USED_NOTE})", width, hang="   ")
    return lines
