"""Findings about a run's compilations: repeats, a cache that does not work, hash drift, late compiles, switching.

Pure functions of a :class:`~memreport.model.CompileHistory`. A *process* is
a launcher rank (or an untagged log); consecutive logs are consecutive runs
of the same processes, so a module compiled in a cold run and again in a
warm one is compiled twice. The first execution of a process is taken to be
the end of its first executable load (no line marks a run itself at INFO).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from ..model import Compilation, CompileHistory, ExecutableLoad, Finding, LineRef
from ..units import count
from .results import CompileSummary, CompileTotals, GateResult

REFS_SHOWN = 5
RECOMPILE_GATE = "fail-on-recompile"


def refs_text(refs: Sequence[LineRef], shown: int = REFS_SHOWN) -> str:
    """``a.log:12, a.log:40 and 3 more``."""
    text = ", ".join(str(r) for r in refs[:shown])
    return text + (f" and {len(refs) - shown:,} more" if len(refs) > shown else "")


def _times(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n:,} times"


def _rank(process: str | None) -> str:
    return f" by rank {process}" if process else ""


def _what(c: Compilation) -> str:
    return f"module {c.module}" if c.module else f"executable {c.cache_key or c.hash}"


def _recompiled(compilations: Sequence[Compilation]) -> list[Finding]:
    """The same module (or, unnamed, the same hash) compiled more than once by one process."""
    groups: dict[tuple[str | None, str, str], list[Compilation]] = defaultdict(list)
    for c in compilations:
        if not c.compiles:
            continue
        key = c.module or c.cache_key or c.hash
        if key is not None:
            groups[c.process, "module" if c.module else "hash", key].append(c)
    findings = []
    for (process, _, _), found in groups.items():
        if len(found) < 2:
            continue
        hashes = sorted({c.hash for c in found if c.hash is not None})
        detail = f" with {len(hashes)} different hashes" if len(hashes) > 1 else \
            f" with the same hash {hashes[0]}" if len(hashes) == 1 and found[0].module else ""
        refs = [c.ref for c in found]
        findings.append(Finding("recompiled", f"{_what(found[0])} compiled {_times(len(found))}{_rank(process)}"
                                              f"{detail}: {refs_text(refs)}", tuple(refs)))
    return findings


def _cache_not_working(compilations: Sequence[Compilation]) -> list[Finding]:
    """A hash compiled with the cache on after it was compiled (or loaded) with the cache on before."""
    first: dict[str, Compilation] = {}
    again: dict[str, list[Compilation]] = defaultdict(list)
    for c in compilations:
        key = c.cache_key
        if key is None:
            continue
        if key in first and c.compiles and c.cache == "miss":
            again[key].append(c)
        elif key not in first and c.cache in ("hit", "miss") and c.result in ("compiled", "precompiled", "loaded") \
                and not c.not_cacheable:
            first[key] = c
    findings = []
    for key, found in again.items():
        cached = first[key]
        how = "loaded from the cache" if cached.result == "loaded" else "compiled with the cache on"
        refs = [cached.ref] + [c.ref for c in found]
        findings.append(Finding(
            "cache-not-working",
            f"{_what(found[0])} compiled again {_times(len(found))} with the cache on ({refs_text(refs[1:])}) "
            f"although it was {how} at {cached.ref}: the cache is not working (is its directory kept between "
            "runs, shared by every process and writable?)", tuple(refs)))
    return findings


def _hash_drift(compilations: Sequence[Compilation]) -> list[Finding]:
    """One module with several hashes: a new program each time."""
    seen: dict[str, dict[str, Compilation]] = defaultdict(dict)
    for c in compilations:
        if c.module and c.hash and c.result in ("compiled", "precompiled", "loaded"):
            seen[c.module].setdefault(c.hash, c)
    findings = []
    for module, by_hash in seen.items():
        if len(by_hash) < 2:
            continue
        hashes = ", ".join(by_hash)
        refs = [c.ref for c in by_hash.values()]
        findings.append(Finding(
            "hash-drift",
            f"module {module} has {len(by_hash)} different hashes ({hashes}): each is a new program; its shapes, "
            f"batch size or constants changed (the usual causes in Graphcore's recompilation note): "
            f"{refs_text(refs)}", tuple(refs)))
    return findings


def _by_process(items: Iterable, ) -> dict[tuple[str, str | None], list]:
    groups: dict[tuple[str, str | None], list] = defaultdict(list)
    for item in items:
        groups[item.source, item.process].append(item)
    return groups


def _late(compilations: Sequence[Compilation], loads: Sequence[ExecutableLoad]) -> list[Finding]:
    """Compilations that began after the process's first executable load ended (after it started running)."""
    loads_of = _by_process(loads)
    findings = []
    for (source, process), found in _by_process(compilations).items():
        first_loads = loads_of.get((source, process))
        if not first_loads:
            continue
        first = first_loads[0]
        late = [c for c in found if c.compiles and c.line > first.end_line]
        if not late:
            continue
        refs = [c.ref for c in late]
        findings.append(Finding(
            "late-compile",
            f"{count(len(late), 'compilation')}{_rank(process)} began after the first executable load ended at "
            f"{LineRef(source, first.end_line)} (after warm-up): {refs_text(refs)}",
            (LineRef(source, first.end_line), *refs)))
    return findings


