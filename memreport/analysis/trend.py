"""A trend over builds: each build's whole-program figures, and when each tile out of memory in the last build
first went over.

Builds come in the order given, oldest first. Each is reduced, as soon as it
is read, to what the trend needs (:func:`trend_build`: its figures and the
ids of its tiles out of memory), so fifty pod-sized builds cost fifty small
records, not fifty reports held at once. A tile's status in a build comes
only from its per-tile bytes against bytes per tile: a build without them (a
text summary, bytes per tile unknown) cannot say for any tile, and the
histories say so (``first_certain``, ``stayed``) rather than guess.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..errors import UnsupportedOperation
from .diff import build_summary
from .results import Summary, TileSummary, Trend, TrendBuild

OVER, WITHIN, UNKNOWN = 1, 0, -1  # a tile's status in one build


def trend_build(summary: Summary, label: str, path: str, of_reports: int = 1) -> TrendBuild:
    """One build of a trend from its report's summary: its figures and its tiles out of memory (None where it
    holds no per-tile status). ``of_reports``: how many reports its file holds (the largest is taken). A tensor
    map (elements, not bytes) raises UnsupportedOperation."""
    if summary.kind == "tensor-map":
        raise UnsupportedOperation(f"trend: {summary.label}: a tensor map counts elements, not bytes: give the builds' "
                                   "archives, profiles, logs or saved reports")
    over = over_bytes = None
    unknown = np.zeros(0, dtype=np.int64)
    if isinstance(summary, TileSummary) and summary.out_of_memory is not None:
        report = summary.tiles
        mask = summary.out_of_memory if report.known is None else summary.out_of_memory & report.known
        over = np.flatnonzero(mask).astype(np.int64)
        over_bytes = report.excluding_gaps[over].astype(np.int64)
        if report.known is not None:
            unknown = np.flatnonzero(~report.known).astype(np.int64)
    return TrendBuild(label, path, build_summary(summary, of_reports=of_reports), over, over_bytes, unknown,
                      summary.report.target.tiles_per_ipu)


def _changes(builds: Sequence[TrendBuild]) -> list[TrendBuild]:
    """The builds, each with its total's change against the build before it."""
    changed = [replace(builds[0], change=None, change_share=None)]
    for before, build in zip(builds, builds[1:]):
        old, new = before.figures.total_excluding_gaps, build.figures.total_excluding_gaps
        change = None if old is None or new is None else new - old
        changed.append(replace(build, change=change, change_share=None if change is None or not old else change / old))
    return changed


def status_of(build: TrendBuild, tiles: np.ndarray) -> np.ndarray:
    """Each of ``tiles`` (ascending) in one build: :data:`OVER`, :data:`WITHIN` or :data:`UNKNOWN`. A tile past a
    build's tile count was no tile of it: within."""
    if build.over is None:
        return np.full(tiles.size, UNKNOWN, dtype=np.int8)
    row = np.isin(tiles, build.over, assume_unique=True).astype(np.int8)
    if build.unknown.size:
        row[np.isin(tiles, build.unknown, assume_unique=True)] = UNKNOWN
    return row


def trend(builds: Sequence[TrendBuild]) -> Trend:
    """The builds in order, with their changes, and the history of every tile out of memory in the last one.

    One pass over the builds with a few arrays of the last build's tiles out of memory, never a matrix of builds
    by tiles: a thousand pod-sized builds cost what one does, a thousand times.
    """
    if not builds:
        raise ValueError("a trend needs at least one build")
    builds = _changes(builds)
    last = builds[-1]
    empty = np.zeros(0, dtype=np.int64)
    if last.over is None or last.over_bytes is None:
        return Trend(tuple(builds), None, empty, empty, empty.astype(bool), empty, empty.astype(np.int8),
                     empty.astype(bool), last.tiles_per_ipu)
    tiles = last.over
    first = np.full(tiles.size, -1, dtype=np.int64)
    since = np.zeros(tiles.size, dtype=np.int64)
    first_certain = np.zeros(tiles.size, dtype=bool)
    went_over = np.zeros(tiles.size, dtype=bool)
    unknown_yet = np.zeros(tiles.size, dtype=bool)    # a build so far could not say
    within_after = np.zeros(tiles.size, dtype=bool)   # within memory in a build after ``first``
    before = np.full(tiles.size, UNKNOWN, dtype=np.int8)
    for i, build in enumerate(builds):
        status = status_of(build, tiles)
        newly = (status == OVER) & (first < 0)
        first[newly] = i
        first_certain[newly] = ~unknown_yet[newly]
        went_over[newly] = before[newly] == WITHIN
        within_after |= (status == WITHIN) & (first >= 0) & ~newly
        unknown_yet |= status == UNKNOWN
        since[status != OVER] = i + 1
        before = status
    stayed = np.where(since == first, 1, np.where(within_after, 0, -1)).astype(np.int8)
    order = np.lexsort((tiles, -first))  # the latest to go over first
    return Trend(tuple(builds), tiles[order], last.over_bytes[order], first[order], first_certain[order],
                 since[order], stayed[order], went_over[order], last.tiles_per_ipu)
