"""The out-of-memory verdict, in one place: which tiles are out of memory, how many, and why not exactly.

Per tile: :func:`out_of_memory` (a report with every tile's bytes),
:func:`detail_out_of_memory` (a summary's detailed tile) and
:func:`message_tiles` (the tiles out-of-memory messages name). How many:
:func:`tiles_count` and :func:`summary_count`. Whether a summary's own
printed verdict holds for the bytes per tile in use is decided once, by
:func:`printed_verdict_applies`. :func:`judge` gathers it all for the
Summary to carry, as facts (:mod:`.results`); the words are the renderers'.

A :class:`~memreport.model.TileReport` counts its tiles. A text summary's
printed count is used as printed when it was made for the bytes per tile in
use; when ``--tile-memory`` (or ``--arch``) sets another figure than the
summary's printed "Memory Per-Tile", or it printed no out-of-memory line,
only what its maximum, histogram and detailed tiles settle is returned: a
count, or a lower bound, with the reason (:func:`summary_count`).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from ..model import (
    CLI_NAMES,
    KIB,
    OOM_MESSAGES_FORMAT,
    Bin,
    Histogram,
    MemoryReport,
    OptionNames,
    OutOfMemoryMessage,
    SummaryReport,
    TileBytes,
    TileDetail,
    TileReport,
)
from .results import CountReason, Largest, LookInto, OutOfMemoryCount, Verdict


def printed_verdict_applies(report: MemoryReport) -> bool:
    """Whether what a summary printed about memory (its out-of-memory count, a detailed tile's overflowed
    region) holds for the bytes per tile in use: unless it printed another bytes per tile than the one in use
    (``--tile-memory``, ``--arch``), or either is unknown. The one rule: counts, detailed tiles and pictures
    ask here."""
    stated = report.stated.bytes_per_tile if report.stated is not None else None
    limit = report.target.bytes_per_tile
    return stated is None or limit is None or stated == limit


def out_of_memory(report: TileReport) -> np.ndarray | None:
    """Per-tile bool: excluding gaps above bytes per tile, or a non-zero overflowed region.

    None when bytes per tile is unknown and no overflowed region is known.
    """
    overflowed = report.regions.get("overflowed")
    limit = report.target.bytes_per_tile
    if limit is None:
        return None if overflowed is None else overflowed > 0
    over = report.excluding_gaps > limit
    if overflowed is not None:
        over |= overflowed > 0
    return over


def detail_out_of_memory(report: SummaryReport, detail: TileDetail) -> bool | None:
    """Whether one detailed tile of a summary is out of memory: a non-zero ``Overflowed`` region, or its
    excluding gaps above bytes per tile (docs/FORMATS.md §0: the two say the same).

    A tile an out-of-memory message of the report names is out of memory
    too when nothing the summary printed says otherwise. None when none of
    these settles it (bytes per tile or the tile's bytes unknown). The one
    rule for detailed tiles: top tiles, CSV, dataframes, pictures, diffs and
    gates all ask here.
    """
    limit = report.target.bytes_per_tile
    # Poplar's own verdict, for the bytes per tile it compiled for: not for another one given in its place.
    if detail.regions.get("overflowed") and printed_verdict_applies(report):
        return True
    if limit is None or detail.excluding_gaps is None:
        return True if detail.tile in message_tiles(report) else None
    return detail.excluding_gaps > limit


def message_tiles(report: SummaryReport) -> dict[int, OutOfMemoryMessage]:
    """The tiles a report's out-of-memory messages name as not fitting (tile memory, an exchange, code),
    each with the first message naming it.

    A tile-memory message states its capacity: with other bytes per tile in
    use (``--tile-memory``), its tile counts only if the bytes it says were
    used exceed them.
    """
    limit = report.target.bytes_per_tile
    named: dict[int, OutOfMemoryMessage] = {}
    for m in report.oom_messages:
        if not m.names_tile or m.tile is None:
            continue
        if limit is not None and m.bytes_per_tile not in (None, limit) and m.bytes_used is not None \
                and m.bytes_used <= limit:
            continue
        named.setdefault(m.tile, m)
    return named


def known_out_of_memory_tiles(report: SummaryReport) -> dict[int, int]:
    """A summary's tiles known to be out of memory (its detailed tiles, by :func:`detail_out_of_memory`,
    and its maximum): tile -> bytes, excluding gaps. The tiles only its out-of-memory messages name are in
    :func:`message_tiles`."""
    over: dict[int, int] = {d.tile: d.excluding_gaps for d in report.detailed_tiles
                            if d.excluding_gaps is not None and detail_out_of_memory(report, d)}
    limit = report.target.bytes_per_tile
    peak = report.printed.max_excluding_gaps
    if peak is not None and limit is not None and peak.bytes > limit:
        over.setdefault(peak.tile, peak.bytes)
    return over


@dataclass(frozen=True)
class _BinSplit:
    """A printed histogram against a limit: tiles surely over it, tiles in the bin that straddles it."""

    sure: int                  # tiles in bins wholly above the limit
    straddle: Bin | None       # the bin holding the limit, when its tiles may lie on either side
    straddle_known: int        # tiles of that bin known (detailed, maximum) to be over the limit
    complete: bool             # the bins count every tile of the target


def _split_bins(report: SummaryReport, hist: Histogram, limit: int, known: Mapping[int, int]) -> _BinSplit:
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


def tiles_count(report: TileReport, over: np.ndarray | None, names: OptionNames = CLI_NAMES) -> OutOfMemoryCount:
    """How many tiles of a report with every tile's bytes are out of memory (``over``: its mask)."""
    if over is None:
        return OutOfMemoryCount(None, reason=CountReason("bytes per tile unknown", names=names))
    if report.known is not None:
        over = over & report.known
    count = int(np.count_nonzero(over))
    return OutOfMemoryCount(count, count)


