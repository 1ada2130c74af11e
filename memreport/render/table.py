"""Machine-readable output: JSON (schema ``memreport/1``) and CSV (one row per tile).

Values a source does not hold are ``null`` in JSON and blank in CSV, never a
copy of another figure.
"""
from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from ..analysis import Summary
from ..model import MemoryReport, TensorMapReport, TileBytes, TileReport
from . import RenderOptions, csvlines
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


def report_dict(summary: Summary) -> dict:
    """One report as the ``memreport/1`` record (tensor-map keys from :mod:`.tensors`)."""
    from . import tensors
    report = summary.report
    t = report.target
    hist = summary.histogram
    oom_note = summary.oom_note
    return {
        "source": report.source,
        "module": report.module,
        "format": report.format,
        "per_tile": report.per_tile,
        "target": {"arch": t.arch, "num_ipus": t.num_ipus, "tiles_per_ipu": t.tiles_per_ipu,
                   "num_tiles": t.num_tiles, "bytes_per_tile": t.bytes_per_tile, "clock_hz": t.clock_hz,
                   "type": t.type},
        "totals": {"including_gaps": summary.including_gaps, "excluding_gaps": summary.excluding_gaps},
        "max_including_gaps": tile_bytes_json(summary.max_including_gaps),
        "max_excluding_gaps": tile_bytes_json(summary.max_excluding_gaps),
        "tiles_out_of_memory": summary.oom.count,
        "histogram": None if hist is None else {"bin_kib": hist.bin_kib, "bins": [asdict(b) for b in hist.bins]},
        "top_tiles": [{"tile": tt.tile, "ipu": tt.ipu, "including_gaps": tt.including_gaps,
                       "excluding_gaps": tt.excluding_gaps, "out_of_memory": tt.out_of_memory,
                       "breakdown": dict(tt.breakdown), "member": tt.name, "regions": dict(tt.regions) or None}
                      for tt in summary.top],
        "per_ipu": [{"ipu": s.ipu, "first_tile": s.first_tile, "num_tiles": s.num_tiles,
                     "excluding_gaps": s.excluding_gaps, "including_gaps": s.including_gaps,
                     "max_excluding_gaps": tile_bytes_json(s.max_excluding_gaps),
                     "tiles_out_of_memory": s.tiles_out_of_memory} for s in summary.per_ipu],
        "breakdown_kind": report.breakdown_kind,
        "detailed_tiles": [{"tile": d.tile, "including_gaps": d.including_gaps,
                            "excluding_gaps": d.excluding_gaps, "breakdown": dict(d.breakdown),
                            "regions": dict(d.regions), "extra": _plain(dict(d.extra))}
                           for d in report.detailed_tiles],
        "info": _plain(dict(report.info)),
        "notes": list(report.notes) + ([oom_note] if oom_note else []),
        "skipped_members": [{"tile": s.tile, "member": s.member, "reason": s.reason} for s in report.skipped],
        **tensors.json_sections(summary),
    }


def render_json(summaries: Sequence[Summary], options: RenderOptions | None = None) -> str:
    """Every report in one ``memreport/1`` document."""
    doc = {"schema": SCHEMA, "reports": [report_dict(s) for s in summaries]}
    return json.dumps(doc, indent=2) + "\n"


Spec = tuple  # (label, what, key): a CSV column after the base ones; what is "breakdown", "region" or "tensor"


def _items(report: MemoryReport) -> list[tuple[str, str]]:
    """A report's own columns, in order: ("breakdown", item) and ("region", region) (tensor columns for a map)."""
    if isinstance(report, TensorMapReport):
        return [("tensor", name) for name in TENSOR_COLUMNS]
    if isinstance(report, TileReport):
        return [("breakdown", name) for name in report.breakdown] + [("region", name) for name in report.regions]
    found: dict[tuple[str, str], None] = {}
    for d in report.detailed_tiles:
        found.update(dict.fromkeys(("breakdown", name) for name in d.breakdown))
        found.update(dict.fromkeys(("region", name) for name in d.regions))
    return list(found)


def column_specs(reports: Sequence[MemoryReport]) -> list[list[Spec]]:
    """Per report, its CSV columns after the base ones, as (label, what, key).

    Labels never repeat nor shadow one another: a breakdown item named like
    a base, region, tensor, ``source`` or ``module`` column (a section called
    ``tile``, a category ``region.interleaved``) takes its kind in
    parentheses: ``tile (section)``. The same item of the same kind has the
    same label in every report, so several reports share its column.
    """
    items = [_items(report) for report in reports]
    reserved = set(BASE_COLUMNS) | {"source", "module"} | set(TENSOR_COLUMNS) \
        | {f"region.{key}" for own in items for what, key in own if what == "region"}
    taken = reserved | {key for own in items for what, key in own if what == "breakdown"}
    labels: dict[tuple[str, str], str] = {}
    specs = []
    for report, own in zip(reports, items):
        kind = report.breakdown_kind
        out = []
        for what, key in own:
            if what != "breakdown":
                out.append((f"region.{key}" if what == "region" else key, what, key))
                continue
            label = labels.get((kind, key))
            if label is None:
                label = key
                if key in reserved:
                    while label in taken:
                        label += f" ({kind})"
                    taken.add(label)
                labels[kind, key] = label
            out.append((label, what, key))
        specs.append(out)
    return specs


