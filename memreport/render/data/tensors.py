"""Tensor maps as JSON and CSV: a map alone, and the tensors on a report's top tiles."""
from __future__ import annotations

import numpy as np

from ...analysis import Summary, TensorMapSummary
from ...analysis.tensors import TileTensors
from ...model import exact_sum
from ...model.tensor_map import ESTIMATE_LABEL, TensorMap

# -- CSV ----------------------------------------------------------------------------------------------

CSV_COLUMNS = ("tensor_elements", "tensor_est_bytes", "tensor_unknown_size_elements")


def per_tile_columns(tensor_map: TensorMap, num_tiles: int) -> dict[str, np.ndarray]:
    """The tensor map's per-tile figures under their CSV names, ``num_tiles`` long.

    A tile past the map's highest mapped tile holds no mapped element: 0 is
    what the map says of it, not a guess.
    """
    def fit(values: np.ndarray) -> np.ndarray:
        out = np.zeros(num_tiles, dtype=np.int64)
        n = min(num_tiles, values.size)
        out[:n] = values[:n]
        return out
    return {"tensor_elements": fit(tensor_map.elements_by_tile),
            "tensor_est_bytes": fit(tensor_map.est_bytes_by_tile),
            "tensor_unknown_size_elements": fit(tensor_map.unknown_elements_by_tile)}


def csv_rows(summary: TensorMapSummary) -> list[list[str]]:
    """One row per tile of a tensor-map report: the base columns blank but tile and IPU, then elements."""
    tensor_map = summary.own_tensor_map
    n, tpi = tensor_map.num_tiles, summary.report.target.tiles_per_ipu
    tiles = np.arange(n)
    blank = [""] * n
    values = per_tile_columns(tensor_map, n)
    cols = [tiles.astype(str).tolist(), (tiles // tpi).astype(str).tolist() if tpi else blank,
            blank, blank, blank, blank] + [values[name].astype(str).tolist() for name in CSV_COLUMNS]
    return [list(row) for row in zip(*cols)]


# -- JSON ---------------------------------------------------------------------------------------------


def tile_dict(row: TileTensors) -> dict:
    """One tile's tensor data as JSON (every tensor on it, largest first)."""
    return {"tile": row.tile, "ipu": row.ipu, "excluding_gaps": row.excluding_gaps,
            "including_gaps": row.including_gaps, "tensor_elements": row.elements,
            "tensor_est_bytes": row.est_bytes, "unknown_size_elements": row.unknown_size_elements,
            "tensors": [{"name": t.name, "computation": t.computation, "elements": t.elements,
                         "est_bytes": t.est_bytes} for t in row.tensors]}


def tensor_map_dict(summary: TensorMapSummary, tensor_map: TensorMap) -> dict:
    """A tensor map on its own, as JSON."""
    hist = summary.element_histogram
    assert hist is not None  # summarize gives a tensor map its element histogram
    return {
        "source": tensor_map.source,
        "estimate": ESTIMATE_LABEL,
        "num_tensors": len(tensor_map.tensors),
        "computations": list(tensor_map.computations),
        "num_tiles": tensor_map.num_tiles,
        "unknown_element_types": list(tensor_map.unknown_element_types),
        "elements": exact_sum(tensor_map.elements_by_tile),
        "est_bytes": exact_sum(tensor_map.est_bytes_by_tile),
        "element_histogram": {"bin_elements": hist.bin_elements,
                              "bins": [{"low": b.low, "high": b.high, "count": b.count} for b in hist.bins]},
        "top_tiles": [tile_dict(r) for r in summary.data_tiles],
        "notes": list(tensor_map.notes),
    }


def attribution_dict(summary: Summary) -> dict:
    """The tensors on the report's top tiles, as JSON."""
    tensor_map = summary.tensor_map
    assert tensor_map is not None
    return {"tensor_map": tensor_map.source, "estimate": ESTIMATE_LABEL,
            "unknown_element_types": list(tensor_map.unknown_element_types),
            "tiles": [tile_dict(r) for r in summary.tensors or ()]}


def json_sections(summary: Summary) -> dict:
    """Extra keys for a report's JSON record: ``tensor_map`` and/or ``tensor_attribution``."""
    sections = {}
    if isinstance(summary, TensorMapSummary):
        sections["tensor_map"] = tensor_map_dict(summary, summary.own_tensor_map)
    elif summary.tensor_map is not None:
        sections["tensor_attribution"] = attribution_dict(summary)
    return sections
