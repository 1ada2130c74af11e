"""Build gates: pure checks of a report's summary (or a diff) against limits, for CI.

Each check returns a :class:`~.results.GateResult` naming the worst tiles,
as facts; the words of its message are the renderers'
(``memreport.render.words.gate_message``), and the run turns a failed result
into exit status 3. A text summary holds no per-tile values, so its gates
use what it printed (the out-of-memory count, the maximum, its detailed
tiles) and their messages say so. A check that needs a figure the source
lacks, and cannot settle from what it holds, returns a result that cannot
judge (``failed`` None: exit 2): a gate never passes on a figure nobody knows.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..config import Gates
from ..units import Percent
from .results import Diff, GateResult, GateSetting, Offender, Summary, TextSummary, TileSummary

WORST_SHOWN = 5


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


def _detailed_over(summary: TextSummary, limit: int) -> dict[int, int]:
    """Excluding-gaps bytes of the detailed tiles above ``limit`` (a gate's limit, not bytes per tile)."""
    return {d.tile: d.excluding_gaps for d in summary.printed_report.detailed_tiles
            if d.excluding_gaps is not None and d.excluding_gaps > limit}


def _worst_detailed(over: dict[int, int], limit: int) -> tuple[Offender, ...]:
    """The worst of a partial report's few known offenders (tile -> bytes above ``limit``)."""
    ranked = sorted((Offender(t, v, v - limit) for t, v in over.items()), key=lambda o: (-o.excess, o.tile))
    return tuple(ranked[:WORST_SHOWN])


def check_out_of_memory(summary: Summary) -> GateResult:
    """Fail when any tile is out of memory (``--fail-on-oom``).

    A text summary answers with its printed count, or, when that count is
    not for the bytes per tile in use (or was not printed), with what its
    maximum, histogram and detailed tiles settle (and the tiles its
    out-of-memory messages name): it fails when they show a tile out of
    memory, and cannot judge when they cannot tell.
    """
    gate, source, status = "fail-on-oom", summary.label, summary.oom
    if not status.known:
        return GateResult(gate, source, None, None, why="count unknown", count=status)
    if status.count == 0:
        return GateResult(gate, source, False)
    if isinstance(summary, TextSummary):
        worst = _summary_offenders(summary)
        shown = {o.tile for o in worst}
        named = tuple(t for t in summary.verdict.message_tiles if t not in shown)[:WORST_SHOWN]
        return GateResult(gate, source, True, status.count, worst, count=status, named=named,
                          printed=status.count is not None and not status.basis,
                          partial=(summary.partial,) if summary.partial else ())
    assert isinstance(summary, TileSummary)
    report = summary.tiles
    limit = report.target.bytes_per_tile
    mask = summary.out_of_memory
    assert status.count is not None and mask is not None  # a TileReport's count is known exactly when its mask is
    if report.known is not None:
        mask = mask & report.known
    tiles = np.flatnonzero(mask)
    values = report.excluding_gaps[tiles].astype(np.int64)
    excess = values - limit if limit is not None else np.zeros_like(values)
    overflowed = report.regions.get("overflowed")
    if overflowed is not None:
        # A profile can overflow a tile below bytes per tile; the overflowed region says by how much.
        excess = np.maximum(excess, overflowed[tiles].astype(np.int64))
    return GateResult(gate, source, True, status.count, _worst(tiles, values, excess), count=status)


def _summary_offenders(summary: TextSummary) -> tuple[Offender, ...]:
    """A partial report's tiles known to be out of memory with their figures, worst first: its detailed
    tiles and maximum (by bytes per tile, or by an overflowed region), and the tiles its "Out of memory on
    tile" messages name (by the figures the message states)."""
    from .verdict import known_out_of_memory_tiles
    report = summary.printed_report
    limit = report.target.bytes_per_tile
    found: dict[int, Offender] = {}
    for tile, value in known_out_of_memory_tiles(report).items():
        overflowed = next((d.regions.get("overflowed") or 0 for d in report.detailed_tiles if d.tile == tile), 0)
        excess = value - limit if limit is not None else 0
        found[tile] = Offender(tile, value, max(excess, overflowed) if overflowed else excess)
    for tile, m in summary.verdict.message_tiles.items():
        if tile not in found and m.bytes_used is not None and m.bytes_per_tile is not None:
            found[tile] = Offender(tile, m.bytes_used, m.bytes_used - m.bytes_per_tile)
    return tuple(sorted(found.values(), key=lambda o: (-o.excess, o.tile))[:WORST_SHOWN])


def _check_above(summary: Summary, gate: str, limit: int, budget: object, per_tile: int | None) -> GateResult:
    """Fail when any tile's excluding-gaps bytes exceed ``limit``, naming the worst by their excess."""
    passed = GateResult(gate, summary.label, False, budget=budget, limit=limit, per_tile=per_tile,
                        partial=(summary.partial,) if summary.partial else ())
    if isinstance(summary, TileSummary):
        values = summary.tiles.excluding_gaps
        tiles = np.flatnonzero(values > limit)
        if tiles.size == 0:
            return passed
        picked = values[tiles].astype(np.int64)
        return replace(passed, failed=True, failing_tiles=int(tiles.size), worst=_worst(tiles, picked, picked - limit))
    if not isinstance(summary, TextSummary):
        return replace(passed, failed=None, failing_tiles=None, why="no per-tile bytes")
    peak = summary.max_excluding_gaps
    if peak is None:
        return replace(passed, failed=None, failing_tiles=None, why="no maximum")
    over = _detailed_over(summary, limit)
    if peak.bytes > limit:
        over[peak.tile] = peak.bytes
    if not over:
        return passed
    return replace(passed, failed=True, failing_tiles=None, worst=_worst_detailed(over, limit), compared=len(over))


def check_max_tile(summary: Summary, max_bytes: int | Percent) -> GateResult:
    """Fail when any tile's excluding-gaps bytes exceed ``max_bytes`` (``--max-tile``).

    A :class:`~memreport.units.Percent` is of the report's own bytes per tile:
    a tile fails when ``bytes * 100 > P * bytes_per_tile``, exactly (the limit
    in bytes is that product's floor).
    """
    per_tile = summary.report.target.bytes_per_tile
    if isinstance(max_bytes, Percent):
        if per_tile is None:
            return GateResult("max-tile", summary.label, None, None, why="percent of unknown", budget=max_bytes)
        return _check_above(summary, "max-tile", max_bytes.floor_of(per_tile), max_bytes, per_tile)
    return _check_above(summary, "max-tile", max_bytes, max_bytes, per_tile)


def check_min_headroom(summary: Summary, min_bytes: int | Percent) -> GateResult:
    """Fail when any tile has fewer than ``min_bytes`` free below bytes per tile (``--min-headroom``).

    A :class:`~memreport.units.Percent`: a tile fails when ``free * 100 < P *
    bytes_per_tile``, exactly (free below the product's ceiling in bytes).
    """
    per_tile = summary.report.target.bytes_per_tile
    if per_tile is None:
        return GateResult("min-headroom", summary.label, None, None, why="bytes per tile unknown", budget=min_bytes)
    free = min_bytes.ceil_of(per_tile) if isinstance(min_bytes, Percent) else min_bytes
    # Free = per_tile - used < free exactly when used > per_tile - free, short by the excess.
    return replace(_check_above(summary, "min-headroom", per_tile - free, min_bytes, per_tile), limit=free)


# The gates each command judges, by field of :class:`memreport.config.Gates`, in the order they are judged.
REPORT_GATES = ("fail_on_oom", "max_tile", "min_headroom")
DIFF_GATES = ("fail_on_growth", "fail_on_oom")
COMPILES_GATES = ("fail_on_recompile",)


def in_force(gates: Gates, names: Sequence[str]) -> tuple[GateSetting, ...]:
    """The gates among ``names`` (fields of ``gates``) that are on, each with its value and where it was set."""
    found = []
    for name in names:
        setting = getattr(gates, name)
        if setting.value is not None and setting.value is not False:
            found.append(GateSetting(name.replace("_", "-"), setting.value, setting.origin))
    return tuple(found)


def judge(summary: Summary, gates: Gates) -> list[GateResult]:
    """The report gates ``gates`` turns on (``--fail-on-oom``, ``--max-tile``, ``--min-headroom``), judged on one
    report; each result names where its gate was set."""
    results = []
    if gates.fail_on_oom.value:
        results.append(replace(check_out_of_memory(summary), origin=gates.fail_on_oom.origin))
    if gates.max_tile.value is not None:
        results.append(replace(check_max_tile(summary, gates.max_tile.value), origin=gates.max_tile.origin))
    if gates.min_headroom.value is not None:
        results.append(replace(check_min_headroom(summary, gates.min_headroom.value),
                               origin=gates.min_headroom.origin))
    return results


def judge_diff(diff: Diff, new: Summary, gates: Gates) -> list[GateResult]:
    """The diff's gates: ``--fail-on-growth``, and ``--fail-on-oom`` on NEW (whose summary ``new`` is)."""
    results = []
    if gates.fail_on_growth.value is not None:
        results.append(replace(check_growth(diff, gates.fail_on_growth.value), origin=gates.fail_on_growth.origin))
    if gates.fail_on_oom.value:
        results.append(replace(check_out_of_memory(new), origin=gates.fail_on_oom.origin))
    return results


def check_growth(diff: Diff, max_growth: int | Percent) -> GateResult:
    """Fail when any tile grew by more than ``max_growth`` bytes (``memreport diff --fail-on-growth``).

    Every tile whose bytes both sides state is judged (a text summary's
    detailed tiles and Maximum lines). A partial diff also fails when the
    largest tile grew by more than ``max_growth``: the new maximum's tile
    held at most the old maximum, so it grew by at least the difference.
    When no tile can be compared and the maxima do not settle it, the gate
    cannot judge. A :class:`~memreport.units.Percent` is of NEW's bytes per
    tile: a tile fails when ``growth * 100 > P * bytes_per_tile``, exactly.
    """
    gate, source = "fail-on-growth", f"{diff.old.label} -> {diff.new.label}"
    per_tile = diff.new.bytes_per_tile
    if isinstance(max_growth, Percent):
        if per_tile is None:
            return GateResult(gate, diff.new.label, None, None, why="percent of unknown", budget=max_growth)
        limit = max_growth.floor_of(per_tile)
    else:
        limit = max_growth
    passed = GateResult(gate, source, False, budget=max_growth, limit=limit, per_tile=per_tile,
                        compared=diff.compared_tiles, old=diff.old.label, new=diff.new.label,
                        partial=tuple(p for p in (diff.old.partial, diff.new.partial) if p is not None))
    peak_grew = diff.per_tile == "partial" and diff.max_delta is not None and diff.max_delta > limit
    if diff.compared_tiles == 0 and not peak_grew:
        return replace(passed, failed=None, failing_tiles=None, why="nothing compared")
    delta = diff.delta
    grew = np.flatnonzero(delta > limit)
    if grew.size == 0 and not peak_grew:
        return passed
    if grew.size == 0:
        new_peak, old_peak = diff.new.max_excluding_gaps, diff.old.max_excluding_gaps
        assert new_peak is not None and old_peak is not None and diff.max_delta is not None
        return replace(passed, failed=True, failing_tiles=None, peaks=(old_peak, new_peak),
                       worst=(Offender(new_peak.tile, diff.max_delta, diff.max_delta - limit),))
    tiles, growth = diff.tile_ids[grew], delta[grew]
    return replace(passed, failed=True, failing_tiles=int(grew.size), worst=_worst(tiles, growth, growth - limit))


def cannot_judge(results: Sequence[GateResult]) -> list[GateResult]:
    """The results of gates that cannot judge (a figure their source lacks): bad usage."""
    return [r for r in results if r.failed is None]

