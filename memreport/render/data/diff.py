"""A :class:`~memreport.analysis.diff.Diff` for tools: JSON (``memreport-diff/1``) and CSV.

Both hold every changed tile; values are excluding-gaps bytes unless named otherwise.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from ...analysis.diff import BuildSummary, Diff
from ...analysis.diff_items import ItemChange
from ...model.schemas import DIFF_SCHEMA, csv_text
from .. import RenderOptions
from ..words import diff_notes
from .drill import curve_json
from .report import gates_json, tile_bytes_json

TILES_PLACEHOLDER = "\0memreport-diff tiles\0"  # no file name holds a NUL


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
        "notes": list(diff_notes(diff)),
        "min_change": diff.min_change,
        "unlisted_tiles": diff.num_unlisted,
        "sort": diff.sort,
        "tile_details": below_json(diff),
        "fit_plans": None if diff.fit is None else [
            {"tile": c.tile, "ipu": c.ipu, "old": c.old.as_json(), "new": c.new.as_json(), "grew": c.grew}
            for c in diff.fit],
        "liveness_peak": {"old": curve_json(diff.old.curve), "new": curve_json(diff.new.curve)},
        "gates": gates_json(diff.gates),
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
    the item's (blank where it is new or removed); ``kind`` is the item's kind; a name that starts like a
    spreadsheet formula after a quote (:func:`~memreport.model.schemas.csv_text`).
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    writer.writerows((t, "" if i is None else i, o, n, d, "tile", "", "", "") for t, i, o, n, d in _tile_columns(diff))
    for tile in diff.below:
        ipu = "" if tile.ipu is None else tile.ipu
        writer.writerows((tile.tile, ipu, "" if item.old is None else item.old, "" if item.new is None else item.new,
                          item.delta, item.kind, csv_text(item.name), csv_text(item.section or ""), item.status)
                         for item in tile.items)
    return out.getvalue()
