"""The compiles page: the verdict (findings), a timeline of compilations, cache loads and executable loads,
the findings, the compilations and the notes."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from ...analysis.compiles import CompileSummary
from ...units import count
from ..compiles import _rss
from ..compiles import _totals as totals_line
from . import document as doc
from .contract import page_data


def _moment(time: str | None) -> datetime | None:
    if time is None:
        return None
    try:
        return datetime.fromisoformat(time.replace("Z", "+00:00"))
    except ValueError:
        return None


def timeline_rows(summary: CompileSummary) -> tuple[list[dict[str, Any]], str | None]:
    """A row per compilation and executable load (``contract.COMPILES_SECTION``'s rows), in log order, placed at
    its time when every one states a time, else end to end (with a note saying so)."""
    history = summary.history
    order = {log.source: i for i, log in enumerate(history.logs)}
    events: list[tuple[tuple[int, int], dict[str, Any], str | None]] = []
    for i, c in enumerate(history.compilations, 1):
        events.append(((order.get(c.source, 0), c.line), {
            "label": f"#{i}", "ref": f"{c.source}:{c.line}", "what": c.module or c.hash or c.framework,
            "result": c.result or "unfinished", "cache": c.cache, "duration_s": c.duration_s}, c.time))
    for ld in history.loads:
        events.append(((order.get(ld.source, 0), ld.line), {
            "label": "load", "ref": f"{ld.source}:{ld.line}",
            "what": "executable load" + (" (reload)" if ld.reload else ""),
            "result": "load", "cache": None, "duration_s": ld.duration_s}, ld.time))
    events.sort(key=lambda e: e[0])
    moments = [_moment(t) for _, _, t in events]
    rows = [row for _, row, _ in events]
    # A time with a zone (Poplar's "...Z") and one without (TensorFlow's local time) cannot be compared: the
    # log does not say the local zone, so such a log is laid out end to end too.
    if events and all(m is not None for m in moments) and len({m.tzinfo is None for m in moments if m}) == 1:
        times = [m.timestamp() for m in moments if m is not None]
        first = min(times)
        for row, t in zip(rows, times):
            row["start_s"] = t - first
        return rows, None
    at = 0.0
    for row in rows:
        row["start_s"] = at
        at += row["duration_s"] or 0.0
    why = ("not every line states its time" if not all(m is not None for m in moments) else
           "the log mixes times with a zone (UTC) and local times without one, which cannot be compared")
    return rows, f"the timeline places events end to end: {why}"


def render_compiles_page(summary: CompileSummary) -> str:
    """The compilations as one self-contained page."""
    sid = "c0"
    t = summary.totals
    findings = summary.findings
    level = "oom" if findings else "ok"
    kinds: dict[str, int] = {}
    for f in findings:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    headline = (f"{count(len(findings), 'finding')}: " + ", ".join(f"{n:,} {k}" for k, n in kinds.items())
                if findings else "No findings: no recompilation, the cache works")
    logs = ", ".join(log.source for log in summary.history.logs)
    rows, placed = timeline_rows(summary)
    parts = [f"<header><h1>memreport compiles: {doc.text(logs)}</h1></header><main><section class=report id={sid}>",
             f'<div class="verdict {level}"><p class=headline>{doc.text(headline)}</p>'
             f"<p>{doc.text(totals_line(t))}</p></div>"]
    if rows:
        parts.append("<h3>Timeline</h3><p class=legend><span><i class='sw compiled'></i>compiled</span>"
                     "<span><i class='sw precompiled'></i>pre-compiled</span>"
                     "<span><i class='sw loaded'></i>loaded from the cache</span><span><i class='sw skipped'></i>"
                     "skipped</span><span><i class='sw load'></i>executable load</span> (red outline: cache miss)</p>"
                     f"<canvas class=timeline id={sid}-timeline></canvas>")
    if findings:
        parts.append(f"<h3>Findings ({len(findings):,})</h3><ul class=findings>" + "".join(
            f"<li><b>{doc.text(f.kind)}</b>: {doc.text(f.message)}</li>" for f in findings) + "</ul>")
    else:
        parts.append("<h3>Findings</h3><p>none</p>")
    comp = [[str(i), doc.text(f"{c.source}:{c.line}"), doc.text(c.process or ""), doc.text(c.framework),
             doc.text(c.module or c.hash or "?"), doc.text(c.result or "unfinished"), doc.text(c.cache or "?"),
             "?" if c.duration_s is None else f"{c.duration_s:,.1f} s",
             "?" if c.peak_rss_mb is None else doc.text(_rss(c))]
            for i, c in enumerate(summary.history.compilations, 1)]
    if comp:
        parts.append(f"<h3>Compilations ({len(comp):,})</h3>" + doc.table(
            ["#", "Line", "Process", "Framework", "Module or hash", "Result", "Cache", "Duration",
             "Peak RSS"], comp, numeric=(0, 7, 8)))
    notes = [*summary.notes, *([placed] if placed else [])]
    if notes:
        parts.append(f"<h3>Notes</h3>{doc.notes_list(notes)}")
    parts.append("</section></main>")
    return doc.document(f"memreport compiles: {logs}", "".join(parts),
                        page_data("compiles", [{"id": sid, "rows": rows}]))
