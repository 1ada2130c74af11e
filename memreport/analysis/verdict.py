"""The out-of-memory verdict, in one place: which tiles are out of memory, how many, and how it is said.

Per tile: :func:`out_of_memory` (a report with every tile's bytes),
:func:`detail_out_of_memory` (a summary's detailed tile) and
:func:`message_tiles` (the tiles out-of-memory messages name). How many:
:func:`out_of_memory_count`. Whether a summary's own printed verdict holds
for the bytes per tile in use is decided once, by :func:`printed_verdict_applies`.
:func:`verdict` gathers it all, in words too, for the Summary to carry.


A :class:`~memreport.model.TileReport` counts its tiles. A text summary's
printed count is used as printed when it was made for the bytes per tile in
use; when ``--tile-memory`` (or ``--arch``) sets another figure than the
summary's printed "Memory Per-Tile", or it printed no out-of-memory line,
only what its maximum, histogram and detailed tiles settle is returned: a
count, or a lower bound, with the reason (:func:`out_of_memory_count`).
"""
from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

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
    TensorMapReport,
    TileBytes,
    TileDetail,
    TileReport,
)
from ..units import count as counted
from .messages import describe, next_command


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

    def short(self) -> str:
        """The count alone: "3", "at least 5" or "unknown"."""
        if self.count is not None:
            return f"{self.count:,}"
        return f"at least {self.at_least:,}" if self.at_least else "unknown"

    def judged(self) -> str:
        """The count in tiles: "3 tiles", "at least 5 tiles" or "unknown"."""
        if self.count is not None:
            return counted(self.count, "tile")
        return f"at least {counted(self.at_least, 'tile')}" if self.at_least else "unknown"

    def title(self) -> str:
        """Short, for a picture's title (no room for why): "3 tiles out of memory"."""
        judged = self.judged()
        return "out-of-memory tiles unknown" if judged == "unknown" else f"{judged} out of memory"

    def note(self) -> str | None:
        """A sentence for a report's notes when the count is neither computed nor printed as is, else None."""
        if self.basis is None and self.reason is None:
            return None
        text = self.describe()
        if self.count is not None and self.reason:
            text += f"; {self.reason}"
        return "out-of-memory count: " + text


def bytes_per_tile_unknown(names: OptionNames = CLI_NAMES) -> str:
    """Why a count needs bytes per tile, with the overrides spelled as the user spells them."""
    return f"bytes per tile unknown: give {names.tile_memory} or {names.arch}"


BYTES_PER_TILE_UNKNOWN = bytes_per_tile_unknown()


def printed_verdict_applies(report: MemoryReport) -> bool:
    """Whether what a summary printed about memory (its out-of-memory count, a detailed tile's overflowed
    region) holds for the bytes per tile in use: unless it printed another bytes per tile than the one in use
    (``--tile-memory``, ``--arch``), or either is unknown. The one rule: counts, detailed tiles and pictures
    ask here."""
    stated = report.stated.bytes_per_tile if report.stated is not None else None
    limit = report.target.bytes_per_tile
    return stated is None or limit is None or stated == limit


def partial_reason(report: MemoryReport) -> str | None:
    """Why the per-tile view is partial, as a phrase for notes and messages (None when complete)."""
    if isinstance(report, TileReport):
        if not report.skipped:
            return None
        return f"{len(report.skipped):,} damaged member(s) were skipped: their tiles' bytes are unknown"
    if isinstance(report, SummaryReport):
        if report.format == OOM_MESSAGES_FORMAT:
            return "the log holds no memory summary, only out-of-memory messages"
        return "a text summary does not list every tile"
    if isinstance(report, TensorMapReport):
        return "a tensor map counts elements, not bytes"
    return "the source holds no per-tile bytes"


