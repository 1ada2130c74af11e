"""Below the tile: which sections, categories, regions, liveness figures, symbols and variables of a tile changed.

A diff says which tiles grew; this says what in them grew. Each side's items
for a tile come from its report: breakdown columns (ELF sections of an
archive, categories of a profile, data types of a text summary's detailed
tile), memory regions, liveness, the tile's symbol table where one was
read, and its lowered variables (by name) where both sides hold them.
Items are compared by kind and name; an item on one side only is new or
removed. Kinds a side does not hold (symbols of a report read from a
profile, sections against categories) are not compared, and a note says so.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..model import MemoryReport
from .kinds import kind_of
from .results import ItemChange, TileItems

SORTS = ("delta", "growth", "new")


def _sort_key(sort: str):
    kinds = ("section", "category", "data type", "region", "liveness", "symbol", "variable")  # among equal changes

    def base(c: ItemChange) -> tuple:
        return (kinds.index(c.kind) if c.kind in kinds else len(kinds), c.name)
    if sort == "growth":
        return lambda c: (-c.delta, *base(c))
    if sort == "new":
        rank = {"new": 0, "removed": 1}
        return lambda c: (rank.get(c.status, 2), -abs(c.delta), *base(c))
    return lambda c: (-abs(c.delta), *base(c))


def _breakdown_items(report: MemoryReport, tile: int) -> dict[tuple[str, str], int] | None:
    """(kind, name) -> bytes of a tile's breakdown, regions and liveness; None when the report lacks the tile."""
    return kind_of(report).tile_items(tile)


def _compare(old: Mapping[tuple[str, str], int], new: Mapping[tuple[str, str], int],
             sections: Mapping[str, str] | None = None) -> list[ItemChange]:
    changes = []
    for key in dict.fromkeys([*old, *new]):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        changes.append(ItemChange(key[0], key[1], before, after, None if sections is None else sections.get(key[1])))
    return changes


def _symbol_items(tile: int, old: MemoryReport, new: MemoryReport) -> tuple[list[ItemChange], list[str]]:
    """Symbol changes of one tile, and notes on what could not be compared."""
    tables = [kind_of(r).symbol_table(tile) for r in (old, new)]
    if all(t is None for t in tables):
        return [], []
    for label, report, table in zip(("OLD", "NEW"), (old, new), tables):
        if table is None:
            why = (" (a saved report keeps the symbols of the tiles it detailed: export with --tile to keep more)"
                   if report.format in ("archive", "thin-archive", "elf") else "")
            return [], [f"symbols not compared: {label} ({report.source}) holds no symbol table for tile {tile}{why}"]
    readable = [t.has_symbol_table is True for t in tables if t is not None]
    if not any(readable):  # stripped on both sides: nothing to compare, nothing to say
        return [], []
    if not all(readable):
        label = "OLD" if not readable[0] else "NEW"
        return [], [f"symbols not compared: {label}'s tile {tile} has no readable symbol table"]
    old_table, new_table = tables
    assert old_table is not None and new_table is not None
    before, after = old_table.by_name(), new_table.by_name()
    notes = []
    partial = [label for label, t in zip(("OLD", "NEW"), tables) if t is not None and t.omitted]
    if partial:  # a side lists only its largest symbols: a name missing there may merely be unlisted
        notes.append(f"{' and '.join(partial)} list(s) only the largest symbols of tile {tile}: symbols missing from "
                     "a list are not called new or removed")
        both = set(before) & set(after)
        before = {k: v for k, v in before.items() if k in both}
        after = {k: v for k, v in after.items() if k in both}
    sections = {name: section for name, (section, _) in {**before, **after}.items()}
    changes = _compare({("symbol", k): size for k, (_, size) in before.items()},
                       {("symbol", k): size for k, (_, size) in after.items()}, sections)
    return changes, notes


def _variable_items(tile: int, old: MemoryReport, new: MemoryReport) -> tuple[list[ItemChange], list[str]]:
    """Lowered-variable changes of one tile (by name), and a note when only one side holds variables."""
    sides = [kind_of(r).variable_sizes(tile) for r in (old, new)]
    if all(v is None for v in sides):
        return [], []
    for label, report, sizes in zip(("OLD", "NEW"), (old, new), sides):
        if sizes is None:
            return [], [f"variables not compared: {label} ({report.source}) holds no lowered variables"]
    before, after = sides
    assert before is not None and after is not None
    return _compare({("variable", k): v for k, v in before.items()}, {("variable", k): v for k, v in after.items()}), []


def tile_items(old: MemoryReport, new: MemoryReport, tile: int, old_bytes: int, new_bytes: int, *,
               ipu: int | None = None, min_change: int = 0, sort: str = "delta") -> TileItems:
    """What changed inside one tile from ``old`` to ``new``: items whose change is at least ``min_change``."""
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(SORTS)}, not {sort!r}")
    notes: list[str] = []
    before, after = _breakdown_items(old, tile), _breakdown_items(new, tile)
    changes: list[ItemChange] = []
    if before is not None and after is not None:
        old_kind, new_kind = old.breakdown_kind, new.breakdown_kind
        if old_kind != new_kind:  # sections against categories: only regions and liveness compare
            notes.append(f"{old_kind} items (OLD) and {new_kind} items (NEW) are not compared")
            shared = ("region", "liveness")
            before = {k: v for k, v in before.items() if k[0] in shared}
            after = {k: v for k, v in after.items() if k[0] in shared}
        changes = _compare(before, after)
    for found, more in (_symbol_items(tile, old, new), _variable_items(tile, old, new)):
        changes += found
        notes += more
    shown = [c for c in changes if abs(c.delta) >= max(min_change, 1)]
    shown.sort(key=_sort_key(sort))
    return TileItems(tile, ipu, old_bytes, new_bytes, tuple(shown), hidden=len(changes) - len(shown),
                     notes=tuple(notes))


def tiles_items(old: MemoryReport, new: MemoryReport, changes: Sequence[tuple[int, int | None, int, int]], *,
                min_change: int = 0, sort: str = "delta") -> tuple[TileItems, ...]:
    """:func:`tile_items` for each ``(tile, ipu, old bytes, new bytes)``."""
    return tuple(tile_items(old, new, tile, o, n, ipu=ipu, min_change=min_change, sort=sort)
                 for tile, ipu, o, n in changes)
