"""GitHub-flavoured Markdown of a compile summary: the findings first, then the totals and a row per
compilation."""
from __future__ import annotations

from ...analysis.compiles import CompileSummary
from ...units import count
from .. import RenderOptions
from ..words import compile_totals
from .blocks import Fitted, cell, code, gates, table


def render_compiles(summary: CompileSummary, options: RenderOptions | None = None) -> str:
    """The compilations: the findings first, then the totals and a row per compilation."""
    fitted = Fitted()
    logs = ", ".join(code(log.source) for log in summary.history.logs)
    findings = summary.findings
    head = (f"**{count(len(findings), 'finding')}**" if findings
            else "**No findings**: no recompilation, the cache works")
    judged = gates(summary.gates)
    fitted.add(f"## memreport compiles: {logs}\n\n{head}  \n{cell(compile_totals(summary.totals))}{judged}",
               "the heading", f"## memreport compiles: {len(summary.history.logs):,} logs\n\n{head}{judged}")
    items = [f"- **{cell(f.kind)}**: {cell(f.message)}" for f in findings]
    if items:
        shorter = ("\n".join(items[:n]) + f"\n- ... and {len(items) - n:,} more findings"
                   for n in (100, 10) if n < len(items))
        fitted.add("\n".join(items), "the findings", *shorter)
    rows = [[str(i), cell(f"{c.source}:{c.line}"), cell(c.module or c.hash or "?"), cell(c.result or "unfinished"),
             cell(c.cache or "?"), "?" if c.duration_s is None else f"{c.duration_s:,.1f} s"]
            for i, c in enumerate(summary.history.compilations, 1)]
    if rows:
        columns = ["#", "Line", "Module or hash", "Result", "Cache", "Duration"]
        tables = [f"<details><summary>Compilations</summary>\n\n{table(columns, rows[:n], right=(0, 5))}\n\n"
                  + (f"{len(rows) - n:,} more compilations\n\n" if len(rows) > n else "") + "</details>"
                  for n in (len(rows), 200, 20)]
        fitted.add(tables[0], "the table of compilations", *tables[1:], priority=2)
    if summary.notes:
        fitted.add("\n".join(f"- {cell(n)}" for n in summary.notes), "the notes", priority=1)
    return fitted.text()