def out_of_memory(report: MemoryReport) -> np.ndarray | None:
    """Per-tile bool: excluding gaps above bytes per tile, or a non-zero overflowed region.

    None when the report holds no per-tile bytes, or bytes per tile is
    unknown and no overflowed region is known.
    """
    if not isinstance(report, TileReport):
        return None
    overflowed = report.regions.get("overflowed")
    limit = report.target.bytes_per_tile
    if limit is None:
        return None if overflowed is None else overflowed > 0
    over = report.excluding_gaps > limit
    if overflowed is not None:
        over |= overflowed > 0
    return over


def detail_out_of_memory(report: MemoryReport, detail: TileDetail) -> bool | None:
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


def message_tiles(report: MemoryReport) -> dict[int, OutOfMemoryMessage]:
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


def known_out_of_memory_tiles(report: MemoryReport) -> dict[int, int]:
    """A summary's tiles known to be out of memory (its detailed tiles, by :func:`detail_out_of_memory`,
    and its maximum): tile -> bytes, excluding gaps. The tiles only its out-of-memory messages name are in
    :func:`message_tiles`."""
    over: dict[int, int] = {d.tile: d.excluding_gaps for d in report.detailed_tiles
                            if d.excluding_gaps is not None and detail_out_of_memory(report, d)}
    limit = report.target.bytes_per_tile
    peak = report.printed.max_excluding_gaps if report.printed else None
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


def out_of_memory_count(report: MemoryReport, over: np.ndarray | None = None,
                        names: OptionNames = CLI_NAMES) -> OutOfMemoryCount:
    """How many tiles are out of memory: computed, printed, or bounded by what a summary printed and by the
    out-of-memory messages of its log.

    ``over`` is a TileReport's out-of-memory mask when already computed;
    ``names`` spells the overrides in the reasons (command line or Python).
    """
    if isinstance(report, TileReport):
        over = out_of_memory(report) if over is None else over
        if over is None:
            return OutOfMemoryCount(None, reason=bytes_per_tile_unknown(names))
        if report.known is not None:
            over = over & report.known
        count = int(np.count_nonzero(over))
        return OutOfMemoryCount(count, count)
    if not isinstance(report, SummaryReport):
        return OutOfMemoryCount(None, reason=partial_reason(report))
    printed = report.printed
    limit = report.target.bytes_per_tile
    stated = report.printed_bytes_per_tile
    if printed.tiles_out_of_memory is not None and printed_verdict_applies(report):
        return OutOfMemoryCount(printed.tiles_out_of_memory, printed.tiles_out_of_memory)
    if printed.tiles_out_of_memory is not None:
        reason = (f"its printed count, {printed.tiles_out_of_memory:,}, is for the {stated:,} B per tile it "
                  f"printed, not {limit:,} B")
    elif report.format == OOM_MESSAGES_FORMAT:
        reason = "the log holds no memory summary, only out-of-memory messages"
        if report.oom_messages and not any(m.tile_memory for m in report.oom_messages):
            reason += " about host stream buffers, which are host memory, not tile memory"
    else:
        reason = "the summary printed no out-of-memory line"
    if limit is None:
        return _unbounded_count(report, reason, names)
    return _bounded_count(report, limit, stated, reason)


def _message_bound(report: SummaryReport) -> int:
    """Tiles the out-of-memory messages show out of memory: those they name, or one when a message says
    only "one or more tiles" (a compile that failed for tile memory without naming a tile)."""
    named = len(message_tiles(report))
    unnamed = any(m.tile_memory and not m.names_tile for m in report.oom_messages)
    return max(named, 1 if unnamed else 0)


def _unbounded_count(report: SummaryReport, reason: str, names: OptionNames = CLI_NAMES) -> OutOfMemoryCount:
    """With bytes per tile unknown: what overflowed regions and messages show, or nothing."""
    named = set(message_tiles(report))
    overflowed = {d.tile for d in report.detailed_tiles if detail_out_of_memory(report, d)} - named
    at_least = max(len(overflowed | named), _message_bound(report))
    parts = (["detailed tiles' overflowed regions"] if overflowed else []) + \
        (["out-of-memory messages"] if at_least > len(overflowed) or (named - overflowed) else [])
    if report.detailed_tiles or report.printed.max_excluding_gaps is not None:
        reason += f"; bytes per tile unknown (give {names.tile_memory} or {names.arch} to judge what it printed)"
    if at_least:
        return OutOfMemoryCount(None, at_least, _printed(parts), reason)
    return OutOfMemoryCount(None, reason=reason)


