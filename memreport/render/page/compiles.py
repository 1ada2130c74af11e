"""The compiles page: the verdict (findings), a timeline of compilations, cache loads and executable loads,
the findings, the compilations and the notes."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...analysis.compiles import CompileSummary
from ...model import Compilation, ExecutableLoad
from ..cells import rss
from ..words import Verdict, compile_totals, compiles_verdict, gates_line
from . import document as doc
from .contract import page_data

ROWS_SHOWN = 50      # the first and the last this many compilations (and timeline rows) are shown, ...
FINDINGS_SHOWN = 100  # ... and those the first this many findings name,
LINES_PER_FINDING = 5  # the first lines of each (as many as a finding's words name, analysis's REFS_SHOWN)


def _moment(time: str | None) -> datetime | None:
    if time is None:
        return None
    try:
        return datetime.fromisoformat(time.replace("Z", "+00:00"))
    except ValueError:
        return None


Line = tuple[str, int]  # a log line (path, number): cheaper than a LineRef a row, at 100,000 rows


@dataclass(frozen=True)
class Timeline:
    """Every compilation and executable load in log order (``events``: a compilation's number, or None for a
    load, and the item), each one's start in seconds, and a note when they are laid out end to end."""

    events: list[tuple[int | None, Compilation | ExecutableLoad]]
    starts: list[float]
    note: str | None

    @property
    def lines(self) -> list[Line]:
        return [(item.source, item.line) for _, item in self.events]

    def row(self, i: int) -> dict[str, Any]:
        """The row of event ``i`` (``contract.COMPILES_SECTION``)."""
        number, item = self.events[i]
        if isinstance(item, ExecutableLoad):
            label, what = "load", "executable load" + (" (reload)" if item.reload else "")
            result, cache = "load", None
        else:
            label, what = f"#{number}", item.module or item.hash or item.framework
            result, cache = item.result or "unfinished", item.cache
        return {"label": label, "ref": f"{item.source}:{item.line}", "what": what, "result": result, "cache": cache,
                "duration_s": item.duration_s, "start_s": self.starts[i]}


def timeline(summary: CompileSummary) -> Timeline:
    """A row per compilation and executable load, in log order, placed at its time when every one states a
    time, else end to end (with a note saying so)."""
    history = summary.history
    order = {log.source: i for i, log in enumerate(history.logs)}
    events: list[tuple[int | None, Compilation | ExecutableLoad]] = [
        *enumerate(history.compilations, 1), *((None, ld) for ld in history.loads)]
    events.sort(key=lambda e: (order.get(e[1].source, 0), e[1].line))
    moments = [_moment(item.time) for _, item in events]
    # A time with a zone (Poplar's "...Z") and one without (TensorFlow's local time) cannot be compared: the
    # log does not say the local zone, so such a log is laid out end to end too. Times without a zone are
    # subtracted as they are, as the text does: never through this machine's zone (whose daylight-saving
    # rule would move them, and which cannot hold the years 1 and 9999 a log may print).
    known = [m for m in moments if m is not None]
    if events and len(known) == len(moments) and len({m.tzinfo is None for m in known}) == 1:
        first = min(known)
        return Timeline(events, [(m - first).total_seconds() for m in known], None)
    starts, at = [], 0.0
    for _, item in events:
        starts.append(at)
        at += item.duration_s or 0.0
    why = ("not every line states its time" if len(known) < len(moments) else
           "the log mixes times with a zone (UTC) and local times without one, which cannot be compared")
    return Timeline(events, starts, f"the timeline places events end to end: {why}")


def timeline_rows(summary: CompileSummary) -> tuple[list[dict[str, Any]], str | None]:
    """Every row of the timeline, and a note when they are laid out end to end."""
    line = timeline(summary)
    return [line.row(i) for i in range(len(line.events))], line.note


def _named(summary: CompileSummary) -> set[Line]:
    """The lines the findings name in their words (the first few of each, of the first findings)."""
    return {(ref.source, ref.line) for f in summary.findings[:FINDINGS_SHOWN] for ref in f.lines[:LINES_PER_FINDING]}


