"""Pure functions of a :class:`~memreport.model.MemoryReport`.

For a complete report every figure is computed from the per-tile arrays; for
a partial one (a text summary) the figures the source printed are returned
as they were printed, never recomputed from the few tiles it detailed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from .errors import UnsupportedOperation
from .model import KIB, Bin, Histogram, MemoryReport, TileBytes

MAX_BINS = 128


@dataclass(frozen=True)
class TopTile:
    """One of the most memory-subscribed tiles, with its largest breakdown items."""

    tile: int
    ipu: int | None
    excluding_gaps: int | None
    including_gaps: int | None
    out_of_memory: bool | None
    breakdown: Mapping[str, int] = field(default_factory=dict)
    name: str | None = None
    regions: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class IpuSummary:
    """One IPU's share of a complete report."""

    ipu: int
    first_tile: int
    num_tiles: int
    excluding_gaps: int
    including_gaps: int | None
    max_excluding_gaps: TileBytes
    tiles_out_of_memory: int | None


def choose_bin_kib(low_bytes: int, high_bytes: int, max_bins: int = MAX_BINS) -> int:
    """The smallest power-of-two KiB width whose bins cover the range in at most ``max_bins``."""
    width = 1
    while high_bytes // (width * KIB) - low_bytes // (width * KIB) + 1 > max_bins:
        width *= 2
    return width


def bin_counts(values: np.ndarray, bin_kib: int) -> Histogram:
    """Histogram of per-tile bytes in bins of ``bin_kib`` KiB, aligned to multiples of it."""
    if bin_kib <= 0:
        raise ValueError("bin width must be positive")
    if values.size == 0:
        return Histogram(bin_kib, ())
    index = values // (bin_kib * KIB)
    first = int(index.min())
    counts = np.bincount(index - first)
    return Histogram(bin_kib, tuple(
        Bin((first + i) * bin_kib, (first + i + 1) * bin_kib, int(c)) for i, c in enumerate(counts)))


def histogram(report: MemoryReport, bin_kib: int | None = None) -> Histogram:
    """Poplar's "By Tile (Excluding Gaps)" histogram (FORMATS.md §1 bin rule)."""
    values = report.excluding_gaps
    if values is None:
        printed = report.printed.histogram if report.printed else None
        if printed is None:
            raise UnsupportedOperation(f"{report.source}: holds no per-tile values and printed no histogram")
        if bin_kib is not None and bin_kib != printed.bin_kib:
            raise UnsupportedOperation(
                f"{report.source}: a text report holds only its printed {printed.bin_kib} KiB bins; "
                f"it cannot be re-binned to {bin_kib} KiB")
        return printed
    if report.known is not None:  # skipped tiles hold a placeholder, not a value
        values = values[report.known]
    if bin_kib is None:
        bin_kib = choose_bin_kib(int(values.min()), int(values.max())) if values.size else 1
    return bin_counts(values, bin_kib)


def histogram_if_known(report: MemoryReport, bin_kib: int | None = None) -> Histogram | None:
    """:func:`histogram`, or None for a source with no per-tile values that printed no histogram."""
    if report.excluding_gaps is None and (report.printed is None or report.printed.histogram is None):
        return None
    return histogram(report, bin_kib)


def out_of_memory(report: MemoryReport) -> np.ndarray | None:
    """Per-tile bool: excluding gaps above bytes per tile, or a non-zero overflowed region.

    None when the per-tile view is partial or bytes per tile is unknown (and
    no overflowed region is known).
    """
    values = report.excluding_gaps
    if values is None:
        return None
    overflowed = report.regions.get("overflowed")
    limit = report.target.bytes_per_tile
    if limit is None:
        return None if overflowed is None else overflowed > 0
    over = values > limit
    if overflowed is not None:
        over |= overflowed > 0
    return over


def count_out_of_memory(report: MemoryReport) -> int | None:
    """How many tiles are out of memory: printed for text reports, else computed."""
    if report.excluding_gaps is None:
        return report.printed.tiles_out_of_memory if report.printed else None
    over = out_of_memory(report)
    return None if over is None else int(np.count_nonzero(over))


def _argmax(values: np.ndarray, known: np.ndarray | None = None) -> TileBytes | None:
    if values.size == 0 or (known is not None and not known.any()):
        return None
    if known is not None:  # skipped tiles (placeholders) never win
        values = np.where(known, values, -1)
    tile = int(np.argmax(values))  # first (lowest) tile among equals
    return TileBytes(tile, int(values[tile]))


def max_excluding_gaps(report: MemoryReport) -> TileBytes | None:
    """The largest tile excluding gaps (printed or computed)."""
    if report.excluding_gaps is None:
        return report.printed.max_excluding_gaps if report.printed else None
    return _argmax(report.excluding_gaps, report.known)


