"""Compare two builds tile by tile: pure functions of two reports, vectorised with numpy.

Values are excluding-gaps bytes, the one figure every complete source holds.
A partial report (a text summary) is compared only where it knows a tile's
bytes (its detailed tiles); its totals, maxima and out-of-memory count are
compared as printed, and the diff carries a note saying so. When damaged
archive members were skipped on either side, the whole-program figures of
both sides are taken over the compared tiles only, so a tile read on one
side and skipped on the other never shows up as a change in the totals. A
tensor map holds no bytes: it cannot be diffed.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ..errors import TileCountMismatch, UnsupportedOperation
from ..model import MemoryReport, SummaryReport, TensorMapReport, TileBytes, TileReport, exact_sum
from . import tiles as figures
from .diff_items import SORTS, TileItems, tiles_items
from .summary import Summary, summarize
from .verdict import out_of_memory_count


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
    num_tiles: int | None  # None when the source does not give it (a lone detailed tile, messages alone)
    bytes_per_tile: int | None
    total_excluding_gaps: int | None
    total_including_gaps: int | None
    max_excluding_gaps: TileBytes | None
    tiles_out_of_memory: int | None
    out_of_memory_at_least: int | None = None  # tiles known out of memory when the count is unknown
    partial_reason: str | None = None            # why this side's per-tile view is partial
    report_label: str | None = None              # the report's own label (MemoryReport.label), when known

    @property
    def label(self) -> str:
        """The source, with its module, or its place when a file holds several (``MemoryReport.label``)."""
        if self.report_label is not None:
            return self.report_label
        return self.source + (f" (module {self.module})" if self.module else "")

    @classmethod
    def of(cls, summary: Summary, tiles: np.ndarray | None = None) -> BuildSummary:
        """One side of a diff from its report's summary (printed figures for a text summary).

        ``tiles`` (ids, for a report with per-tile arrays) takes the figures
        over those tiles only: the tiles a diff compared.
        """
        report = summary.report
        total_ex: int | None
        oom: int | None
        at_least: int | None
        if tiles is not None and isinstance(report, TileReport):
            total_ex, total_in, peak, oom = _figures_over(report, tiles, summary.out_of_memory)
            at_least = None
        else:
            total_ex, total_in, peak = summary.excluding_gaps, summary.including_gaps, summary.max_excluding_gaps
            oom = summary.oom.count
            at_least = summary.oom.at_least if summary.oom.count is None and summary.oom.at_least else None
        return cls(source=report.source, module=report.module, format=report.format, per_tile=report.per_tile,
                   num_tiles=report.num_tiles if report.num_tiles_known else None,
                   bytes_per_tile=report.target.bytes_per_tile,
                   total_excluding_gaps=total_ex, total_including_gaps=total_in, max_excluding_gaps=peak,
                   tiles_out_of_memory=oom, out_of_memory_at_least=at_least, partial_reason=summary.partial_reason,
                   report_label=report.label)


def _figures_over(report: TileReport, tiles: np.ndarray, over: np.ndarray | None
                  ) -> tuple[int, int | None, TileBytes | None, int | None]:
    """Totals, maximum and out-of-memory count of a report with per-tile arrays, over ``tiles`` only."""
    values = report.excluding_gaps[tiles].astype(np.int64)
    including = None if report.including_gaps is None else report.including_gaps[tiles].astype(np.int64)
    peak = None
    if tiles.size:
        at = int(np.argmax(values))  # tiles ascend: the lowest tile among equals
        peak = TileBytes(int(tiles[at]), int(values[at]))
    return (exact_sum(values), None if including is None else exact_sum(including), peak,
            None if over is None else int(np.count_nonzero(over[tiles])))


def _delta(old: int | None, new: int | None) -> int | None:
    return None if old is None or new is None else new - old


@dataclass(frozen=True, eq=False)
class Diff:
    """What changed from ``old`` to ``new``, tile by tile.

    The changed tiles are held as parallel arrays (``tile_ids``, ``old_bytes``,
    ``new_bytes``) sorted by ``|delta|`` descending, then tile id, so a pod
    of tiles diffs without a Python object per tile; ``tiles`` builds the
    records on demand. The out-of-memory lists are None when either side's
    bytes per tile is unknown. ``min_change`` hides smaller changes from the
    listings (``listed``, ``changes()``; the counts cover every change);
    ``below`` holds what changed inside the largest changes (:func:`with_items`).
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
    figures_over: str = "every tile"  # "compared tiles" (members skipped), or "not comparable": no deltas
    min_change: int = 0
    below: tuple[TileItems, ...] = ()
    sort: str = "delta"

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
    def comparable(self) -> bool:
        """Whether the two sides' whole-program figures cover the same tiles (else no deltas)."""
        return self.figures_over != "not comparable"

    @property
    def total_delta(self) -> int | None:
        """Change in total excluding-gaps bytes (None where a side does not know it)."""
        return _delta(self.old.total_excluding_gaps, self.new.total_excluding_gaps) if self.comparable else None

    @property
    def total_including_gaps_delta(self) -> int | None:
        if not self.comparable:
            return None
        return _delta(self.old.total_including_gaps, self.new.total_including_gaps)

    @property
    def max_delta(self) -> int | None:
        """Change in the largest tile's excluding-gaps bytes (whichever tile that is)."""
        old, new = self.old.max_excluding_gaps, self.new.max_excluding_gaps
        return None if old is None or new is None or not self.comparable else new.bytes - old.bytes

    @property
    def out_of_memory_delta(self) -> int | None:
        if not self.comparable:
            return None
        return _delta(self.old.tiles_out_of_memory, self.new.tiles_out_of_memory)

    @cached_property
    def listed(self) -> np.ndarray:
        """Positions (in ``tile_ids`` order) of the changes of at least ``min_change`` bytes: those listed."""
        if self.min_change <= 1:
            return np.arange(self.num_changed)
        return np.flatnonzero(np.abs(self.delta) >= self.min_change)

    @property
    def num_unlisted(self) -> int:
        """Changed tiles left out of the listings: their change is under ``min_change``."""
        return self.num_changed - int(self.listed.size)

    def changes(self, n: int | None = None) -> list[TileChange]:
        """The first ``n`` listed changed tiles (all when None), largest change first."""
        picked = self.listed if n is None else self.listed[:n]
        tpi = self.tiles_per_ipu
        return [TileChange(t, None if not tpi else t // tpi, o, w, w - o) for t, o, w in zip(
            self.tile_ids[picked].tolist(), self.old_bytes[picked].tolist(), self.new_bytes[picked].tolist())]

    @cached_property
    def tiles(self) -> tuple[TileChange, ...]:
        """Every changed tile, largest ``|delta|`` first, ties by tile id."""
        return tuple(self.changes())


