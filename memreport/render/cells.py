"""Table cells built once for every output form: a top tile's, the closing table's, a compilation's."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis import TopTile
from ..analysis.closing import ClosingRow
from ..model import Compilation

UNKNOWN = "?"
CHANGES_SHOWN = 50  # changed tiles a diff's page and Markdown list (the JSON and CSV list every one)


@dataclass(frozen=True)
class TileCells:
    """One tile's figures as table cells: ``?`` where unknown; bytes as ``1,234 B``; its share of bytes per
    tile as ``97.3%``. ``out_of_memory`` stays a bool (None: cannot say) for each table to mark its own way."""

    tile: str
    ipu: str
    excluding_gaps: str
    including_gaps: str
    share: str
    out_of_memory: bool | None


def tile_cells(tile: TopTile, bytes_per_tile: int | None) -> TileCells:
    """The cells of one top tile, against ``bytes_per_tile`` (None when unknown)."""
    ex, inc = tile.excluding_gaps, tile.including_gaps
    return TileCells(
        tile=str(tile.tile), ipu=UNKNOWN if tile.ipu is None else str(tile.ipu),
        excluding_gaps=UNKNOWN if ex is None else f"{ex:,} B",
        including_gaps=UNKNOWN if inc is None else f"{inc:,} B",
        share=f"{100 * ex / bytes_per_tile:.1f}%" if bytes_per_tile and ex is not None else UNKNOWN,
        out_of_memory=tile.out_of_memory)


@dataclass(frozen=True)
class Cells:
    """The closing table's cells, for the text and the page alike: ``heads`` after the source, a row of
    ``cells`` per report, and the footnotes that explain the marks used (``*``, ``>=``)."""

    heads: list[str]
    cells: list[list[str]]
    footnotes: list[str]


def closing_cells(rows: Sequence[ClosingRow]) -> Cells:
    """Each row's cells: what a source does not say is ``?``; a message's bytes used are marked ``*``, a tile
    count known only as a lower bound ``>=``."""
    show_run = any(r.run is not None for r in rows)
    stated = any(r.worst_from_message for r in rows)  # a column for the mark of a message's bytes
    bounded = any(r.tiles is None and r.tiles_at_least for r in rows)
    pad = " " if stated else ""
    cells = [[f"{r.line:,}" if r.line is not None else "",
              *([r.run or ""] if show_run else []),
              r.arch or "?",
              f"{r.tiles:,}" if r.tiles is not None else f">={r.tiles_at_least:,}" if r.tiles_at_least else "?",
              "?" if r.worst is None else str(r.worst.tile),
              "?" + pad if r.worst is None else f"{r.worst.bytes:,} B" + ("*" if r.worst_from_message else pad),
              r.out_of_memory.short()] for r in rows]
    heads = ["Line", *(["Run"] if show_run else []), "Arch", "Tiles", "Worst tile", "Bytes", "OOM tiles"]
    footnotes = [*(["* bytes used, as the out-of-memory message states"] if stated else []),
                 *([">= a lower bound: no tile count stated; whole IPUs, enough for the highest tile named"]
                   if bounded else [])]
    return Cells(heads, cells, footnotes)


def rss(c: Compilation) -> str:
    """The peak RSS in the unit the log printed it in (MiB in SDK 3.x, "MB" in 2.x), never converted."""
    return f"{c.peak_rss_mb:,.1f}" + (f" {c.peak_rss_unit}" if c.peak_rss_unit else "")
