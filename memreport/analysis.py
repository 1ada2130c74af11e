"""Pure functions of a :class:`~memreport.model.MemoryReport`.

For a complete report every figure is computed from the per-tile arrays; for
a partial one (a text summary) the figures the source printed are returned
as they were printed, never recomputed from the few tiles it detailed. The
one exception is its out-of-memory count when it was printed for other
bytes per tile than the ones in use (or not printed): then only what the
printed figures settle is returned, a count or a lower bound, with the
reason (:func:`out_of_memory_count`). Whether a detailed tile is out of
memory is decided in one place, :func:`detail_out_of_memory`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from .errors import UnsupportedOperation
from .model import KIB, Bin, Histogram, MemoryReport, TileBytes, TileDetail

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


def detail_out_of_memory(report: MemoryReport, detail: TileDetail) -> bool | None:
    """Whether one detailed tile of a summary is out of memory: its excluding gaps above bytes per tile.

    None when bytes per tile or the tile's bytes are unknown. The one rule
    for detailed tiles: top tiles, CSV, dataframes, pictures, diffs and gates
    all ask here.
    """
    limit = report.target.bytes_per_tile
    if limit is None or detail.excluding_gaps is None:
        return None
    return detail.excluding_gaps > limit


def partial_reason(report: MemoryReport) -> str | None:
    """Why the per-tile view is partial, as a phrase for notes and messages (None when complete)."""
    if report.per_tile == "complete":
        return None
    if report.is_printed_summary:
        return "a text summary does not list every tile"
    if report.format == "tensor-map":
        return "a tensor map counts elements, not bytes"
    if report.skipped:
        return f"{len(report.skipped):,} damaged member(s) were skipped: their tiles' bytes are unknown"
    return "the source holds no per-tile bytes"


@dataclass(frozen=True)
class OutOfMemoryCount:
    """How many tiles are out of memory, as far as the source can say.

    ``count`` is exact (computed, or printed by a text summary for the bytes
    per tile in use), or None when the source cannot say; ``at_least`` is
    how many tiles are known to be out of memory all the same (``count``
    itself when exact). ``basis`` says where a count or bound that is not
    plainly computed or printed comes from, ``reason`` why an exact count is
    missing.
    """

    count: int | None
    at_least: int = 0
    basis: str | None = None
    reason: str | None = None

    def describe(self) -> str:
        """One phrase for a report line: "3 tile(s) out of memory", "at least 5 ...", or why unknown."""
        if self.count is not None:
            return f"{self.count:,} tile(s) out of memory" + (f" ({self.basis})" if self.basis else "")
        why = "; ".join(p for p in (self.basis if self.at_least else None, self.reason) if p)
        if self.at_least:
            return f"at least {self.at_least:,} tile(s) out of memory ({why})"
        return f"out-of-memory tiles unknown ({why})"

    def note(self) -> str | None:
        """A sentence for a report's notes when the count is neither computed nor printed as is, else None."""
        if self.basis is None and self.reason is None:
            return None
        text = self.describe()
        if self.count is not None and self.reason:
            text += f"; {self.reason}"
        return "out-of-memory count: " + text


BYTES_PER_TILE_UNKNOWN = "bytes per tile unknown: give --tile-memory or --arch"