def _known_bytes(report: MemoryReport) -> tuple[np.ndarray, np.ndarray]:
    """(tile ids ascending, excluding-gaps bytes) of every tile whose bytes the report holds."""
    if isinstance(report, TileReport):
        tiles = np.arange(report.num_tiles) if report.known is None else np.flatnonzero(report.known)
        return tiles, report.excluding_gaps[tiles].astype(np.int64)
    known = figures.stated_excluding_gaps(report)  # detailed tiles and the Maximum (Excluding Gaps) line
    tiles = np.array(sorted(known), dtype=np.int64)
    return tiles, np.array([known[t] for t in tiles.tolist()], dtype=np.int64)


def _known_out_of_memory(summary: Summary, tiles: np.ndarray) -> np.ndarray | None:
    """Per tile in ``tiles``: out of memory, or None when bytes per tile is unknown."""
    report = summary.report
    if isinstance(report, TileReport):
        return None if summary.out_of_memory is None else summary.out_of_memory[tiles]
    by_tile = {t.tile: t.out_of_memory for t in summary.stated}
    over = [by_tile.get(t) for t in tiles.tolist()]
    return None if None in over else np.array(over, dtype=bool)


SIDES = ("OLD", "NEW")


def _partial_notes(old: MemoryReport, new: MemoryReport, compared: int) -> tuple[str, ...]:
    sides = tuple(zip(SIDES, (old, new)))
    skipped = tuple(f"{label} ({r.source}) has {len(r.skipped):,} tile(s) of unknown bytes (damaged members "
                    "skipped): they are not compared" for label, r in sides if r.skipped)
    partial = [(label, r) for label, r in sides if not isinstance(r, TileReport)]
    if not partial:
        return skipped
    reasons = list(dict.fromkeys(figures.partial_reason(r) for _, r in partial))
    who = " and ".join(f"{label} ({r.source})" for label, r in partial)
    verb = "are" if len(partial) == 2 else "is"
    printed = all(isinstance(r, SummaryReport) for _, r in partial)
    kind = " (a text summary)" if printed else f" ({'; '.join(r for r in reasons if r)})"
    tail = "; totals, maxima and out-of-memory counts are as printed" if printed else ""
    return (f"{who} {verb} partial{kind}: only the {compared:,} tile(s) whose bytes both sides state are "
            f"compared{tail}",) + \
        skipped


def _out_of_memory_notes(old: MemoryReport, new: MemoryReport) -> tuple[str, ...]:
    """Why a side's out-of-memory count is judged or unknown, when bytes per tile is known."""
    notes = []
    for label, r in zip(SIDES, (old, new)):
        note = out_of_memory_count(r).note() if isinstance(r, SummaryReport) else None
        if note and r.target.bytes_per_tile is not None:
            notes.append(f"{label} ({r.source}) {note}")
    return tuple(notes)