def summary_count(report: SummaryReport, names: OptionNames = CLI_NAMES) -> OutOfMemoryCount:
    """How many tiles a text summary (or a log's messages) shows out of memory: printed, or bounded by what it
    printed and by the out-of-memory messages of its log.

    ``names`` spells the overrides in the reasons (command line or Python).
    """
    printed = report.printed
    limit = report.target.bytes_per_tile
    stated = report.printed_bytes_per_tile
    if printed.tiles_out_of_memory is not None and printed_verdict_applies(report):
        return OutOfMemoryCount(printed.tiles_out_of_memory, printed.tiles_out_of_memory)
    if printed.tiles_out_of_memory is not None:
        reason = CountReason("printed for other bytes per tile", printed=printed.tiles_out_of_memory, stated=stated,
                             limit=limit, names=names)
    elif report.format == OOM_MESSAGES_FORMAT:
        host = bool(report.oom_messages) and not any(m.tile_memory for m in report.oom_messages)
        reason = CountReason("messages only", host_streams=host, names=names)
    else:
        reason = CountReason("no printed count", names=names)
    if limit is None:
        return _unbounded_count(report, reason)
    return _bounded_count(report, limit, stated, reason)


def _message_bound(report: SummaryReport) -> int:
    """Tiles the out-of-memory messages show out of memory: those they name, or one when a message says
    only "one or more tiles" (a compile that failed for tile memory without naming a tile)."""
    named = len(message_tiles(report))
    unnamed = any(m.tile_memory and not m.names_tile for m in report.oom_messages)
    return max(named, 1 if unnamed else 0)


def _unbounded_count(report: SummaryReport, reason: CountReason) -> OutOfMemoryCount:
    """With bytes per tile unknown: what overflowed regions and messages show, or nothing."""
    named = set(message_tiles(report))
    overflowed = {d.tile for d in report.detailed_tiles if detail_out_of_memory(report, d)} - named
    at_least = max(len(overflowed | named), _message_bound(report))
    parts = (["detailed tiles' overflowed regions"] if overflowed else []) + \
        (["out-of-memory messages"] if at_least > len(overflowed) or (named - overflowed) else [])
    if report.detailed_tiles or report.printed.max_excluding_gaps is not None:
        reason = replace(reason, judge_hint=True)
    if at_least:
        return OutOfMemoryCount(None, at_least, tuple(parts), None, reason)
    return OutOfMemoryCount(None, reason=reason)


