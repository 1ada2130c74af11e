"""Render a :class:`~memreport.diff.Diff`: text for people, JSON (``memreport-diff/1``) and CSV for tools.

Every value is excluding-gaps bytes unless named otherwise. JSON and CSV
hold every changed tile; the text view shows the ``top`` largest changes.
"""
from __future__ import annotations

from collections.abc import Sequence

from ...analysis.diff import BuildSummary, Diff
from ...analysis.diff_items import ItemChange, TileItems
from ...model import FORMAT_NAMES, TileBytes
from .. import RenderOptions
from ..cells import Column
from ..layout import WIDTH, Step, fit_table, prose, visible
from ..words import diff_notes
from ..words.fit import plan_changes_lines
from ..words.liveness import peak_change
from .terminal import shown
from .verdict import diff_headline, diff_lines, gates_lines

TILE_IDS_SHOWN = 20
TILES_PLACEHOLDER = "\0memreport-diff tiles\0"  # no file name holds a NUL


def _signed(value: int | None, unit: str = " B") -> str:
    return "" if value is None else f"{value:+,}{unit}"


def _bytes(value: int | None) -> str:
    return "unknown" if value is None else f"{value:,} B"


def _peak(value: TileBytes | None) -> str:
    return "unknown" if value is None else f"{value.bytes:,} B (tile {value.tile})"


def _side_line(label: str, side: BuildSummary) -> str:
    kind = FORMAT_NAMES.get(side.format, side.format)
    where = f"{kind}, per tile: {side.per_tile}"
    # One pair of parentheses: "t.rep (module M; Poplar text summary, ...)", not "(module M) (Poplar ...)".
    return f"{label} {side.label[:-1]}; {where})" if side.label.endswith(")") else f"{label} {side.label} ({where})"


def _target_line(diff: Diff) -> str:
    limits = {diff.old.bytes_per_tile, diff.new.bytes_per_tile}
    if limits == {None}:
        per_tile = "bytes per tile unknown"
    elif len(limits) == 1:
        per_tile = f"{diff.new.bytes_per_tile:,} B per tile"
    else:
        per_tile = f"{_bytes(diff.old.bytes_per_tile)} -> {_bytes(diff.new.bytes_per_tile)} per tile"
    tiles = diff.new.num_tiles if diff.new.num_tiles is not None else diff.old.num_tiles
    return f"Tiles:  {'unknown' if tiles is None else f'{tiles:,}'}, {per_tile}"


def _oom(side: BuildSummary) -> str:
    if side.tiles_out_of_memory is not None:
        return f"{side.tiles_out_of_memory:,}"
    return f"at least {side.out_of_memory_at_least:,}" if side.out_of_memory_at_least else "unknown"


def _figures_table(diff: Diff, width: int = WIDTH) -> list[str]:
    """Totals, maximum and out-of-memory count: old, new, delta in aligned columns."""
    old, new = diff.old, diff.new
    title = "Compared tiles" if diff.figures_over == "compared tiles" else ""
    rows = [
        (title, "Old", "New", "Delta"),
        ("Total, excluding gaps", _bytes(old.total_excluding_gaps), _bytes(new.total_excluding_gaps),
         _signed(diff.total_delta)),
    ]
    if old.total_including_gaps is not None or new.total_including_gaps is not None:
        rows.append(("Total, including gaps", _bytes(old.total_including_gaps), _bytes(new.total_including_gaps),
                     _signed(diff.total_including_gaps_delta)))
    rows.append(("Maximum, excluding gaps", _peak(old.max_excluding_gaps), _peak(new.max_excluding_gaps),
                 _signed(diff.max_delta)))
    rows.append(("Tiles out of memory", _oom(old), _oom(new), _signed(diff.out_of_memory_delta, "")))
    head, body = rows[0], rows[1:]
    columns = [Column(key, head[i], tuple(r[i] for r in body), right=i > 0)
               for i, key in enumerate(("figure", "old", "new", "delta"))]
    # "788,976 B (tile 1402)": the tile under the bytes when the table is too wide
    under = {c.key: [cell.replace(" (tile ", "\n(tile ") for cell in c.cells] for c in columns[1:3]}
    return fit_table(columns, width, steps=[Step("old", "narrow"), Step("new", "narrow")], narrow=under,
                     indent="").lines


def _tile_ids(label: str, tiles: Sequence[int] | None, partial: bool) -> str | None:
    if tiles is None or (not tiles and not partial):
        return None
    if not tiles:
        return f"{label}: none among the compared tiles"
    shown = ", ".join(str(t) for t in tiles[:TILE_IDS_SHOWN])
    more = len(tiles) - TILE_IDS_SHOWN
    return f"{label} ({len(tiles):,}): tile{'s' if len(tiles) > 1 else ''} {shown}" + \
        (f" and {more:,} more" if more > 0 else "")


