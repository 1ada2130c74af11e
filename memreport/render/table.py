"""Machine-readable output: JSON (schema ``memreport/1``) and CSV (one row per tile).

Values a source does not hold are ``null`` in JSON and blank in CSV, never a
copy of another figure.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from typing import Any, Sequence

import numpy as np

from .. import analysis
from ..model import MemoryReport, TileBytes
from ..tensor_map_model import TensorMap
from . import csvlines

SCHEMA = "memreport/1"


def _tile_bytes(value: TileBytes | None) -> dict | None:
    return None if value is None else {"tile": value.tile, "bytes": value.bytes}


def _plain(value: Any) -> Any:
    """JSON-safe copy of ``info`` values (numpy scalars and arrays become Python)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def report_dict(report: MemoryReport, *, top: int = 5, bin_kib: int | None = None,
                tensor_map: TensorMap | None = None) -> dict:
    """One report as the ``memreport/1`` record (tensor-map keys from :mod:`.tensors`)."""
    from . import tensors
    t = report.target
    # A tensor map alone holds elements, not bytes: it has no bytes histogram.
    hist = None if report.format == "tensor-map" else analysis.histogram_if_known(report, bin_kib)
    return {
        "source": report.source,
        "module": report.module,
        "format": report.format,
        "per_tile": report.per_tile,
        "target": {"arch": t.arch, "num_ipus": t.num_ipus, "tiles_per_ipu": t.tiles_per_ipu,
                   "num_tiles": t.num_tiles, "bytes_per_tile": t.bytes_per_tile, "clock_hz": t.clock_hz,
                   "type": t.type},
        "totals": {"including_gaps": analysis.total_including_gaps(report),
                   "excluding_gaps": analysis.total_excluding_gaps(report)},
        "max_including_gaps": _tile_bytes(analysis.max_including_gaps(report)),
        "max_excluding_gaps": _tile_bytes(analysis.max_excluding_gaps(report)),
        "tiles_out_of_memory": analysis.count_out_of_memory(report),
        "histogram": None if hist is None else {"bin_kib": hist.bin_kib, "bins": [asdict(b) for b in hist.bins]},
        "top_tiles": [{"tile": tt.tile, "ipu": tt.ipu, "including_gaps": tt.including_gaps,
                       "excluding_gaps": tt.excluding_gaps, "out_of_memory": tt.out_of_memory,
                       "breakdown": dict(tt.breakdown), "member": tt.name, "regions": dict(tt.regions) or None}
                      for tt in analysis.top_tiles(report, top)],
        "per_ipu": [{"ipu": s.ipu, "first_tile": s.first_tile, "num_tiles": s.num_tiles,
                     "excluding_gaps": s.excluding_gaps, "including_gaps": s.including_gaps,
                     "max_excluding_gaps": _tile_bytes(s.max_excluding_gaps),
                     "tiles_out_of_memory": s.tiles_out_of_memory} for s in analysis.per_ipu(report)],
        "breakdown_kind": report.breakdown_kind,
        "detailed_tiles": [{"tile": d.tile, "including_gaps": d.including_gaps,
                            "excluding_gaps": d.excluding_gaps, "breakdown": dict(d.breakdown),
                            "regions": dict(d.regions), "extra": _plain(dict(d.extra))}
                           for d in report.detailed_tiles],
        "info": _plain({k: v for k, v in report.info.items() if k != "tensor_map"}),
        "notes": list(report.notes),
        "skipped_members": [{"tile": s.tile, "member": s.member, "reason": s.reason} for s in report.skipped],
        **tensors.json_sections(report, top=top, tensor_map=tensor_map),
    }


def render_json(reports: Sequence[MemoryReport], *, top: int = 5, bin_kib: int | None = None,
                tensor_map: TensorMap | None = None) -> str:
    """Every report in one ``memreport/1`` document."""
    doc = {"schema": SCHEMA, "reports": [report_dict(r, top=top, bin_kib=bin_kib, tensor_map=tensor_map)
                                         for r in reports]}
    return json.dumps(doc, indent=2) + "\n"


def _columns(report: MemoryReport) -> list[str]:
    if report.format == "tensor-map":
        from .tensors import CSV_COLUMNS
        return list(CSV_COLUMNS)
    if report.excluding_gaps is not None:
        return list(report.breakdown) + [f"region.{name}" for name in report.regions]
    names: dict[str, None] = {}
    for d in report.detailed_tiles:
        names.update(dict.fromkeys(d.breakdown))
        names.update(dict.fromkeys(f"region.{r}" for r in d.regions))
    return list(names)


def _cells(values: np.ndarray, present: np.ndarray | None = None) -> list[str]:
    cells = values.astype(str).tolist()
    if present is not None:
        cells = [c if p else "" for c, p in zip(cells, present.tolist())]
    return cells


