"""A report's verdict, its target, its notes, its picture's title, and the verdict over several reports."""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis import Summary
from ...model import Target
from ...units import count
from .counts import (
    count_lines,
    count_note,
    count_title,
    look_into,
    next_commands,
    partial_reason,
    reason,
)


@dataclass(frozen=True)
class Verdict:
    """A report's verdict in words: ``level`` "oom" (tiles out of memory), "ok" (none) or "unknown"; the
    ``headline``; the ``lines`` under it; the ``command`` to run next."""

    level: str
    headline: str
    lines: tuple[str, ...]
    command: str | None


def _noun(n: int, of: str) -> str:
    """The noun after a count: "1 tile", "2 tiles", "1 of 1,472 tiles"."""
    return "tile" if n == 1 and not of else "tiles"


def headline(summary: Summary) -> tuple[str, str]:
    """(level, the first line): how many tiles are out of memory, of how many."""
    oom, tiles = summary.oom, summary.verdict.num_tiles
    of = f" of {tiles:,}" if tiles is not None else ""
    if oom.count is not None:
        stated = f", as {summary.verdict.stated_by} states" if summary.verdict.stated_by else ""
        return ("oom" if oom.count else "ok"), f"{oom.count:,}{of} {_noun(oom.count, of)} out of memory{stated}"
    if oom.at_least:
        return "oom", f"At least {oom.at_least:,}{of} {_noun(oom.at_least, of)} out of memory"
    return "unknown", "Tiles out of memory: unknown" + (f" ({reason(oom.reason)})" if oom.reason else "")


def verdict(summary: Summary) -> Verdict:
    """The verdict of one report: at most three lines under the headline, and the command to run next (the
    worst tile's, else what the out-of-memory messages suggest)."""
    v = summary.verdict
    level, first = headline(summary)
    lines: list[str] = []
    worst, limit = v.worst, v.bytes_per_tile
    if worst is not None:
        ipu = f" (IPU {v.worst_ipu})" if v.worst_ipu is not None else ""
        line = f"Worst tile: {worst.tile}{ipu}, {worst.bytes:,} B excluding gaps"
        if limit and v.share is not None:
            line += f", {100 * v.share:.1f}% of {limit:,} B: " + (f"{v.excess:,} B over" if v.excess else
                                                                  f"{v.free:,} B free")
        lines.append(line)
        largest = v.largest_on_worst
        if largest is not None:
            where = f" ({largest.section})" if largest.section else ""
            lines.append(f"Largest on it: {largest.kind} {largest.name}{where} {largest.bytes:,} B")
    command = look_into(v.look_into) if v.look_into is not None else next(iter(next_commands(v.messages)), None)
    return Verdict(level, first, tuple(lines), command)


def target(summary: Summary) -> str:
    """The target in one line: arch, IPUs x tiles, bytes per tile, clock."""
    report = summary.report
    t: Target = report.target
    parts = [t.arch or "arch unknown"]
    bound = summary.tiles_at_least
    if bound is not None:  # what the numbers imply: whole IPUs, enough for the highest tile named
        parts.append(f"at least {bound.tiles:,} tiles ({count(bound.ipus, 'IPU')} x {bound.tiles_per_ipu:,}; "
                     "not stated)")
    elif not report.num_tiles_known:
        parts.append("tiles unknown" + (f" ({t.tiles_per_ipu:,} per IPU)" if t.tiles_per_ipu else ""))
    elif t.num_ipus and t.tiles_per_ipu and t.num_ipus * t.tiles_per_ipu == t.num_tiles:
        parts.append(f"{count(t.num_ipus, 'IPU')} x {count(t.tiles_per_ipu, 'tile')} "
                     f"= {count(t.num_tiles, 'tile')}")
    elif t.tiles_per_ipu:
        parts.append(f"{count(t.num_tiles, 'tile')} ({t.tiles_per_ipu:,} per IPU)")
    else:
        parts.append(count(t.num_tiles, "tile"))
    if t.bytes_per_tile is not None:
        parts.append(f"{t.bytes_per_tile:,} B ({t.bytes_per_tile / 1024:,.1f} KiB) per tile")
    else:
        parts.append("bytes per tile unknown")
    if t.clock_hz:
        parts.append(f"{t.clock_hz / 1e6:,.1f} MHz")
    return ", ".join(parts)