def _changes_table(diff: Diff, top: int, width: int = WIDTH) -> list[str]:
    newly = set(diff.newly_out_of_memory or ())
    recovered = set(diff.no_longer_out_of_memory or ())
    scope = f"of {diff.compared_tiles:,} compared" if diff.per_tile == "partial" else f"of {diff.new.num_tiles:,}"
    lines = prose("", f"Changed tiles: {diff.num_changed:,} {scope} ({diff.num_grown:,} grew, {diff.num_shrunk:,} "
                      "shrank)", width, hang="  ")
    shown = diff.changes(top)
    if not shown:
        return lines
    cells = [(str(c.tile), "?" if c.ipu is None else str(c.ipu), f"{c.old:,} B", f"{c.new:,} B",
              f"{c.delta:+,} B",
              "newly out of memory" if c.tile in newly else "no longer out of memory" if c.tile in recovered else "")
             for c in shown]
    heads = ("Tile", "IPU", "Old", "New", "Delta", "")
    lines += fit_table([Column(h or "status", h, tuple(r[i] for r in cells), right=i < 5)
                        for i, h in enumerate(heads)], width).lines
    rest = int(diff.listed.size) - len(shown)
    if rest > 0:
        lines += prose("  ", f"{rest:,} more changed tile{'s' if rest > 1 else ''} (--top to show more; "
                       "--format json or csv lists all)", width, hang="    ")
    if diff.num_unlisted:
        lines += prose("  ", f"{diff.num_unlisted:,} smaller change{'s' if diff.num_unlisted > 1 else ''} "
                       f"(under --min-change {diff.min_change:,} B) not listed", width, hang="    ")
    return lines


_SORTED_BY = {"delta": "largest change first", "growth": "largest growth first", "new": "new and removed first"}


def _item_cells(item: ItemChange) -> tuple[str, ...]:
    name = visible(item.name) + (f" ({visible(item.section)})" if item.section else "")  # as shown
    old = "-" if item.old is None else f"{item.old:,} B"
    new = "-" if item.new is None else f"{item.new:,} B"
    return (item.kind, name, old, new, f"{item.delta:+,} B", item.status if item.status in ("new", "removed") else "")


def below_lines(diff: Diff, width: int = WIDTH) -> list[str]:
    """What changed inside the largest changes: each tile's changed items, old -> new."""
    shown = [t for t in diff.below if t.items or t.notes or t.hidden]
    if not shown:
        return []
    least = f"; changes of at least {diff.min_change:,} B" if diff.min_change > 1 else ""
    lines = [f"Below the tile ({_SORTED_BY[diff.sort]}{least}):"]
    for tile in shown:
        lines += _tile_items_lines(tile, width)
    return lines


def _tile_items_lines(tile: TileItems, width: int = WIDTH) -> list[str]:
    ipu = "" if tile.ipu is None else f" (IPU {tile.ipu})"
    lines = [f"  Tile {tile.tile}{ipu}: {tile.old:,} B -> {tile.new:,} B, {tile.delta:+,} B"]
    cells = [_item_cells(item) for item in tile.items]
    if cells:
        widths = [max(len(c[i]) for c in cells) for i in range(6)]
        for c in cells:
            line = (f"    {c[0]:<{widths[0]}}  {c[1]:<{widths[1]}}  {c[2]:>{widths[2]}} -> {c[3]:>{widths[3]}}  "
                    f"{c[4]:>{widths[4]}}  {c[5]}")
            if len(line.rstrip()) > width:  # a long name on a line of its own, the figures under it
                line = (f"    {c[0]:<{widths[0]}}  {c[1]}\n      {c[2]} -> {c[3]}  {c[4]}  {c[5]}")
            lines += [part.rstrip() for part in line.split("\n")]
    if tile.hidden:
        lines.append(f"    {tile.hidden:,} smaller item change{'s' if tile.hidden > 1 else ''} not listed")
    for note in tile.notes:
        lines += prose("    Note: ", note, width)
    return lines


def render_text(diff: Diff, options: RenderOptions | None = None) -> str:
    """Both sources, whole-program figures before -> after, OOM changes, then the ``top`` changed tiles; the
    verdict first, and its first line again last."""
    top = (options or RenderOptions()).top
    width = (options and options.width) or WIDTH
    header = [line for label, side in (("Old:", diff.old), ("New:", diff.new))
              for line in prose("", _side_line(label, side), width, hang="     ")]
    header += prose("", _target_line(diff), width, hang="        ")
    for note in diff_notes(diff):
        header += prose("Note:   ", note, width)
    sections = [diff_lines(diff, width) + gates_lines(diff.gates, width), header, _figures_table(diff, width)]
    partial = diff.per_tile == "partial"
    oom = [line for text in (_tile_ids("Newly out of memory", diff.newly_out_of_memory, partial),
                             _tile_ids("No longer out of memory", diff.no_longer_out_of_memory, partial))
           if text for line in prose("", text, width, hang="  ")]
    if oom:
        sections.append(oom)
    if diff.num_changed == 0:
        what = "No compared tile changed." if partial else "No tile changed."
        sections.append([what])
    else:
        sections.append(_changes_table(diff, top, width))
    below = below_lines(diff, width)
    if below:
        sections.append(below)
    after = [line for text in (*plan_changes_lines(diff.fit), peak_change(diff.old.curve, diff.new.curve))
             if text for line in prose("", text, width, hang="  ")]
    if after:  # the fit plans of the tiles over in both builds, the liveness peak
        sections.append(after)
    sections.append(diff_headline(diff, width))
    return shown("\n\n".join("\n".join(s) for s in sections) + "\n")