def _rows(report: MemoryReport, columns: list[str]) -> list[list[str]]:
    """Per-tile rows for a complete report, column by column (vectorised), or the detailed tiles."""
    t = report.target
    if report.format == "tensor-map":  # elements and estimates per tile; the byte columns stay blank
        from .tensors import csv_rows
        return csv_rows(report)
    if report.excluding_gaps is None:
        rows = []
        limit = t.bytes_per_tile
        for d in report.detailed_tiles:
            values = {**d.breakdown, **{f"region.{k}": v for k, v in d.regions.items()}}
            oom = "" if limit is None or d.excluding_gaps is None else str(d.excluding_gaps > limit).lower()
            rows.append([str(d.tile), "" if t.ipu_of(d.tile) is None else str(t.ipu_of(d.tile)), "",
                         "" if d.excluding_gaps is None else str(d.excluding_gaps),
                         "" if d.including_gaps is None else str(d.including_gaps), oom]
                        + ["" if values.get(c) is None else str(values[c]) for c in columns])
        return rows
    n = t.num_tiles
    tiles = np.arange(n)
    cols = [tiles.astype(str).tolist(),
            ([""] * n if not t.tiles_per_ipu else (tiles // t.tiles_per_ipu).astype(str).tolist()),
            list(report.tile_names) if report.tile_names is not None else [""] * n,
            _cells(report.excluding_gaps, report.known),
            _cells(report.including_gaps, report.known) if report.including_gaps is not None else [""] * n]
    cols.append(_over_cells(report))
    for name in columns:
        if name.startswith("region.") and name[7:] in report.regions:
            cols.append(_cells(report.regions[name[7:]]))
        else:
            col = report.breakdown[name]
            cols.append(_cells(col.values, col.present))
    return [list(row) for row in zip(*cols)]


BASE_COLUMNS = ["tile", "ipu", "member", "excluding_gaps", "including_gaps", "out_of_memory"]


def _over_cells(report: MemoryReport) -> list[str]:
    """"true"/"false" per tile; blank where unknown (bytes per tile unknown, or a skipped member)."""
    over = analysis.out_of_memory(report)
    if over is None:
        return [""] * report.num_tiles
    cells = np.where(over, "true", "false")
    if report.known is not None:
        cells = np.where(report.known, cells, "")
    return cells.tolist()


def _complete_columns(report: MemoryReport, names: list[str], several: bool) -> list[csvlines.ColumnSpec]:
    """The CSV columns of a report with every tile's values, as :func:`_rows` lays them out."""
    t = report.target
    tiles = np.arange(t.num_tiles)
    blank = csvlines.Text(constant="")
    columns = [csvlines.Integers(tiles),
               csvlines.Integers(tiles // t.tiles_per_ipu) if t.tiles_per_ipu else blank,
               csvlines.Text(list(report.tile_names)) if report.tile_names is not None else blank,
               csvlines.Integers(report.excluding_gaps, report.known),
               csvlines.Integers(report.including_gaps, report.known) if report.including_gaps is not None
               else blank]
    over = _over_cells(report)
    columns.append(csvlines.Text(over) if over else blank)
    for name in names:
        if name.startswith("region.") and name[7:] in report.regions:
            columns.append(csvlines.Integers(report.regions[name[7:]]))
        elif name in report.breakdown:
            column = report.breakdown[name]
            columns.append(csvlines.Integers(column.values, column.present))
        else:  # another report's column
            columns.append(blank)
    if several:
        columns += [csvlines.Text(constant=report.source), csvlines.Text(constant=report.module or "")]
    return columns


def render_csv(reports: Sequence[MemoryReport]) -> str:
    """One row per tile (per detailed tile for a text report).

    With several reports the header is the union of their columns, and
    ``source`` and ``module`` columns are added at the end.
    """
    several = len(reports) > 1
    columns: dict[str, None] = {}
    per_report = []
    for report in reports:
        own = _columns(report)
        columns.update(dict.fromkeys(own))
        per_report.append(own)
    header = BASE_COLUMNS + list(columns) + (["source", "module"] if several else [])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for report, own in zip(reports, per_report):
        if report.excluding_gaps is not None and report.format != "tensor-map":  # every tile: column-wise
            body = csvlines.lines(_complete_columns(report, list(columns) if several else own, several),
                                  report.num_tiles)
            if body:
                out.write("\n".join(body) + "\n")
            continue
        rows = _rows(report, own)
        if several:
            index = {name: 6 + i for i, name in enumerate(own)}
            tail = [report.source, report.module or ""]
            rows = [row[:6] + [row[index[c]] if c in index else "" for c in columns] + tail for row in rows]
        writer.writerows(rows)
    return out.getvalue()