def max_including_gaps(report: MemoryReport) -> TileBytes | None:
    """The largest tile including gaps; None where the source has no gap information."""
    if report.including_gaps is None:
        return report.printed.max_including_gaps if report.printed else None
    return _argmax(report.including_gaps, report.known)


def total_excluding_gaps(report: MemoryReport) -> int | None:
    """Bytes over all tiles, excluding gaps."""
    if report.excluding_gaps is None:
        return report.printed.excluding_gaps if report.printed else None
    return int(report.excluding_gaps.sum(dtype=np.int64))


def total_including_gaps(report: MemoryReport) -> int | None:
    """Bytes over all tiles, including gaps; None where unknown."""
    if report.including_gaps is None:
        return report.printed.including_gaps if report.printed else None
    return int(report.including_gaps.sum(dtype=np.int64))


def top_tile_ids(report: MemoryReport, n: int) -> np.ndarray:
    """Ids of the ``n`` largest tiles: by including gaps where known, else excluding; ties by id."""
    key = report.including_gaps if report.including_gaps is not None else report.excluding_gaps
    if key is None or n <= 0 or key.size == 0:
        return np.empty(0, dtype=np.int64)
    if report.known is not None:  # skipped tiles (placeholders) rank last and are dropped
        key = np.where(report.known, key, -1)
    n = min(n, key.size)
    # Partition first so the work stays O(tiles), then order the few candidates.
    threshold = np.partition(key, key.size - n)[key.size - n]
    candidates = np.flatnonzero(key >= threshold)
    order = np.lexsort((candidates, -key[candidates].astype(np.int64)))
    top = candidates[order][:n]
    return top if report.known is None else top[report.known[top]]


def tile_breakdown(report: MemoryReport, tile: int, counted_only: bool = True) -> dict[str, int]:
    """One tile's breakdown items, largest first (ties by name); absent items left out."""
    items = []
    for name, col in report.breakdown.items():
        if counted_only and not col.counted:
            continue
        value = col.get(tile)
        if value is not None:
            items.append((name, value))
    items.sort(key=lambda kv: (-kv[1], kv[0]))
    return dict(items)


def top_tiles(report: MemoryReport, n: int = 5) -> list[TopTile]:
    """The ``n`` most memory-subscribed tiles (the detailed tiles, for a text report)."""
    target = report.target
    if report.excluding_gaps is None:
        limit = target.bytes_per_tile
        return [TopTile(
            tile=d.tile, ipu=target.ipu_of(d.tile), excluding_gaps=d.excluding_gaps,
            including_gaps=d.including_gaps,
            out_of_memory=None if limit is None or d.excluding_gaps is None else d.excluding_gaps > limit,
            breakdown=dict(sorted(d.breakdown.items(), key=lambda kv: (-kv[1], kv[0]))),
            regions=dict(d.regions),
        ) for d in report.detailed_tiles[:n]]
    over = out_of_memory(report)
    return [TopTile(
        tile=int(t), ipu=target.ipu_of(t), excluding_gaps=int(report.excluding_gaps[t]),
        including_gaps=None if report.including_gaps is None else int(report.including_gaps[t]),
        out_of_memory=None if over is None else bool(over[t]),
        breakdown=tile_breakdown(report, int(t)),
        name=None if report.tile_names is None else report.tile_names[t],
        regions={name: int(values[t]) for name, values in report.regions.items()},
    ) for t in top_tile_ids(report, n)]


def per_ipu(report: MemoryReport) -> list[IpuSummary]:
    """Per-IPU totals, maxima and out-of-memory counts (complete reports with known tiles per IPU)."""
    tpi = report.target.tiles_per_ipu
    values = report.excluding_gaps
    if values is None or not tpi or values.size == 0:
        return []
    over = out_of_memory(report)
    result = []
    known = report.known
    for ipu, first in enumerate(range(0, values.size, tpi)):
        part = slice(first, min(first + tpi, values.size))
        peak = _argmax(values[part], None if known is None else known[part])
        if peak is None:  # every tile of this IPU was skipped: nothing known to summarise
            continue
        result.append(IpuSummary(
            ipu=ipu, first_tile=first, num_tiles=part.stop - first,
            excluding_gaps=int(values[part].sum(dtype=np.int64)),
            including_gaps=None if report.including_gaps is None
            else int(report.including_gaps[part].sum(dtype=np.int64)),
            max_excluding_gaps=TileBytes(first + peak.tile, peak.bytes),
            tiles_out_of_memory=None if over is None else int(np.count_nonzero(over[part])),
        ))
    return result
