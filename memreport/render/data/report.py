"""Machine-readable output: JSON (schema ``memreport/1``) and CSV (one row per tile).

Values a source does not hold are ``null`` in JSON and blank in CSV, never a
copy of another figure.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from ...analysis import IpuSpread, IpuSummary, Summary, TextSummary, TileSummary, TopTile
from ...analysis.results import FailingProgram, GateSetting
from ...model import FilePrograms, OutOfMemoryMessage, TileBytes
from ...model.schemas import REPORT_SCHEMA
from ...units import Percent
from .. import RenderOptions
from ..words import (
    failing_line,
    message_description,
    next_command,
    overall_command,
    overall_headline,
    report_notes,
    verdict,
)
from .drill import fit_json, liveness_json, liveness_summary_json, symbols_json, variables_json
from .saved import Inline, saved_sections
from .tensors import json_sections


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


def gates_json(settings: Sequence[GateSetting]) -> list[dict]:
    """The gates a report (a diff, a trend...) was judged by: each gate's option, its value (bytes, a percent of
    tile memory as written, or true for a flag) and where it was set (null: the command line)."""
    return [{"gate": s.gate, "value": str(s.value) if isinstance(s.value, Percent) else s.value,
             "origin": None if s.origin is None else {"file": s.origin.path, "line": s.origin.line,
                                                      "key": s.origin.key}} for s in settings]


def tile_json(tt: TopTile, symbols: int | None = None) -> dict:
    """A top tile (or a tile asked for) as JSON, with its ``symbols`` largest symbols (all when None)."""
    return {"tile": tt.tile, "ipu": tt.ipu, "including_gaps": tt.including_gaps,
            "excluding_gaps": tt.excluding_gaps, "out_of_memory": tt.out_of_memory,
            "breakdown": dict(tt.breakdown), "member": tt.name, "regions": dict(tt.regions) or None,
            "liveness": liveness_json(tt.liveness), "stated_by": tt.stated_by,
            "stated_bytes_used": tt.stated_bytes_used, "symbols": symbols_json(tt.symbols, tt.excluding_gaps, symbols),
            "variables": variables_json(tt.variables, tt.excluding_gaps, symbols)}


def report_dict(summary: Summary, options: RenderOptions | None = None, inline: Inline | None = None,
                programs: bool = True) -> dict:
    """One report as the ``memreport/1`` record (tensor-map keys from :mod:`.tensors`).

    ``inline`` collects the per-tile arrays to write on one line each (plain lists when None); ``programs``
    says whether its position holds its file's programs (the first report of each file does; null on others).
    """
    symbols = (options or RenderOptions()).symbols
    report = summary.report
    t = report.target
    hist = summary.histogram
    position = report.position
    bound = summary.tiles_at_least
    return {
        "source": report.source,
        "module": report.module,
        **({} if position is None else {"position": {"line": position.line, "index": position.index,
                                                     "count": position.count, "place": position.place,
                                                     "program": position.program,
                                                     "programs": programs_json(position.programs)
                                                     if programs else None,
                                                     **({"run": asdict(position.run)} if position.run else {})}}),
        "format": report.format,
        "per_tile": report.per_tile,
        "target": {"arch": t.arch, "num_ipus": t.num_ipus, "tiles_per_ipu": t.tiles_per_ipu,
                   "num_tiles": t.num_tiles if report.num_tiles_known else None,
                   "bytes_per_tile": t.bytes_per_tile, "clock_hz": t.clock_hz, "type": t.type,
                   **({} if bound is None else {"num_tiles_at_least": bound.tiles, "num_ipus_at_least": bound.ipus})},
        "totals": {"including_gaps": summary.including_gaps, "excluding_gaps": summary.excluding_gaps},
        "max_including_gaps": tile_bytes_json(summary.max_including_gaps),
        "max_excluding_gaps": tile_bytes_json(summary.max_excluding_gaps),
        "tiles_out_of_memory": summary.oom.count,
        "tiles_out_of_memory_at_least": summary.oom.at_least,
        "histogram": None if hist is None else {
            "bin_kib": hist.bin_kib, "bins": [asdict(b) for b in hist.bins],
            **({"elided_before": list(hist.elided_before)} if hist.elided_before else {})},
        "top_tiles": [tile_json(tt, symbols) for tt in summary.top],
        "per_ipu": [ipu_json(s) for s in summary.per_ipu],
        **ipu_spread_json(summary.ipu_spread),
        "breakdown_kind": report.breakdown_kind,
        "detailed_tiles": [{"tile": d.tile, "including_gaps": d.including_gaps,
                            "excluding_gaps": d.excluding_gaps, "breakdown": dict(d.breakdown),
                            "regions": dict(d.regions), "extra": _plain(dict(d.extra))}
                           for d in (summary.printed_report.detailed_tiles if isinstance(summary, TextSummary)
                                     else ())],
        "info": _plain(dict(report.info)),
        "notes": report_notes(summary),
        "skipped_members": [{"tile": s.tile, "member": s.member, "reason": s.reason}
                            for s in (summary.tiles.skipped if isinstance(summary, TileSummary) else ())],
        **({"out_of_memory_messages": [message_json(m) for m in summary.verdict.messages]}
           if isinstance(summary, TextSummary) else {}),  # a text summary's messages
        **json_sections(summary),
        "selected_tiles": [tile_json(tt, symbols) for tt in summary.selected],
        "breakdown_totals": dict(summary.breakdown_totals),
        "liveness": liveness_summary_json(summary.liveness),
        **fit_json(summary),
        "gates": gates_json(summary.gates),
        **saved_sections(report, inline),
    }


def ipu_json(s: IpuSummary) -> dict:
    """One IPU's figures."""
    return {"ipu": s.ipu, "first_tile": s.first_tile, "num_tiles": s.num_tiles, "excluding_gaps": s.excluding_gaps,
            "including_gaps": s.including_gaps, "max_excluding_gaps": tile_bytes_json(s.max_excluding_gaps),
            "tiles_out_of_memory": s.tiles_out_of_memory, "breakdown": dict(s.breakdown),
            "liveness": liveness_json(s.liveness)}


