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
from .tensors import CSV_COLUMNS as TENSOR_COLUMNS

SCHEMA = "memreport/1"


def tile_bytes_json(value: TileBytes | None) -> dict | None:
    """A maximum as JSON: ``{"tile": int, "bytes": int}``, or None (shared with the diff's JSON)."""
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
    oom = analysis.out_of_memory_count(report)
    oom_note = oom.note() if report.is_printed_summary else None
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
        "max_including_gaps": tile_bytes_json(analysis.max_including_gaps(report)),
        "max_excluding_gaps": tile_bytes_json(analysis.max_excluding_gaps(report)),
        "tiles_out_of_memory": oom.count,
        "histogram": None if hist is None else {"bin_kib": hist.bin_kib, "bins": [asdict(b) for b in hist.bins]},
        "top_tiles": [{"tile": tt.tile, "ipu": tt.ipu, "including_gaps": tt.including_gaps,
                       "excluding_gaps": tt.excluding_gaps, "out_of_memory": tt.out_of_memory,
                       "breakdown": dict(tt.breakdown), "member": tt.name, "regions": dict(tt.regions) or None}
                      for tt in analysis.top_tiles(report, top)],
        "per_ipu": [{"ipu": s.ipu, "first_tile": s.first_tile, "num_tiles": s.num_tiles,
                     "excluding_gaps": s.excluding_gaps, "including_gaps": s.including_gaps,
                     "max_excluding_gaps": tile_bytes_json(s.max_excluding_gaps),
                     "tiles_out_of_memory": s.tiles_out_of_memory} for s in analysis.per_ipu(report)],
        "breakdown_kind": report.breakdown_kind,
        "detailed_tiles": [{"tile": d.tile, "including_gaps": d.including_gaps,
                            "excluding_gaps": d.excluding_gaps, "breakdown": dict(d.breakdown),
                            "regions": dict(d.regions), "extra": _plain(dict(d.extra))}
                           for d in report.detailed_tiles],
        "info": _plain({k: v for k, v in report.info.items() if k != "tensor_map"}),
        "notes": list(report.notes) + ([oom_note] if oom_note else []),
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
    """The report's own columns after the base ones: breakdown items and regions (tensor columns for a map)."""
    if report.format == "tensor-map":
        return list(TENSOR_COLUMNS)
    if report.excluding_gaps is not None:
        return list(report.breakdown) + [f"region.{name}" for name in report.regions]
    names: dict[str, None] = {}
    for d in report.detailed_tiles:
        names.update(dict.fromkeys(d.breakdown))
        names.update(dict.fromkeys(f"region.{r}" for r in d.regions))
    return list(names)


def _summary_rows(report: MemoryReport, columns: list[str]) -> list[list[str]]:
    """Rows of a report without every tile's bytes: a summary's detailed tiles, or a tensor map's tiles."""
    if report.format == "tensor-map":  # elements and estimates per tile; the byte columns stay blank
        from .tensors import csv_rows
        return csv_rows(report)
    t = report.target
    rows = []
    for d in report.detailed_tiles:
        values = {**d.breakdown, **{f"region.{k}": v for k, v in d.regions.items()}}
        oom = analysis.detail_out_of_memory(report, d)
        rows.append([str(d.tile), "" if t.ipu_of(d.tile) is None else str(t.ipu_of(d.tile)), "",
                     "" if d.excluding_gaps is None else str(d.excluding_gaps),
                     "" if d.including_gaps is None else str(d.including_gaps),
                     "" if oom is None else str(oom).lower()]
                    + ["" if values.get(c) is None else str(values[c]) for c in columns])
    return rows


BASE_COLUMNS = ["tile", "ipu", "member", "excluding_gaps", "including_gaps", "out_of_memory"]


def over_cells(report: MemoryReport) -> list[str]:
    """"true"/"false" per tile; blank where unknown (bytes per tile unknown, or a skipped member)."""
    over = analysis.out_of_memory(report)
    if over is None:
        return [""] * report.num_tiles
    cells = np.where(over, "true", "false")
    if report.known is not None:
        cells = np.where(report.known, cells, "")
    return cells.tolist()


def _complete_columns(report: MemoryReport, names: list[str], several: bool,
                      tensor_columns: dict[str, np.ndarray]) -> list[csvlines.ColumnSpec]:
    """The CSV columns of a report with every tile's values, column by column."""
    t = report.target
    tiles = np.arange(t.num_tiles)
    blank = csvlines.Text(constant="")
    columns = [csvlines.Integers(tiles),
               csvlines.Integers(tiles // t.tiles_per_ipu) if t.tiles_per_ipu else blank,
               csvlines.Text(list(report.tile_names)) if report.tile_names is not None else blank,
               csvlines.Integers(report.excluding_gaps, report.known),
               csvlines.Integers(report.including_gaps, report.known) if report.including_gaps is not None
               else blank]
    over = over_cells(report)
    columns.append(csvlines.Text(over) if over else blank)
    for name in names:
        if name.startswith("region.") and name[7:] in report.regions:
            columns.append(csvlines.Integers(report.regions[name[7:]]))
        elif name in report.breakdown:
            column = report.breakdown[name]
            columns.append(csvlines.Integers(column.values, column.present))
        elif name in tensor_columns:
            columns.append(csvlines.Integers(tensor_columns[name]))
        else:  # another report's column
            columns.append(blank)
    if several:
        columns += [csvlines.Text(constant=report.source), csvlines.Text(constant=report.module or "")]
    return columns


def render_csv(reports: Sequence[MemoryReport], *, tensor_map: TensorMap | None = None) -> str:
    """One row per tile (per detailed tile for a text report).

    With several reports the header is the union of their columns, and
    ``source`` and ``module`` columns are added at the end. ``tensor_map``
    adds its per-tile columns (elements, estimated bytes of tensor data,
    elements of unknown size) to every report's rows.
    """
    from .tensors import per_tile_columns
    several = len(reports) > 1
    columns: dict[str, None] = {}
    per_report = []
    for report in reports:
        own = _columns(report)
        columns.update(dict.fromkeys(own))
        per_report.append(own)
    if tensor_map is not None:
        columns.update(dict.fromkeys(TENSOR_COLUMNS))
    shared = several or tensor_map is not None  # every report's rows take the union's columns
    header = BASE_COLUMNS + list(columns) + (["source", "module"] if several else [])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for report, own in zip(reports, per_report):
        tensor_columns = {} if tensor_map is None else per_tile_columns(tensor_map, report.num_tiles)
        if report.excluding_gaps is not None:  # every tile: column-wise
            body = csvlines.lines(_complete_columns(report, list(columns) if shared else own, several,
                                                    tensor_columns), report.num_tiles)
            if body:
                out.write("\n".join(body) + "\n")
            continue
        rows = _summary_rows(report, own)
        if shared:
            index = {name: 6 + i for i, name in enumerate(own)}
            tail = [report.source, report.module or ""] if several else []
            rows = [row[:6] + [row[index[c]] if c in index else
                               str(tensor_columns[c][int(row[0])]) if c in tensor_columns else "" for c in columns]
                    + tail for row in rows]
        writer.writerows(rows)
    return out.getvalue()
