"""Whole-program figures of a report: histogram, maxima, totals, top tiles, per IPU.

For a :class:`~memreport.model.TileReport` every figure is computed from
the per-tile arrays; for a :class:`~memreport.model.SummaryReport` the
figures it printed are returned as printed, never recomputed from the few
tiles it detailed; a :class:`~memreport.model.TensorMapReport` holds no
bytes. Whether a tile is out of memory, and how many are, is decided in :mod:`.verdict`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from ..errors import UnsupportedOperation
from ..model import (
    KIB,
    Bin,
    Histogram,
    MemoryReport,
    SummaryReport,
    TileBytes,
    TileDetail,
    TileReport,
    exact_sum,
)
from . import verdict
from .binning import aligned_counts, power_of_two_width
from .liveness import span_liveness, tile_liveness
from .results import IpuSpread, IpuSummary, TopTile
from .verdict import out_of_memory

MAX_BINS = 128            # bins the default width gives at most (Poplar's rule)
MAX_GIVEN_BINS = 16_384   # bins a given width may make: the text prints one line each
MAX_BIN_KIB = 2 ** 53 - 1  # widths of 2**63 B and more are wider than any size
# IPUs whose figures are kept one by one (a few thousand: a Bow Pod1024 has 1,024); past it, the first ones and
# every IPU in brief (ipu_spread): a profile declaring one tile per IPU over 376,832 tiles made an object per IPU,
# 1.3 GB, and a JSON of 140 MB (issue 33 item 15).
IPU_ROWS = 4096
IPUS_LARGEST = 10  # the IPUs holding the largest tiles, in brief


def choose_bin_kib(low_bytes: int, high_bytes: int, max_bins: int = MAX_BINS) -> int:
    """The smallest power-of-two KiB width whose bins cover the range in at most ``max_bins``."""
    return power_of_two_width(low_bytes, high_bytes, KIB, max_bins)


def bin_counts(values: np.ndarray, bin_kib: int) -> Histogram:
    """Histogram of per-tile bytes in bins of ``bin_kib`` KiB, aligned to multiples of it.

    An :class:`UnsupportedOperation` when the bins would be more than
    :data:`MAX_GIVEN_BINS` (1 KiB bins over tiles 64 GiB apart are 67
    million lines), naming the narrowest power-of-two width that fits.
    """
    if not 0 < bin_kib <= MAX_BIN_KIB:
        raise ValueError(f"bin width must be 1 to {MAX_BIN_KIB:,} KiB (below 2**63 B), not {bin_kib:,}")
    if values.size == 0:
        return Histogram(bin_kib, ())
    low, high = int(values.min()), int(values.max())
    count = high // (bin_kib * KIB) - low // (bin_kib * KIB) + 1
    if count > MAX_GIVEN_BINS:
        fits = power_of_two_width(low, high, KIB, MAX_GIVEN_BINS)
        raise UnsupportedOperation(f"bins of {bin_kib:,} KiB would be {count:,} bins for tiles of {low:,} to "
                                   f"{high:,} B: at most {MAX_GIVEN_BINS:,} (bins of {fits:,} KiB fit)")
    first, counts = aligned_counts(values, bin_kib * KIB)
    return Histogram(bin_kib, tuple(
        Bin((first + i) * bin_kib, (first + i + 1) * bin_kib, int(c)) for i, c in enumerate(counts)))


def known_values(report: TileReport, values: np.ndarray) -> np.ndarray:
    """``values`` of the tiles whose bytes are known (skipped members' placeholders left out)."""
    return values if report.known is None else values[report.known]


def tiles_histogram(report: TileReport, bin_kib: int | None = None) -> Histogram:
    """Poplar's "By Tile (Excluding Gaps)" histogram of every tile's bytes (docs/FORMATS.md §1 bin rule)."""
    values = known_values(report, report.excluding_gaps)
    if bin_kib is None:
        bin_kib = choose_bin_kib(int(values.min()), int(values.max())) if values.size else 1
    return bin_counts(values, bin_kib)


def printed_histogram(report: SummaryReport, bin_kib: int | None = None) -> Histogram | None:
    """The histogram a text summary printed (None when it printed none); its bins cannot be re-binned."""
    printed = report.printed.histogram
    if printed is not None and bin_kib is not None and bin_kib != printed.bin_kib:
        raise UnsupportedOperation(
            f"{report.source}: a text report holds only its printed {printed.bin_kib} KiB bins; "
            f"it cannot be re-binned to {bin_kib} KiB")
    return printed


def argmax(values: np.ndarray, known: np.ndarray | None = None) -> TileBytes | None:
    """The largest of ``values`` and its tile (the lowest among equals; skipped tiles never win); None when no
    tile is known."""
    if values.size == 0 or (known is not None and not known.any()):
        return None
    if known is not None:  # skipped tiles (placeholders) never win
        values = np.where(known, values, -1)
    tile = int(np.argmax(values))  # first (lowest) tile among equals
    return TileBytes(tile, int(values[tile]))


def pick_module(reports: Sequence[MemoryReport], wanted: str) -> MemoryReport:
    """The report of one file's ``reports`` that ``wanted`` names: a module name, or ``#N`` (the Nth, from 1).

    An :class:`UnsupportedOperation` (bad usage) naming the file's reports when none matches.
    """
    if wanted.startswith("#") and wanted[1:].isdigit():
        index = int(wanted[1:])
        if 1 <= index <= len(reports):
            return reports[index - 1]
    else:
        for report in reports:
            if report.module == wanted:
                return report
    source = reports[0].source if reports else "the file"
    held = ", ".join(f"#{i} ({r.module})" if r.module else f"#{i}" for i, r in enumerate(reports, 1))
    raise UnsupportedOperation(f"--module {wanted}: {source} holds no such report; it holds "
                               f"{len(reports):,}: {held}")


def top_tile_ids(report: TileReport, n: int) -> np.ndarray:
    """Ids of the ``n`` largest tiles: by including gaps where known, else excluding; ties by id."""
    key = report.including_gaps if report.including_gaps is not None else report.excluding_gaps
    if n <= 0 or key.size == 0:
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


def tile_breakdown(report: TileReport, tile: int, counted_only: bool = True) -> dict[str, int]:
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


def stated_tiles(report: SummaryReport) -> list[TopTile]:
    """The tiles a report without every tile's bytes states figures for, each marked with where from.

    The one rule for a text summary (top tiles, CSV, JSON, diffs and gates
    all ask here): its detailed tiles in printed order (``"detailed"``),
    then the tiles its Maximum lines name and no detailed tile covers
    (``"maximum"``: the excluding- and including-gaps figures those lines
    print, None for the one not on that tile), then the tiles only its
    out-of-memory messages name (``"message"``: out of memory, bytes
    unknown; the "bytes used" they state is not an excluding-gaps figure:
    it is ``stated_bytes_used``, on every tile a message names).
    """
    rows = [_detail_tile(report, d) for d in report.detailed_tiles]
    seen = {d.tile for d in report.detailed_tiles}
    peak_ex, peak_in = report.printed.max_excluding_gaps, report.printed.max_including_gaps
    for peak in (peak_ex, peak_in):
        if peak is None or peak.tile in seen:
            continue
        seen.add(peak.tile)
        detail = TileDetail(peak.tile, peak_in.bytes if peak_in is not None and peak_in.tile == peak.tile else None,
                            peak_ex.bytes if peak_ex is not None and peak_ex.tile == peak.tile else None)
        rows.append(replace(_detail_tile(report, detail), stated_by="maximum"))
    named = verdict.message_tiles(report)
    for tile in named:
        if tile not in seen:
            seen.add(tile)
            rows.append(TopTile(tile, report.target.ipu_of(tile), None, None, True, stated_by="message"))
    return [replace(t, stated_bytes_used=named[t.tile].bytes_used) if t.tile in named else t for t in rows]


def stated_excluding_gaps(report: SummaryReport) -> dict[int, int]:
    """Tile -> excluding-gaps bytes of every tile a text summary states them for (:func:`stated_tiles`)."""
    return {t.tile: t.excluding_gaps for t in stated_tiles(report) if t.excluding_gaps is not None}


def tiles_of(report: TileReport, tiles: Sequence[int], over: np.ndarray | None = None) -> list[TopTile]:
    """The given tiles of a report with every tile's bytes as :class:`TopTile` records, in the order given."""
    target = report.target
    over = out_of_memory(report) if over is None else over
    known = report.known
    rows = []
    for t in tiles:
        unknown = known is not None and not known[t]  # a skipped member: its bytes are not known
        rows.append(TopTile(
            tile=int(t), ipu=target.ipu_of(t), excluding_gaps=None if unknown else int(report.excluding_gaps[t]),
            including_gaps=None if report.including_gaps is None or unknown else int(report.including_gaps[t]),
            out_of_memory=None if over is None or unknown else bool(over[t]),
            breakdown=tile_breakdown(report, int(t)),
            name=None if report.tile_names is None else report.tile_names[t],
            regions={} if unknown else {name: int(values[t]) for name, values in report.regions.items()},
            liveness=None if unknown else tile_liveness(report, int(t)),
            symbols=report.symbols.get(int(t)),
            variables=None if report.variables is None else report.variables.tile_variables(int(t)),
        ))
    return rows


def _detail_tile(report: SummaryReport, d: TileDetail) -> TopTile:
    return TopTile(
        tile=d.tile, ipu=report.target.ipu_of(d.tile), excluding_gaps=d.excluding_gaps,
        including_gaps=d.including_gaps, out_of_memory=verdict.detail_out_of_memory(report, d),
        breakdown=dict(sorted(d.breakdown.items(), key=lambda kv: (-kv[1], kv[0]))),
        regions=dict(d.regions), stated_by="detailed",
    )


def breakdown_totals(report: TileReport, part: slice | np.ndarray | None = None) -> dict[str, int]:
    """The counted breakdown items summed over tiles (``part``: some of them), largest first, ties by name.

    Items no tile in ``part`` has are left out; so are skipped tiles (their placeholders hold 0 and no item).
    """
    part = slice(None) if part is None else part
    items = []
    for name, col in report.breakdown.items():
        if not col.counted:
            continue
        if col.present is not None and not col.present[part].any():
            continue
        items.append((name, int(col.values[part].sum(dtype=np.int64))))
    items.sort(key=lambda kv: (-kv[1], kv[0]))
    return dict(items)


def _ipus(report: TileReport) -> int:
    """How many IPUs the tiles span (0 without tiles per IPU or tiles)."""
    tpi = report.target.tiles_per_ipu
    return -(-report.excluding_gaps.size // tpi) if tpi else 0


def per_ipu(report: TileReport, over: np.ndarray | None = None) -> list[IpuSummary]:
    """Per-IPU totals, maxima and out-of-memory counts (reports with every tile's bytes and known tiles per IPU),
    of the first :data:`IPU_ROWS` IPUs (:func:`ipu_spread` gives every IPU in brief)."""
    over = out_of_memory(report) if over is None else over
    return _ipu_rows(report, over, range(min(_ipus(report), IPU_ROWS)))


def ipu_spread(report: TileReport, over: np.ndarray | None = None) -> IpuSpread | None:
    """Every IPU in brief when the tiles span more than :data:`IPU_ROWS` IPUs (else None: :func:`per_ipu` lists
    them all): the IPUs with a known tile, those holding a tile out of memory, and the :data:`IPUS_LARGEST`
    holding the largest tiles (the lowest IPU among equals). Each IPU's largest tile comes from one pass over the
    tiles as a row per IPU, never an object per IPU."""
    ipus = _ipus(report)
    if ipus <= IPU_ROWS:
        return None
    tpi = report.target.tiles_per_ipu
    assert tpi  # _ipus is 0 without it
    values, known = report.excluding_gaps, report.known
    over = out_of_memory(report) if over is None else over
    rows = np.full(ipus * tpi, -1, dtype=np.int64)  # -1: padding past the last tile, or a skipped tile
    rows[:values.size] = values if known is None else np.where(known, values, -1)
    peaks = rows.reshape(ipus, tpi).max(axis=1)
    del rows
    held = np.flatnonzero(peaks >= 0)  # IPUs with a known tile
    largest = held[np.lexsort((held, -peaks[held]))[:IPUS_LARGEST]]
    with_oom = None
    if over is not None:
        flags = np.zeros(ipus * tpi, dtype=bool)
        flags[:values.size] = over
        with_oom = int(np.count_nonzero(flags.reshape(ipus, tpi).any(axis=1)))
    listed = int(np.count_nonzero(held < IPU_ROWS))
    return IpuSpread(int(held.size), listed, with_oom, tuple(_ipu_rows(report, over, largest.tolist())))


def _ipu_rows(report: TileReport, over: np.ndarray | None, ipus: Iterable[int]) -> list[IpuSummary]:
    """The figures of ``ipus`` (in that order), each IPU whose tiles are all skipped left out."""
    tpi = report.target.tiles_per_ipu
    if not tpi:
        return []
    values = report.excluding_gaps
    result = []
    known = report.known
    for ipu in ipus:
        first = ipu * tpi
        part = slice(first, min(first + tpi, values.size))
        peak = argmax(values[part], None if known is None else known[part])
        if peak is None:  # every tile of this IPU was skipped: nothing known to summarise
            continue
        result.append(IpuSummary(
            ipu=ipu, first_tile=first, num_tiles=part.stop - first,
            excluding_gaps=exact_sum(values[part]),
            including_gaps=None if report.including_gaps is None
            else exact_sum(report.including_gaps[part]),
            max_excluding_gaps=TileBytes(first + peak.tile, peak.bytes),
            tiles_out_of_memory=None if over is None else int(np.count_nonzero(over[part])),
            breakdown=breakdown_totals(report, part), liveness=span_liveness(report, part),
        ))
    return result
