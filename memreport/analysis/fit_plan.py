"""The fit plan: the fewest things to move off a tile to close its gap, and among those the fewest bytes (issue #31).

A tile's *gap* is the bytes it is over its limit (or short of a headroom
budget); its *items* are what a source names on it (symbols, variables,
categories), each with the bytes it takes and the bytes its removal frees.
:func:`fit_plan` chooses the items to move:

- **fewest items** whose removal frees at least the gap, then the **fewest
  bytes moved** among those (then the most bytes freed);
- items that share addresses (lowered variables whose ranges overlap: never
  live together) are not additive: removing a set frees the bytes only its
  members cover (:class:`Shared`), so two overlapping variables that free
  nothing alone may free their whole range together;
- **exact search** by branch and bound: always for additive items (the
  fewest items are the largest ones, the search then looks for the fewest
  bytes), and for shared ones up to :data:`EXACT_ITEMS` candidates; each
  search stops after :data:`NODE_LIMIT` (additive) or :data:`SHARED_NODE_LIMIT`
  (shared) nodes;
- **beyond that, greedy** (remove the item freeing the most, or whose range
  has the most bytes left when none frees anything alone, until the gap
  closes; then drop every item the gap does not need), with a **proven
  bound**: ``at_least`` is the fewest items any plan could use (no set of
  fewer items can free the gap, as even the largest ranges together do not
  cover it), so a greedy plan of ``at_least`` items has the fewest items;
- a plan is ``optimal`` when the search proved both minima, ``exact`` when
  the gap and every chosen item's bytes are exact figures, and
  ``closes_gap`` False when even removing every item does not free the gap
  (then it lists every item that frees something).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .fit_search import EXACT_ITEMS, NODE_LIMIT, SHARED_NODE_LIMIT, Problem, search
from .results import (
    FIT_ALWAYS_LIVE,
    FIT_BUDGETS,
    FIT_CLASSES,
    FIT_GAP,
    FIT_NOT_ALWAYS_LIVE,
    FIT_UNKNOWN,
    FitItem,
    FitItems,
    FitPlan,
    Shared,
)
from .tiles import tile_breakdown

if TYPE_CHECKING:  # pragma: no cover
    from ..model import SummaryReport, TileReport, TileSymbols, Variables
    from ..model.tensor_map import TensorMap

# The names the search and its tests use for the classes (the types are in :mod:`.results`).
ALWAYS_LIVE, NOT_ALWAYS_LIVE, GAP, UNKNOWN = FIT_ALWAYS_LIVE, FIT_NOT_ALWAYS_LIVE, FIT_GAP, FIT_UNKNOWN
CLASSES, BUDGETS = FIT_CLASSES, FIT_BUDGETS
__all__ = [
    "ALWAYS_LIVE",
    "BUDGETS",
    "CLASSES",
    "EXACT_ITEMS",
    "GAP",
    "NODE_LIMIT",
    "NOT_ALWAYS_LIVE",
    "PLANS_MAX",
    "SHARED_NODE_LIMIT",
    "UNKNOWN",
    "FitItem",
    "FitItems",
    "FitPlan",
    "Shared",
    "breakdown_items",
    "fit_plan",
    "storage_class",
    "symbol_items",
    "symbol_tiles",
    "tensor_items",
    "variable_items",
    "variable_plans",
]

# Poplar's storage categories (a profile's byCategory names, a text summary's By Data Type lines, squeezed to
# lower case without spaces) that libpva also lists among a program's always-live variables (docs/FORMATS.md
# §9.3): code, vertex state, descriptors, the control table, constants, the stack, exchange headers and
# instrumentation. "variable" ("Variables") holds both always-live and not-always-live data: unknown.
ALWAYS_LIVE_STORAGE = frozenset({
    "controlcode", "vertexcode", "internalexchangecode", "globalexchangecode", "hostexchangecode",
    "vertexinstancestate", "vertexinstances", "copydescriptor", "copydescriptors", "vectorlistdescriptor",
    "vectorlistdescriptors", "vertexfielddata", "controltable", "controlid", "constant", "constants", "stack",
    "hostexchangepacketheader", "hostexchangepacketheaders", "globalexchangepacketheader",
    "globalexchangepacketheaders", "instrumentationresults", "sharedcodestorage", "shareddatastorage"})
PLANS_MAX = 1_000  # tiles over a report plans, the worst first (a pod whose every tile is over: 90,000 plans)
SYMBOL_TILES = PLANS_MAX  # tiles over whose symbol tables are read for their plans (0.3 ms each)
CODE_SECTIONS = (".text",)  # an ELF's code: always live (a tile's program is loaded whole)


def fit_plan(items: FitItems, over_by: int, *, ipu: int | None = None, budget: str = "limit",
             gap_exact: bool = True) -> FitPlan:
    """The plan closing a gap of ``over_by`` bytes on ``items.tile`` (see the module's notes)."""
    if budget not in BUDGETS:
        raise ValueError(f"budget is one of {', '.join(BUDGETS)}, not {budget!r}")
    shared = None if items.shared is None else (items.shared.lengths, items.shared.pair_segment,
                                                 items.shared.pair_item)
    problem = Problem.of([i.bytes for i in items.items], [i.frees for i in items.items], shared, over_by)
    found = search(problem)
    chosen = tuple(sorted((items.items[i] for i in found.chosen), key=lambda it: (-it.bytes, it.name)))
    return FitPlan(tile=items.tile, ipu=ipu, over_by=over_by, budget=budget, items=chosen,
                   frees=items.frees_of(found.chosen), closes_gap=found.closes, optimal=found.optimal,
                   exact=gap_exact and all(item.exact for item in chosen), at_least=found.at_least,
                   search=found.method, source=items.source, candidates=len(problem.candidates))


def variable_items(variables: Variables, tile: int) -> FitItems:
    """The items of a tile of a lowered-variables report: its variables (kind their category, class by
    ``alwaysLive``, frees what no other variable covers), sharing their ranges."""
    where = variables.on_tile(tile)
    frees = variables.frees(tile).tolist()
    sizes = variables.size[where].tolist()
    live = variables.always_live[where].tolist()
    category = variables.category[where].tolist()
    found = tuple(FitItem(variables.name(where.start + i), variables.categories[category[i]],
                          ALWAYS_LIVE if live[i] else NOT_ALWAYS_LIVE, sizes[i], frees[i])
                  for i in range(len(sizes)))
    ranges = variables.ranges(tile)
    return FitItems(tile, found, Shared(ranges.lengths, ranges.pair_segment, ranges.pair_variable), "variables")


def variable_plans(report: TileReport, *, headroom: int = 0, tiles: Sequence[int] | None = None
                   ) -> tuple[FitPlan, ...]:
    """A plan for each tile of a lowered-variables report over its bytes per tile, or short of ``headroom``
    bytes below it (of ``tiles`` only, if given); none when the report holds no variables or bytes per tile
    is unknown."""
    limit, variables = report.target.bytes_per_tile, report.variables
    if variables is None or limit is None:
        return ()
    target = limit - headroom
    over = np.flatnonzero(report.excluding_gaps > target)
    if tiles is not None:
        over = over[np.isin(over, np.asarray(tiles, dtype=np.int64))]
    return tuple(fit_plan(variable_items(variables, t), int(report.excluding_gaps[t]) - target,
                          ipu=report.target.ipu_of(t), budget="headroom" if headroom else "limit")
                 for t in over.tolist())


def storage_class(name: str) -> str:
    """The class of a storage category or data type by its name (:data:`ALWAYS_LIVE_STORAGE`), else unknown."""
    return ALWAYS_LIVE if name.replace(" ", "").replace("_", "").lower() in ALWAYS_LIVE_STORAGE else UNKNOWN


SOURCE_OF_KIND = {"section": "sections", "category": "categories", "data type": "data types"}


def breakdown_items(tile: int, breakdown: dict[str, int], kind: str) -> FitItems | None:
    """A tile's breakdown (sections, categories, data types: ``kind`` each) as items, largest first: each frees
    its bytes (the items add up to the tile's); a code section or an always-live category is always live.
    None when it holds no bytes."""
    def liveness(name: str) -> str:
        return ALWAYS_LIVE if name in CODE_SECTIONS else storage_class(name)
    found = tuple(FitItem(name, kind, liveness(name), size, size)
                  for name, size in sorted(breakdown.items(), key=lambda kv: (-kv[1], kv[0])) if size > 0)
    return FitItems(tile, found, None, SOURCE_OF_KIND.get(kind, "categories")) if found else None


def symbol_items(table: TileSymbols) -> FitItems:
    """A tile's sized symbols as items (kind their section; code always live, the rest unknown: an ELF does not
    say whether .bss or .data holds weights or activations). Symbols whose address ranges overlap in a section
    (aliases) share their bytes: removing one frees only what no other covers."""
    symbols = table.symbols
    found = []
    ranges: list[tuple[str, int, int, int]] = []  # section, start, end, item
    for i, s in enumerate(symbols):
        found.append(FitItem(s.display_name, s.section, ALWAYS_LIVE if s.section in CODE_SECTIONS else UNKNOWN,
                             s.size, s.size))
        ranges.append((s.section, s.address, s.address + s.size, i))
    shared = _overlaps(ranges, len(found))
    if shared is None:
        return FitItems(table.tile, tuple(found), None, "symbols")
    lengths, pair_segment, pair_item = shared
    sole = np.bincount(pair_segment, minlength=lengths.size)[pair_segment] == 1  # pairs no other item covers
    alone = np.bincount(pair_item[sole], weights=lengths[pair_segment[sole]], minlength=len(found))
    found = [FitItem(f.name, f.kind, f.liveness, f.bytes, int(alone[i])) for i, f in enumerate(found)]
    return FitItems(table.tile, tuple(found), Shared(lengths, pair_segment, pair_item), "symbols")


def _overlaps(ranges: list[tuple[str, int, int, int]], n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The segments of ranges that overlap within a section (None when none do): lengths, pair segment, pair item;
    each range cut where any range of its section starts or ends."""
    by_section: dict[str, list[tuple[int, int, int]]] = {}
    for section, start, end, item in ranges:
        by_section.setdefault(section, []).append((start, end, item))
    overlapping = False
    for spans in by_section.values():
        spans.sort()
        reach = None
        for start, end, _ in spans:
            if reach is not None and start < reach:
                overlapping = True
                break
            reach = end if reach is None else max(reach, end)
    if not overlapping:
        return None
    lengths: list[int] = []
    pair_segment: list[int] = []
    pair_item: list[int] = []
    for spans in by_section.values():
        points = sorted({p for start, end, _ in spans for p in (start, end)})
        first = len(lengths)
        lengths += [b - a for a, b in zip(points, points[1:])]
        where = {p: k for k, p in enumerate(points)}
        for start, end, item in spans:
            for k in range(where[start], where[end]):
                pair_segment.append(first + k)
                pair_item.append(item)
    return (np.array(lengths, dtype=np.int64), np.array(pair_segment, dtype=np.int64),
            np.array(pair_item, dtype=np.int64))


def tensor_items(tensor_map: TensorMap, tile: int) -> FitItems:
    """The tensors a tensor map places on ``tile`` as items: estimated bytes (elements x element size: not
    exact), class unknown; tensors of unknown element size are left out (they have no bytes to move)."""
    found = tuple(FitItem(t.name, "tensor", UNKNOWN, t.est_bytes, t.est_bytes, exact=False)
                  for t in tensor_map.tensors_on_tile(tile) if t.est_bytes)
    return FitItems(tile, found, None, "tensors")


def tiles_over(report: TileReport, headroom: int = 0) -> tuple[np.ndarray, np.ndarray] | None:
    """(tiles, excluding-gaps bytes) of a report's tiles above bytes per tile less ``headroom``, worst first
    (then by tile); None when bytes per tile is unknown. Skipped members' tiles are not known: never over."""
    if report.target.bytes_per_tile is None:
        return None
    values = report.excluding_gaps
    over = values > report.target.bytes_per_tile - headroom
    if report.known is not None:
        over &= report.known
    ids = np.flatnonzero(over)
    ids = ids[np.lexsort((ids, -values[ids].astype(np.int64)))]
    return ids, values[ids].astype(np.int64)


def printed_over(report: SummaryReport, known: dict[int, int], headroom: int = 0
                 ) -> tuple[np.ndarray, np.ndarray] | None:
    """A text summary's tiles above its bytes per tile less ``headroom``: those whose excluding-gaps bytes it
    states (``known``: detailed, Maximum line), then those its out-of-memory messages say used more (their
    "bytes used", the messages' own figure); worst first. None when bytes per tile is unknown."""
    limit = report.target.bytes_per_tile
    if limit is None:
        return None
    found = dict(known)
    for m in report.oom_messages:
        if m.names_tile and m.tile is not None and m.bytes_used is not None:
            found.setdefault(m.tile, m.bytes_used)
    over = sorted((-size, tile) for tile, size in found.items() if size > limit - headroom)
    return np.array([t for _, t in over], dtype=np.int64), np.array([-b for b, _ in over], dtype=np.int64)


def tile_items(report: TileReport, tile: int, tensor_map: TensorMap | None = None) -> FitItems | None:
    """What names a tile's items, best first: its lowered variables; its symbol table (whole: a saved report
    may keep only the largest symbols); the tensor map given; its breakdown (sections, categories)."""
    if report.variables is not None:
        return variable_items(report.variables, tile)
    table = report.symbols.get(tile)
    if table is not None and table.has_symbol_table and table.symbols and not table.omitted:
        return symbol_items(table)
    if tensor_map is not None and tile < tensor_map.num_tiles:
        return tensor_items(tensor_map, tile)
    return breakdown_items(tile, tile_breakdown(report, tile), report.breakdown_kind)


def symbol_tiles(report: TileReport, headroom: int = 0, most: int = SYMBOL_TILES) -> list[int]:
    """The tiles over whose plans want their symbol tables read: the ``most`` worst above bytes per tile less
    ``headroom`` (the rest are planned by section, and say so)."""
    over = tiles_over(report, headroom)
    return [] if over is None else over[0][:most].tolist()