def report_notes(summary: Summary) -> list[str]:
    """A report's notes: its source's, the summary's, and why its count is judged."""
    note = count_note(summary.oom) if summary.verdict.judged else None
    return [*summary.report.notes, *([note] if note else []), *summary.notes]


def _kib(nbytes: int | float) -> str:
    return f"{nbytes / 1024:,.1f} KiB"


def picture_title(summary: Summary) -> list[str]:
    """A picture's line under its title, in parts: arch, tiles, tile memory, the largest tile, the count."""
    report = summary.report
    t = report.target
    parts = [t.arch] if t.arch else []
    bound = summary.tiles_at_least
    if bound is not None:
        parts.append(f"at least {bound.tiles:,} tiles")
    elif not report.num_tiles_known:
        parts.append("tiles unknown")
    elif t.num_ipus and t.tiles_per_ipu and t.num_ipus * t.tiles_per_ipu == t.num_tiles:
        parts.append(f"{count(t.num_ipus, 'IPU')} × {count(t.tiles_per_ipu, 'tile')}")
    else:
        parts.append(count(t.num_tiles, "tile"))
    parts.append(f"{_kib(t.bytes_per_tile)} per tile" if t.bytes_per_tile else "bytes per tile unknown")
    peak = summary.max_excluding_gaps
    if peak is not None:
        share = f" ({100 * peak.bytes / t.bytes_per_tile:.1f}%)" if t.bytes_per_tile else ""
        parts.append(f"max {_kib(peak.bytes)}{share} on tile {peak.tile}")
    parts.append(count_title(summary.oom))
    return parts


def picture_partial_note(summary: Summary) -> str | None:
    """Why a picture's per-tile view is partial (None when it is not)."""
    p = summary.partial
    if p is None:
        return None
    if p.kind == "damaged members":
        return (f"{p.skipped:,} damaged member(s) skipped; their tiles' memory is unknown: marked x at 0, "
                "counted in no figure")
    if p.kind == "messages only":
        return "this log holds no memory summary, only out-of-memory messages"
    if p.kind == "text summary":
        return "this source printed a histogram, maxima and at most a few detailed tiles, not every tile's memory"
    return partial_reason(p)


def printed_lines(summary: Summary) -> list[str]:
    """What a partial source printed, and what it leaves out (the picture's "As printed" panel)."""
    report = summary.report
    lines = []
    hist = summary.histogram
    if hist is not None:
        lines.append(f"Histogram:  {hist.total:,} tiles in {len(hist.bins)} bins of {hist.bin_kib} KiB"
                     + (" (rows left out)" if hist.elided_before else ""))
    for label, peak in (("incl. gaps", summary.max_including_gaps), ("excl. gaps", summary.max_excluding_gaps)):
        if peak is not None:
            lines.append(f"Max {label}: {peak.bytes:,} B ({_kib(peak.bytes)}) on tile {peak.tile}")
    lines += count_lines(summary)  # what was printed, as printed; a recount only beside it, labelled
    lines.append(f"Detailed tiles: {len(summary.detailed)} of "
                 + (f"{report.num_tiles:,}" if report.num_tiles_known else "an unknown tile count"))
    messages = summary.verdict.messages
    if messages:
        named = sorted(summary.verdict.message_tiles)
        lines.append(f"Out-of-memory messages: {len(messages):,}"
                     + (f" (tiles {', '.join(map(str, named[:6]))}{', ...' if len(named) > 6 else ''})"
                        if named else ""))
    if summary.histogram is None and messages:  # the picture drew the messages' tiles above
        lines += ["", "No per-tile line or heat map: out-of-memory",
                  "messages name a few tiles, not every tile's",
                  "memory. An ELF archive or a graph profile",
                  "of the same program holds it."]
    else:
        lines += ["", "No per-tile line or heat map: a text summary",
                  "does not print every tile's memory. An ELF",
                  "archive or a graph profile of the same",
                  "program holds it."]
    return lines
