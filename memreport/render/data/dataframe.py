"""A report as a pandas DataFrame: the CSV's rows and columns, with numeric dtypes and NA where unknown.

pandas is imported here only, when asked for. Byte columns are nullable
``Int64`` (a tile without an ELF section, a source without gap information)
and ``out_of_memory`` is nullable ``boolean``, so a missing value is NA,
never 0 or a copy of another figure.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...analysis import Summary, TensorMapSummary, TileSummary
from ...errors import MissingDependency
from .csv import BASE_COLUMNS, not_counted_bytes
from .csv import _columns as csv_columns  # the same extra columns as the CSV, in the same order

if TYPE_CHECKING:  # pragma: no cover
    import pandas


def _pandas():
    try:
        import pandas
    except ImportError as exc:
        raise MissingDependency("to_dataframe() needs pandas (pip install pandas)") from exc
    return pandas


def to_dataframe(summary: Summary) -> pandas.DataFrame:
    """One row per tile (for a text summary, per tile it states figures for), columns as in the CSV."""
    pd = _pandas()
    report = summary.report
    columns = csv_columns(summary)
    if isinstance(summary, TensorMapSummary):  # elements per tile, not bytes: the tensor columns, byte columns NA
        data = _tensor_map(summary, pd)
    elif isinstance(summary, TileSummary):
        data = _complete(summary, columns, pd)
    else:
        data = _partial(summary, columns, pd)
    frame = pd.DataFrame(data, columns=BASE_COLUMNS + [label for label, _, _ in columns]
                         + (["stated_by"] if "stated_by" in data else []))
    frame.attrs.update({"source": report.source, "module": report.module, "format": report.format,
                        "per_tile": report.per_tile, "bytes_per_tile": report.target.bytes_per_tile})
    return frame


def _ints(pd, values: np.ndarray | None, n: int, missing: np.ndarray | None = None):
    """A nullable Int64 column; all NA when ``values`` is None, NA where ``missing``."""
    if values is None:
        return pd.array([None] * n, dtype="Int64")
    mask = np.zeros(n, dtype=bool) if missing is None else missing.copy()
    return pd.arrays.IntegerArray(values.astype(np.int64), mask)


def _complete(summary: TileSummary, columns: list[tuple[str, str, str]], pd) -> dict:
    report = summary.tiles
    n = report.num_tiles
    tiles = np.arange(n, dtype=np.int64)
    tpi = report.target.tiles_per_ipu
    over = summary.out_of_memory
    unknown = None if report.known is None else ~report.known  # skipped members: NA, not their placeholder
    data = {
        "tile": tiles,
        "ipu": _ints(pd, tiles // tpi if tpi else None, n),
        "member": pd.array(list(report.tile_names) if report.tile_names is not None else [None] * n,
                           dtype="object"),
        "excluding_gaps": _ints(pd, report.excluding_gaps, n, unknown),
        "including_gaps": _ints(pd, report.including_gaps, n, unknown),
        "out_of_memory": pd.arrays.BooleanArray(over, unknown) if over is not None and unknown is not None
        else pd.array(over if over is not None else [None] * n, dtype="boolean"),
    }
    for label, what, key in columns:
        if what == "region":
            data[label] = _ints(pd, report.regions[key], n)
        elif what == "not_counted":
            data[label] = _ints(pd, not_counted_bytes(report), n, unknown)
        else:
            col = report.breakdown[key]
            data[label] = _ints(pd, col.values, n, None if col.present is None else ~col.present)
    return data


def _tensor_map(summary: TensorMapSummary, pd) -> dict:
    """A tensor map's tiles: tile and IPU, no bytes (NA), then elements and estimated tensor-data bytes."""
    from .tensors import per_tile_columns
    report = summary.report
    tensor_map = summary.own_tensor_map
    n = tensor_map.num_tiles
    tiles = np.arange(n, dtype=np.int64)
    tpi = report.target.tiles_per_ipu
    unknown = _ints(pd, None, n)
    data = {"tile": tiles, "ipu": _ints(pd, tiles // tpi if tpi else None, n),
            "member": pd.array([None] * n, dtype="object"), "excluding_gaps": unknown,
            "including_gaps": unknown.copy(), "out_of_memory": pd.array([None] * n, dtype="boolean")}
    data.update(per_tile_columns(tensor_map, n))
    return data


def _partial(summary: Summary, columns: list[tuple[str, str, str]], pd) -> dict:
    """A text summary's rows: every tile it states figures for (:func:`~memreport.analysis.tiles.stated_tiles`)."""
    rows = summary.stated
    data = {
        "tile": np.array([t.tile for t in rows], dtype=np.int64),
        "ipu": pd.array([t.ipu for t in rows], dtype="Int64"),
        "member": pd.array([None] * len(rows), dtype="object"),
        "excluding_gaps": pd.array([t.excluding_gaps for t in rows], dtype="Int64"),
        "including_gaps": pd.array([t.including_gaps for t in rows], dtype="Int64"),
        "out_of_memory": pd.array([t.out_of_memory for t in rows], dtype="boolean"),
    }
    for label, what, key in columns:
        data[label] = pd.array([(t.regions if what == "region" else t.breakdown if what == "breakdown" else {}
                                 ).get(key) for t in rows], dtype="Int64")
    data["stated_by"] = pd.array([t.stated_by for t in rows], dtype="object")
    return data
