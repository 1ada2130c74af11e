"""The words people read, written once for every output form: verdicts, tiles, diffs and compile histories.

The figures are chosen once, in analysis (``Summary.verdict``...); the text,
the page, the Markdown and the picture take their sentences from here and
only lay them out.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..analysis import Summary
from ..analysis.compiles import CompileTotals
from ..units import count


@dataclass(frozen=True)
class Verdict:
    """``level``: "oom" (tiles out of memory), "ok" (none) or "unknown"; ``lines`` follow the headline."""

    level: str
    headline: str
    lines: tuple[str, ...]
    command: str | None


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


def verdict(summary: Summary) -> Verdict:
    """The verdict of one report, in words (the figures are the Summary's verdict: ``summary.verdict``)."""
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
    return Verdict(level, first, tuple(lines), v.look_into)


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


UNKNOWN = "?"


def seconds(value: float | None) -> str:
    return UNKNOWN if value is None else f"{value:,.3f} s"


def timed(n: int, total_s: float, untimed: int) -> str:
    """How long ``n`` events took in all: "untimed", or the seconds of those timed and how many were not."""
    if untimed == n:
        return "untimed"
    return seconds(total_s) + (f", {untimed:,} untimed" if untimed else "")


def compile_totals(t: CompileTotals) -> str:
    """What the logs hold, by outcome; only what is there ("nothing compiled" when that is what they say)."""
    parts = []
    if t.compiled:
        parts.append(f"{t.compiled:,} compiled ({timed(t.compiled, t.compile_s, t.compile_untimed)})")
    if t.loaded:
        parts.append(f"{t.loaded:,} loaded from a cache or file "
                     f"({timed(t.loaded, t.cache_load_s, t.cache_load_untimed)})")
    if t.compiled_or_loaded:
        parts.append(f"{t.compiled_or_loaded:,} compiled or loaded, the log does not say which ("
                     f"{timed(t.compiled_or_loaded, t.compiled_or_loaded_s, t.compiled_or_loaded_untimed)})")
    if t.skipped:
        parts.append(f"{t.skipped:,} skipped")
    if t.unfinished:
        parts.append(f"{t.unfinished:,} unfinished (not whole in the log, untimed)")
    if not t.compiled and not t.compiled_or_loaded and not t.unfinished:
        parts.insert(0, "nothing compiled")
    if t.loads:
        parts.append(f"{count(t.loads, 'executable load')} ({timed(t.loads, t.load_s, t.load_untimed)})")
    return "Total: " + ", ".join(parts)