def _bounded_count(report: SummaryReport, limit: int, stated: int | None, reason: CountReason) -> OutOfMemoryCount:
    """The count, or a lower bound, from a summary's maximum, histogram, detailed tiles and printed count,
    and the out-of-memory messages before it."""
    printed = report.printed
    peak = printed.max_excluding_gaps
    from_messages = _message_bound(report)
    if peak is not None and peak.bytes <= limit and not from_messages:  # no tile holds more than the maximum
        return OutOfMemoryCount(0, 0, ("maximum",), limit, reason)
    known = known_out_of_memory_tiles(report)
    details = {d.tile for d in report.detailed_tiles}
    shown = (["detailed tiles"] if set(known) & details else []) + (["maximum"] if set(known) - details else [])
    bounds = [(len(known), shown)]  # (tiles known to be over, what in the summary shows them)
    if from_messages:
        together = max(len(set(known) | set(message_tiles(report))), from_messages)
        bounds.append((together, shown + ["out-of-memory messages"] if together > len(known) else shown))
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
        return OutOfMemoryCount(at_least, at_least, tuple(used), limit, reason)
    if not at_least:
        reason = replace(reason, unsettled=limit)
    return OutOfMemoryCount(None, at_least, tuple(used) if at_least else (), None, reason)


def tiles_bins_out_of_memory(report: TileReport, hist: Histogram, over: np.ndarray | None) -> list[bool | None]:
    """Per bin of ``hist``: True when it holds an out-of-memory tile, False when it holds none; None when the
    mask ``over`` is unknown (bytes per tile unknown)."""
    if over is None:
        return [None] * len(hist.bins)
    if report.known is not None:
        over = over & report.known
    lows = set((report.excluding_gaps[over] // (hist.bin_kib * KIB) * hist.bin_kib).tolist())
    return [b.low_kib in lows for b in hist.bins]


def summary_bins_out_of_memory(report: SummaryReport, hist: Histogram, status: OutOfMemoryCount
                               ) -> list[bool | None]:
    """Per printed bin: True when it holds an out-of-memory tile, False when it holds none, None when the
    summary cannot say (a bin that straddles bytes per tile); ``status`` is its count."""
    limit = report.target.bytes_per_tile
    if limit is None:
        return [None] * len(hist.bins)
    split = _split_bins(report, hist, limit, known_out_of_memory_tiles(report))
    result: list[bool | None] = []
    for b in hist.bins:
        if b.count == 0 or b.high_kib * KIB - 1 <= limit:
            result.append(False)
        elif (b.low_kib * KIB > limit or split.straddle_known
              or (status.count is not None and status.count > split.sure)):
            result.append(True)
        elif status.count is not None and status.count == split.sure:
            result.append(False)
        else:
            result.append(None)
    return result


def judge(report: MemoryReport, count: OutOfMemoryCount, worst: TileBytes | None,
          largest_on_worst: Largest | None = None, worst_ipu: int | None = None, symbols_readable: bool = False,
          messages: tuple[OutOfMemoryMessage, ...] = (), message_tiles: Mapping[int, OutOfMemoryMessage] | None = None,
          printed_count: int | None = None, judged: bool = False, shown: bool = False,
          stated_by: str | None = None) -> Verdict:
    """The verdict of ``report``, whose out-of-memory ``count`` and largest tile (``worst``) are computed;
    ``symbols_readable``: whether its tiles' symbols can be read (what to look into asks for them); ``shown``:
    the worst tile was asked for (``--tile``), so looking into it again would repeat what is shown."""
    look_into = None if worst is None or shown else LookInto(report.name, worst.tile, symbols_readable)
    return Verdict(
        count=count, num_tiles=report.num_tiles if report.num_tiles_known else None,
        bytes_per_tile=report.target.bytes_per_tile, worst=worst, largest_on_worst=largest_on_worst,
        worst_ipu=worst_ipu, look_into=look_into, printed_count=printed_count,
        message_tiles=dict(message_tiles or {}), messages=messages, judged=judged, stated_by=stated_by)
