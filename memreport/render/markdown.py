"""GitHub-flavoured Markdown for a pull-request comment or ``$GITHUB_STEP_SUMMARY`` (issue 25).

The verdict first, then the top tiles and Poplar's By Tile histogram in a
code block (a diff: the changed and newly out-of-memory tiles and what
changed below them; compiles: the findings). Whatever the scale, the text
stays within :data:`LIMIT` characters, GitHub's limit for a comment: blocks
go in order while they fit, and a last line names what was left out.
Everything from a file is escaped (table cells, code spans), so a source
named ``</script>`` or ``| x |`` reads as written.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..analysis import Summary, TopTile
from ..analysis.closing import Closing
from ..analysis.compiles import CompileSummary
from ..analysis.diff import Diff
from ..units import count, plural
from . import RenderOptions
from .closing import closing_cells
from .compiles import _totals as totals_line
from .page.diff import CHANGES_SHOWN
from .page.verdict import diff_headline, verdict
from .text import by_tile_block

LIMIT = 65_536       # characters of a GitHub comment
RESERVE = 600        # kept for the line naming what was left out
HISTOGRAM_ROWS = 80  # rows of a By Tile block shown whole; beyond, its first and last rows


def cell(value: object) -> str:
    """Text for a table cell or a line: Markdown's and HTML's special characters escaped."""
    text = str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = re.sub(r"([\\`*_\[\]{}|#!~])", r"\\\1", text)
    return " ".join(text.split())  # no line break inside a cell


def code(value: str) -> str:
    """An inline code span holding ``value`` whatever backticks it contains."""
    value = " ".join(value.split())
    runs = [len(r) for r in re.findall(r"`+", value)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def table(head: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    align = ["---:" if i in right else "---" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


@dataclass
class Fitted:
    """Blocks kept in their order, chosen by priority while they fit :data:`LIMIT` (the verdicts of every report
    before any histogram); what did not fit is named at the end, grouped."""

    limit: int = LIMIT
    offered: list[tuple[int, tuple[str, ...], str, str]] = field(default_factory=list)

    def add(self, block: str, what: str, *shorter: str, of: str = "", priority: int = 0) -> None:
        """``block``, else the first of the ``shorter`` versions that fits, else nothing (``what`` is named)."""
        self.offered.append((priority, (block, *shorter), what, of))

    def text(self) -> str:
        chosen: dict[int, str] = {}
        left_out: dict[str, list[str]] = {}
        size = 0
        for i in sorted(range(len(self.offered)), key=lambda i: (self.offered[i][0], i)):
            _, variants, what, of = self.offered[i]
            for k, candidate in enumerate(variants):
                if size + len(candidate) + 2 <= self.limit - RESERVE:
                    chosen[i] = candidate
                    size += len(candidate) + 2
                    if k:
                        left_out.setdefault(f"part of {what}", []).append(of)
                    break
            else:
                left_out.setdefault(what, []).append(of)
        out = "\n\n".join(chosen[i] for i in sorted(chosen))
        if left_out:
            parts = []
            for what, names in left_out.items():
                names = [n for n in names if n]
                if not names:
                    parts.append(what)
                elif len(names) == 1:
                    parts.append(f"{what} of {names[0]}")
                else:
                    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
                    parts.append(f"{what} of {len(names):,} reports ({shown})")
            listed = "; ".join(parts)
            if len(listed) > RESERVE - 150:
                listed = listed[:RESERVE - 160].rsplit("; ", 1)[0] + "; and more"
            out += (f"\n\n_Left out to stay within GitHub's {self.limit:,} characters: {listed}. "
                    "The text and JSON outputs hold everything._")
        return out + "\n"


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


def _signed(value: int | None, unit: str = " B") -> str:
    return "" if value is None else f"{value:+,}{unit}"


def render_diff(diff: Diff, options: RenderOptions | None = None) -> str:
    """The diff: its verdict, the figures, newly out-of-memory tiles, the largest changes and what is below them."""
    options = options or RenderOptions()
    fitted = Fitted()
    _, headline = diff_headline(diff.newly_out_of_memory, diff.num_changed, diff.num_grown, diff.num_shrunk)
    fitted.add(f"## memreport diff: {code(diff.old.label)} → {code(diff.new.label)}\n\n**{cell(headline)}**",
               "the heading")
    old, new = diff.old, diff.new

    def peak(side) -> str:
        p = side.max_excluding_gaps
        return "unknown" if p is None else f"{p.bytes:,} B (tile {p.tile})"

    def oom(side) -> str:
        if side.tiles_out_of_memory is not None:
            return f"{side.tiles_out_of_memory:,}"
        return f"at least {side.out_of_memory_at_least:,}" if side.out_of_memory_at_least else "unknown"

    def total(value: int | None) -> str:
        return "unknown" if value is None else f"{value:,} B"

    fitted.add(table(["", "Old", "New", "Change"], [
        ["Total, excluding gaps", total(old.total_excluding_gaps), total(new.total_excluding_gaps),
         _signed(diff.total_delta)],
        ["Largest tile", peak(old), peak(new), _signed(diff.max_delta)],
        ["Tiles out of memory", oom(old), oom(new), _signed(diff.out_of_memory_delta, "")]], right=(1, 2, 3)),
        "the figures")
    for tiles, what in ((diff.newly_out_of_memory, "Newly out of memory"),
                        (diff.no_longer_out_of_memory, "No longer out of memory")):
        if tiles:
            listed = ", ".join(str(t) for t in tiles)
            fitted.add(f"**{what}** ({len(tiles):,}): {listed}", f"the {what.lower()} tiles",
                       f"**{what}** ({len(tiles):,}): " + ", ".join(str(t) for t in tiles[:500]) + ", ...")
    newly = set(diff.newly_out_of_memory or ())
    shown = min(options.top, CHANGES_SHOWN)
    changes = diff.changes(shown)
    if changes:
        rows = [[str(c.tile), "?" if c.ipu is None else str(c.ipu), f"{c.old:,} B", f"{c.new:,} B", f"{c.delta:+,} B",
                 "**newly out of memory**" if c.tile in newly else ""] for c in changes]
        more = len(diff.listed) - len(changes)
        tail = f"\n\n{more:,} more changed tiles: the JSON and CSV outputs list every one." if more > 0 else ""
        fitted.add(f"### Largest changes ({diff.num_changed:,} tiles changed)\n\n" + table(
            ["Tile", "IPU", "Old", "New", "Change", ""], rows, right=(0, 1, 2, 3, 4)) + tail, "the largest changes")
    for b in diff.below:
        rows = [[cell(i.kind), cell(i.name) + (f" ({cell(i.section)})" if i.section else ""),
                 "absent" if i.old is None else f"{i.old:,}", "absent" if i.new is None else f"{i.new:,}",
                 f"{i.delta:+,}"] for i in b.items]
        fitted.add(f"<details><summary>Tile {b.tile}: {b.delta:+,} B below the tile</summary>\n\n"
                   + table(["Kind", "Item", "Old", "New", "Change"], rows, right=(2, 3, 4)) + "\n\n</details>",
                   f"what changed below tile {b.tile}", priority=2)
    if diff.notes:
        fitted.add("\n".join(f"- {cell(n)}" for n in diff.notes), "the notes", priority=1)
    return fitted.text()


def render_compiles(summary: CompileSummary, options: RenderOptions | None = None) -> str:
    """The compilations: the findings first, then the totals and a row per compilation."""
    fitted = Fitted()
    logs = ", ".join(code(log.source) for log in summary.history.logs)
    findings = summary.findings
    head = (f"**{count(len(findings), 'finding')}**" if findings
            else "**No findings**: no recompilation, the cache works")
    fitted.add(f"## memreport compiles: {logs}\n\n{head}  \n{cell(totals_line(summary.totals))}", "the heading",
               f"## memreport compiles: {len(summary.history.logs):,} logs\n\n{head}")
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
