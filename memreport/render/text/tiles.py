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
from ...units import plural
from .. import RenderOptions
from ..layout import WIDTH, prose, wrap_items
from . import drill

RED, YELLOW, RESET = "\x1b[31m", "\x1b[33m", "\x1b[0m"
NEAR_LIMIT = 0.95  # yellow: within 5 % of bytes per tile
OUT_OF_MEMORY = "OUT OF MEMORY"


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


def _status(t: TopTile, limit: int | None) -> str:
    """The key fact, shown right after the bytes: out of memory, and by how much."""
    if not t.out_of_memory:
        return ""
    used = t.excluding_gaps
    if limit is not None and used is not None and used > limit:
        return f"{OUT_OF_MEMORY} by {used - limit:,} B"
    return f"{OUT_OF_MEMORY} (overflowed)" if used is not None else OUT_OF_MEMORY


def _coloured(row: str, t: TopTile, limit: int | None, color: bool) -> str:
    """Red for an out-of-memory tile, yellow within 5 % of bytes per tile; plain without ``color``."""
    if not color:
        return row
    if t.out_of_memory:
        return RED + row + RESET
    if limit and t.excluding_gaps is not None and t.excluding_gaps >= NEAR_LIMIT * limit:
        return YELLOW + row + RESET
    return row


def _items(breakdown: dict[str, int], limit: int) -> str:
    """The ``limit`` largest items with bytes, and how many more have bytes (0 B items are neither)."""
    sized = [(name, size) for name, size in breakdown.items() if size]
    shown = [f"{name} {size:,} B" for name, size in sized[:limit]]
    rest = len(sized) - limit
    return ", ".join(shown) + (f", +{rest} more" if rest > 0 else "")


def _columns(summary: Summary, top: Sequence[TopTile]) -> list[_Column]:
    """The table's columns after the mark, those no tile fills left out."""
    limit = summary.report.target.bytes_per_tile

    def size(value: int | None, unknown: str = "?") -> str:
        return unknown if value is None else f"{value:,} B"

    columns = [_Column("Tile", tuple(str(t.tile) for t in top), True, 6),
               _Column("IPU", tuple("?" if t.ipu is None else str(t.ipu) for t in top), True, 4),
               _Column("Excluding gaps", tuple(size(t.excluding_gaps) for t in top), True, 16)]
    if any(t.including_gaps is not None for t in top):
        columns.append(_Column("Including gaps", tuple(size(t.including_gaps) for t in top), True, 16,
                               "including gaps"))
    if any(t.stated_bytes_used is not None for t in top):  # a message's "bytes used": its own column
        columns.append(_Column("Used (message)", tuple(size(t.stated_bytes_used, "") for t in top), True, 16,
                               "used (message)"))
    columns.append(_Column("% of tile", tuple(f"{100 * t.excluding_gaps / limit:.1f}%"
                                              if limit and t.excluding_gaps is not None else "?" for t in top),
                           True, 9))
    if any(t.stated_by != "per-tile" for t in top):
        columns.append(_Column("From", tuple(t.stated_by for t in top), False, 8, "from"))
    if any(t.name for t in top):
        columns.append(_Column("Member", tuple(t.name or "" for t in top), False, 0, "member"))
    statuses = tuple(_status(t, limit) for t in top)
    if any(statuses):
        columns.append(_Column("Out of memory", statuses))
    return columns


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
    columns, tight = _fitted(_columns(summary, top), width)
    shown = [c for c in columns if not c.moved]
    widths = [c.width(tight) for c in shown]
    largest = f"Largest {plural(report.breakdown_kind)}"
    head = _line("", [c.head for c in shown], shown, widths)
    rows = []
    for i, t in enumerate(top):
        cells = [c.cells[i].split("\n") for c in shown]
        first = _line("!" if t.out_of_memory else " ", [c[0] for c in cells], shown, widths)
        more = [_line("", [c[1] if len(c) > 1 else "" for c in cells], shown, widths)] \
            if any(len(c) > 1 for c in cells) else []
        rows.append((first, more, _items(dict(t.breakdown), items)))
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
            regions = ", ".join(f"{name.replace('_', '-')} {size:,} B" for name, size in t.regions.items())
            lines += wrap_items(f"{indent}regions: ", regions, width)
        if t.liveness is not None:
            lines += prose(f"{indent}liveness: ", drill.liveness_phrase(t.liveness), width)
    if any(t.out_of_memory for t in top):
        lines.append("  (! = out of memory)")
    if any(c.head == "Used (message)" for c in columns):
        lines += prose("  ", "(used (message) = the bytes its out-of-memory message says were used)", width,
                       hang="   ")
    return lines