def _bounded_count(report: SummaryReport, limit: int, stated: int | None, reason: str) -> OutOfMemoryCount:
    """The count, or a lower bound, from a summary's maximum, histogram, detailed tiles and printed count,
    and the out-of-memory messages before it."""
    printed = report.printed
    per_tile = f"for {limit:,} B per tile"
    peak = printed.max_excluding_gaps
    from_messages = _message_bound(report)
    if peak is not None and peak.bytes <= limit and not from_messages:  # no tile holds more than the maximum
        return OutOfMemoryCount(0, 0, f"from its printed maximum, {per_tile}", reason)
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
        return OutOfMemoryCount(at_least, at_least, f"{_printed(used)}, {per_tile}", reason)
    if not at_least:
        reason += f", and nothing else it printed settles it for {limit:,} B per tile"
    return OutOfMemoryCount(None, at_least, _printed(used) if at_least else None, reason)


def _printed(parts: list[str]) -> str:
    """The basis phrase, e.g. "from its printed histogram and detailed tiles" (and "its out-of-memory
    messages", which the summary did not print)."""
    messages = "out-of-memory messages" in parts
    printed = [p for p in parts if p != "out-of-memory messages"]
    phrase = "" if not printed else "its printed " + (
        printed[0] if len(printed) == 1 else ", ".join(printed[:-1]) + " and " + printed[-1])
    if messages:
        phrase += (" and " if phrase else "") + "its out-of-memory messages"
    return "from " + phrase


def count_out_of_memory(report: MemoryReport) -> int | None:
    """How many tiles are out of memory (None when the source cannot say): see :func:`out_of_memory_count`."""
    return out_of_memory_count(report).count


