"""Table cells built once for every output form: the tile table's, the closing table's, a compilation's, a
trend's builds and tiles.

Each table is a list of columns (heading, cells, alignment, and the note a
column's mark needs); the text lays them out to the terminal's width
(:mod:`.layout`), the page and the Markdown as their tables, the picture as
a panel. A column no row fills is left out, the same way in every form.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis import Closing, ClosingRow, Summary, TopTile
from ..analysis.results import TileHistory, Trend, TrendBuild
from ..model import Compilation
from ..units import plural
from .words import count_short, first_phrase, out_of_memory_cell

UNKNOWN = "?"
CHANGES_SHOWN = 50  # changed tiles a diff's page and Markdown list (the JSON and CSV list every one)
ITEMS_SHOWN = 3     # a tile's largest breakdown items named in its row


@dataclass(frozen=True)
class Column:
    """One column of a table: its ``key``, ``head``, a cell per row, right-aligned or not, its width at 100
    columns in the text (``fixed``: at least its cells'), the label it takes when the text moves it under the
    row (``below``; None: it stays on the row), and the ``note`` its mark needs under the table."""

    key: str
    head: str
    cells: tuple[str, ...]
    right: bool = False
    fixed: int = 0
    below: str | None = None
    note: str | None = None


def _bytes(value: int | None, unknown: str = UNKNOWN) -> str:
    return unknown if value is None else f"{value:,} B"


def share(value: int | None, bytes_per_tile: int | None) -> str:
    """``value`` as a share of bytes per tile, ``97.3%``; ``?`` when either is unknown."""
    return f"{100 * value / bytes_per_tile:.1f}%" if bytes_per_tile and value is not None else UNKNOWN


def items(breakdown: dict[str, int], limit: int = ITEMS_SHOWN) -> str:
    """The ``limit`` largest items with bytes, and how many more have bytes (0 B items are neither)."""
    sized = [(name, size) for name, size in breakdown.items() if size]
    shown = [f"{name} {size:,} B" for name, size in sized[:limit]]
    rest = len(sized) - limit
    return ", ".join(shown) + (f", +{rest} more" if rest > 0 else "")


USED_NOTE = "used (message) = the bytes its out-of-memory message says were used"


def tile_columns(summary: Summary, tiles: Sequence[TopTile]) -> list[Column]:
    """The table of ``tiles`` (the top tiles, the tiles asked for), the same in every form: tile, IPU, bytes,
    share of tile memory, where the figures come from, member, out of memory and the largest items; the
    columns no tile fills left out."""
    limit = summary.report.target.bytes_per_tile
    columns = [Column("tile", "Tile", tuple(str(t.tile) for t in tiles), True, 6),
               Column("ipu", "IPU", tuple(UNKNOWN if t.ipu is None else str(t.ipu) for t in tiles), True, 4),
               Column("excluding", "Excluding gaps", tuple(_bytes(t.excluding_gaps) for t in tiles), True, 16)]
    if any(t.including_gaps is not None for t in tiles):
        columns.append(Column("including", "Including gaps", tuple(_bytes(t.including_gaps) for t in tiles), True,
                              16, "including gaps"))
    if any(t.stated_bytes_used is not None for t in tiles):  # a message's "bytes used": its own column
        columns.append(Column("used", "Used (message)", tuple(_bytes(t.stated_bytes_used, "") for t in tiles), True,
                              16, "used (message)", USED_NOTE))
    columns.append(Column("share", "% of tile", tuple(share(t.excluding_gaps, limit) for t in tiles), True, 9))
    if any(t.stated_by != "per-tile" for t in tiles):
        columns.append(Column("from", "From", tuple(t.stated_by for t in tiles), False, 8, "from"))
    if any(t.name for t in tiles):
        columns.append(Column("member", "Member", tuple(t.name or "" for t in tiles), False, 0, "member"))
    statuses = tuple(out_of_memory_cell(t, limit) for t in tiles)
    if any(statuses):
        columns.append(Column("oom", "Out of memory", statuses))
    columns.append(Column("items", f"Largest {plural(summary.report.breakdown_kind)}",
                          tuple(items(dict(t.breakdown)) for t in tiles)))
    return columns


@dataclass(frozen=True)
class Cells:
    """The closing table's cells, for every form: the ``file`` every row is a part of (named once in the
    heading; None when the rows come from several), each row's ``source`` (its part of that file, or its whole
    name), ``heads`` after the source, a row of ``cells`` per report, and the footnotes that explain the marks
    used (``*``, ``>=``)."""

    file: str | None
    sources: list[str]
    heads: list[str]
    cells: list[list[str]]
    footnotes: list[str]


LEFT = ("Arch", "Where")  # the closing table's columns of words, left-aligned; the others are figures


def closing_cells(closing: Closing) -> Cells:
    """Each row's cells: what a source does not say is ``?``; a message's bytes used are marked ``*``, a tile
    count known only as a lower bound ``>=``."""
    rows: Sequence[ClosingRow] = closing.rows
    show_program = any(r.program is not None for r in rows)  # a compile log's programs are its compilations
    show_run = not show_program and any(r.run is not None for r in rows)
    placed = any(r.name.place for r in rows)  # a notebook's lines are in its cells
    stated = any(r.worst_from_message for r in rows)  # a column for the mark of a message's bytes
    bounded = any(r.tiles is None and r.tiles_at_least for r in rows)
    pad = " " if stated else ""
    cells = [[(r.name.place or "") if placed else f"{r.line:,}" if r.line is not None else "",
              *([r.program or ""] if show_program else []),
              *([r.run or ""] if show_run else []),
              r.arch or "?",
              f"{r.tiles:,}" if r.tiles is not None else f">={r.tiles_at_least:,}" if r.tiles_at_least else "?",
              "?" if r.worst is None else str(r.worst.tile),
              "?" + pad if r.worst is None else f"{r.worst.bytes:,} B" + ("*" if r.worst_from_message else pad),
              count_short(r.out_of_memory)] for r in rows]
    heads = ["Where" if placed else "Line", *(["Compilation"] if show_program else []),
             *(["Run"] if show_run else []), "Arch", "Tiles", "Worst tile", "Bytes", "OOM tiles"]
    footnotes = [*(["* bytes used, as the out-of-memory message states"] if stated else []),
                 *([">= a lower bound: no tile count stated; whole IPUs, enough for the highest tile named"]
                   if bounded else [])]
    file = closing.one_file
    sources = [(r.name.part_label or "") if file else r.name.short_label for r in rows]
    return Cells(file, sources, heads, cells, footnotes)


def rss(c: Compilation) -> str:
    """The peak RSS in the unit the log printed it in (MiB in SDK 3.x, "MB" in 2.x), never converted."""
    return f"{c.peak_rss_mb:,.1f}" + (f" {c.peak_rss_unit}" if c.peak_rss_unit else "")


def change_cell(build: TrendBuild, first: bool = False) -> str:
    """A build's total against the previous build's: ``+154,096 B (+0.03%)``; empty for the first build, ``?``
    when either total is unknown."""
    if first:
        return ""
    if build.change is None:
        return UNKNOWN
    return f"{build.change:+,} B" + ("" if build.change_share is None else f" ({percent_change(build.change_share)})")


def percent_change(share: float) -> str:
    """A change as a percent of what it changed: ``+0.03%``; ``+<0.01%`` for a change that rounds to nothing but
    is not one."""
    if share and abs(share) < 0.00005:
        return ("+" if share > 0 else "-") + "<0.01%"
    return f"{100 * share:+.2f}%"


def trend_columns(trend: Trend) -> list[Column]:
    """The table of builds, a row each in order: the worst tile and its bytes (``1402: 788,976 B``), its share of
    tile memory, tiles out of memory, headroom (bytes per tile minus the worst tile), the total excluding gaps and
    its change."""
    builds = trend.builds
    worst = [b.worst for b in builds]
    return [Column("build", "Build", tuple(b.label for b in builds)),
            Column("worst", "Worst tile", tuple(UNKNOWN if w is None else f"{w.tile}: {w.bytes:,} B" for w in worst),
                   True),
            Column("share", "% of tile", tuple(UNKNOWN if b.share is None else f"{100 * b.share:.1f}%"
                                               for b in builds), True),
            Column("oom", "OOM tiles", tuple(count_short(b.count) for b in builds), True),
            Column("headroom", "Headroom", tuple(_bytes(b.headroom) for b in builds), True),
            Column("total", "Total", tuple(_bytes(b.figures.total_excluding_gaps) for b in builds), True,
                   below="total"),
            Column("change", "Change", tuple(change_cell(b, i == 0) for i, b in enumerate(builds)), True,
                   below="change")]


def history_columns(trend: Trend, histories: Sequence[TileHistory]) -> list[Column]:
    """The table of tiles out of memory in the last build: its bytes there, the build it first went over in,
    the build since which it has stayed over, and whether it stayed over all along (``?``: a build between
    cannot say)."""
    stayed = {True: "yes", False: "no", None: UNKNOWN}
    columns = [Column("tile", "Tile", tuple(str(h.tile) for h in histories), True)]
    if trend.tiles_per_ipu:
        columns.append(Column("ipu", "IPU", tuple(str(h.ipu) for h in histories), True))
    return columns + [
        Column("bytes", "Bytes", tuple(f"{h.bytes:,} B" for h in histories), True),
        Column("first", "First over", tuple(first_phrase(h, trend) for h in histories)),
        Column("since", "Over since", tuple(trend.builds[h.since].label for h in histories)),
        Column("stayed", "Stayed over", tuple(stayed[h.stayed] for h in histories))]
