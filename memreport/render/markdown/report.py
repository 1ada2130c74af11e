"""GitHub-flavoured Markdown of reports, for a pull-request comment or ``$GITHUB_STEP_SUMMARY`` (issue 25).

The verdict first, then the top tiles and Poplar's By Tile histogram in a
code block; several reports open with the answer over them all and the
table of reports.
"""
from __future__ import annotations

from collections.abc import Sequence

from ...analysis import Summary, TopTile
from ...analysis.closing import Closing
from ...units import plural
from .. import RenderOptions
from ..cells import closing_cells
from ..layout import by_tile_block
from ..words import verdict
from .blocks import Fitted, cell, code, table

HISTOGRAM_ROWS = 80  # rows of a By Tile block shown whole; beyond, its first and last rows


def verdict_block(summary: Summary) -> str:
    v = verdict(summary)
    lines = [f"**{cell(v.headline)}**", *(cell(line) for line in v.lines)]
    if v.command:
        lines.append(f"Next: {code(v.command)}")
    return "  \n".join(lines)  # two spaces: a line break inside the paragraph


def tiles_table(summary: Summary, tiles: Sequence[TopTile]) -> str:
    limit = summary.report.target.bytes_per_tile
    stated = any(t.stated_bytes_used is not None for t in tiles)  # a message's "bytes used": its own column
    rows = []
    for t in tiles:
        used = t.excluding_gaps
        pct = f"{100 * used / limit:.1f}%" if limit and used is not None else "?"
        oom = "?" if t.out_of_memory is None else "no"
        if t.out_of_memory:
            oom = f"**yes, by {used - limit:,} B**" if limit and used is not None and used > limit else "**yes**"
        items = ", ".join(f"{cell(name)} {size:,} B" for name, size in list(t.breakdown.items())[:3] if size)
        said = [] if not stated else ["" if t.stated_bytes_used is None else f"{t.stated_bytes_used:,} B"]
        rows.append([str(t.tile), "?" if t.ipu is None else str(t.ipu), "?" if used is None else f"{used:,} B",
                     *said, pct, oom, items])
    return table(["Tile", "IPU", "Excluding gaps", *(["Used (stated by the message)"] if stated else []),
                  "% of tile", "Out of memory", f"Largest {cell(plural(summary.report.breakdown_kind))}"], rows,
                 right=tuple(range(5 if stated else 4)))


def histogram_block(summary: Summary, rows: int | None = None) -> str:
    lines = by_tile_block(summary, indent="")
    if rows is not None and len(lines) > 2 * rows + 1:
        lines = lines[:rows] + [f"... ({len(lines) - 2 * rows:,} rows left out)"] + lines[-rows:]
    body = "\n".join(lines)
    return f"<details><summary>By Tile (Excluding Gaps)</summary>\n\n```text\n{body}\n```\n\n</details>"


def report_blocks(fitted: Fitted, summary: Summary, heading: str) -> None:
    report = summary.report
    name = report.label
    fitted.add(f"{heading} memreport: {code(name)}\n\n{cell(report.format_name)} · {cell(summary.target_text)}",
               "the heading", of=name)
    if summary.own_tensor_map is not None:
        fitted.add("A tensor map counts elements, not bytes: no verdict.", "the note", of=name)
        return
    fitted.add(verdict_block(summary), "the verdict", of=name)
    if summary.top:
        fitted.add(tiles_table(summary, summary.top), "the top tiles", of=name, priority=1)
    if summary.histogram is not None:
        fitted.add(histogram_block(summary), "the By Tile histogram", histogram_block(summary, HISTOGRAM_ROWS),
                   histogram_block(summary, 8), of=name, priority=2)
    notes = [*report.notes, *summary.notes, *(n for n in (summary.oom_note,) if n)]
    if notes:
        fitted.add("\n".join(f"- {cell(n)}" for n in notes), "the notes", of=name, priority=1)


OVERVIEW_ROWS = 20  # rows of the reports table kept when the whole table would not fit


def overview_blocks(fitted: Fitted, summaries: Sequence[Summary]) -> None:
    """Several reports: the answer over them all first, then the text's closing table (a row each)."""
    rows = [s.closing_row for s in summaries]
    fitted.add(f"## memreport: {len(rows):,} reports\n\n**{cell(Closing(tuple(rows)).verdict)}**", "the heading")
    cells = closing_cells(rows)

    def reports_table(n: int) -> str:
        body = [[code(r.source), *map(cell, c)] for r, c in zip(rows[:n], cells.cells[:n])]
        more = f"\n\n... and {len(rows) - n:,} more reports" if n < len(rows) else ""
        right = [i + 1 for i, h in enumerate(cells.heads) if h != "Arch"]
        return (table(["Report", *cells.heads], body, right=right) + more +
                "".join(f"\n\n_{cell(note)}_" for note in cells.footnotes))

    fitted.add(reports_table(len(rows)), "the table of reports", reports_table(OVERVIEW_ROWS))


def render_report(summaries: Sequence[Summary], options: RenderOptions | None = None) -> str:
    """Every report: its verdict, top tiles, By Tile histogram and notes."""
    fitted = Fitted()
    heading = "###" if len(summaries) > 1 else "##"
    if len(summaries) > 1:
        overview_blocks(fitted, summaries)
    for s in summaries:
        report_blocks(fitted, s, heading)
    return fitted.text()
