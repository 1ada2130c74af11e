"""A top tile's cells, formatted once for every table that lists top tiles (the picture's, the HTML's)."""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis import TopTile

UNKNOWN = "?"


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
