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
from dataclasses import replace

import numpy as np

from ..errors import TileCountMismatch, UnsupportedOperation
from ..model import MemoryReport, TileBytes, TileReport, exact_sum
from .diff_items import SORTS, tiles_items
from .kinds import kind_of, largest
from .results import BuildSummary, Diff, FitChange, Summary, TileSummary
from .summary import summarize


def build_summary(summary: Summary, tiles: np.ndarray | None = None, of_reports: int = 1) -> BuildSummary:
    """One side of a diff from its report's summary (printed figures for a text summary).

    ``tiles`` (ids, for a report with per-tile arrays) takes the figures over
    those tiles only: the tiles a diff compared. ``of_reports``: how many
    reports its file holds (the largest is compared).
    """
    report = summary.report
    total_ex: int | None
    oom: int | None
    at_least: int | None
    if tiles is not None and isinstance(summary, TileSummary):
        total_ex, total_in, peak, oom = _figures_over(summary.tiles, tiles, summary.out_of_memory)
        at_least = None
    else:
        total_ex, total_in, peak = summary.excluding_gaps, summary.including_gaps, summary.max_excluding_gaps
        oom = summary.oom.count
        at_least = summary.oom.at_least if summary.oom.count is None and summary.oom.at_least else None
    return BuildSummary(source=report.source, module=report.module, format=report.format, per_tile=report.per_tile,
                        num_tiles=report.num_tiles if report.num_tiles_known else None,
                        bytes_per_tile=report.target.bytes_per_tile,
                        total_excluding_gaps=total_ex, total_including_gaps=total_in, max_excluding_gaps=peak,
                        tiles_out_of_memory=oom, out_of_memory_at_least=at_least, partial=summary.partial,
                        report_label=report.label, oom=summary.oom, kind=summary.kind, name=summary.name,
                        of_reports=of_reports, curve=summary.liveness.curve if summary.liveness else None)


def fit_changes(old: Summary, new: Summary) -> tuple[FitChange, ...] | None:
    """The tiles over in both builds (NEW's worst first), with each side's fit plan; None when a side cannot
    plan (bytes per tile unknown, no per-tile bytes)."""
    if old.fit_plans is None or new.fit_plans is None:
        return None
    before = {p.tile: p for p in old.fit_plans}
    return tuple(FitChange(p.tile, p.ipu, before[p.tile], p) for p in new.fit_plans if p.tile in before)


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


def _known_out_of_memory(summary: Summary, tiles: np.ndarray) -> np.ndarray | None:
    """Per tile in ``tiles``: out of memory, or None when bytes per tile is unknown."""
    if isinstance(summary, TileSummary):
        return None if summary.out_of_memory is None else summary.out_of_memory[tiles]
    by_tile = {t.tile: t.out_of_memory for t in summary.stated}
    over = [by_tile.get(t) for t in tiles.tolist()]
    return None if None in over else np.array(over, dtype=bool)


def _figures_scope(old: MemoryReport, new: MemoryReport) -> str:
    """Which tiles the whole-program figures cover on both sides: "every tile", "compared tiles" (members
    skipped on a side with every tile's bytes), or "not comparable" (a side with skipped members against a text
    summary, which prints figures for every tile)."""
    if not (kind_of(old).partial_skipped() or kind_of(new).partial_skipped()):
        return "every tile"
    if kind_of(old).name == kind_of(new).name == "tiles":
        return "compared tiles"
    return "not comparable"


def choose_report(reports: Sequence[MemoryReport]) -> MemoryReport:
    """The report to diff from a file's reports: the largest (as :func:`memreport.read`)."""
    return largest(reports)


def diff_reports(old: MemoryReport, new: MemoryReport, *, summaries: tuple[Summary, Summary] | None = None,
                 min_change: int = 0, of_reports: tuple[int, int] = (1, 1)) -> Diff:
    """Every tile's change from ``old`` to ``new``; both must have the same tile count.

    ``summaries`` are the two reports' summaries when already computed;
    changes under ``min_change`` bytes are counted but not listed;
    ``of_reports``: how many reports each side's file holds (the largest is
    compared). A tensor map (elements, not bytes) raises UnsupportedOperation.
    """
    for report in (old, new):
        if kind_of(report).name == "tensor-map":
            raise UnsupportedOperation(f"diff: {report.source}: a tensor map counts elements, not bytes: "
                                       "diff archives, profiles or text summaries of the programs")
    if old.num_tiles_known and new.num_tiles_known and old.num_tiles != new.num_tiles:
        raise TileCountMismatch(f"{old.source} has {old.num_tiles:,} tiles but {new.source} has "
                                f"{new.num_tiles:,}")
    old_tiles, old_values = kind_of(old).known_bytes()
    new_tiles, new_values = kind_of(new).known_bytes()
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
    both_tiles = old_summary.kind == new_summary.kind == "tiles"
    if old_over is not None and new_over is not None and both_tiles:
        newly = tuple(tiles[new_over & ~old_over].tolist())
        recovered = tuple(tiles[old_over & ~new_over].tolist())
    newly_unknown = None if newly is not None else \
        "not every tile" if old_over is not None and new_over is not None else "bytes per tile unknown"
    scope = _figures_scope(old, new)
    over = tiles if scope == "compared tiles" else None
    return Diff(
        old=build_summary(old_summary, over, of_reports[0]), new=build_summary(new_summary, over, of_reports[1]),
        figures_over=scope, newly_unknown=newly_unknown,
        tile_ids=tiles[picked], old_bytes=old_values[picked], new_bytes=new_values[picked],
        compared_tiles=int(tiles.size),
        tiles_per_ipu=new.target.tiles_per_ipu or old.target.tiles_per_ipu,
        newly_out_of_memory=newly, no_longer_out_of_memory=recovered, min_change=min_change,
        fit=fit_changes(old_summary, new_summary),
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
