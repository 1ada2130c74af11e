"""GitHub-flavoured Markdown of reports, for a pull-request comment or ``$GITHUB_STEP_SUMMARY`` (issue 25).

The verdict first, then the top tiles and Poplar's By Tile histogram in a
code block; several reports open with the answer over them all and the
table of reports.
"""
from __future__ import annotations

from collections.abc import Sequence

from ...analysis import Closing, Summary, TensorMapSummary, TopTile
from ...units import count
from .. import RenderOptions
from ..cells import LEFT, closing_cells, tile_columns
from ..layout import by_tile_block
from ..words import Verdict, overall_verdict, report_notes, target, verdict
from ..words.fit import plan_lines
from .blocks import Fitted, cell, code, gates, table

HISTOGRAM_ROWS = 80  # rows of a By Tile block shown whole; beyond, its first and last rows


def said_block(v: Verdict) -> str:
    """A verdict in words: its headline in bold, its lines, the command to run next."""
    lines = [f"**{cell(v.headline)}**", *(cell(line) for line in v.lines)]
    if v.command:
        lines.append(f"Next: {code(v.command)}")
    return "  \n".join(lines)  # two spaces: a line break inside the paragraph


def verdict_block(summary: Summary) -> str:
    return said_block(verdict(summary)) + gates(summary.gates)


def tiles_table(summary: Summary, tiles: Sequence[TopTile]) -> str:
    """The tile table's columns (:func:`..cells.tile_columns`), an out-of-memory cell in bold."""
    columns = tile_columns(summary, tiles)
    rows = [[f"**{cell(c.cells[i])}**" if c.key == "oom" and c.cells[i] not in ("", "?") else cell(c.cells[i])
             for c in columns] for i in range(len(tiles))]
    notes = "".join(f"\n\n_({cell(c.note)})_" for c in columns if c.note)
    return table([cell(c.head) for c in columns], rows, right=[i for i, c in enumerate(columns) if c.right]) + notes


def histogram_block(summary: Summary, rows: int | None = None) -> str:
    lines = by_tile_block(summary, indent="")
    if rows is not None and len(lines) > 2 * rows + 1:
        lines = lines[:rows] + [f"... ({len(lines) - 2 * rows:,} rows left out)"] + lines[-rows:]
    body = "\n".join(lines)
    return f"<details><summary>By Tile (Excluding Gaps)</summary>\n\n```text\n{body}\n```\n\n</details>"


def report_blocks(fitted: Fitted, summary: Summary, heading: str) -> None:
    report = summary.report
    name = report.label
    fitted.add(f"{heading} memreport: {code(name)}\n\n{cell(report.format_name)} · {cell(target(summary))}",
               "the heading", of=name)
    if isinstance(summary, TensorMapSummary):
        fitted.add("A tensor map counts elements, not bytes: no verdict.", "the note", of=name)
        return
    fitted.add(verdict_block(summary), "the verdict", of=name)
    plans = plan_lines(summary)  # one line per tile over, the first few
    if plans:
        fitted.add("\n".join(f"- {cell(line)}" for line in plans), "the fit plans", of=name, priority=1)
    if summary.top:
        fitted.add(tiles_table(summary, summary.top), "the top tiles", of=name, priority=1)
    if summary.histogram is not None:
        fitted.add(histogram_block(summary), "the By Tile histogram", histogram_block(summary, HISTOGRAM_ROWS),
                   histogram_block(summary, 8), of=name, priority=2)
    notes = report_notes(summary)
    if notes:
        fitted.add("\n".join(f"- {cell(n)}" for n in notes), "the notes", of=name, priority=1)


OVERVIEW_ROWS = 20  # rows of the reports table kept when the whole table would not fit


def overview_blocks(fitted: Fitted, rows: Closing) -> None:
    """Several reports, or a file of several programs: the answer over them all first (in programs), then the
    text's closing table (a row each)."""
    if rows.overall is not None:
        noun = "report" if len(rows.rows) > 1 or rows.overall.unit == "report" else rows.overall.unit
        many = len(rows.rows) if noun == "report" else rows.overall.count
        fitted.add(f"## memreport: {count(many, noun)}\n\n{said_block(overall_verdict(rows.overall))}",
                   "the heading")
    cells = closing_cells(rows)

    def reports_table(n: int) -> str:
        body = [[code(r.name.short_label, table=True), *map(cell, c)] for r, c in zip(rows.rows[:n], cells.cells[:n])]
        more = f"\n\n... and {len(rows.rows) - n:,} more reports" if n < len(rows.rows) else ""
        right = [i + 1 for i, h in enumerate(cells.heads) if h not in LEFT]
        return (table(["Report", *cells.heads], body, right=right) + more +
                "".join(f"\n\n_{cell(note)}_" for note in cells.footnotes))

    fitted.add(reports_table(len(rows.rows)), "the table of reports", reports_table(OVERVIEW_ROWS))


def render_report(summaries: Sequence[Summary], options: RenderOptions | None = None) -> str:
    """Every report: its verdict, top tiles, By Tile histogram and notes."""
    fitted = Fitted()
    rows = Closing.of(summaries)
    several = rows.several
    heading = "###" if several else "##"
    if several:
        overview_blocks(fitted, rows)
    for s in summaries:
        report_blocks(fitted, s, heading)
    return fitted.text()
