"""Below the tile: which sections, categories, regions, liveness figures and symbols of a tile changed.

A diff says which tiles grew; this says what in them grew. Each side's items
for a tile come from its report: breakdown columns (ELF sections of an
archive, categories of a profile, data types of a text summary's detailed
tile), memory regions, liveness, and the tile's symbol table where one was
read. Items are compared by kind and name; an item on one side only is new
or removed. Kinds a side does not hold (symbols of a report read from a
profile, sections against categories) are not compared, and a note says so.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..model import ALWAYS_LIVE, NOT_ALWAYS_LIVE, NOT_ALWAYS_LIVE_MAX, MemoryReport, SummaryReport, TileReport

SORTS = ("delta", "growth", "new")
_LIVENESS = {ALWAYS_LIVE: "always-live", NOT_ALWAYS_LIVE_MAX: "not-always-live (max)",
             NOT_ALWAYS_LIVE: "not-always-live"}


@dataclass(frozen=True)
class ItemChange:
    """One item of a tile, before and after: ``old`` None for a new item, ``new`` None for a removed one.

    ``kind`` is "section", "category", "data type", "region", "liveness" or
    "symbol"; ``section`` is where a symbol lies.
    """

    kind: str
    name: str
    old: int | None
    new: int | None
    section: str | None = None

    @property
    def delta(self) -> int:
        return (self.new or 0) - (self.old or 0)

    @property
    def status(self) -> str:
        """"new", "removed", "grew" or "shrank"."""
        if self.old is None:
            return "new"
        if self.new is None:
            return "removed"
        return "grew" if self.delta > 0 else "shrank"


@dataclass(frozen=True)
class TileItems:
    """The changed items of one changed tile, in the order asked for; ``hidden`` changes were under ``min_change``."""

    tile: int
    ipu: int | None
    old: int
    new: int
    items: tuple[ItemChange, ...]
    hidden: int = 0
    notes: tuple[str, ...] = ()

    @property
    def delta(self) -> int:
        return self.new - self.old


def _sort_key(sort: str):
    kinds = ("section", "category", "data type", "region", "liveness", "symbol")  # among equal changes

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
    found: dict[tuple[str, str], int] = {}
    if isinstance(report, TileReport):
        if report.known is not None and not report.known[tile]:
            return None
        for name, col in report.breakdown.items():
            value = col.get(tile)
            if value is None:
                continue
            if col.counted:
                found[report.breakdown_kind, name] = value
            elif name in _LIVENESS:
                found["liveness", _LIVENESS[name]] = value
        for name, values in report.regions.items():
            found["region", name] = int(values[tile])
        return found
    if isinstance(report, SummaryReport):
        detail = next((d for d in report.detailed_tiles if d.tile == tile), None)
        if detail is None:
            return None
        found.update((("data type", k), v) for k, v in detail.breakdown.items())
        found.update((("region", k), v) for k, v in detail.regions.items())
        return found
    return None


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
    tables = [r.symbols.get(tile) if isinstance(r, TileReport) else None for r in (old, new)]
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
    symbols, symbol_notes = _symbol_items(tile, old, new)
    changes += symbols
    notes += symbol_notes
    shown = [c for c in changes if abs(c.delta) >= max(min_change, 1)]
    shown.sort(key=_sort_key(sort))
    return TileItems(tile, ipu, old_bytes, new_bytes, tuple(shown), hidden=len(changes) - len(shown),
                     notes=tuple(notes))


def tiles_items(old: MemoryReport, new: MemoryReport, changes: Sequence[tuple[int, int | None, int, int]], *,
                min_change: int = 0, sort: str = "delta") -> tuple[TileItems, ...]:
    """:func:`tile_items` for each ``(tile, ipu, old bytes, new bytes)``."""
    return tuple(tile_items(old, new, tile, o, n, ipu=ipu, min_change=min_change, sort=sort)
                 for tile, ipu, o, n in changes)