def _switching(loads: Sequence[ExecutableLoad]) -> list[Finding]:
    """Loads with no compilation since the previous load: the run switches between executables."""
    findings = []
    for (_, process), found in _by_process(loads).items():
        reloads = [ld for ld in found if ld.reload]
        if not reloads:
            continue
        known = [ld.duration_s for ld in reloads if ld.duration_s is not None]
        spent = f", {sum(known):,.3f} s" + (" of those timed" if len(known) < len(reloads) else "") if known else ""
        refs = [ld.ref for ld in reloads]
        findings.append(Finding(
            "executable-switching",
            f"{count(len(reloads), 'executable load')}{_rank(process)} with no compilation since the previous load"
            f"{spent}: the run switches between executables, reloading one onto the IPUs each time: "
            f"{refs_text(refs)}", tuple(refs)))
    return findings


def _not_cacheable(compilations: Sequence[Compilation]) -> list[Finding]:
    findings = []
    for c in compilations:
        if c.not_cacheable:
            findings.append(Finding(
                "not-cacheable",
                f"{_what(c) if c.module else 'a program'} at {c.ref} cannot be cached: it holds custom user "
                "operations not marked hashable ('is_hashable'), so every run compiles it again", (c.ref,)))
    return findings


def _sum(values: Iterable[float | None]) -> tuple[float, int]:
    known, unknown = 0.0, 0
    for v in values:
        if v is None:
            unknown += 1
        else:
            known += v
    return round(known, 6), unknown


def compile_totals(history: CompileHistory) -> CompileTotals:
    """Counts by outcome and the time spent compiling, loading from the cache and loading onto the IPUs."""
    cs = history.compilations
    compiled = [c for c in cs if c.compiles]
    loaded = [c for c in cs if c.result == "loaded"]
    either = [c for c in cs if c.result is None and not c.unfinished]
    compile_s, compile_untimed = _sum(c.duration_s for c in compiled)
    cache_s, cache_untimed = _sum(c.duration_s for c in loaded)
    either_s, either_untimed = _sum(c.duration_s for c in either)
    load_s, load_untimed = _sum(ld.duration_s for ld in history.loads)
    return CompileTotals(len(cs), len(compiled), len(loaded), sum(c.result == "skipped" for c in cs),
                         sum(c.unfinished for c in cs), compile_s, compile_untimed, cache_s, cache_untimed,
                         len(history.loads), sum(ld.reload for ld in history.loads), load_s, load_untimed,
                         len(either), either_s, either_untimed, sum(c.result == "out of memory" for c in cs),
                         sum(c.result == "failed" for c in cs))


def _notes(history: CompileHistory) -> list[str]:
    cs = history.compilations
    notes = []
    anonymous = [c for c in cs if c.module is None and c.hash is None and c.cache_key is None]
    if anonymous:
        notes.append(f"{count(len(anonymous), 'compilation')} with no module and no hash: repeats among them cannot "
                     "be told apart (Poplar's lines name neither; TensorFlow's VLOG lines, "
                     "TF_CPP_VMODULE=poplar_compiler=1, name modules; PopART names a hash only in a cache file name)")
    cut_end = [c for c in cs if not c.end_in_log]
    if cut_end:
        them = "it" if len(cut_end) == 1 else "them"
        notes.append(f"{count(len(cut_end), 'compilation')} did not end in the log (the run stopped or failed "
                     f"during {them}, or the log ends there), untimed: {refs_text([c.ref for c in cut_end])}")
    cut_start = [c for c in cs if not c.start_in_log]
    if cut_start:
        notes.append(f"{count(len(cut_start), 'compilation')} began before the log did (a fragment of a log), "
                     f"untimed: {refs_text([c.ref for c in cut_start])}")
    notes += _repeated(history)
    if cs and not history.loads:
        notes.append("no executable loads in the logs (Poplar's 'Loading executable' phase, "
                     "POPLAR_LOG_LEVEL=INFO): compilations after the first run and executable switching are not "
                     "judged")
    return notes


def _repeated(history: CompileHistory) -> list[str]:
    """A note for each log given more than once: one file, read once."""
    names: dict[str, list[str]] = defaultdict(list)
    for name, first in history.repeated:
        names[first].append(name)
    return [f"{first} is given {_times(len(again) + 1)} (as {', '.join([first, *again])}): one file, read once"
            for first, again in names.items()]


def summarize_compiles(history: CompileHistory) -> CompileSummary:
    """Every finding, the totals and the notes of a history."""
    cs, loads = history.compilations, history.loads
    findings = (_recompiled(cs) + _cache_not_working(cs) + _hash_drift(cs) + _late(cs, loads)
                + _switching(loads) + _not_cacheable(cs))
    return CompileSummary(history, tuple(findings), compile_totals(history), tuple(_notes(history)))


def check_recompile(summary: CompileSummary) -> list[GateResult]:
    """``--fail-on-recompile``: one failed result per module or hash compiled more than once by one process."""
    source = ", ".join(log.source for log in summary.history.logs)
    failed = [GateResult(RECOMPILE_GATE, source, True, None, finding=f.message)
              for f in summary.findings if f.kind == "recompiled"]
    return failed or [GateResult(RECOMPILE_GATE, source, False)]
