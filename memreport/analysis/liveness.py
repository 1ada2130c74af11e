"""Always-live and not-always-live bytes: per tile, per IPU, over the program, and by program step.

Graph profiles say, per tile, how many bytes are always live (code, vertex
state, weights and optimiser state: what a program holds from start to end)
and how many are live only for part of it (activations and other
temporaries, which share addresses). Which of the two dominates a crowded
tile says where to look: a tile full of always-live bytes needs its weights
or code spread out; one full of not-always-live bytes needs recomputation
or a smaller batch. Nothing here guesses: a report without liveness columns
has no liveness (None).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..model import (
    ALWAYS_LIVE,
    NOT_ALWAYS_LIVE,
    NOT_ALWAYS_LIVE_MAX,
    ProgramLiveness,
    TileReport,
    find_view,
)
from ..model.liveness import walk
from .results import Liveness, LivenessCurve, LivenessSummary, StepPeak

# How each source measures a tile's not-always-live bytes.
BASES = {NOT_ALWAYS_LIVE_MAX: "the most live at once (maxBytesByTile)",
         NOT_ALWAYS_LIVE: "libpva notAlwaysLiveBytes"}


def liveness_columns(report: TileReport) -> tuple[np.ndarray, np.ndarray, str] | None:
    """(always-live per tile, not-always-live per tile, basis), or None when the report lacks either."""
    always = find_view(report.breakdown, ALWAYS_LIVE)
    if always is None:
        return None
    for name, basis in BASES.items():
        column = find_view(report.breakdown, name)
        if column is not None:
            return always.values, column.values, basis
    return None


def tile_liveness(report: TileReport, tile: int) -> Liveness | None:
    """One tile's liveness, or None when the report has no liveness columns."""
    columns = liveness_columns(report)
    if columns is None:
        return None
    always, never, basis = columns
    return Liveness(int(always[tile]), int(never[tile]), basis)


def span_liveness(report: TileReport, part: slice | np.ndarray) -> Liveness | None:
    """Liveness summed over some tiles (an IPU's slice, or the known tiles), None without liveness columns."""
    columns = liveness_columns(report)
    if columns is None:
        return None
    always, never, basis = columns
    return Liveness(int(always[part].sum(dtype=np.int64)), int(never[part].sum(dtype=np.int64)), basis)


def step_peak(steps: Sequence[ProgramLiveness]) -> tuple[int, StepPeak | None]:
    """(how many steps, the step with the most not-always-live bytes: the first among equals)."""
    count, best = 0, None
    for path, step in walk(tuple(steps)):
        count += 1
        if best is None or step.bytes > best.bytes:
            best = StepPeak(path, step.name, step.bytes)
    return count, best


def liveness_curve(report: TileReport, total: Liveness | None,
                   steps: Sequence[ProgramLiveness]) -> LivenessCurve | None:
    """Memory live at every program step (walked depth first): the program's always-live bytes (``total``)
    plus the step's not-always-live bytes. The steps are the whole program's (every tile: FORMATS.md §2), so
    a limit applies only to a program on one IPU (that IPU's memory); None without steps."""
    walked = list(walk(tuple(steps)))
    if not walked:
        return None
    target = report.target
    one_ipu = target.num_ipus == 1
    limit = target.tiles_per_ipu * target.bytes_per_tile if one_ipu and target.tiles_per_ipu and \
        target.bytes_per_tile else None
    values = np.array([step.bytes for _, step in walked], dtype=np.int64)
    peak = int(np.argmax(values))
    return LivenessCurve(always_live=None if total is None else total.always_live, not_always_live=values,
                         paths=tuple(path for path, _ in walked), names=tuple(step.name for _, step in walked),
                         scope="ipu" if one_ipu else "program", limit=limit, num_ipus=target.num_ipus,
                         variables=walked[peak][1].variables)


def summarize_liveness(report: TileReport, top: Sequence[int]) -> LivenessSummary | None:
    """The liveness of ``report`` (None when it has neither liveness columns nor program steps)."""
    steps = report.liveness_steps
    if liveness_columns(report) is None and steps is None:
        return None
    known = report.known
    total = span_liveness(report, slice(None) if known is None else known)
    pressure: dict[str, int] = {}
    for tile in top:
        found = tile_liveness(report, tile)
        if found is not None and found.pressure is not None:
            pressure[found.pressure] = pressure.get(found.pressure, 0) + 1
    num_steps, peak = step_peak(steps) if steps is not None else (None, None)
    curve = liveness_curve(report, total, steps) if steps is not None else None
    return LivenessSummary(total, pressure, num_steps, peak, curve)
