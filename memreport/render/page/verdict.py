"""The verdict: the answer first, in at most four lines (how many tiles are over, the worst, what is on it,
what to run next).

Issue 24 will bring a verdict block as a Summary field; until then it is
computed here, from the Summary alone, and the page and the Markdown both
take it from :func:`verdict` (the one place to swap when that field lands).
"""
from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from ...analysis import Summary, TopTile


@dataclass(frozen=True)
class Verdict:
    """``level``: "oom" (tiles out of memory), "ok" (none) or "unknown"; ``lines`` follow the headline."""

    level: str
    headline: str
    lines: tuple[str, ...]
    command: str | None


def _tile_record(summary: Summary, tile: int) -> TopTile | None:
    for t in (*summary.top, *summary.selected, *summary.stated):
        if t.tile == tile:
            return t
    return None


def _largest_on(t: TopTile | None, kind: str) -> str | None:
    """The largest thing on a tile: its largest symbol where symbols were read, else its largest item."""
    if t is None:
        return None
    if t.symbols is not None and t.symbols.symbols:
        s = max(t.symbols.symbols, key=lambda s: s.size)
        return f"symbol {s.display_name} ({s.section}) {s.size:,} B"
    sized = [(name, size) for name, size in t.breakdown.items() if size]
    if sized:
        name, size = max(sized, key=lambda kv: kv[1])
        return f"{kind} {name} {size:,} B"
    return None


def _noun(n: int, of: str) -> str:
    """The noun after a count: "1 tile", "2 tiles", "1 of 1,472 tiles"."""
    return "tile" if n == 1 and not of else "tiles"


def headline(summary: Summary) -> tuple[str, str]:
    """(level, the first line): how many tiles are out of memory, of how many."""
    report, oom = summary.report, summary.oom
    of = f" of {report.num_tiles:,}" if report.num_tiles_known else ""
    if oom.count is not None:
        return ("oom" if oom.count else "ok"), f"{oom.count:,}{of} {_noun(oom.count, of)} out of memory"
    if oom.at_least:
        return "oom", f"At least {oom.at_least:,}{of} {_noun(oom.at_least, of)} out of memory"
    return "unknown", "Tiles out of memory: unknown" + (f" ({oom.reason})" if oom.reason else "")


def command(summary: Summary, tile: int | None) -> str | None:
    """The memreport command that looks into ``tile`` (None without one)."""
    report = summary.report
    if tile is None:
        return None
    module = f" --module {shlex.quote(report.module)}" if report.module else ""
    symbols = " --symbols 20" if summary.symbols_readable else ""
    return f"memreport {shlex.quote(report.source)}{module} --tile {tile}{symbols}"


def verdict(summary: Summary) -> Verdict:
    """The verdict of one report."""
    report = summary.report
    level, first = headline(summary)
    lines: list[str] = []
    worst = summary.max_excluding_gaps
    limit = report.target.bytes_per_tile
    if worst is not None:
        record = _tile_record(summary, worst.tile)
        ipu = f" (IPU {record.ipu})" if record is not None and record.ipu is not None else ""
        line = f"Worst tile: {worst.tile}{ipu}, {worst.bytes:,} B excluding gaps"
        if limit:
            share = 100 * worst.bytes / limit
            over = worst.bytes - limit
            line += (f", {share:.1f}% of {limit:,} B: " +
                     (f"{over:,} B over" if over > 0 else f"{-over:,} B free"))
        lines.append(line)
        largest = _largest_on(record, report.breakdown_kind)
        if largest:
            lines.append(f"Largest on it: {largest}")
    next_command = command(summary, worst.tile if worst is not None else None)
    return Verdict(level, first, tuple(lines), next_command)


def _tiles(n: int) -> str:
    return f"{n:,} tile" + ("" if n == 1 else "s")


def diff_headline(newly: Iterable[int] | None, num_changed: int, grown: int, shrunk: int) -> tuple[str, str]:
    """(level, the first line) of a diff: newly out-of-memory tiles first, then how many tiles changed."""
    newly = None if newly is None else list(newly)
    changed = f"{_tiles(num_changed)} changed ({grown:,} grew, {shrunk:,} shrank)"
    if newly is None:
        return "unknown", f"{changed}; newly out of memory: unknown (bytes per tile unknown)"
    if newly:
        return "oom", f"{_tiles(len(newly))} newly out of memory; {changed}"
    return "ok", f"No tile newly out of memory; {changed}"
