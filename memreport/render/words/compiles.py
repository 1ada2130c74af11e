"""A compile history's verdict and totals."""
from __future__ import annotations

from ...analysis import CompileSummary, CompileTotals
from ...units import count
from .counts import UNKNOWN
from .verdicts import Verdict


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


NBSP = "\xa0"  # holds a count to its noun when a line is wrapped (shown as a space)


def compiles_verdict(summary: CompileSummary) -> Verdict:
    """A compile history's verdict: how many compilations, recompiled or not, unfinished; then how many findings
    of each kind."""
    recompiled = sum(1 for f in summary.findings if f.kind == "recompiled")
    level, first = compiles_headline(summary.totals, recompiled)
    kinds: dict[str, int] = {}
    for f in summary.findings:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    lines = (f"Findings: {', '.join(f'{n:,}{NBSP}{k}' for k, n in kinds.items())}",) if kinds else ()
    return Verdict(level, first, lines, None)


def compiles_headline(totals: CompileTotals, recompiled: int) -> tuple[str, str]:
    """(level, the first line) of a compile history: how many compilations, recompiled or not, unfinished."""
    done = [f"{n:,} {what}" for n, what in ((totals.compiled, "compiled"), (totals.loaded, "from the cache"),
                                             (totals.skipped, "skipped"), (totals.out_of_memory, "out of memory"),
                                             (totals.failed, "failed")) if n]
    first = count(totals.compilations, "compilation") + (f" ({', '.join(done)})" if done else "") + ": " + (
        count(recompiled, "recompilation") + " found" if recompiled else "no recompilation")
    if totals.unfinished:
        first += f", {totals.unfinished:,} unfinished"
    return ("oom" if recompiled or totals.out_of_memory or totals.failed else "ok"), first