def _columns(report: MemoryReport) -> list[Spec]:
    """The report's own columns after the base ones (breakdown items and regions; tensor columns for a map)."""
    return column_specs([report])[0]


def _summary_rows(summary: Summary, columns: list[Spec]) -> list[list[str]]:
    """Rows of a report without every tile's bytes: a summary's detailed tiles, or a tensor map's tiles."""
    report = summary.report
    if isinstance(report, TensorMapReport):  # elements and estimates per tile; the byte columns stay blank
        from .tensors import csv_rows
        return csv_rows(report)
    rows = []
    for d in summary.detailed:
        values = [(d.breakdown if what == "breakdown" else d.regions).get(key) for _, what, key in columns]
        rows.append([str(d.tile), "" if d.ipu is None else str(d.ipu), "",
                     "" if d.excluding_gaps is None else str(d.excluding_gaps),
                     "" if d.including_gaps is None else str(d.including_gaps),
                     "" if d.out_of_memory is None else str(d.out_of_memory).lower()]
                    + ["" if v is None else str(v) for v in values])
    return rows


BASE_COLUMNS = ["tile", "ipu", "member", "excluding_gaps", "including_gaps", "out_of_memory"]


def over_cells(report: TileReport, over: np.ndarray | None) -> list[str]:
    """"true"/"false" per tile; blank where unknown (bytes per tile unknown, or a skipped member)."""
    if over is None:
        return [""] * report.num_tiles
    cells = np.where(over, "true", "false")
    if report.known is not None:
        cells = np.where(report.known, cells, "")
    return cells.tolist()


def _complete_columns(summary: Summary, labels: list[str], own: list[Spec], several: bool,
                      tensor_columns: dict[str, np.ndarray]) -> list[csvlines.ColumnSpec]:
    """The CSV columns of a report with every tile's values, column by column."""
    report = summary.report
    assert isinstance(report, TileReport)
    t = report.target
    tiles = np.arange(t.num_tiles)
    blank = csvlines.Text(constant="")
    columns = [csvlines.Integers(tiles),
               csvlines.Integers(tiles // t.tiles_per_ipu) if t.tiles_per_ipu else blank,
               csvlines.Text(list(report.tile_names)) if report.tile_names is not None else blank,
               csvlines.Integers(report.excluding_gaps, report.known),
               csvlines.Integers(report.including_gaps, report.known) if report.including_gaps is not None
               else blank]
    over = over_cells(report, summary.out_of_memory)
    columns.append(csvlines.Text(over) if over else blank)
    by_label = {label: (what, key) for label, what, key in own}
    for label in labels:
        what, key = by_label.get(label, ("", label))
        if what == "region":
            columns.append(csvlines.Integers(report.regions[key]))
        elif what == "breakdown":
            column = report.breakdown[key]
            columns.append(csvlines.Integers(column.values, column.present))
        elif label in tensor_columns:
            columns.append(csvlines.Integers(tensor_columns[label]))
        else:  # another report's column
            columns.append(blank)
    if several:
        columns += [csvlines.Text(constant=report.source), csvlines.Text(constant=report.module or "")]
    return columns


def render_csv(summaries: Sequence[Summary], options: RenderOptions | None = None) -> str:
    """One row per tile (per detailed tile for a text report).

    With several reports the header is the union of their columns, and
    ``source`` and ``module`` columns are added at the end. A tensor map of
    the program (``--tensor-map``) adds its per-tile columns (elements,
    estimated bytes of tensor data, elements of unknown size) to every
    report's rows.
    """
    from .tensors import per_tile_columns
    several = len(summaries) > 1
    tensor_map = next((s.tensor_map for s in summaries if s.tensor_map is not None), None)
    columns: dict[str, None] = {}
    per_report = column_specs([s.report for s in summaries])
    for own in per_report:
        columns.update(dict.fromkeys(label for label, _, _ in own))
    if tensor_map is not None:
        columns.update(dict.fromkeys(TENSOR_COLUMNS))
    shared = several or tensor_map is not None  # every report's rows take the union's columns
    header = BASE_COLUMNS + list(columns) + (["source", "module"] if several else [])
    out = io.StringIO()
    out.write(csvlines.row(header) + "\n")
    for summary, own in zip(summaries, per_report):
        report = summary.report
        tensor_columns = {} if tensor_map is None else per_tile_columns(tensor_map, report.num_tiles)
        if isinstance(report, TileReport):  # every tile: column-wise
            labels = list(columns) if shared else [label for label, _, _ in own]
            body = csvlines.lines(_complete_columns(summary, labels, own, several, tensor_columns), report.num_tiles)
            if body:
                out.write("\n".join(body) + "\n")
            continue
        rows = _summary_rows(summary, own)
        if shared:
            index = {label: 6 + i for i, (label, _, _) in enumerate(own)}
            tail = [report.source, report.module or ""] if several else []
            rows = [row[:6] + [row[index[c]] if c in index else
                               str(tensor_columns[c][int(row[0])]) if c in tensor_columns else "" for c in columns]
                    + tail for row in rows]
        out.writelines(csvlines.row(cells) + "\n" for cells in rows)
    return out.getvalue()
