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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .fit_search import EXACT_ITEMS, NODE_LIMIT, SHARED_NODE_LIMIT, Problem, search

if TYPE_CHECKING:  # pragma: no cover
    from ..model import TileReport, Variables

ALWAYS_LIVE, NOT_ALWAYS_LIVE, GAP = "always live", "not always live", "gap"
UNKNOWN = "unknown"  # a source that does not say (an ELF symbol: .bss holds both kinds)
CLASSES = (ALWAYS_LIVE, NOT_ALWAYS_LIVE, GAP, UNKNOWN)
BUDGETS = ("limit", "headroom")
__all__ = [
    "ALWAYS_LIVE",
    "BUDGETS",
    "CLASSES",
    "EXACT_ITEMS",
    "GAP",
    "NODE_LIMIT",
    "NOT_ALWAYS_LIVE",
    "SHARED_NODE_LIMIT",
    "UNKNOWN",
    "FitItem",
    "FitItems",
    "FitPlan",
    "Shared",
    "fit_plan",
    "variable_items",
    "variable_plans",
]


@dataclass(frozen=True)
class FitItem:
    """One thing on a tile a plan may move: its bytes, and the bytes removing it alone frees."""

    name: str
    kind: str  # what it is where it lives: an ELF section (".bss"), a memory category ("variable")
    liveness: str  # one of CLASSES ("class" in JSON)
    bytes: int
    frees: int
    exact: bool = True

    def __post_init__(self) -> None:
        if self.liveness not in CLASSES:
            raise ValueError(f"an item's class is one of {', '.join(CLASSES)}, not {self.liveness!r}")
        if not 0 <= self.frees <= self.bytes:
            raise ValueError(f"item {self.name!r}: frees {self.frees:,} B, outside 0..its {self.bytes:,} B")

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "class": self.liveness, "bytes": self.bytes,
                "frees": self.frees, "exact": self.exact}


@dataclass(frozen=True, eq=False)
class Shared:
    """Address ranges items share: segment ``pair_segment[k]`` (``lengths`` bytes) is covered by item
    ``pair_item[k]``; removing a set of items frees a segment when every item covering it is in the set."""

    lengths: np.ndarray
    pair_segment: np.ndarray
    pair_item: np.ndarray


@dataclass(frozen=True, eq=False)
class FitItems:
    """The items on one tile, and what removing any set of them frees: each its own ``frees`` (additive), or
    by the ranges they share (``shared``)."""

    tile: int
    items: tuple[FitItem, ...]
    shared: Shared | None = None

    def __post_init__(self) -> None:
        if self.shared is None:
            return
        s, n = self.shared, len(self.items)
        if s.pair_item.size and (int(s.pair_item.min()) < 0 or int(s.pair_item.max()) >= n):
            raise ValueError(f"shared ranges name items outside 0..{n - 1}")
        covered = np.bincount(s.pair_item, weights=s.lengths[s.pair_segment], minlength=n)
        if any(covered[i] > item.bytes for i, item in enumerate(self.items)):
            raise ValueError("an item covers more bytes than it takes")

    def frees_of(self, chosen: Iterable[int]) -> int:
        """The bytes removing the items ``chosen`` (positions in :attr:`items`) frees together."""
        chosen = sorted(set(chosen))
        if self.shared is None:
            return sum(self.items[i].frees for i in chosen)
        s = self.shared
        flags = np.zeros(len(self.items), dtype=bool)
        flags[chosen] = True
        covering = np.bincount(s.pair_segment, minlength=s.lengths.size)
        taken = np.bincount(s.pair_segment[flags[s.pair_item]], minlength=s.lengths.size)
        return int(s.lengths[(taken == covering) & (covering > 0)].sum())


@dataclass(frozen=True)
class FitPlan:
    """What to move off one tile to close its gap (see the module's notes)."""

    tile: int
    ipu: int | None
    over_by: int  # the gap: bytes over the limit, or short of the headroom budget
    budget: str  # "limit" or "headroom": what over_by is measured against
    items: tuple[FitItem, ...]  # the plan, largest first
    frees: int  # what removing them together frees
    closes_gap: bool
    exact: bool  # the gap and every item's bytes exact
    optimal: bool  # proven the fewest items, then the fewest bytes moved
    at_least: int | None  # no plan closes the gap with fewer items (None: no plan closes it)
    search: str  # "exact" (branch and bound) or "greedy"

    @property
    def bytes_moved(self) -> int:
        return sum(item.bytes for item in self.items)

    def as_json(self) -> dict[str, Any]:
        return {"tile": self.tile, "ipu": self.ipu, "over_by": self.over_by,
                "items": [item.as_json() for item in self.items], "closes_gap": self.closes_gap,
                "exact": self.exact, "budget": self.budget, "frees": self.frees, "bytes_moved": self.bytes_moved,
                "optimal": self.optimal, "at_least": self.at_least, "search": self.search}


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
                   search=found.method)


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
    return FitItems(tile, found, Shared(ranges.lengths, ranges.pair_segment, ranges.pair_variable))


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
