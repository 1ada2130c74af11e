"""Render a compile summary: a table for people, JSON (``memreport-compiles/1``) and CSV for tools.

The text shows one row per compilation with only the columns some row
knows ("?" where a log does not say), then executable loads, findings,
totals and notes. JSON holds everything; CSV one row per compilation.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Collection, Sequence

from ..analysis.compiles import CompileSummary, CompileTotals
from ..model import Compilation, CompileTarget, ExecutableLoad, Finding, LineRef
from ..model.schemas import COMPILES_SCHEMA
from ..units import count
from . import RenderOptions
from .poplar import WIDTH, prose

UNKNOWN = "?"


def _seconds(value: float | None) -> str:
    return UNKNOWN if value is None else f"{value:,.3f} s"


def _target(target: CompileTarget | None) -> str:
    if target is None:
        return UNKNOWN
    ipus = UNKNOWN if target.ipus is None else f"{target.ipus:,}"
    tiles = f"{UNKNOWN} tiles" if target.tiles_per_ipu is None else count(target.tiles_per_ipu, "tile")
    return f"{target.arch or UNKNOWN}, {ipus} x {tiles}"


def _rss(c: Compilation) -> str:
    """The peak RSS in the unit the log printed it in (MiB in SDK 3.x, "MB" in 2.x), never converted."""
    return f"{c.peak_rss_mb:,.1f}" + (f" {c.peak_rss_unit}" if c.peak_rss_unit else "")


def _cell(value: object) -> str:
    return UNKNOWN if value is None else str(value)


# (heading, cell, always shown): a column some row knows, or always.
_COLUMNS: tuple[tuple[str, Callable[[Compilation], str | None], bool], ...] = (
    ("line", lambda c: str(c.ref), True),
    ("rank", lambda c: c.process, False),
    ("time", lambda c: c.time, True),
    ("framework", lambda c: c.framework, True),
    ("module", lambda c: c.module, False),
    ("hash", lambda c: c.hash, False),
    ("executable hash", lambda c: c.executable_hash, False),
    ("result", lambda c: c.result, True),
    ("cache", lambda c: c.cache, True),
    ("duration", lambda c: None if c.duration_s is None else _seconds(c.duration_s), True),
    ("peak RSS", lambda c: None if c.peak_rss_mb is None else _rss(c), False),
    ("overflowed", lambda c: None if c.tiles_overflowed is None else f"{c.tiles_overflowed:,}", False),
    ("target", lambda c: None if c.target is None else _target(c.target), False),
    ("cache file", lambda c: c.cache_file, False),
)
_RIGHT = {"duration", "peak RSS", "overflowed"}


def _table(headings: Sequence[str], rows: Sequence[Sequence[str]], width: int = WIDTH,
           right: Collection[str] = _RIGHT) -> list[str]:
    """The rows under their headings (those in ``right`` right-aligned); a table wider than ``width`` goes in
    stacked parts, each beginning with the first column (the row's number), so every part fits and its rows
    still pair up."""
    widths = [max(len(r[i]) for r in [headings, *rows]) for i in range(len(headings))]
    parts: list[list[int]] = [[0]]
    for i in range(1, len(headings)):
        used = 2 + sum(widths[j] + 2 for j in parts[-1])
        if len(parts[-1]) > 1 and used + widths[i] > width:
            parts.append([0])
        parts[-1].append(i)
    lines: list[str] = []
    for part in parts:
        if lines:
            lines.append("")
        for row in [headings, *rows]:
            cells = [row[i].rjust(widths[i]) if headings[i] in right else row[i].ljust(widths[i]) for i in part]
            lines.append(("  " + "  ".join(cells)).rstrip())
    return lines


def _compilations(compilations: Sequence[Compilation], width: int = WIDTH) -> list[str]:
    if not compilations:
        return ["Compilations: none (only executable loads)"]
    shown = [(h, get) for h, get, always in _COLUMNS if always or any(get(c) is not None for c in compilations)]
    hidden = [h for h, get, always in _COLUMNS if not always and all(get(c) is None for c in compilations)]
    one_log = len({c.source for c in compilations}) == 1  # named on the Logs: line: its line numbers alone

    def cell(heading: str, get: Callable[[Compilation], str | None], c: Compilation) -> str:
        return f"{c.line:,}" if one_log and heading == "line" else _cell(get(c))

    rows = [[str(i), *(cell(h, get, c) for h, get in shown)] for i, c in enumerate(compilations, 1)]
    right = _RIGHT | {"line"} if one_log else _RIGHT
    lines = [f"Compilations ({len(compilations):,}):", *_table(["#", *(h for h, _ in shown)], rows, width, right)]
    if any(UNKNOWN in row for row in rows):
        lines.append("  ?: the log does not say")
    if hidden:
        lines += prose("  Not stated for any compilation: ", ", ".join(hidden), width, hang="    ")
    notes = [(i, n) for i, c in enumerate(compilations, 1) for n in c.notes]
    lines += [line for i, note in notes for line in prose(f"  #{i}: ", note, width)]
    return lines


def _loads(loads: Sequence[ExecutableLoad], totals: CompileTotals, width: int = WIDTH) -> list[str]:
    if not loads:
        return []
    spent = _timed(totals.loads, totals.load_s, totals.load_untimed)
    return prose("", f"Executable loads onto the IPUs: {totals.loads:,} ({spent}); "
                     f"{count(totals.reloads, 'reload')} (no compilation since the previous load)", width, hang="  ")


def _findings(findings: Sequence[Finding], width: int = WIDTH) -> list[str]:
    if not findings:
        return ["Findings: none"]
    return [f"Findings ({len(findings):,}):",
            *(line for f in findings for line in prose(f"  {f.kind}: ", f.message, width, hang="    "))]


def _timed(count: int, seconds: float, untimed: int) -> str:
    if untimed == count:
        return "untimed"
    return f"{_seconds(seconds)}" + (f", {untimed:,} untimed" if untimed else "")


def _totals(t: CompileTotals) -> str:
    """What the logs hold, by outcome; only what is there ("nothing compiled" when that is what they say)."""
    parts = []
    if t.compiled:
        parts.append(f"{t.compiled:,} compiled ({_timed(t.compiled, t.compile_s, t.compile_untimed)})")
    if t.loaded:
        parts.append(f"{t.loaded:,} loaded from a cache or file "
                     f"({_timed(t.loaded, t.cache_load_s, t.cache_load_untimed)})")
    if t.compiled_or_loaded:
        parts.append(f"{t.compiled_or_loaded:,} compiled or loaded, the log does not say which ("
                     f"{_timed(t.compiled_or_loaded, t.compiled_or_loaded_s, t.compiled_or_loaded_untimed)})")
    if t.skipped:
        parts.append(f"{t.skipped:,} skipped")
    if t.unfinished:
        parts.append(f"{t.unfinished:,} unfinished (not whole in the log, untimed)")
    if not t.compiled and not t.compiled_or_loaded and not t.unfinished:
        parts.insert(0, "nothing compiled")
    if t.loads:
        parts.append(f"{count(t.loads, 'executable load')} ({_timed(t.loads, t.load_s, t.load_untimed)})")
    return "Total: " + ", ".join(parts)


def render_text(summary: CompileSummary, options: RenderOptions | None = None) -> str:
    """The verdict, the compilations table, loads, findings, totals and notes, and the verdict's first line
    again last (what ``| tail -1`` shows)."""
    width = (options and options.width) or WIDTH
    source_width = max(len(log.source) for log in summary.history.logs)
    logs = [f"{'Logs:' if i == 0 else '':<6}{log.source:<{source_width}}  {count(log.compilations, 'compilation')}, "
            f"{count(log.loads, 'executable load')}" for i, log in enumerate(summary.history.logs)]
    if any(len(line) > width for line in logs):  # each source on a line of its own, its counts under it
        logs = [line for i, log in enumerate(summary.history.logs)
                for line in (f"{'Logs:' if i == 0 else '':<6}{log.source}",
                             f"{'':<8}{count(log.compilations, 'compilation')}, {count(log.loads, 'executable load')}")]
    from .verdict_text import compiles_headline, compiles_lines
    sections = [compiles_lines(summary, width), logs, _compilations(summary.history.compilations, width),
                _loads(summary.history.loads, summary.totals, width), _findings(summary.findings, width),
                prose("", _totals(summary.totals), width, hang="  ")
                + [line for n in summary.notes for line in prose("Note: ", n, width)],
                compiles_headline(summary, width)]
    return "\n\n".join("\n".join(s) for s in sections if s) + "\n"


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
                   "compiled_or_loaded_untimed": t.compiled_or_loaded_untimed},
        "notes": list(summary.notes),
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
        writer.writerow(["" if row[k] is None else row[k] for k in CSV_COLUMNS])
    return out.getvalue()
