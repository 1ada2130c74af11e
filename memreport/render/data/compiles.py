"""A compile summary for tools: JSON (``memreport-compiles/1``) and CSV, one row per compilation."""
from __future__ import annotations

import csv
import io
import json

from ...analysis.compiles import CompileSummary
from ...model import Compilation, LineRef
from ...model.schemas import COMPILES_SCHEMA, csv_text
from .. import RenderOptions
from .report import gates_json


def _ref(ref: LineRef) -> dict:
    return {"source": ref.source, "line": ref.line}


def compilation_dict(c: Compilation) -> dict:
    """One compilation as JSON."""
    target = None if c.target is None else {"arch": c.target.arch, "ipus": c.target.ipus,
                                            "tiles_per_ipu": c.target.tiles_per_ipu}
    return {"source": c.source, "line": c.line, "end_line": c.end_line, "process": c.process,
            "framework": c.framework, "time": c.time, "module": c.module, "hash": c.hash,
            "executable_hash": c.executable_hash, "result": c.result, "cache": c.cache, "duration_s": c.duration_s,
            "duration_from": c.duration_from, "peak_rss_mb": c.peak_rss_mb, "tiles_overflowed": c.tiles_overflowed,
            "target": target, "cache_file": c.cache_file, "not_cacheable": c.not_cacheable, "notes": list(c.notes),
            "unfinished": c.unfinished, "not_in_log": list(c.not_in_log), "peak_rss_unit": c.peak_rss_unit,
            "failure": c.failure_text, "report": c.report, "place": c.place}


def compiles_dict(summary: CompileSummary) -> dict:
    """The ``memreport-compiles/1`` record."""
    t = summary.totals
    return {
        "schema": COMPILES_SCHEMA,
        "logs": [{"source": log.source, "size_bytes": log.size_bytes, "compilations": log.compilations,
                  "loads": log.loads} for log in summary.history.logs],
        "compilations": [compilation_dict(c) for c in summary.history.compilations],
        "loads": [{"source": ld.source, "line": ld.line, "end_line": ld.end_line, "process": ld.process,
                   "time": ld.time, "duration_s": ld.duration_s, "reload": ld.reload, "place": ld.place}
                  for ld in summary.history.loads],
        "findings": [{"kind": f.kind, "message": f.message, "lines": [_ref(r) for r in f.lines]}
                     for f in summary.findings],
        "totals": {"compilations": t.compilations, "compiled": t.compiled, "loaded": t.loaded, "skipped": t.skipped,
                   "unfinished": t.unfinished, "compile_s": t.compile_s, "compile_untimed": t.compile_untimed,
                   "cache_load_s": t.cache_load_s, "cache_load_untimed": t.cache_load_untimed, "loads": t.loads,
                   "reloads": t.reloads, "load_s": t.load_s, "load_untimed": t.load_untimed,
                   "compiled_or_loaded": t.compiled_or_loaded, "compiled_or_loaded_s": t.compiled_or_loaded_s,
                   "compiled_or_loaded_untimed": t.compiled_or_loaded_untimed,
                   "out_of_memory": t.out_of_memory, "failed": t.failed},
        "notes": list(summary.notes),
        "gates": gates_json(summary.gates),
    }


def render_json(summary: CompileSummary, options: RenderOptions | None = None) -> str:
    """The summary as one ``memreport-compiles/1`` JSON document."""
    return json.dumps(compiles_dict(summary), indent=2) + "\n"


CSV_COLUMNS = ("source", "line", "end_line", "process", "framework", "time", "module", "hash", "executable_hash",
               "result", "cache", "duration_s", "duration_from", "peak_rss_mb", "tiles_overflowed", "arch", "ipus",
               "tiles_per_ipu", "cache_file", "not_cacheable", "unfinished", "peak_rss_unit", "failure", "report",
               "place")


def render_csv(summary: CompileSummary, options: RenderOptions | None = None) -> str:
    """One row per compilation, in order; unknown cells are blank."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for c in summary.history.compilations:
        row = compilation_dict(c)
        target = row.pop("target") or {}
        row.update(arch=target.get("arch"), ipus=target.get("ipus"), tiles_per_ipu=target.get("tiles_per_ipu"))
        row["not_cacheable"] = "true" if c.not_cacheable else "false"
        row["unfinished"] = "true" if c.unfinished else "false"
        writer.writerow(["" if row[k] is None else csv_text(row[k]) if isinstance(row[k], str) else row[k]
                         for k in CSV_COLUMNS])  # a log's words: text, after a quote when they start like a formula
    return out.getvalue()
