"""The diff page: the verdict, the figures old and new, the change on every tile, newly out-of-memory tiles,
the largest changes and what changed below them."""
from __future__ import annotations

from typing import Any

from ...analysis.diff import Diff
from ...analysis.diff_items import TileItems
from ..cells import CHANGES_SHOWN
from ..words import diff_notes, diff_verdict, gates_line
from ..words.fit import plan_changes_lines
from ..words.liveness import peak_change
from . import document as doc
from .contract import page_data
from .liveness import curve_data, curve_html


def _signed(value: int | None) -> str:
    return "" if value is None else f"{value:+,}"


def figures_table(diff: Diff) -> str:
    old, new = diff.old, diff.new

    def oom(side: Any) -> str:
        if side.tiles_out_of_memory is not None:
            return f"{side.tiles_out_of_memory:,}"
        return f"at least {side.out_of_memory_at_least:,}" if side.out_of_memory_at_least else "unknown"

    def peak(side: Any) -> str:
        p = side.max_excluding_gaps
        return "unknown" if p is None else f"{p.bytes:,} B (tile {p.tile})"

    rows = [["Total, excluding gaps", doc.number(old.total_excluding_gaps), doc.number(new.total_excluding_gaps),
             _signed(diff.total_delta)],
            ["Total, including gaps", doc.number(old.total_including_gaps), doc.number(new.total_including_gaps),
             _signed(diff.total_including_gaps_delta)],
            ["Largest tile, excluding gaps", peak(old), peak(new), _signed(diff.max_delta)],
            ["Tiles out of memory", oom(old), oom(new), _signed(diff.out_of_memory_delta)]]
    title = "Compared tiles" if diff.figures_over == "compared tiles" else ""
    return doc.table([title, "Old", "New", "Change"], rows, numeric=(1, 2, 3))


def changes_table(diff: Diff, sid: str) -> str:
    newly = set(diff.newly_out_of_memory or ())
    rows, classes = [], []
    for c in diff.changes(CHANGES_SHOWN):
        rows.append([f'<a href="#{sid}-chart" data-section={sid} data-tile={c.tile}>{c.tile}</a>',
                     "?" if c.ipu is None else str(c.ipu), f"{c.old:,} B", f"{c.new:,} B", f"{c.delta:+,} B",
                     "yes" if c.tile in newly else ""])
        classes.append("oom" if c.tile in newly else "")
    more = len(diff.listed) - len(rows)
    tail = (f"<p class=hint>+{more:,} more changed tiles (the JSON and CSV outputs list every one)</p>"
            if more > 0 else "")
    return doc.table(["Tile", "IPU", "Old", "New", "Change", "Newly out of memory"], rows, cls="tiles",
                     numeric=(0, 1, 2, 3, 4), row_classes=classes) + tail


def below_html(items: TileItems) -> str:
    rows = [[doc.text(i.kind), doc.text(i.name) + (f" ({doc.text(i.section)})" if i.section else ""),
             doc.number(i.old, "", "absent"), doc.number(i.new, "", "absent"), f"{i.delta:+,}"] for i in items.items]
    hidden = f"<p class=hint>{items.hidden:,} smaller changes hidden</p>" if items.hidden else ""
    return (f"Tile {items.tile}: {items.old:,} B → {items.new:,} B ({items.delta:+,} B)</summary>"
            + doc.table(["Kind", "Item", "Old", "New", "Change"], rows, numeric=(2, 3, 4)) + hidden
            + doc.notes_list(items.notes) + "</details>")


def _tiles_list(tiles: tuple[int, ...] | None, what: str) -> str:
    if tiles is None:
        return f"<p>{what}: unknown (bytes per tile unknown on a side)</p>"
    if not tiles:
        return f"<p>{what}: none</p>"
    shown = ", ".join(str(t) for t in tiles[:200])
    more = f" and {len(tiles) - 200:,} more" if len(tiles) > 200 else ""
    return f"<p>{what} ({len(tiles):,}): {shown}{more}</p>"


