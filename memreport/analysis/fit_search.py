"""The fit plan's search (:mod:`~memreport.analysis.fit_plan` says what it finds and what it proves).

The objective is lexicographic: fewest items, then fewest bytes moved. A
plan's items must free at least the gap; ``F(S)`` is what removing the set
``S`` frees.

- **Lower bound** (``at_least``): an item can free at most the bytes its
  range covers (its ``frees`` when additive), so no set of fewer than the
  smallest ``k`` whose ``k`` largest ranges reach the gap can close it.
- **Additive items**: the ``k`` freeing the most close the gap for the
  least ``k`` (that bound is then exact); a depth-first search over sets of
  ``k`` (items by frees, largest first) finds the fewest bytes, pruning a
  branch when the largest frees left cannot reach the gap, or when its bytes
  already reach the best plan's (a further item moves at least what it frees:
  ``bytes >= frees``).
- **Shared ranges** (up to :data:`EXACT_ITEMS` candidates): the same search
  for ``k`` from the lower bound up; a set's bound is what it frees plus, for
  the ``r`` items still to choose, the ``r`` largest *potentials*: the bytes
  of the segments an item covers that are not freed yet and that no item
  already passed over covers (such a segment can no longer be freed). Every
  byte a completion frees is in some chosen item's potential, so the bound
  holds. Segments sharing the same covering items are merged; sets are bit
  masks.
- Past :data:`EXACT_ITEMS` candidates, or :data:`SHARED_NODE_LIMIT` nodes, the
  greedy plan stands (its count at most the lower bound's when equal).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EXACT_ITEMS = 28         # shared-range candidates searched exactly (2**28 sets at worst, pruned)
NODE_LIMIT = 20_000      # search nodes per tile, additive items (a node is a few operations)
SHARED_NODE_LIMIT = 4_000  # search nodes per tile, shared ranges (a node walks every segment)


class _Stop(Exception):
    """The search ran out of nodes."""


@dataclass(frozen=True)
class Found:
    """A search's result: positions in the tile's items."""

    chosen: tuple[int, ...]
    closes: bool
    optimal: bool
    at_least: int | None
    method: str


@dataclass(frozen=True, eq=False)
class Problem:
    """A tile's items as the search sees them."""

    gap: int
    bytes: list[int]
    frees: list[int]
    potential: list[int]   # the most an item can add to what a set frees
    candidates: list[int]  # the items that can free something
    shared: tuple[np.ndarray, np.ndarray, np.ndarray] | None  # lengths, pair segment, pair item

    @classmethod
    def of(cls, sizes: list[int], frees: list[int], shared: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
           gap: int) -> Problem:
        """Items of ``sizes`` bytes freeing ``frees`` alone, additive or sharing ranges (lengths, pair segment,
        pair item)."""
        n = len(sizes)
        if shared is None:
            return cls(gap, sizes, frees, frees, [i for i in range(n) if frees[i] > 0], None)
        lengths, segment, item = shared
        reach = np.bincount(item, weights=lengths[segment], minlength=n).astype(np.int64).tolist()
        return cls(gap, sizes, frees, reach, [i for i in range(n) if reach[i] > 0], shared)

    def freed(self, chosen: list[int] | tuple[int, ...]) -> int:
        if self.shared is None:
            return sum(self.frees[i] for i in chosen)
        lengths, segment, item = self.shared
        flags = np.zeros(len(self.bytes), dtype=bool)
        flags[list(chosen)] = True
        covering = np.bincount(segment, minlength=lengths.size)
        taken = np.bincount(segment[flags[item]], minlength=lengths.size)
        return int(lengths[(taken == covering) & (covering > 0)].sum())


def search(problem: Problem) -> Found:
    """The plan for ``problem`` (module notes)."""
    gap, candidates = problem.gap, problem.candidates
    if gap <= 0:
        return Found((), True, True, 0, "exact")
    if problem.freed(candidates) < gap:  # everything together falls short: say what would free the most
        return Found(tuple(candidates), False, True, None, "exact")
    reach = sorted((problem.potential[i] for i in candidates), reverse=True)
    at_least = next(k for k, total in enumerate(np.cumsum(reach).tolist(), 1) if total >= gap)
    if problem.shared is None:
        return _additive(problem, at_least)
    greedy = _greedy(problem)
    if len(candidates) > EXACT_ITEMS:
        return Found(greedy, True, False, at_least, "greedy")
    return _shared(problem, at_least, greedy)


