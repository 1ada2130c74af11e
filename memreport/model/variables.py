"""The variables Poplar laid out in tile memory (a lowered-variables report, docs/FORMATS.md §11).

A :class:`Variables` holds every allocated variable of a program as
columns (numpy arrays, one entry per variable), sorted by tile, then
address: a pod's million variables stay a few arrays, never a Python
object each. Names and categories are tables the columns index.

What the ranges say, and what they do not:

- A tile's memory is what its variables' ``[offset, offset + size)``
  ranges cover (each byte once: overlapping ranges share addresses);
  the highest end is its memory including gaps.
- Variables whose ranges overlap are never live at the same time, so
  removing one frees only the bytes of its range no other variable covers
  (:meth:`Variables.frees`), and removing a set frees the bytes only its
  members cover (:meth:`Variables.frees_of`).
- A byte several variables share counts, in the per-category breakdown,
  for the variable that starts lowest (the larger one when two start
  together, then the first in the file): so the categories add up to the
  tile's bytes exactly, and a category's figure is the bytes it would hold
  were the overlaps given to the first variable laid there.
- Liveness: the file gives each variable an equivalence class and, per
  class, the classes live at the same time. :meth:`Variables.live_with`
  answers "which variables may be live together with this one" (always-live
  ones, its own class, the interfering classes). The file names no program
  step, so "the variables live at step N" is not in it: that needs a
  profile's program steps, which this file does not link to.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

#: Bytes per tile beyond any IPU's (1 TiB): a tile memory this large is a damaged file. Keeps a tile's addresses
#: and every tile's together (tile x tile memory, at most 2**21 tiles) inside int64.
MAX_TILE_MEMORY = 1 << 40
NO_CLASS = -1  # equivalence_class where the file gives none


@dataclass(frozen=True, eq=False)
class Interference:
    """Which equivalence classes are live at the same time (the file's ``equivalenceClassInterference``).

    Compressed rows: class ``classes[k]`` (ascending) is live together with
    ``indices[indptr[k]:indptr[k + 1]]``.
    """

    classes: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray

    def __post_init__(self) -> None:
        import numpy as np
        for name in ("classes", "indptr", "indices"):
            value = getattr(self, name)
            if not isinstance(value, np.ndarray) or value.ndim != 1 or value.dtype.kind not in "iu":
                raise TypeError(f"interference {name} must be a 1-D integer numpy array")
        p = self.indptr
        if p.size != self.classes.size + 1 or int(p[0]) != 0 or int(p[-1]) != self.indices.size or \
                bool(np.any(np.diff(p) < 0)):
            raise ValueError("interference indptr must rise from 0 to the number of indices, a step per class")
        if bool(np.any(np.diff(self.classes) <= 0)) or (self.classes.size and int(self.classes[0]) < 0):
            raise ValueError("interference classes must be distinct, ascending and non-negative")
        if self.indices.size and int(self.indices.min()) < 0:
            raise ValueError("interference names a negative class")

    def of(self, cls: int) -> np.ndarray:
        """The classes listed as live at the same time as ``cls`` (none for a class the table does not list)."""
        import numpy as np
        k = int(np.searchsorted(self.classes, cls))
        if k == self.classes.size or int(self.classes[k]) != cls:
            return np.zeros(0, dtype=np.int64)
        return self.indices[int(self.indptr[k]):int(self.indptr[k + 1])]

    def listing(self, cls: int) -> np.ndarray:
        """The classes whose rows list ``cls`` (interference the table states the other way round)."""
        import numpy as np
        rows = np.repeat(self.classes, np.diff(self.indptr))
        return rows[self.indices == cls]


@dataclass(frozen=True)
class VariableRow:
    """One variable of a tile, as a listing shows it: ``frees`` is the bytes of its range no other variable
    covers (what removing it alone frees)."""

    index: int
    name: str
    category: str
    bytes: int
    offset: int
    always_live: bool
    interleaved: bool
    frees: int
    equivalence_class: int | None = None


@dataclass(frozen=True, eq=False)
class TileRanges:
    """One tile's address line cut where its variables start and end: each covered segment's length, and which
    variables cover it (``pair_segment[k]`` is covered by variable ``pair_variable[k]``, an index into the tile's
    variables in :meth:`Variables.on_tile` order)."""

    lengths: np.ndarray
    pair_segment: np.ndarray
    pair_variable: np.ndarray

    def freed_by(self, chosen: np.ndarray) -> int:
        """Bytes freed by removing the variables flagged in the bool array ``chosen``: the segments every
        variable covering them is among them."""
        import numpy as np
        covering = np.bincount(self.pair_segment, minlength=self.lengths.size)
        taken = np.bincount(self.pair_segment[chosen[self.pair_variable]], minlength=self.lengths.size)
        return int(self.lengths[(taken == covering) & (covering > 0)].sum())


@dataclass(frozen=True, eq=False)
class Variables:
    """Every allocated variable of a program, one entry per variable in each column, sorted by tile, then
    offset (the larger first where two start together, then file order).

    ``tile``, ``offset`` and ``size`` place each variable; ``category`` and
    ``name_index`` index :attr:`categories` and :attr:`names`;
    ``always_live`` and ``interleaved`` are the file's ``alwaysLive`` and
    ``inInterleavedMem``; ``var_id`` its ``var``; ``equivalence_class``
    :data:`NO_CLASS` where the file gives none (None: it gives none at all).
    ``tile_memory`` is the bytes per tile the layout was made for, None
    where unknown.
    """

    num_tiles: int
    tile: np.ndarray
    offset: np.ndarray
    size: np.ndarray
    category: np.ndarray
    always_live: np.ndarray
    interleaved: np.ndarray
    name_index: np.ndarray
    categories: tuple[str, ...]
    names: tuple[str, ...]
    var_id: np.ndarray
    equivalence_class: np.ndarray | None = None
    interference: Interference | None = None
    tile_memory: int | None = None

    def __post_init__(self) -> None:
        import numpy as np
        n = self.tile.shape[0] if isinstance(self.tile, np.ndarray) else -1
        for name in ("tile", "offset", "size", "category", "name_index", "var_id", "equivalence_class"):
            value = getattr(self, name)
            if value is None and name == "equivalence_class":
                continue
            if not isinstance(value, np.ndarray) or value.ndim != 1 or value.dtype.kind not in "iu":
                raise TypeError(f"variables: {name} must be a 1-D integer numpy array")
            if value.shape[0] != n:
                raise ValueError(f"variables: {name} has {value.shape[0]:,} entries for {n:,} variables")
        for name in ("always_live", "interleaved"):
            value = getattr(self, name)
            if not isinstance(value, np.ndarray) or value.dtype != bool or value.shape != (n,):
                raise TypeError(f"variables: {name} must be a bool numpy array of {n:,} entries")
        if self.tile_memory is not None and not 0 < self.tile_memory < MAX_TILE_MEMORY:
            raise ValueError(f"variables: tile memory {self.tile_memory:,} is outside 1..2**40-1")
        if n == 0:
            return
        _within("tile", self.tile, self.num_tiles)
        _within("category", self.category, len(self.categories))
        _within("name_index", self.name_index, len(self.names))
        if int(self.offset.min()) < 0 or int(self.size.min()) < 0:
            raise ValueError("variables: a negative offset or size")
        end = self.offset.astype(np.int64) + self.size
        limit = MAX_TILE_MEMORY if self.tile_memory is None else self.tile_memory
        if int(self.offset.max()) >= MAX_TILE_MEMORY or int(end.max()) > limit:
            raise ValueError(f"variables: a range ends past the tile memory ({limit:,} B)")
        dt, do, ds = (np.diff(getattr(self, k).astype(np.int64)) for k in ("tile", "offset", "size"))
        if not bool(np.all((dt > 0) | ((dt == 0) & ((do > 0) | ((do == 0) & (ds <= 0)))))):
            raise ValueError("variables must be sorted by tile, then offset, the larger first at one offset")

    def __len__(self) -> int:
        return int(self.tile.shape[0])

    @cached_property
    def _tile_starts(self) -> np.ndarray:
        import numpy as np
        return np.searchsorted(self.tile, np.arange(self.num_tiles + 1))

    def on_tile(self, tile: int) -> slice:
        """The positions of ``tile``'s variables in the columns (in address order)."""
        if not 0 <= tile < self.num_tiles:
            raise ValueError(f"tile {tile} outside 0..{self.num_tiles - 1}")
        starts = self._tile_starts
        return slice(int(starts[tile]), int(starts[tile + 1]))

    def name(self, index: int) -> str:
        return self.names[int(self.name_index[index])]

    def _span(self) -> int:
        """Bytes between two tiles' address lines: every range ends within it."""
        if self.tile_memory is not None:
            return self.tile_memory
        return int((self.offset + self.size).max()) if len(self) else 1

    def tile_totals(self) -> TileTotals:
        """Every tile's bytes: covered (excluding gaps), the highest end (including gaps), per category and the
        interleaved share, each an int64 array over the tiles (see the module's note on overlaps)."""
        import numpy as np

        from .values import sums_by
        n, tiles = len(self), self.num_tiles
        if n == 0:
            zeros = np.zeros(tiles, dtype=np.int64)
            return TileTotals(zeros, zeros.copy(), {name: zeros.copy() for name in self.categories}, zeros.copy())
        base = self.tile.astype(np.int64) * self._span()
        start = base + self.offset
        end = start + self.size
        before = np.empty(n, dtype=np.int64)  # the highest end of the variables laid before each (this tile's only)
        before[0] = 0
        np.maximum.accumulate(end[:-1], out=before[1:])
        new = np.maximum(end - np.maximum(start, before), 0)  # bytes no lower-starting variable covers
        tile = self.tile.astype(np.int64)
        excluding = sums_by(tile, new, tiles, "tile")
        including = np.zeros(tiles, dtype=np.int64)
        np.maximum.at(including, tile, self.offset.astype(np.int64) + self.size)
        per = sums_by(self.category.astype(np.int64) * tiles + tile, new, len(self.categories) * tiles, "tile")
        per = per.reshape(len(self.categories), tiles)
        inter = self.interleaved
        interleaved = sums_by(tile[inter], new[inter], tiles, "tile")
        return TileTotals(excluding, including, {name: per[i] for i, name in enumerate(self.categories)},
                          interleaved)

    def ranges(self, tile: int) -> TileRanges:
        """``tile``'s covered segments and the variables covering each (for what removing a set frees)."""
        import numpy as np
        where = self.on_tile(tile)
        start = self.offset[where].astype(np.int64)
        end = start + self.size[where]
        points = np.unique(np.concatenate((start, end)))
        first, last = np.searchsorted(points, start), np.searchsorted(points, end)
        spans = last - first  # segments each variable covers (0 for an empty one)
        pair_variable = np.repeat(np.arange(start.size), spans)
        pair_segment = np.arange(int(spans.sum())) - np.repeat(np.cumsum(spans) - spans, spans) + \
            np.repeat(first, spans)
        lengths = np.diff(points) if points.size > 1 else np.zeros(0, dtype=np.int64)
        return TileRanges(lengths.astype(np.int64), pair_segment.astype(np.int64), pair_variable.astype(np.int64))

    def frees(self, tile: int) -> np.ndarray:
        """Per variable of ``tile`` (in :meth:`on_tile` order): the bytes of its range no other variable covers."""
        import numpy as np
        where = self.on_tile(tile)
        k = where.stop - where.start
        if k == 0:
            return np.zeros(0, dtype=np.int64)
        start = self.offset[where].astype(np.int64)
        end = start + self.size[where]
        ids = np.arange(k, dtype=np.int64)
        coords = np.concatenate((start, end))
        order = np.argsort(coords, kind="stable")
        coords = coords[order]
        count = np.cumsum(np.concatenate((np.ones(k, np.int64), -np.ones(k, np.int64)))[order])
        idsum = np.cumsum(np.concatenate((ids, -ids))[order])  # the open variable's index where one alone is open
        last = np.flatnonzero(np.append(coords[1:] != coords[:-1], True))  # each coordinate's last event
        lengths = np.diff(coords[last])
        alone = count[last[:-1]] == 1
        owner = idsum[last[:-1]][alone]
        return np.bincount(owner, weights=lengths[alone], minlength=k).astype(np.int64)

    def frees_of(self, tile: int, chosen: list[int] | np.ndarray) -> int:
        """Bytes removing the variables ``chosen`` (positions among :meth:`on_tile`'s) frees together."""
        import numpy as np
        where = self.on_tile(tile)
        flags = np.zeros(where.stop - where.start, dtype=bool)
        flags[np.asarray(chosen, dtype=np.int64)] = True
        return self.ranges(tile).freed_by(flags)

    def tile_variables(self, tile: int) -> tuple[VariableRow, ...]:
        """``tile``'s variables, largest first (then by address), each with what removing it alone frees."""
        import numpy as np
        where = self.on_tile(tile)
        frees = self.frees(tile)
        size, offset = self.size[where], self.offset[where]
        order = np.lexsort((offset, -size.astype(np.int64)))
        classes = None if self.equivalence_class is None else self.equivalence_class[where]
        rows = []
        for i in order.tolist():
            g = where.start + i
            cls = None if classes is None or int(classes[i]) == NO_CLASS else int(classes[i])
            rows.append(VariableRow(g, self.name(g), self.categories[int(self.category[g])], int(size[i]),
                                    int(offset[i]), bool(self.always_live[g]), bool(self.interleaved[g]),
                                    int(frees[i]), cls))
        return tuple(rows)

    def by_name(self, tile: int) -> dict[str, int]:
        """Name -> bytes on ``tile`` (a name held twice sums its sizes), to compare two builds below the tile."""
        where = self.on_tile(tile)
        found: dict[str, int] = {}
        for g, size in zip(range(where.start, where.stop), self.size[where].tolist()):
            name = self.name(g)
            found[name] = found.get(name, 0) + int(size)
        return found

    def live_with(self, index: int) -> np.ndarray | None:
        """Positions (in the columns) of the variables of ``index``'s tile that may be live at the same time as
        it: the always-live ones, its own equivalence class and the classes interfering with it (either way
        round); all of the tile's for an always-live variable. None where the file does not say (no class for
        it, or no interference table)."""
        import numpy as np
        tile = int(self.tile[index])
        where = self.on_tile(tile)
        others = np.arange(where.start, where.stop)
        others = others[others != index]
        if bool(self.always_live[index]):
            return others
        if self.equivalence_class is None or self.interference is None:
            return None
        cls = int(self.equivalence_class[index])
        if cls == NO_CLASS:
            return None
        classes = self.equivalence_class[others]
        table = self.interference
        together = np.union1d(np.union1d(table.of(cls), table.listing(cls)), [cls])
        live = self.always_live[others] | np.isin(classes, together)
        return others[live]


@dataclass(frozen=True, eq=False)
class TileTotals:
    """Every tile's bytes as its variables' ranges give them (:meth:`Variables.tile_totals`)."""

    excluding_gaps: np.ndarray
    including_gaps: np.ndarray
    by_category: dict[str, np.ndarray]
    interleaved: np.ndarray


def _within(name: str, values: np.ndarray, bound: int) -> None:
    if int(values.min()) < 0 or int(values.max()) >= bound:
        raise ValueError(f"variables: {name} outside 0..{bound - 1}")