def ipu_spread_json(spread: IpuSpread | None) -> dict:
    """How many IPUs ``per_ipu`` leaves out (0: it lists every one), and every IPU in brief (null then)."""
    if spread is None:
        return {"per_ipu_left_out": 0, "ipu_spread": None}
    return {"per_ipu_left_out": spread.left_out,
            "ipu_spread": {"ipus": spread.ipus, "listed": spread.listed,
                           "with_out_of_memory": spread.with_out_of_memory,
                           "largest": [ipu_json(s) for s in spread.largest]}}


def message_json(m: OutOfMemoryMessage) -> dict:
    """One out-of-memory message: what it states (null where it does not), and what to run next."""
    return {"kind": m.kind, "line": m.line, "tile": m.tile, "bytes_used": m.bytes_used,
            "bytes_per_tile": m.bytes_per_tile, "exchange": m.exchange, "code_offset": m.code_offset,
            "stream_bytes": m.stream_bytes, "buffer_index": m.buffer_index, "saved_path": m.saved_path,
            "archive": m.archive, "next_command": next_command(m), "description": message_description(m),
            "text": m.text, "place": m.place}


def programs_json(record: FilePrograms | None) -> dict | None:
    """A file's programs: how many, what a program is, how each ended, and every one that failed."""
    if record is None:
        return None
    return {"count": record.count, "unit": record.unit, "outcomes": dict(record.outcomes),
            "failed_count": record.failed_count, "failed": [asdict(f) for f in record.failed]}


def failing_json(f: FailingProgram, files: int) -> dict:
    """One failing program of the verdict over all: which, how, its worst tile, in the text's words too."""
    return {"text": failing_line(f, files), "source": f.source, "unit": f.unit, "index": f.index, "of": f.of,
            "outcome": f.outcome, "failure": f.failure,
            "report": f.report.short_label if f.report is not None else None,
            "report_index": f.report.index if f.report is not None else None,
            "line": f.line, "place": f.place, "tile": f.tile, "bytes": f.bytes, "bytes_per_tile": f.bytes_per_tile,
            "bytes_stated": f.stated, "tiles_out_of_memory": f.tiles if f.tiles_exact else None,
            "tiles_out_of_memory_at_least": f.tiles}


def verdict_json(summaries: Sequence[Summary]) -> dict | None:
    """The answer over every report read, in programs: the text's first line (one report's own verdict when it
    is the only program), its figures, every failure (None: nothing was read)."""
    o = summaries[0].overall if summaries else None
    if o is None:
        return None
    text = overall_headline(o) if o.several else verdict(summaries[0]).headline
    return {"text": text, "unit": o.unit, "programs": o.count, "failed": o.failed,
            "out_of_memory": o.out_of_memory, "unknown": o.unknown, "files": o.files, "reports": o.reports,
            "worst": failing_json(o.worst, o.files) if o.worst is not None else None,
            "failing": [failing_json(f, o.files) for f in o.failing], "failing_left_out": o.failed - len(o.failing),
            "next_command": overall_command(o)}


def render_json(summaries: Sequence[Summary], options: RenderOptions | None = None) -> str:
    """Every report in one ``memreport/1`` document, and the inputs that could not be read (``errors``, always
    present); per-tile arrays one line each."""
    inline = Inline()
    errors = [{"file": file, "message": message} for file, message in (options or RenderOptions()).errors]
    first = {s.report.source: k for k, s in reversed(list(enumerate(summaries)))}  # each file's first report
    doc = {"schema": REPORT_SCHEMA, "verdict": verdict_json(summaries),
           "reports": [report_dict(s, options, inline, programs=first[s.report.source] == k)
                       for k, s in enumerate(summaries)], "errors": errors}
    return inline.fill(json.dumps(doc, indent=2) + "\n")  # the newline before the arrays: no copy of it all