def printed_bytes_per_tile(report: MemoryReport) -> int | None:
    """The Memory Per-Tile a text summary printed (the text reader keeps it in ``info["target"]``)."""
    if not report.is_printed_summary:
        return None
    target = report.info.get("target")
    value = target.get("memory_per_tile_bytes") if isinstance(target, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _printed_count_applies(report: MemoryReport) -> bool:
    """A printed out-of-memory count holds for the bytes per tile in use unless the summary printed another."""
    stated, limit = printed_bytes_per_tile(report), report.target.bytes_per_tile
    return stated is None or limit is None or stated == limit


def known_out_of_memory_tiles(report: MemoryReport) -> dict[int, int]:
    """A summary's tiles known to be out of memory (its detailed tiles and its maximum): tile -> bytes."""
    over = {d.tile: d.excluding_gaps for d in report.detailed_tiles if detail_out_of_memory(report, d)}
    limit = report.target.bytes_per_tile
    peak = report.printed.max_excluding_gaps if report.printed else None
    if peak is not None and limit is not None and peak.bytes > limit:
        over.setdefault(peak.tile, peak.bytes)
    return over  # type: ignore[return-value]  # detail_out_of_memory is True only where bytes are known


@dataclass(frozen=True)
class _BinSplit:
    """A printed histogram against a limit: tiles surely over it, tiles in the bin that straddles it."""

    sure: int                  # tiles in bins wholly above the limit
    straddle: Bin | None       # the bin holding the limit, when its tiles may lie on either side
    straddle_known: int        # tiles of that bin known (detailed, maximum) to be over the limit
    complete: bool             # the bins count every tile of the target


def _split_bins(report: MemoryReport, hist: Histogram, limit: int, known: Mapping[int, int]) -> _BinSplit:
    sure, straddle = 0, None
    for b in hist.bins:
        if b.low_kib * KIB > limit:  # [low, high) KiB: every tile here is above the limit
            sure += b.count
        elif b.high_kib * KIB - 1 > limit:
            straddle = b
    straddle_known = 0
    if straddle is not None:
        straddle_known = min(straddle.count, sum(1 for v in known.values() if v < straddle.high_kib * KIB))
    return _BinSplit(sure, straddle, straddle_known, hist.total == report.num_tiles)


def out_of_memory_count(report: MemoryReport) -> OutOfMemoryCount:
    """How many tiles are out of memory: computed, printed, or bounded by what a summary printed.

    A text summary's printed count is used as printed when it was made for
    the bytes per tile in use. When ``--tile-memory`` (or ``--arch``) sets
    another figure than the summary's printed "Memory Per-Tile", or the
    summary printed no out-of-memory line, the count is unknown unless its
    maximum or histogram settles it; the tiles it shows to be over (detailed
    tiles, the maximum, histogram bins wholly above the limit) still give
    ``at_least``.
    """
    if report.excluding_gaps is not None:
        over = out_of_memory(report)
        if over is None:
            return OutOfMemoryCount(None, reason=BYTES_PER_TILE_UNKNOWN)
        if report.known is not None:
            over = over & report.known
        count = int(np.count_nonzero(over))
        return OutOfMemoryCount(count, count)
    if not report.is_printed_summary:
        return OutOfMemoryCount(None, reason=partial_reason(report))
    printed = report.printed
    assert printed is not None
    limit = report.target.bytes_per_tile
    stated = printed_bytes_per_tile(report)
    if printed.tiles_out_of_memory is not None and _printed_count_applies(report):
        return OutOfMemoryCount(printed.tiles_out_of_memory, printed.tiles_out_of_memory)
    if printed.tiles_out_of_memory is None:
        reason = "the summary printed no out-of-memory line"
    else:
        reason = (f"its printed count, {printed.tiles_out_of_memory:,}, is for the {stated:,} B per tile it "
                  f"printed, not {limit:,} B")
    if limit is None:
        if report.detailed_tiles or printed.max_excluding_gaps is not None:
            reason += "; bytes per tile unknown (give --tile-memory or --arch to judge what it printed)"
        return OutOfMemoryCount(None, reason=reason)
    return _bounded_count(report, limit, stated, reason)


def _bounded_count(report: MemoryReport, limit: int, stated: int | None, reason: str) -> OutOfMemoryCount:
    """The count, or a lower bound, from a summary's maximum, histogram, detailed tiles and printed count."""
    printed = report.printed
    assert printed is not None
    per_tile = f"for {limit:,} B per tile"
    peak = printed.max_excluding_gaps
    if peak is not None and peak.bytes <= limit:  # no tile holds more than the maximum
        return OutOfMemoryCount(0, 0, f"from its printed maximum, {per_tile}", reason)
    known = known_out_of_memory_tiles(report)
    details = {d.tile for d in report.detailed_tiles}
    shown = (["detailed tiles"] if set(known) & details else []) + (["maximum"] if set(known) - details else [])
    bounds = [(len(known), shown)]  # (tiles known to be over, what in the summary shows them)
    uppers = []  # (at most this many tiles can be over, what in the summary says so)
    if printed.histogram is not None and printed.histogram.bins:
        split = _split_bins(report, printed.histogram, limit, known)
        bounds.append((split.sure + split.straddle_known, ["histogram"] + (shown if split.straddle_known else [])))
        if split.complete:
            uppers.append((split.sure + (split.straddle.count if split.straddle else 0), ["histogram"]))
    count = printed.tiles_out_of_memory
    if count is not None and stated is not None:
        # Fewer bytes per tile can only add tiles out of memory, more can only take some away.
        if limit < stated:
            bounds.append((count, ["out-of-memory count"]))
        elif limit > stated:
            uppers.append((count, ["out-of-memory count"]))
    at_least, used = max(bounds, key=lambda b: b[0])
    upper, upper_used = min(uppers, key=lambda b: b[0]) if uppers else (None, [])
    if upper is not None and upper == at_least:
        used = list(dict.fromkeys(used + upper_used))
        return OutOfMemoryCount(at_least, at_least, f"{_printed(used)}, {per_tile}", reason)
    if not at_least:
        reason += f", and nothing else it printed settles it for {limit:,} B per tile"
    return OutOfMemoryCount(None, at_least, _printed(used) if at_least else None, reason)


def _printed(parts: list[str]) -> str:
    """The basis phrase, e.g. "from its printed histogram and detailed tiles"."""
    return "from its printed " + (parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1])


def count_out_of_memory(report: MemoryReport) -> int | None:
    """How many tiles are out of memory (None when the source cannot say): see :func:`out_of_memory_count`."""
    return out_of_memory_count(report).count


def bins_out_of_memory(report: MemoryReport, hist: Histogram) -> list[bool | None]:
    """Per bin of ``hist``: True when it holds an out-of-memory tile, False when it holds none, None when
    the source cannot say (a printed bin that straddles bytes per tile)."""
    values = report.excluding_gaps
    if values is not None:
        over = out_of_memory(report)
        if over is None:
            return [None] * len(hist.bins)
        if report.known is not None:
            over = over & report.known
        lows = set((values[over] // (hist.bin_kib * KIB) * hist.bin_kib).tolist())
        return [b.low_kib in lows for b in hist.bins]
    limit = report.target.bytes_per_tile
    if limit is None or not report.is_printed_summary:
        return [None] * len(hist.bins)
    status = out_of_memory_count(report)
    split = _split_bins(report, hist, limit, known_out_of_memory_tiles(report))
    result: list[bool | None] = []
    for b in hist.bins:
        if b.count == 0 or b.high_kib * KIB - 1 <= limit:
            result.append(False)
        elif b.low_kib * KIB > limit:
            result.append(True)
        elif split.straddle_known or (status.count is not None and status.count > split.sure):
            result.append(True)
        elif status.count is not None and status.count == split.sure:
            result.append(False)
        else:
            result.append(None)
    return result


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
        return [TopTile(
            tile=d.tile, ipu=target.ipu_of(d.tile), excluding_gaps=d.excluding_gaps,
            including_gaps=d.including_gaps, out_of_memory=detail_out_of_memory(report, d),
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
