"""Render a :class:`~memreport.diff.Diff`: text for people, JSON (``memreport-diff/1``) and CSV for tools.

Every value is excluding-gaps bytes unless named otherwise. JSON and CSV
hold every changed tile; the text view shows the ``top`` largest changes.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence

from ..analysis.diff import BuildSummary, Diff
from ..analysis.diff_items import ItemChange, TileItems
from ..model import FORMAT_NAMES, TileBytes
from ..model.schemas import DIFF_SCHEMA
from . import RenderOptions
from .poplar import WIDTH, prose
from .table import tile_bytes_json

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
    lines = _aligned(rows)
    if max(len(line) for line in lines) > width:  # "788,976 B (tile 1402)": the tile under the bytes
        lines = _aligned([tuple(cell.replace(" (tile ", "\n(tile ") for cell in row) for row in rows])
    return lines


def _aligned(rows: Sequence[tuple[str, ...]]) -> list[str]:
    """The figures' rows in aligned columns, a cell of two lines (``\\n``) on two."""
    widths = [max(len(part) for r in rows for part in r[i].split("\n")) for i in range(4)]
    lines = []
    for row in rows:
        cells = [cell.split("\n") for cell in row]
        for k in range(max(len(c) for c in cells)):
            r = [c[k] if k < len(c) else "" for c in cells]
            lines.append(f"{r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]:>{widths[3]}}".rstrip())
    return lines


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
    head = ("Tile", "IPU", "Old", "New", "Delta")
    widths = [max(len(x[i]) for x in [head, *cells]) for i in range(5)]
    for row in [(*head, ""), *cells]:
        line = "  " + "  ".join(f"{cell:>{w}}" for cell, w in zip(row[:5], widths))
        lines.append((line + "  " + row[5]).rstrip())
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
    name = item.name + (f" ({item.section})" if item.section else "")
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
    for note in diff.notes:
        header += prose("Note:   ", note, width)
    from .verdict_text import diff_headline, diff_lines
    sections = [diff_lines(diff, width), header, _figures_table(diff, width)]
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
    sections.append(diff_headline(diff, width))
    return "\n\n".join("\n".join(s) for s in sections) + "\n"


def _side(side: BuildSummary) -> dict:
    return {"source": side.source, "module": side.module, "format": side.format, "per_tile": side.per_tile,
            "num_tiles": side.num_tiles, "bytes_per_tile": side.bytes_per_tile}


def _totals(side: BuildSummary) -> dict:
    return {"excluding_gaps": side.total_excluding_gaps, "including_gaps": side.total_including_gaps,
            "tiles_out_of_memory": side.tiles_out_of_memory}


def _tile_columns(diff: Diff) -> Iterator[tuple[int, int | None, int, int, int]]:
    """(tile, ipu, old, new, delta) per listed changed tile, from whole columns: a pod has ~94k tiles."""
    tpi = diff.tiles_per_ipu
    picked = diff.listed
    tile_ids = diff.tile_ids[picked]
    ids = tile_ids.tolist()
    ipus = (tile_ids // tpi).tolist() if tpi else [None] * len(ids)
    old, new = diff.old_bytes[picked], diff.new_bytes[picked]
    return zip(ids, ipus, old.tolist(), new.tolist(), (new - old).tolist())


def item_json(item: ItemChange) -> dict:
    return {"kind": item.kind, "name": item.name, "section": item.section, "old": item.old, "new": item.new,
            "delta": item.delta, "change": item.status}


def below_json(diff: Diff) -> list[dict]:
    """The ``tile_details`` records: each detailed tile's changed items."""
    return [{"tile": t.tile, "ipu": t.ipu, "old": t.old, "new": t.new, "delta": t.delta,
             "items": [item_json(i) for i in t.items], "hidden_items": t.hidden, "notes": list(t.notes)}
            for t in diff.below]


def diff_dict(diff: Diff, *, tiles: bool = True) -> dict:
    """The ``memreport-diff/1`` record (``tiles=False`` leaves the tile list empty)."""
    return {
        "schema": DIFF_SCHEMA,
        "old": _side(diff.old),
        "new": _side(diff.new),
        "per_tile": diff.per_tile,
        "compared_tiles": diff.compared_tiles,
        "tiles": [{"tile": t, "ipu": i, "old": o, "new": n, "delta": d}
                  for t, i, o, n, d in _tile_columns(diff)] if tiles else [],
        "newly_out_of_memory": None if diff.newly_out_of_memory is None else list(diff.newly_out_of_memory),
        "no_longer_out_of_memory":
            None if diff.no_longer_out_of_memory is None else list(diff.no_longer_out_of_memory),
        "totals": {"old": _totals(diff.old), "new": _totals(diff.new), "delta": {
            "excluding_gaps": diff.total_delta, "including_gaps": diff.total_including_gaps_delta,
            "tiles_out_of_memory": diff.out_of_memory_delta}},
        "max_excluding_gaps": {"old": tile_bytes_json(diff.old.max_excluding_gaps),
                               "new": tile_bytes_json(diff.new.max_excluding_gaps), "delta": diff.max_delta},
        "notes": list(diff.notes),
        "min_change": diff.min_change,
        "unlisted_tiles": diff.num_unlisted,
        "sort": diff.sort,
        "tile_details": below_json(diff),
    }


def render_json(diff: Diff, options: RenderOptions | None = None) -> str:
    """The diff as one ``memreport-diff/1`` JSON document, one changed tile per line."""
    doc = diff_dict(diff, tiles=False)
    doc["tiles"] = TILES_PLACEHOLDER
    text = json.dumps(doc, indent=2)
    # Writing the ints directly is ~15x faster than json's indenter and keeps a tile to a line.
    rows = ",\n    ".join(
        f'{{"tile": {t}, "ipu": {"null" if i is None else i}, "old": {o}, "new": {n}, "delta": {d}}}'
        for t, i, o, n, d in _tile_columns(diff))
    tiles = f"[\n    {rows}\n  ]" if rows else "[]"
    return text.replace(json.dumps(TILES_PLACEHOLDER), tiles, 1) + "\n"


CSV_HEADER = ["tile", "ipu", "old", "new", "delta", "kind", "item", "section", "change"]


def render_csv(diff: Diff, options: RenderOptions | None = None) -> str:
    """One row per listed changed tile (largest change first, ``kind`` "tile"), then one per item below the tile.

    An item row repeats its tile and IPU; ``old``, ``new`` and ``delta`` are
    the item's (blank where it is new or removed); ``kind`` is the item's kind.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    writer.writerows((t, "" if i is None else i, o, n, d, "tile", "", "", "") for t, i, o, n, d in _tile_columns(diff))
    for tile in diff.below:
        ipu = "" if tile.ipu is None else tile.ipu
        writer.writerows((tile.tile, ipu, "" if item.old is None else item.old, "" if item.new is None else item.new,
                          item.delta, item.kind, item.name, item.section or "", item.status) for item in tile.items)
    return out.getvalue()