def _bounded(refs: Sequence[Line], named: set[Line]) -> list[int]:
    """The positions shown: the first and the last ``ROWS_SHOWN``, and those the findings name."""
    n = len(refs)
    return [i for i, ref in enumerate(refs) if i < ROWS_SHOWN or i >= n - ROWS_SHOWN or ref in named]


def _with_gaps(shown: Sequence[int], row: Callable[[int], list[str]], width: int) -> list[list[str]]:
    """The shown rows, an ellipsis row where rows are left out between them."""
    out: list[list[str]] = []
    for before, i in zip([-1, *shown], shown):
        if i > before + 1:
            out.append(["…"] * width)
        out.append(row(i))
    return out


def render_compiles_page(summary: CompileSummary) -> str:
    """The compilations as one self-contained page."""
    sid = "c0"
    t = summary.totals
    said = compiles_verdict(summary)  # the text's words: how many compilations, how they ended, the findings
    findings = summary.findings
    logs = ", ".join(log.source for log in summary.history.logs)
    events = timeline(summary)
    named = _named(summary)
    kept = _bounded(events.lines, named)
    rows = [events.row(i) for i in kept]
    parts = [f"<header><h1>memreport compiles: {doc.text(logs)}</h1></header><main><section class=report id={sid}>",
             doc.verdict(Verdict(said.level, said.headline, (*said.lines, compile_totals(t)), None),
                         gates_line(summary.gates))]
    if rows:
        parts.append("<h3>Timeline</h3><p class=legend><span><i class='sw compiled'></i>compiled</span>"
                     "<span><i class='sw precompiled'></i>pre-compiled</span>"
                     "<span><i class='sw loaded'></i>loaded from the cache</span><span><i class='sw skipped'></i>"
                     "skipped</span><span><i class='sw load'></i>executable load</span> (red outline: cache miss)</p>"
                     f"<canvas class=timeline id={sid}-timeline></canvas>")
        if len(kept) < len(events.events):
            parts.append(f"<p class=hint>{len(events.events) - len(kept):,} more rows (compilations and executable "
                         "loads) left out of the timeline: the JSON output lists every one</p>")
    if findings:
        more = (f"<p class=hint>{len(findings) - FINDINGS_SHOWN:,} more findings: the JSON output lists every "
                "one</p>" if len(findings) > FINDINGS_SHOWN else "")
        parts.append(f"<h3>Findings ({len(findings):,})</h3><ul class=findings>" + "".join(
            f"<li><b>{doc.text(f.kind)}</b>: {doc.text(f.message)}</li>" for f in findings[:FINDINGS_SHOWN])
            + "</ul>" + more)
    else:
        parts.append("<h3>Findings</h3><p>none</p>")
    compilations = summary.history.compilations

    def row(i: int) -> list[str]:
        c = compilations[i]
        return [str(i + 1), doc.text(f"{c.source}:{c.line}"), doc.text(c.process or ""), doc.text(c.framework),
                doc.text(c.module or c.hash or "?"), doc.text(c.result or "unfinished"), doc.text(c.cache or "?"),
                "?" if c.duration_s is None else f"{c.duration_s:,.1f} s",
                "?" if c.peak_rss_mb is None else doc.text(rss(c))]

    if compilations:
        shown = _bounded([(c.source, c.line) for c in compilations], named)
        more = (f"<p class=hint>{len(compilations) - len(shown):,} more compilations: the JSON and CSV outputs list "
                "every one</p>" if len(shown) < len(compilations) else "")
        parts.append(f"<h3>Compilations ({len(compilations):,})</h3>" + doc.table(
            ["#", "Line", "Process", "Framework", "Module or hash", "Result", "Cache", "Duration",
             "Peak RSS"], _with_gaps(shown, row, 9), numeric=(0, 7, 8), prose=(1, 4)) + more)
    notes = [*summary.notes, *([events.note] if events.note else [])]
    if notes:
        parts.append(f"<h3>Notes</h3>{doc.notes_list(notes)}")
    parts.append("</section></main>")
    return doc.document(f"memreport compiles: {logs}", "".join(parts),
                        page_data("compiles", [{"id": sid, "rows": rows}]))
