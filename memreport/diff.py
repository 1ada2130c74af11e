"""Compare two builds tile by tile: pure functions of two reports, vectorised with numpy.

Values are excluding-gaps bytes, the one figure every complete source holds.
A partial report (a text summary) is compared only where it knows a tile's
bytes (its detailed tiles); its totals, maxima and out-of-memory count are
compared as printed, and the diff carries a note saying so.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np

from . import analysis
from .errors import TileCountMismatch  # noqa: F401 - defined with the other errors, re-exported here
from .model import MemoryReport, TileBytes


@dataclass(frozen=True)
class TileChange:
    """One tile whose excluding-gaps bytes changed."""

    tile: int
    ipu: int | None
    old: int
    new: int
    delta: int


@dataclass(frozen=True)
class BuildSummary:
    """One side of a diff: where it came from and its whole-program figures."""

    source: str
    module: str | None
    format: str
    per_tile: str
    num_tiles: int
    bytes_per_tile: int | None
    total_excluding_gaps: int | None
    total_including_gaps: int | None
    max_excluding_gaps: TileBytes | None
    tiles_out_of_memory: int | None

    @property
    def label(self) -> str:
        """The source, with its module when a file holds several."""
        return self.source + (f" (module {self.module})" if self.module else "")

    @classmethod
    def of(cls, report: MemoryReport) -> "BuildSummary":
        """The summary of one report (printed figures for a text summary)."""
        return cls(
            source=report.source, module=report.module, format=report.format, per_tile=report.per_tile,
            num_tiles=report.num_tiles, bytes_per_tile=report.target.bytes_per_tile,
            total_excluding_gaps=analysis.total_excluding_gaps(report),
            total_including_gaps=analysis.total_including_gaps(report),
            max_excluding_gaps=analysis.max_excluding_gaps(report),
            tiles_out_of_memory=analysis.count_out_of_memory(report),
        )


def _delta(old: int | None, new: int | None) -> int | None:
    return None if old is None or new is None else new - old


@dataclass(frozen=True, eq=False)
class Diff:
    """What changed from ``old`` to ``new``, tile by tile.

    The changed tiles are held as parallel arrays (``tile_ids``, ``old_bytes``,
    ``new_bytes``) sorted by ``|delta|`` descending, then tile id, so a pod
    of tiles diffs without a Python object per tile; ``tiles`` builds the
    records on demand. The out-of-memory lists are None when either side's
    bytes per tile is unknown.
    """

    old: BuildSummary
    new: BuildSummary
    tile_ids: np.ndarray
    old_bytes: np.ndarray
    new_bytes: np.ndarray
    compared_tiles: int
    tiles_per_ipu: int | None
    newly_out_of_memory: tuple[int, ...] | None
    no_longer_out_of_memory: tuple[int, ...] | None
    notes: tuple[str, ...] = ()

    @property
    def per_tile(self) -> str:
        """"complete" when every tile was compared, else "partial"."""
        return "complete" if self.old.per_tile == self.new.per_tile == "complete" else "partial"

    @property
    def delta(self) -> np.ndarray:
        """Per changed tile: new minus old bytes (int64), in ``tile_ids`` order."""
        return self.new_bytes - self.old_bytes

    @property
    def num_changed(self) -> int:
        return int(self.tile_ids.size)

    @property
    def num_grown(self) -> int:
        return int(np.count_nonzero(self.delta > 0))

    @property
    def num_shrunk(self) -> int:
        return int(np.count_nonzero(self.delta < 0))

    @property
    def total_delta(self) -> int | None:
        """Change in total excluding-gaps bytes (None where a side does not know it)."""
        return _delta(self.old.total_excluding_gaps, self.new.total_excluding_gaps)

    @property
    def total_including_gaps_delta(self) -> int | None:
        return _delta(self.old.total_including_gaps, self.new.total_including_gaps)

    @property
    def max_delta(self) -> int | None:
        """Change in the largest tile's excluding-gaps bytes (whichever tile that is)."""
        old, new = self.old.max_excluding_gaps, self.new.max_excluding_gaps
        return None if old is None or new is None else new.bytes - old.bytes

    @property
    def out_of_memory_delta(self) -> int | None:
        return _delta(self.old.tiles_out_of_memory, self.new.tiles_out_of_memory)

    def changes(self, n: int | None = None) -> list[TileChange]:
        """The first ``n`` changed tiles (all when None), largest change first."""
        end = self.num_changed if n is None else min(n, self.num_changed)
        tpi = self.tiles_per_ipu
        return [TileChange(t, None if not tpi else t // tpi, o, w, w - o) for t, o, w in zip(
            self.tile_ids[:end].tolist(), self.old_bytes[:end].tolist(), self.new_bytes[:end].tolist())]

    @cached_property
    def tiles(self) -> tuple[TileChange, ...]:
        """Every changed tile, largest ``|delta|`` first, ties by tile id."""
        return tuple(self.changes())