def _additive(problem: Problem, k: int) -> Found:
    """Fewest bytes among the sets of ``k`` items that close the gap (``k`` the least that can)."""
    order = sorted(problem.candidates, key=lambda i: (-problem.frees[i], problem.bytes[i], i))
    f = [problem.frees[i] for i in order]
    b = [problem.bytes[i] for i in order]
    n, gap = len(order), problem.gap
    top = [0]
    for value in f:
        top.append(top[-1] + value)
    least = b[:]  # least bytes of any item from here on
    for j in range(n - 2, -1, -1):
        least[j] = min(least[j], least[j + 1])
    best_cost, best = [sum(b[:k])], [list(range(k))]  # the k freeing the most close the gap
    nodes = [0]

    def visit(start: int, r: int, freed: int, cost: int, picked: list[int]) -> None:
        for j in range(start, n - r + 1):
            if freed + top[j + r] - top[j] < gap:  # the r largest from here fall short, and later ones more so
                return
            spent = cost + b[j]
            if spent + max(gap - freed - f[j], 0) >= best_cost[0] or \
                    (r > 1 and spent + (r - 1) * least[j + 1] >= best_cost[0]):
                continue
            nodes[0] += 1
            if nodes[0] > NODE_LIMIT:
                raise _Stop
            if r == 1:
                if freed + f[j] >= gap:
                    best_cost[0], best[0] = spent, picked + [j]
            else:
                visit(j + 1, r - 1, freed + f[j], spent, picked + [j])

    try:
        visit(0, k, 0, 0, [])
        optimal = True
    except _Stop:
        optimal = False
    chosen = tuple(order[j] for j in best[0])
    return Found(chosen, True, optimal, k, "exact")


def _greedy(problem: Problem) -> tuple[int, ...]:
    """Remove the item freeing the most (or, when none frees anything alone, the one whose range has the most
    bytes left) until the gap closes; then drop each item, largest first, the gap does not need."""
    assert problem.shared is not None
    lengths, segment, item = problem.shared
    n = len(problem.bytes)
    sizes = np.array(problem.bytes, dtype=np.int64)
    covering = np.bincount(segment, minlength=lengths.size)
    left = covering.copy()
    removed = np.zeros(n, dtype=bool)
    chosen: list[int] = []
    freed = 0
    while freed < problem.gap:
        alive = ~removed[item]
        alone = alive & (left[segment] == 1)
        gain = np.bincount(item[alone], weights=lengths[segment[alone]], minlength=n)
        if not (gain > 0).any():
            open_ = alive & (left[segment] >= 1)
            gain = np.bincount(item[open_], weights=lengths[segment[open_]], minlength=n)
        gain[removed] = -1
        pick = int(np.lexsort((np.arange(n), sizes, -gain))[0])
        removed[pick] = True
        chosen.append(pick)
        np.subtract.at(left, segment[item == pick], 1)
        freed = int(lengths[(left == 0) & (covering > 0)].sum())
    for i in sorted(chosen, key=lambda i: (-problem.bytes[i], i)):
        trial = [c for c in chosen if c != i]
        if problem.freed(trial) >= problem.gap:
            chosen = trial
    return tuple(chosen)


def _shared(problem: Problem, at_least: int, greedy: tuple[int, ...]) -> Found:
    """Exact search over shared ranges: the least ``k`` from ``at_least`` up, then the fewest bytes."""
    assert problem.shared is not None
    lengths, segment, item = problem.shared
    order = sorted(problem.candidates, key=lambda i: (-problem.potential[i], problem.bytes[i], i))
    place = {i: j for j, i in enumerate(order)}
    masks: dict[int, int] = {}
    for s, i in zip(segment.tolist(), item.tolist()):
        masks[s] = masks.get(s, 0) | (1 << place[i])
    merged: dict[int, int] = {}
    for s, mask in masks.items():
        merged[mask] = merged.get(mask, 0) + int(lengths[s])
    segments = list(merged.items())
    b = [problem.bytes[i] for i in order]
    n, gap = len(order), problem.gap
    nodes = [0]

    def freed_by(chosen: int) -> int:
        return sum(size for mask, size in segments if mask & ~chosen == 0)

    def bound(start: int, r: int, chosen: int, passed: int) -> int:
        """The most ``r`` more items from ``start`` on can add."""
        gains = [0] * n
        for mask, size in segments:
            if mask & passed or mask & ~chosen == 0:
                continue
            rest = mask >> start
            j = start
            while rest:
                if rest & 1:
                    gains[j] += size
                rest >>= 1
                j += 1
        return sum(sorted(gains[start:], reverse=True)[:r])

    def visit(k: int, start: int, r: int, chosen: int, passed: int, cost: int, best: list[int]) -> None:
        for j in range(start, n - r + 1):
            bit = 1 << j
            now = chosen | bit
            spent = cost + b[j]
            got = freed_by(now)
            if spent + max(gap - got, 0) >= best[0]:
                passed |= bit
                continue
            nodes[0] += 1
            if nodes[0] > SHARED_NODE_LIMIT:
                raise _Stop
            if r == 1:
                if got >= gap:
                    best[:] = [spent, now]  # cost, and the set as a mask
            elif got + bound(j + 1, r - 1, now, passed) >= gap:
                visit(k, j + 1, r - 1, now, passed, spent, best)
            passed |= bit

    fallback = Found(greedy, True, False, at_least, "greedy")
    inf = sum(b) + 1
    for k in range(at_least, len(greedy) + 1):
        best = [sum(problem.bytes[i] for i in greedy) if k == len(greedy) else inf, -1]
        try:
            visit(k, 0, k, 0, 0, 0, best)
        except _Stop:
            return Found(greedy, True, False, k, "greedy")
        if best[1] >= 0:
            return Found(tuple(order[j] for j in range(n) if best[1] >> j & 1), True, True, k, "exact")
        if k == len(greedy):  # nothing cheaper than the greedy plan at its count: it is the plan
            return Found(greedy, True, True, k, "exact")
    return fallback  # pragma: no cover - the greedy count is reached above