def bins_out_of_memory(report: MemoryReport, hist: Histogram, over: np.ndarray | None = None,
                       status: OutOfMemoryCount | None = None) -> list[bool | None]:
    """Per bin of ``hist``: True when it holds an out-of-memory tile, False when it holds none, None when
    the source cannot say (a printed bin that straddles bytes per tile).

    ``over`` and ``status`` are the report's mask and count when already computed.
    """
    if isinstance(report, TileReport):
        over = out_of_memory(report) if over is None else over
        if over is None:
            return [None] * len(hist.bins)
        if report.known is not None:
            over = over & report.known
        lows = set((report.excluding_gaps[over] // (hist.bin_kib * KIB) * hist.bin_kib).tolist())
        return [b.low_kib in lows for b in hist.bins]
    limit = report.target.bytes_per_tile
    if limit is None or not isinstance(report, SummaryReport):
        return [None] * len(hist.bins)
    status = out_of_memory_count(report) if status is None else status
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


@dataclass(frozen=True)
class MessageWords:
    """One out-of-memory message in memreport's words: what it states, and the command to run next (None when
    the failed run saved nothing memreport reads)."""

    message: OutOfMemoryMessage
    description: str
    next_command: str | None


@dataclass(frozen=True)
class Largest:
    """The largest thing on a tile: its largest symbol (``kind`` "symbol", with its ``section``) where its
    symbols were read, else its largest breakdown item (``kind`` the report's breakdown kind: "section",
    "category")."""

    kind: str
    name: str
    bytes: int
    section: str | None = None


@dataclass(frozen=True)
class Verdict:
    """A report's out-of-memory verdict, everything a renderer says about it chosen once.

    ``count`` is how many tiles are out of memory (counted, printed, or
    bounded: "at least N"); ``printed_count`` what a text summary printed,
    as printed (None for other sources); ``worst`` the largest tile,
    excluding gaps, against ``bytes_per_tile``, on IPU ``worst_ipu`` where
    known; ``largest_on_worst`` the largest thing on it where known;
    ``look_into`` the memreport command that looks into it.
    ``message_tiles`` are the tiles out-of-memory messages name,
    ``messages`` every message in words; ``note`` says why a summary's count
    is not simply its printed one.
    """

    count: OutOfMemoryCount
    num_tiles: int | None = None
    bytes_per_tile: int | None = None
    worst: TileBytes | None = None
    largest_on_worst: Largest | None = None
    printed_count: int | None = None
    message_tiles: Mapping[int, OutOfMemoryMessage] = field(default_factory=dict)
    messages: tuple[MessageWords, ...] = ()
    note: str | None = None
    worst_ipu: int | None = None
    look_into: str | None = None

    @property
    def excess(self) -> int | None:
        """Bytes the worst tile holds beyond bytes per tile (0 when it fits; None when either is unknown)."""
        if self.worst is None or self.bytes_per_tile is None:
            return None
        return max(self.worst.bytes - self.bytes_per_tile, 0)

    @property
    def free(self) -> int | None:
        """Bytes per tile the worst tile leaves free (0 when it is over; None when either is unknown)."""
        if self.worst is None or self.bytes_per_tile is None:
            return None
        return max(self.bytes_per_tile - self.worst.bytes, 0)

    @property
    def share(self) -> float | None:
        """The worst tile's bytes as a share of bytes per tile (1.0 is full; None when either is unknown)."""
        if self.worst is None or not self.bytes_per_tile:
            return None
        return self.worst.bytes / self.bytes_per_tile

    @property
    def next_commands(self) -> tuple[str, ...]:
        """The commands the messages suggest, each once, in message order."""
        return tuple(dict.fromkeys(w.next_command for w in self.messages if w.next_command is not None))

    def count_lines(self) -> list[str]:
        """The count as a source printed it and, beside it, a recount labelled as such; the count alone
        for a source that printed none."""
        judged = self.count.judged()
        if self.printed_count is None:
            return ["Out of memory: " + judged]
        lines = [f"Out of memory (printed): {counted(self.printed_count, 'tile')}"]
        if self.count.count != self.printed_count:
            limit = self.bytes_per_tile
            lines.append(f"Out of memory (recounted for {limit:,} B per tile): {judged}" if limit
                         else f"Out of memory (recounted): {judged}")
        return lines


def judge(report: MemoryReport, count: OutOfMemoryCount, worst: TileBytes | None,
          largest_on_worst: Largest | None = None, worst_ipu: int | None = None,
          symbols_readable: bool = False) -> Verdict:
    """The verdict of ``report``, whose out-of-memory ``count`` and largest tile (``worst``) are computed;
    ``symbols_readable``: whether its tiles' symbols can be read (the next command asks for them)."""
    summary = isinstance(report, SummaryReport)
    look_into = None
    if worst is not None:
        p = report.position
        part = report.module or (f"#{p.index}" if p is not None and p.count > 1 else None)  # one of several
        module = f" --module {shlex.quote(part)}" if part else ""
        symbols = " --symbols 20" if symbols_readable else ""
        look_into = f"memreport {shlex.quote(report.source)}{module} --tile {worst.tile}{symbols}"
    return Verdict(
        count=count, num_tiles=report.num_tiles if report.num_tiles_known else None,
        bytes_per_tile=report.target.bytes_per_tile, worst=worst, largest_on_worst=largest_on_worst,
        worst_ipu=worst_ipu, look_into=look_into,
        printed_count=report.printed.tiles_out_of_memory if summary and report.printed else None,
        message_tiles=message_tiles(report),
        messages=tuple(MessageWords(m, describe(m), next_command(m)) for m in report.oom_messages),
        note=count.note() if summary else None)
