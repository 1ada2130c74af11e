"""GitHub-flavoured Markdown of a diff: its verdict, the figures, newly out-of-memory tiles, the largest changes
and what changed below them."""
from __future__ import annotations

from ...analysis.diff import Diff
from .. import RenderOptions
from ..cells import CHANGES_SHOWN
from ..words import diff_notes, diff_verdict, side_count
from ..words.fit import plan_changes_lines
from ..words.liveness import peak_change
from .blocks import Fitted, cell, code, gates, table


def _signed(value: int | None, unit: str = " B") -> str:
    return "" if value is None else f"{value:+,}{unit}"


def render_diff(diff: Diff, options: RenderOptions | None = None) -> str:
    """The diff: its verdict, the figures, newly out-of-memory tiles, the largest changes and what is below them."""
    options = options or RenderOptions()
    fitted = Fitted()
    said = diff_verdict(diff)
    fitted.add(f"## memreport diff: {code(diff.old.label)} → {code(diff.new.label)}\n\n**{cell(said.headline)}**"
               + "".join(f"  \n{cell(line)}" for line in said.lines) + gates(diff.gates), "the heading")
    old, new = diff.old, diff.new

    def peak(side) -> str:
        p = side.max_excluding_gaps
        return "unknown" if p is None else f"{p.bytes:,} B (tile {p.tile})"


    def total(value: int | None) -> str:
        return "unknown" if value is None else f"{value:,} B"

    fitted.add(table(["", "Old", "New", "Change"], [
        ["Total, excluding gaps", total(old.total_excluding_gaps), total(new.total_excluding_gaps),
         _signed(diff.total_delta)],
        ["Largest tile", peak(old), peak(new), _signed(diff.max_delta)],
        ["Tiles out of memory", side_count(old), side_count(new), _signed(diff.out_of_memory_delta, "")]],
        right=(1, 2, 3)),
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
    after = [text for text in (*plan_changes_lines(diff.fit), peak_change(diff.old.curve, diff.new.curve)) if text]
    if after:  # the fit plans of the tiles over in both builds, the liveness peak
        fitted.add("\n".join(f"- {cell(line)}" for line in after), "the fit plans", priority=1)
    notes = diff_notes(diff)
    if notes:
        fitted.add("\n".join(f"- {cell(n)}" for n in notes), "the notes", priority=1)
    return fitted.text()
