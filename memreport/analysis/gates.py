"""Build gates: pure checks of a report's summary (or a diff) against limits, for CI.

Each check returns a :class:`GateResult` naming the worst tiles; the CLI
only turns a failed result into exit status 3. A text summary holds no
per-tile values, so its gates use what it printed (the out-of-memory count,
the maximum, its detailed tiles) and their messages say so. A check that
needs a figure the source lacks, and cannot settle from what it holds,
raises :class:`~memreport.errors.UnsupportedOperation` (exit 2 in the CLI):
a gate never passes on a figure nobody knows.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import UnsupportedOperation
from ..model import MemoryReport, SummaryReport, TileReport
from ..units import Percent
from .summary import Summary
from .verdict import known_out_of_memory_tiles, message_tiles

if TYPE_CHECKING:  # pragma: no cover
    from .diff import Diff

WORST_SHOWN = 5


@dataclass(frozen=True)
class Offender:
    """A tile that fails a gate: its bytes (or growth) and how far past the limit."""

    tile: int
    value: int
    excess: int


@dataclass(frozen=True)
class GateResult:
    """The outcome of one gate on one report (or one diff)."""

    gate: str                      # the option that asked for it, e.g. "max-tile"
    source: str
    failed: bool
    failing_tiles: int | None      # None when the source cannot say how many
    worst: tuple[Offender, ...]    # up to WORST_SHOWN, worst first
    message: str = ""              # one line for stderr; empty when passed


def _worst(tiles: np.ndarray, values: np.ndarray, excess: np.ndarray,
           limit: int = WORST_SHOWN) -> tuple[Offender, ...]:
    """The ``limit`` largest excesses, ties by tile id, without sorting every offender."""
    if tiles.size > limit:
        # Partition first: a pod-sized failure can name tens of thousands of tiles.
        cut = np.partition(excess, excess.size - limit)[excess.size - limit]
        keep = excess >= cut
        tiles, values, excess = tiles[keep], values[keep], excess[keep]
    order = np.lexsort((tiles, -excess))[:limit]
    return tuple(Offender(int(tiles[i]), int(values[i]), int(excess[i])) for i in order)


def _tile_list(worst: Sequence[Offender], failing: int | None, phrase: str = "by {excess:,} B") -> str:
    shown = ", ".join(f"tile {o.tile} " + phrase.format(excess=o.excess, value=o.value) for o in worst)
    more = (failing or 0) - len(worst)
    return shown + (f" and {more:,} more" if more > 0 else "")


def _passed(gate: str, report: MemoryReport) -> GateResult:
    return GateResult(gate, report.label, False, 0, ())


def _detailed_over(report: MemoryReport, limit: int) -> dict[int, int]:
    """Excluding-gaps bytes of the detailed tiles above ``limit`` (a gate's limit, not bytes per tile)."""
    return {d.tile: d.excluding_gaps for d in report.detailed_tiles
            if d.excluding_gaps is not None and d.excluding_gaps > limit}


def _worst_detailed(over: dict[int, int], limit: int) -> tuple[Offender, ...]:
    """The worst of a partial report's few known offenders (tile -> bytes above ``limit``)."""
    ranked = sorted((Offender(t, v, v - limit) for t, v in over.items()), key=lambda o: (-o.excess, o.tile))
    return tuple(ranked[:WORST_SHOWN])


def check_out_of_memory(summary: Summary) -> GateResult:
    """Fail when any tile is out of memory (``--fail-on-oom``).

    A text summary answers with its printed count, or, when that count is
    not for the bytes per tile in use (or was not printed), with what its
    maximum, histogram and detailed tiles settle: it fails when they show
    a tile out of memory, and raises UnsupportedOperation when they cannot
    tell.
    """
    report = summary.report
    gate, source = "fail-on-oom", report.label
    status = summary.oom
    if status.count is None and not status.at_least:
        raise UnsupportedOperation(f"--fail-on-oom: {source}: out-of-memory tiles unknown ({status.reason})")
    if status.count == 0:
        return _passed(gate, report)
    if not isinstance(report, TileReport):
        worst = _summary_offenders(report)
        named = [t for t in message_tiles(report) if t not in {o.tile for o in worst}][:WORST_SHOWN]
        shown = ([_tile_list(worst, len(worst))] if worst else []) + \
            ([f"tile(s) {', '.join(map(str, named))} (named by its out-of-memory messages)"] if named else [])
        more = (status.count or status.at_least) - len(worst) - len(named)
        which = (": " + ", ".join(shown) + (f" and {more:,} more" if more > 0 else "")) if shown else \
            "; neither its detailed tiles nor its maximum say which"
        why = summary.partial_reason
        if status.count is not None and status.basis is None:
            return GateResult(gate, source, True, status.count, worst,
                              f"{status.count:,} tile(s) out of memory in {source} (the count it printed; {why})"
                              + which)
        figure = f"{status.count:,}" if status.count is not None else f"at least {status.at_least:,}"
        return GateResult(gate, source, True, status.count, worst,
                          f"{figure} tile(s) out of memory in {source} ({status.basis}; {status.reason}){which}")
    limit = report.target.bytes_per_tile
    count = status.count
    mask = summary.out_of_memory
    assert count is not None and mask is not None  # a TileReport's count is known exactly when its mask is
    if report.known is not None:
        mask = mask & report.known
    tiles = np.flatnonzero(mask)
    values = report.excluding_gaps[tiles].astype(np.int64)
    excess = values - limit if limit is not None else np.zeros_like(values)
    overflowed = report.regions.get("overflowed")
    if overflowed is not None:
        # A profile can overflow a tile below bytes per tile; the overflowed region says by how much.
        excess = np.maximum(excess, overflowed[tiles].astype(np.int64))
    worst = _worst(tiles, values, excess)
    return GateResult(gate, source, True, count, worst,
                      f"{count:,} tile(s) out of memory in {source}: {_tile_list(worst, count)}")


def _summary_offenders(report: MemoryReport) -> tuple[Offender, ...]:
    """A partial report's tiles known to be out of memory with their figures, worst first: its detailed
    tiles and maximum (by bytes per tile, or by an overflowed region), and the tiles its "Out of memory on
    tile" messages name (by the figures the message states)."""
    limit = report.target.bytes_per_tile
    found: dict[int, Offender] = {}
    for tile, value in known_out_of_memory_tiles(report).items():
        overflowed = next((d.regions.get("overflowed") or 0 for d in report.detailed_tiles if d.tile == tile), 0)
        excess = value - limit if limit is not None else 0
        found[tile] = Offender(tile, value, max(excess, overflowed) if overflowed else excess)
    for tile, m in message_tiles(report).items():
        if tile not in found and m.bytes_used is not None and m.bytes_per_tile is not None:
            found[tile] = Offender(tile, m.bytes_used, m.bytes_used - m.bytes_per_tile)
    return tuple(sorted(found.values(), key=lambda o: (-o.excess, o.tile))[:WORST_SHOWN])


def _check_above(summary: Summary, gate: str, limit: int, what: str,
                 phrase: str = "by {excess:,} B") -> GateResult:
    """Fail when any tile's excluding-gaps bytes exceed ``limit``, naming the worst by their excess."""
    report = summary.report
    source = report.label
    if not isinstance(report, TileReport):
        if not isinstance(report, SummaryReport):
            raise UnsupportedOperation(f"--{gate}: {source}: {summary.partial_reason}")
        peak = summary.max_excluding_gaps
        if peak is None:
            raise UnsupportedOperation(f"--{gate}: {source} printed no maximum (excluding gaps)")
        over = _detailed_over(report, limit)
        if peak.bytes > limit:
            over[peak.tile] = peak.bytes
        if not over:
            return _passed(gate, report)
        worst = _worst_detailed(over, limit)
        return GateResult(gate, source, True, None, worst,
                          f"at least {len(over):,} tile(s) {what} in {source} (from its printed maximum "
                          f"(excluding gaps) and detailed tiles; {summary.partial_reason}): "
                          f"{_tile_list(worst, len(over), phrase)}")
    values = report.excluding_gaps
    tiles = np.flatnonzero(values > limit)
    if tiles.size == 0:
        return _passed(gate, report)
    picked = values[tiles].astype(np.int64)
    worst = _worst(tiles, picked, picked - limit)
    return GateResult(gate, source, True, int(tiles.size), worst,
                      f"{tiles.size:,} tile(s) {what} in {source}: {_tile_list(worst, int(tiles.size), phrase)}")


def _per_tile(per_tile: int | None, gate: str, budget: Percent, label: str) -> int:
    """Bytes per tile for a percent budget, or UnsupportedOperation (exit 2) saying how to give them."""
    if per_tile is None:
        raise UnsupportedOperation(f"--{gate} {budget}: {label}: bytes per tile unknown, so a percent of them is "
                                   "too (give --tile-memory or --arch, or a budget in bytes)")
    return per_tile


def check_max_tile(summary: Summary, max_bytes: int | Percent) -> GateResult:
    """Fail when any tile's excluding-gaps bytes exceed ``max_bytes`` (``--max-tile``).

    A :class:`~memreport.units.Percent` is of the report's own bytes per tile:
    a tile fails when ``bytes * 100 > P * bytes_per_tile``, exactly (the limit
    in bytes is that product's floor).
    """
    if isinstance(max_bytes, Percent):
        per_tile = _per_tile(summary.report.target.bytes_per_tile, "max-tile", max_bytes, summary.label)
        limit = max_bytes.floor_of(per_tile)
        return _check_above(summary, "max-tile", limit,
                            f"above --max-tile {max_bytes} ({limit:,} B of {per_tile:,} B)")
    return _check_above(summary, "max-tile", max_bytes, f"above --max-tile {max_bytes:,} B")


def check_min_headroom(summary: Summary, min_bytes: int | Percent) -> GateResult:
    """Fail when any tile has fewer than ``min_bytes`` free below bytes per tile (``--min-headroom``).

    A :class:`~memreport.units.Percent`: a tile fails when ``free * 100 < P *
    bytes_per_tile``, exactly (free below the product's ceiling in bytes).
    """
    per_tile = summary.report.target.bytes_per_tile
    if per_tile is None:
        raise UnsupportedOperation(f"--min-headroom: {summary.label}: bytes per tile unknown "
                                   "(give --tile-memory or --arch)")
    if isinstance(min_bytes, Percent):
        shown = f"{min_bytes} ({min_bytes.ceil_of(per_tile):,} B)"
        min_bytes = min_bytes.ceil_of(per_tile)
    else:
        shown = f"{min_bytes:,} B"
    # Free = per_tile - used < min_bytes exactly when used > per_tile - min_bytes, short by the excess.
    return _check_above(summary, "min-headroom", per_tile - min_bytes,
                        f"with less than {shown} free of {per_tile:,} B", "short by {excess:,} B")


def evaluate(summaries: Sequence[Summary], *, fail_on_oom: bool = False, max_tile: int | Percent | None = None,
             min_headroom: int | Percent | None = None) -> list[GateResult]:
    """Every requested gate on every report, in report order."""
    results = []
    for summary in summaries:
        if fail_on_oom:
            results.append(check_out_of_memory(summary))
        if max_tile is not None:
            results.append(check_max_tile(summary, max_tile))
        if min_headroom is not None:
            results.append(check_min_headroom(summary, min_headroom))
    return results


def check_growth(diff: Diff, max_growth: int | Percent) -> GateResult:
    """Fail when any tile grew by more than ``max_growth`` bytes (``memreport diff --fail-on-growth``).

    Every tile whose bytes both sides state is judged (a text summary's
    detailed tiles and Maximum lines). A partial diff also fails when the
    largest tile grew by more than ``max_growth``: the new maximum's tile
    held at most the old maximum, so it grew by at least the difference.
    When no tile can be compared and the maxima do not settle it, the gate
    cannot pass: UnsupportedOperation. A :class:`~memreport.units.Percent` is
    of NEW's bytes per tile: a tile fails when ``growth * 100 > P *
    bytes_per_tile``, exactly.
    """
    gate, source = "fail-on-growth", f"{diff.old.label} -> {diff.new.label}"
    shown = None
    if isinstance(max_growth, Percent):
        per_tile = _per_tile(diff.new.bytes_per_tile, gate, max_growth, diff.new.label)
        shown = f"{max_growth} of {per_tile:,} B ({max_growth.floor_of(per_tile):,} B)"
        max_growth = max_growth.floor_of(per_tile)
    limit = shown or f"{max_growth:,} B"
    why = "; ".join(dict.fromkeys(r for r in (diff.old.partial_reason, diff.new.partial_reason) if r))
    peak_grew = diff.per_tile == "partial" and diff.max_delta is not None and diff.max_delta > max_growth
    if diff.compared_tiles == 0 and not peak_grew:
        raise UnsupportedOperation(f"--fail-on-growth: {source}: no tile's bytes are stated by both sides "
                                   f"({why or 'no tile is known on both sides'}): nothing to judge")
    delta = diff.delta
    grew = np.flatnonzero(delta > max_growth)
    if grew.size == 0 and not peak_grew:
        return GateResult(gate, source, False, 0, ())
    tiles, growth = diff.tile_ids[grew], delta[grew]
    worst = _worst(tiles, growth, growth - max_growth)
    partial = "" if diff.per_tile == "complete" else \
        f" (of the {diff.compared_tiles:,} tile(s) whose bytes both sides state; {why})"
    if grew.size == 0:
        new_peak, old_peak = diff.new.max_excluding_gaps, diff.old.max_excluding_gaps
        assert new_peak is not None and old_peak is not None and diff.max_delta is not None
        return GateResult(gate, source, True, None, (Offender(new_peak.tile, diff.max_delta,
                                                              diff.max_delta - max_growth),),
                          f"the largest tile grew by {diff.max_delta:,} B (more than {limit}) from "
                          f"{diff.old.label} to {diff.new.label}: {old_peak.bytes:,} B on tile {old_peak.tile} -> "
                          f"{new_peak.bytes:,} B on tile {new_peak.tile} (the maxima as printed{partial})")
    return GateResult(gate, source, True, int(grew.size), worst,
                      f"{grew.size:,} tile(s) grew by more than {limit} from {diff.old.label} to "
                      f"{diff.new.label}{partial}: {_tile_list(worst, int(grew.size), 'by {value:,} B')}")
