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
from dataclasses import dataclass, replace

from ...analysis import Summary, TopTile
from .. import RenderOptions
from ..cells import USED_NOTE, Column, tile_columns
from ..layout import WIDTH, prose, visible, wrap_items
from ..words import OUT_OF_MEMORY
from . import drill
from .terminal import RED, YELLOW, coloured

NEAR_LIMIT = 0.95  # yellow: within 5 % of bytes per tile


@dataclass(frozen=True)
class _Column:
    head: str
    cells: tuple[str, ...]
    right: bool = False
    fixed: int = 0               # its width at 100 columns (at least its cells')
    below: str | None = None     # its label when it moves under the row
    moved: bool = False

    def width(self, tight: bool) -> int:
        natural = max(len(self.head), *(len(c.split("\n")[0]) for c in self.cells))
        return natural if tight else max(self.fixed, natural)


def _coloured(row: str, t: TopTile, limit: int | None, color: bool) -> str:
    """Red for an out-of-memory tile, yellow within 5 % of bytes per tile; plain without ``color``."""
    if not color:
        return row
    if t.out_of_memory:
        return coloured(row, RED)
    if limit and t.excluding_gaps is not None and t.excluding_gaps >= NEAR_LIMIT * limit:
        return coloured(row, YELLOW)
    return row


def _columns(summary: Summary, top: Sequence[TopTile]) -> tuple[list[_Column], Column]:
    """The table's columns after the mark (the one tile table, :func:`..cells.tile_columns`), and the largest
    items, which go on the row or under it; every cell as it is shown (a member's name from a file, escaped)."""
    columns = [replace(c, cells=tuple(map(visible, c.cells))) for c in tile_columns(summary, top)]
    return ([_Column(c.head, c.cells, c.right, c.fixed, c.below) for c in columns if c.key != "items"],
            next(c for c in columns if c.key == "items"))


def _line(mark: str, cells: Sequence[str], columns: Sequence[_Column], widths: Sequence[int]) -> str:
    parts = [f"{c:>{w}}" if col.right else f"{c:<{w}}" for c, col, w in zip(cells, columns, widths)]
    return f"  {mark:1} " + "  ".join(parts)


def _fitted(columns: list[_Column], width: int) -> tuple[list[_Column], bool]:
    """The columns as laid out within ``width`` (see the module's docstring), and whether they are tight."""
    def wide(cols: list[_Column], tight: bool) -> int:
        shown = [c for c in cols if not c.moved]
        return 4 + sum(c.width(tight) for c in shown) + 2 * (len(shown) - 1)

    if wide(columns, False) <= width:
        return columns, False
    steps = ["member", "excess", "from", "including gaps", "used (message)"]
    for step in steps:
        if wide(columns, True) <= width:
            break
        if step == "excess":
            columns = [replace(c, cells=tuple(s.replace(OUT_OF_MEMORY + " ", OUT_OF_MEMORY + "\n", 1)
                                              for s in c.cells)) if c.head == "Out of memory" else c
                       for c in columns]
        else:
            columns = [replace(c, moved=True) if c.below == step else c for c in columns]
    return columns, True


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
    fitting, listed_items = _columns(summary, top)
    columns, tight = _fitted(fitting, width)
    shown = [c for c in columns if not c.moved]
    widths = [c.width(tight) for c in shown]
    largest = listed_items.head
    head = _line("", [c.head for c in shown], shown, widths)
    rows = []
    for i, t in enumerate(top):
        cells = [c.cells[i].split("\n") for c in shown]
        first = _line("!" if t.out_of_memory else " ", [c[0] for c in cells], shown, widths)
        more = [_line("", [c[1] if len(c) > 1 else "" for c in cells], shown, widths)] \
            if any(len(c) > 1 for c in cells) else []
        rows.append((first, more, listed_items.cells[i]))
    # The items stay on the row when every row fits the width; else each table row puts them on a line below.
    inline = not tight and all(len(row) + 2 + len(listed) <= width for row, _, listed in rows) \
        and len(head) + 2 + len(largest) <= width
    lines = [title, f"{head}  {largest}" if inline else head.rstrip()]
    indent = " " * (4 + widths[0] + 2)
    for i, (t, (row, more, listed)) in enumerate(zip(top, rows)):
        if inline and listed:
            row += f"  {listed}"
        lines += [_coloured(line.rstrip(), t, limit, options.color) for line in [row, *more]]
        moved = [f"{c.below}: {c.cells[i]}" for c in columns if c.moved and c.cells[i]]
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
    if any(c.head == "Used (message)" for c in columns):
        lines += prose("  ", f"({USED_NOTE})", width, hang="   ")
    return lines