def render_diff_page(diff: Diff) -> str:
    """The diff as one self-contained page."""
    sid = "d0"
    verdict = doc.verdict(diff_verdict(diff), gates_line(diff.gates))
    n = diff.new.num_tiles if diff.new.num_tiles is not None else diff.old.num_tiles
    chartable = bool(n) and (diff.num_changed == 0 or int(diff.tile_ids.max()) < (n or 0))
    parts = [f"<header><h1>memreport diff: {doc.text(diff.old.label)} → {doc.text(diff.new.label)}</h1></header>",
             f"<main><section class=report id={sid}>",
             f"<p class=meta>Old: {doc.text(diff.old.label)} ({doc.text(diff.old.format)}) · New: "
             f"{doc.text(diff.new.label)} ({doc.text(diff.new.format)}) · per tile: {doc.text(diff.per_tile)}</p>",
             verdict, figures_table(diff)]
    if chartable:
        parts.append(f"<h3>Change per tile</h3><div class=chart id={sid}-chart data-section={sid}>"
                     "<div class=tools><button data-act=in title='Zoom in'>+</button>"
                     "<button data-act=out title='Zoom out'>−</button><button data-act=reset>Every tile</button>"
                     "<span class=view></span></div><canvas class=tiles></canvas>"
                     "<p class=hint>Bytes gained (up) or freed (down) per tile, excluding gaps; red: newly out of "
                     "memory. Wheel or +/− to zoom, drag to pan, click a tile.</p></div>"
                     f"<div class=detail id={sid}-detail><p>Click a tile to see its change.</p></div>")
    parts += ["<h3>Out of memory</h3>", _tiles_list(diff.newly_out_of_memory, "Newly out of memory"),
              _tiles_list(diff.no_longer_out_of_memory, "No longer out of memory"),
              f"<h3>Largest changes ({diff.num_changed:,} tiles changed)</h3>", changes_table(diff, sid)]
    plans = [text for text in (*plan_changes_lines(diff.fit), peak_change(diff.old.curve, diff.new.curve)) if text]
    if plans:
        parts.append("<h3>Fit plans and liveness</h3>" + "".join(f"<p>{doc.text(line)}</p>" for line in plans))
    if chartable:
        parts.append(curve_html(sid, _curves(diff)))
    if diff.below:
        parts.append("<h3>Below the tile</h3>" + "".join(
            f"<details{' open' if i < 3 else ''}><summary>{below_html(b)}" for i, b in enumerate(diff.below)))
    notes = list(diff_notes(diff))
    if diff.num_unlisted:
        notes.append(f"{diff.num_unlisted:,} changed tiles under {diff.min_change:,} B are not listed")
    if notes:
        parts.append(f"<h3>Notes</h3>{doc.notes_list(notes)}")
    parts.append("</section></main>")
    return doc.document(f"memreport diff: {diff.old.label} → {diff.new.label}", "".join(parts),
                        page_data("diff", [section_data(diff, sid, n or 0)] if chartable else []))


def section_data(diff: Diff, sid: str, n: int) -> dict[str, Any]:
    """The chart's data (``contract.DIFF_SECTION``): the changed tiles, their bytes before and after."""
    return {"id": sid, "tiles_per_ipu": diff.tiles_per_ipu, "count": n,
            "tile_ids": doc.pack(diff.tile_ids), "old_bytes": doc.pack(diff.old_bytes),
            "new_bytes": doc.pack(diff.new_bytes), "newly_out_of_memory": list(diff.newly_out_of_memory or ()),
            "below": {str(b.tile): [{"kind": i.kind, "name": i.name, "old": i.old, "new": i.new} for i in b.items]
                      for b in diff.below},
            "liveness": [curve_data(curve, label) for label, curve in _curves(diff)]}


def _curves(diff: Diff) -> list[tuple[str, Any]]:
    """Both builds' liveness curves, those that have program steps, named."""
    return [(label, side.curve) for label, side in (("Old", diff.old), ("New", diff.new)) if side.curve is not None]
