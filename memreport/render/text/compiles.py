"""A compile summary as text: the verdict, a row per compilation with only the columns some row knows ("?" where
a log does not say), then executable loads, findings, totals and notes."""
from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from ...analysis.compiles import CompileSummary, CompileTotals
from ...model import Compilation, CompileTarget, ExecutableLoad, Finding
from ...units import count
from .. import RenderOptions
from ..cells import UNKNOWN, Column, rss
from ..layout import WIDTH, fit_table, prose, visible
from ..words import compile_totals, seconds, timed
from .terminal import shown
from .verdict import compiles_headline, compiles_lines, gates_lines


def _target(target: CompileTarget | None) -> str:
    if target is None:
        return UNKNOWN
    ipus = UNKNOWN if target.ipus is None else f"{target.ipus:,}"
    tiles = f"{UNKNOWN} tiles" if target.tiles_per_ipu is None else count(target.tiles_per_ipu, "tile")
    return f"{target.arch or UNKNOWN}, {ipus} x {tiles}"


def _cell(value: object) -> str:
    return UNKNOWN if value is None else visible(str(value))  # a log's words as shown: the widths count escapes


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
    ("report", lambda c: None if c.report is None and c.failed else "-" if c.report is None else f"#{c.report}",
     False),  # memreport LOG's report of it ("-": none, it left no memory report)
    ("cache", lambda c: c.cache, True),
    ("duration", lambda c: None if c.duration_s is None else seconds(c.duration_s), True),
    ("peak RSS", lambda c: None if c.peak_rss_mb is None else rss(c), False),
    ("overflowed", lambda c: None if c.tiles_overflowed is None else f"{c.tiles_overflowed:,}", False),
    ("target", lambda c: None if c.target is None else _target(c.target), False),
    ("cache file", lambda c: c.cache_file, False),
)
_RIGHT = {"duration", "peak RSS", "overflowed"}
_FAILURES = {"report"}  # shown when an error ended some compilation


def _table(headings: Sequence[str], rows: Sequence[Sequence[str]], width: int = WIDTH,
           right: Collection[str] = _RIGHT) -> list[str]:
    """The rows under their headings (those in ``right`` right-aligned), stacked in parts when wider than
    ``width``, each part beginning with the first column (the row's number), so every part fits and its rows
    still pair up."""
    columns = [Column(h, h, tuple(r[i] for r in rows), h in right) for i, h in enumerate(headings)]
    return fit_table(columns, width, stack=True).lines


def _compilations(compilations: Sequence[Compilation], width: int = WIDTH) -> list[str]:
    if not compilations:
        return ["Compilations: none (only executable loads)"]
    known = [k for k in _COLUMNS if k[0] not in _FAILURES or any(c.failed for c in compilations)]  # none failed:
    columns = [(h, get) for h, get, always in known if always or any(get(c) is not None for c in compilations)]
    hidden = [h for h, get, always in known if not always and all(get(c) is None for c in compilations)]
    one_log = len({c.source for c in compilations}) == 1  # named on the Logs: line: its line numbers alone

    placed = any(c.place for c in compilations)  # a notebook's: cell 5 [3], line 4

    def cell(heading: str, get: Callable[[Compilation], str | None], c: Compilation) -> str:
        if one_log and heading == "line":
            return _cell(c.place) if placed else f"{c.line:,}"
        return _cell(get(c))

    rows = [[str(i), *(cell(h, get, c) for h, get in columns)] for i, c in enumerate(compilations, 1)]
    right = _RIGHT | {"line", "report"} if one_log and not placed else _RIGHT | {"report"}
    lines = [f"Compilations ({len(compilations):,}):", *_table(["#", *(h for h, _ in columns)], rows, width, right)]
    if any(UNKNOWN in row for row in rows):
        lines.append("  ?: the log does not say")
    if any("-" in row for row in rows):
        lines.append("  -: none (no error ended it, so it left no memory report of its own)")
    lines += [line for i, c in enumerate(compilations, 1) if c.failed  # what the error that ended it states
              for line in prose(f"  #{i}: ", f"{c.result}: {c.failure_text or 'the error states nothing more'}",
                                width, hang="    ")]
    if hidden:
        lines += prose("  Not stated for any compilation: ", ", ".join(hidden), width, hang="    ")
    notes = [(i, n) for i, c in enumerate(compilations, 1) for n in c.notes]
    lines += [line for i, note in notes for line in prose(f"  #{i}: ", note, width)]
    return lines


def _loads(loads: Sequence[ExecutableLoad], totals: CompileTotals, width: int = WIDTH) -> list[str]:
    if not loads:
        return []
    spent = timed(totals.loads, totals.load_s, totals.load_untimed)
    return prose("", f"Executable loads onto the IPUs: {totals.loads:,} ({spent}); "
                     f"{count(totals.reloads, 'reload')} (no compilation since the previous load)", width, hang="  ")


def _findings(findings: Sequence[Finding], width: int = WIDTH) -> list[str]:
    if not findings:
        return ["Findings: none"]
    return [f"Findings ({len(findings):,}):",
            *(line for f in findings for line in prose(f"  {f.kind}: ", f.message, width, hang="    "))]


def render_text(summary: CompileSummary, options: RenderOptions | None = None) -> str:
    """The verdict, the compilations table, loads, findings, totals and notes, and the verdict's first line
    again last (what ``| tail -1`` shows)."""
    width = (options and options.width) or WIDTH
    named = [(log, visible(log.source)) for log in summary.history.logs]  # as shown: the widths count escapes
    source_width = max(len(source) for _, source in named)
    logs = [f"{'Logs:' if i == 0 else '':<6}{source:<{source_width}}  {count(log.compilations, 'compilation')}, "
            f"{count(log.loads, 'executable load')}" for i, (log, source) in enumerate(named)]
    if any(len(line) > width for line in logs):  # each source on a line of its own, its counts under it
        logs = [line for i, (log, source) in enumerate(named)
                for line in (f"{'Logs:' if i == 0 else '':<6}{source}",
                             f"{'':<8}{count(log.compilations, 'compilation')}, {count(log.loads, 'executable load')}")]
    sections = [compiles_lines(summary, width) + gates_lines(summary.gates, width), logs,
                _compilations(summary.history.compilations, width),
                _loads(summary.history.loads, summary.totals, width), _findings(summary.findings, width),
                prose("", compile_totals(summary.totals), width, hang="  ")
                + [line for n in summary.notes for line in prose("Note: ", n, width)],
                compiles_headline(summary, width)]
    return shown("\n\n".join("\n".join(s) for s in sections if s) + "\n")
