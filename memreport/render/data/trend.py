"""A :class:`~memreport.analysis.results.Trend` for tools: JSON (``memreport-trend/1``) and CSV, a row per build.

Bytes are excluding gaps; what a build does not say is ``null`` in JSON and
blank in CSV. The JSON lists every tile out of memory in the last build.
"""
from __future__ import annotations

import csv
import io
import json

from ...analysis.results import Trend, TrendBuild
from ...model.schemas import TREND_SCHEMA, csv_text
from .. import RenderOptions
from ..words import trend_notes, trend_verdict
from .report import gates_json, tile_bytes_json


def build_dict(build: TrendBuild) -> dict:
    """One build's record: where it came from, its figures, its change against the build before."""
    f, c = build.figures, build.count
    return {"label": build.label, "source": f.source, "module": f.module, "report": f.label, "format": f.format,
            "per_tile": f.per_tile, "of_reports": f.of_reports, "num_tiles": f.num_tiles,
            "bytes_per_tile": f.bytes_per_tile, "worst_tile": tile_bytes_json(build.worst),
            "percent_of_tile": None if build.share is None else 100 * build.share,
            "tiles_out_of_memory": c.count, "out_of_memory_at_least": c.at_least if c.count is None else None,
            "headroom": build.headroom, "total_excluding_gaps": f.total_excluding_gaps,
            "change_bytes": build.change,
            "change_percent": None if build.change_share is None else 100 * build.change_share,
            "tile_status": build.over is not None}


TILES_PLACEHOLDER = "\0memreport-trend tiles\0"  # no label holds a NUL


def tile_dicts(trend: Trend) -> list[dict] | None:
    """Every tile out of memory in the last build, the latest to go over first (None: which is unknown)."""
    if trend.tiles is None:
        return None
    labels = [b.label for b in trend.builds]
    return [{"tile": h.tile, "ipu": h.ipu, "bytes": h.bytes, "first_over": labels[h.first], "first_build": h.first,
             "first_certain": h.first_certain, "went_over_in_first": h.went_over, "over_since": labels[h.since],
             "since_build": h.since, "stayed_over": h.stayed} for h in trend.histories()]


def trend_dict(trend: Trend) -> dict:
    """The ``memreport-trend/1`` record."""
    return {
        "schema": TREND_SCHEMA,
        "verdict": trend_verdict(trend).headline,
        "builds": [build_dict(b) for b in trend.builds],
        "tiles": tile_dicts(trend),
        "notes": list(trend_notes(trend)),
        "gates": gates_json(trend.gates),
    }


def render_json(trend: Trend, options: RenderOptions | None = None) -> str:
    """The trend as one ``memreport-trend/1`` JSON document, a tile to a line (a pod's thousands stay short)."""
    doc = trend_dict(trend)
    tiles = doc["tiles"]
    if not tiles:
        return json.dumps(doc, indent=2) + "\n"
    doc["tiles"] = TILES_PLACEHOLDER
    rows = ",\n    ".join(json.dumps(t) for t in tiles)
    return json.dumps(doc, indent=2).replace(json.dumps(TILES_PLACEHOLDER), f"[\n    {rows}\n  ]", 1) + "\n"


CSV_COLUMNS = ("label", "source", "module", "format", "per_tile", "num_tiles", "bytes_per_tile", "worst_tile",
               "worst_bytes", "percent_of_tile", "tiles_out_of_memory", "out_of_memory_at_least", "headroom",
               "total_excluding_gaps", "change_bytes", "change_percent")


def render_csv(trend: Trend, options: RenderOptions | None = None) -> str:
    """One row per build, in the order given; unknown cells are blank; a text cell that starts like a spreadsheet
    formula after a quote (:func:`~memreport.model.schemas.csv_text`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for build in trend.builds:
        row = build_dict(build)
        worst = row.pop("worst_tile") or {}
        row.update(worst_tile=worst.get("tile"), worst_bytes=worst.get("bytes"))
        writer.writerow(["" if row[k] is None else csv_text(row[k]) if isinstance(row[k], str) else row[k]
                         for k in CSV_COLUMNS])  # a name starting like a formula: after a quote
    return out.getvalue()