def _known_bytes(report: MemoryReport) -> tuple[np.ndarray, np.ndarray]:
    """(tile ids ascending, excluding-gaps bytes) of every tile whose bytes the report holds."""
    if report.excluding_gaps is not None:
        tiles = np.arange(report.num_tiles) if report.known is None else np.flatnonzero(report.known)
        return tiles, report.excluding_gaps[tiles].astype(np.int64)
    known = {d.tile: d.excluding_gaps for d in report.detailed_tiles if d.excluding_gaps is not None}
    tiles = np.array(sorted(known), dtype=np.int64)
    return tiles, np.array([known[t] for t in tiles.tolist()], dtype=np.int64)


def _known_out_of_memory(report: MemoryReport, tiles: np.ndarray) -> np.ndarray | None:
    """Per tile in ``tiles``: out of memory, or None when bytes per tile is unknown."""
    if report.excluding_gaps is not None:
        over = analysis.out_of_memory(report)
        return None if over is None else over[tiles]
    limit = report.target.bytes_per_tile
    if limit is None:
        return None
    known = {d.tile: d.excluding_gaps for d in report.detailed_tiles if d.excluding_gaps is not None}
    return np.array([known[t] > limit for t in tiles.tolist()], dtype=bool)


def _partial_notes(old: MemoryReport, new: MemoryReport, compared: int) -> tuple[str, ...]:
    skipped = tuple(f"{label} ({r.source}) has {len(r.skipped):,} tile(s) of unknown bytes (damaged members "
                    "skipped): they are not compared" for label, r in (("OLD", old), ("NEW", new)) if r.skipped)
    partial = [label for label, r in (("OLD", old), ("NEW", new)) if r.excluding_gaps is None]
    if not partial:
        return skipped
    who = " and ".join(f"{label} ({r.source})" for label, r in (("OLD", old), ("NEW", new))
                       if label in partial)
    verb = "are" if len(partial) == 2 else "is"
    return (f"{who} {verb} partial (a text summary): only the {compared:,} tile(s) both sides detail are "
            "compared; totals, maxima and out-of-memory counts are as printed",) + skipped


def choose_report(reports: Sequence[MemoryReport]) -> tuple[MemoryReport, str | None]:
    """The report to diff from a file's reports: the largest (as :func:`memreport.read`), with a note if several."""
    chosen = max(reports, key=lambda r: analysis.total_excluding_gaps(r) or 0)
    if len(reports) == 1:
        return chosen, None
    return chosen, (f"{chosen.source} holds {len(reports)} reports; comparing the largest"
                    + (f" (module {chosen.module})" if chosen.module else ""))


def diff_reports(old: MemoryReport, new: MemoryReport, notes: Sequence[str] = ()) -> Diff:
    """Every tile's change from ``old`` to ``new``; both must have the same tile count."""
    if old.num_tiles != new.num_tiles:
        raise TileCountMismatch(f"{old.source} has {old.num_tiles:,} tiles but {new.source} has "
                                f"{new.num_tiles:,}")
    old_tiles, old_values = _known_bytes(old)
    new_tiles, new_values = _known_bytes(new)
    if old.per_tile == new.per_tile == "complete":
        tiles = old_tiles
    else:
        tiles = np.intersect1d(old_tiles, new_tiles, assume_unique=True)
        old_values = old_values[np.searchsorted(old_tiles, tiles)]
        new_values = new_values[np.searchsorted(new_tiles, tiles)]
    delta = new_values - old_values
    changed = np.flatnonzero(delta)
    order = np.lexsort((tiles[changed], -np.abs(delta[changed])))
    picked = changed[order]

    old_over, new_over = _known_out_of_memory(old, tiles), _known_out_of_memory(new, tiles)
    newly = recovered = None
    if old_over is not None and new_over is not None:
        newly = tuple(tiles[new_over & ~old_over].tolist())
        recovered = tuple(tiles[old_over & ~new_over].tolist())
    notes = tuple(notes) + _partial_notes(old, new, int(tiles.size))
    if newly is None:
        notes += ("out-of-memory changes unknown: bytes per tile unknown (give --tile-memory or --arch)",)
    return Diff(
        old=BuildSummary.of(old), new=BuildSummary.of(new),
        tile_ids=tiles[picked], old_bytes=old_values[picked], new_bytes=new_values[picked],
        compared_tiles=int(tiles.size),
        tiles_per_ipu=new.target.tiles_per_ipu or old.target.tiles_per_ipu,
        newly_out_of_memory=newly, no_longer_out_of_memory=recovered, notes=notes,
    )