def _figures_scope(old: MemoryReport, new: MemoryReport, compared: np.ndarray) -> tuple[str, tuple[str, ...]]:
    """Which tiles the whole-program figures cover on both sides, and the note saying so."""
    if not (old.skipped or new.skipped):
        return "every tile", ()
    if isinstance(old, TileReport) and isinstance(new, TileReport):
        return "compared tiles", (f"totals, maxima and out-of-memory counts of both sides are over the "
                                  f"{compared.size:,} compared tile(s) only: a tile skipped on one side is left out "
                                  "of both",)
    return "not comparable", ("totals, maxima and out-of-memory counts are not compared: a side with skipped "
                              "members covers only its readable tiles, a text summary prints them for every tile",)


def choose_report(reports: Sequence[MemoryReport]) -> tuple[MemoryReport, str | None]:
    """The report to diff from a file's reports: the largest (as :func:`memreport.read`), with a note if several."""
    chosen = figures.largest(reports)
    if len(reports) == 1:
        return chosen, None
    where = f" (module {chosen.module})" if chosen.module else \
        f" (#{chosen.position.index}, line {chosen.position.line:,})" if chosen.position else ""
    return chosen, f"{chosen.source} holds {len(reports)} reports; comparing the largest{where}"


def diff_reports(old: MemoryReport, new: MemoryReport, notes: Sequence[str] = (), *,
                 summaries: tuple[Summary, Summary] | None = None, min_change: int = 0) -> Diff:
    """Every tile's change from ``old`` to ``new``; both must have the same tile count.

    ``summaries`` are the two reports' summaries when already computed;
    changes under ``min_change`` bytes are counted but not listed. A tensor
    map (elements, not bytes) raises UnsupportedOperation.
    """
    for report in (old, new):
        if isinstance(report, TensorMapReport):
            raise UnsupportedOperation(f"diff: {report.source}: a tensor map counts elements, not bytes: "
                                       "diff archives, profiles or text summaries of the programs")
    if old.num_tiles_known and new.num_tiles_known and old.num_tiles != new.num_tiles:
        raise TileCountMismatch(f"{old.source} has {old.num_tiles:,} tiles but {new.source} has "
                                f"{new.num_tiles:,}")
    unknown = [r.label for r in (old, new) if not r.num_tiles_known]
    if unknown:
        notes = tuple(notes) + (f"the tile count of {' and '.join(unknown)} is unknown: tiles are compared by id",)
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

    old_summary, new_summary = summaries or (summarize(old), summarize(new))
    old_over, new_over = _known_out_of_memory(old_summary, tiles), _known_out_of_memory(new_summary, tiles)
    newly = recovered = None
    if old_over is not None and new_over is not None and isinstance(old, TileReport) and isinstance(new, TileReport):
        newly = tuple(tiles[new_over & ~old_over].tolist())
        recovered = tuple(tiles[old_over & ~new_over].tolist())
    scope, scope_notes = _figures_scope(old, new, tiles)
    notes = tuple(notes) + _partial_notes(old, new, int(tiles.size)) + scope_notes + _out_of_memory_notes(old, new)
    if newly is None and old_over is not None and new_over is not None:
        notes += ("out-of-memory changes tile by tile unknown: a text summary does not state every tile's bytes "
                  "(the out-of-memory counts are compared)",)
    elif newly is None:
        notes += ("out-of-memory changes unknown: bytes per tile unknown (give --tile-memory or --arch)",)
    over = tiles if scope == "compared tiles" else None
    return Diff(
        old=BuildSummary.of(old_summary, over), new=BuildSummary.of(new_summary, over), figures_over=scope,
        tile_ids=tiles[picked], old_bytes=old_values[picked], new_bytes=new_values[picked],
        compared_tiles=int(tiles.size),
        tiles_per_ipu=new.target.tiles_per_ipu or old.target.tiles_per_ipu,
        newly_out_of_memory=newly, no_longer_out_of_memory=recovered, notes=notes, min_change=min_change,
    )


def with_items(diff: Diff, old: MemoryReport, new: MemoryReport, n: int, *, sort: str = "delta") -> Diff:
    """``diff`` with what changed inside its ``n`` largest listed changes (:mod:`.diff_items`), ordered by ``sort``.

    Symbols are compared where both reports hold the tile's symbol table
    (read them first, e.g. with ``memreport.readers.elf.symbols.with_symbols``).
    """
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(SORTS)}, not {sort!r}")
    rows = [(c.tile, c.ipu, c.old, c.new) for c in diff.changes(n)]
    return replace(diff, below=tiles_items(old, new, rows, min_change=diff.min_change, sort=sort), sort=sort)
