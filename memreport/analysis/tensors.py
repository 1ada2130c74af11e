"""Pure functions of a :class:`~memreport.model.tensor_map.TensorMap` (and a report it annotates).

Everything here counts elements or *estimates* tensor-data bytes; memory
usage only ever comes from the report's own per-tile figures.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ReadError
from ..model import ARCHES, MemoryReport
from ..model.tensor_map import TensorMap
from .binning import aligned_counts, power_of_two_width
from .results import ElementBin, ElementHistogram, TileTensors, TopTile

MAX_ELEMENT_BINS = 32  # a readable histogram; elements spread wider than bytes do


def element_histogram(tensor_map: TensorMap, max_bins: int = MAX_ELEMENT_BINS) -> ElementHistogram:
    """Tiles by elements held, in power-of-two-wide bins aligned to multiples of the width."""
    values = tensor_map.elements_by_tile
    if values.size == 0:
        return ElementHistogram(1, ())
    width = power_of_two_width(int(values.min()), int(values.max()), max_bins=max_bins)
    first, counts = aligned_counts(values, width)
    return ElementHistogram(width, tuple(
        ElementBin((first + i) * width, (first + i + 1) * width, int(c)) for i, c in enumerate(counts)))


def _tile_tensors(tensor_map: TensorMap, tile: int, tiles_per_ipu: int | None = None,
                  excluding_gaps: int | None = None, including_gaps: int | None = None) -> TileTensors:
    inside = tile < tensor_map.num_tiles
    return TileTensors(
        tile=tile, ipu=None if not tiles_per_ipu else tile // tiles_per_ipu,
        elements=int(tensor_map.elements_by_tile[tile]) if inside else 0,
        est_bytes=int(tensor_map.est_bytes_by_tile[tile]) if inside else 0,
        unknown_size_elements=int(tensor_map.unknown_elements_by_tile[tile]) if inside else 0,
        tensors=tuple(tensor_map.tensors_on_tile(tile)) if inside else (),
        excluding_gaps=excluding_gaps, including_gaps=including_gaps,
    )


def top_data_tiles(tensor_map: TensorMap, n: int = 5, tiles_per_ipu: int | None = None) -> list[TileTensors]:
    """The ``n`` tiles holding the most tensor data: by estimate, then elements, then tile id."""
    if n <= 0 or tensor_map.num_tiles == 0:
        return []
    est, elements = tensor_map.est_bytes_by_tile, tensor_map.elements_by_tile
    order = np.lexsort((np.arange(est.size), -elements, -est))[:n]
    return [_tile_tensors(tensor_map, int(t), tiles_per_ipu) for t in order]


def check_matches(report: MemoryReport, tensor_map: TensorMap) -> None:
    """A ReadError when the tensor map cannot be of the report's program.

    It uses tiles the report does not have; or it spans exactly whole IPUs
    of another architecture (tiles 0 to 1,215: one Mk1 IPU) and not of the
    report's, which has more tiles (a tensor map states no tile count of
    its own, but Poplar spreads a program's tensors over all its tiles).
    """
    used = int(tensor_map.pair_tile.max()) + 1 if tensor_map.pair_tile.size else 0
    if used > report.num_tiles:
        raise ReadError(f"the tensor map places tensors on tile {used - 1:,}, but {report.source} has "
                        f"{report.num_tiles:,} tiles: are they from the same program?", path=tensor_map.source)
    tpi = report.target.tiles_per_ipu
    if not used or used == report.num_tiles or not tpi or used % tpi == 0:
        return
    for arch in ARCHES.values():
        if arch.tiles_per_ipu != tpi and used % arch.tiles_per_ipu == 0:
            ipus = used // arch.tiles_per_ipu
            raise ReadError(
                f"the tensor map spans tiles 0 to {used - 1:,}: exactly {ipus:,} {arch.name} IPU(s) of "
                f"{arch.tiles_per_ipu:,} tiles, but {report.label} has {report.num_tiles:,} tiles of {tpi:,} per "
                "IPU: a tensor map of another program?", path=tensor_map.source)


def attribute(report: MemoryReport, tensor_map: TensorMap, top: Sequence[TopTile]) -> list[TileTensors]:
    """For each of the report's ``top`` tiles, the tensors on it with elements and estimated bytes."""
    check_matches(report, tensor_map)
    tpi = report.target.tiles_per_ipu
    # The top tiles are the detailed tiles (and their printed figures) for a text report.
    return [_tile_tensors(tensor_map, t.tile, tpi, t.excluding_gaps, t.including_gaps) for t in top]
