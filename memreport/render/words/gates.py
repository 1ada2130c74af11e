"""Every gate's message: why it failed, or why it cannot judge; and which gates a report was judged by, each with
where it was set (a budget file's line and key, or the command line)."""
from __future__ import annotations

from collections.abc import Sequence

from ...analysis import GateResult
from ...analysis.results import GateSetting, Offender
from ...config import Origin
from ...units import Percent
from .counts import basis, partial_reason, reason


def _offenders(worst: Sequence[Offender], failing: int | None, phrase: str = "by {excess:,} B") -> str:
    shown = ", ".join(f"tile {o.tile} " + phrase.format(excess=o.excess, value=o.value) for o in worst)
    more = (failing or 0) - len(worst)
    return shown + (f" and {more:,} more" if more > 0 else "")


def _budget(r: GateResult) -> str:
    """The budget as the user gave it, with its bytes when it is a percent."""
    if r.gate == "max-tile":
        if isinstance(r.budget, Percent):
            return f"above --max-tile {r.budget} ({r.limit:,} B of {r.per_tile:,} B)"
        return f"above --max-tile {r.limit:,} B"
    shown = f"{r.budget} ({r.limit:,} B)" if isinstance(r.budget, Percent) else f"{r.limit:,} B"
    return f"with less than {shown} free of {r.per_tile:,} B"


def _partials(r: GateResult) -> str:
    return "; ".join(dict.fromkeys(partial_reason(p) for p in r.partial))


def origin_phrase(origin: Origin | None) -> str:
    """Where a gate was set: ``from .memreport.toml, line 3, gates.max-tile``, or ``from the command line``."""
    if origin is None:
        return "from the command line"
    return f"from {origin.path}" + (f", line {origin.line:,}" if origin.line else "") + f", {origin.key}"


def gate_setting(s: GateSetting) -> str:
    """A gate in force with where it was set: ``--max-tile 90% (from .memreport.toml, line 3, gates.max-tile)``
    (a size in bytes, a flag alone)."""
    value = "" if s.value is True else f" {s.value}" if isinstance(s.value, Percent) else f" {s.value:,} B"
    return f"--{s.gate}{value} ({origin_phrase(s.origin)})"


def gates_line(settings: Sequence[GateSetting]) -> str | None:
    """The gates a report (a diff, a trend...) was judged by, for the line under its verdict; None for none."""
    return "; ".join(map(gate_setting, settings)) or None


def gate_message(r: GateResult) -> str:
    """One line for stderr: why a gate failed, or why it cannot judge (empty when it passed); a gate a budget
    file set says where."""
    message = _message(r)
    if message and r.origin is not None:
        message += f" (--{r.gate} {origin_phrase(r.origin)})"
    return message


def _message(r: GateResult) -> str:
    if r.failed is None:
        return _cannot_judge(r)
    if not r.failed:
        return ""
    if r.gate == "fail-on-recompile":
        return f"--fail-on-recompile: {r.finding}"
    if r.gate == "fail-on-oom":
        return _oom_gate(r)
    if r.gate == "fail-on-growth":
        return _growth_gate(r)
    what, phrase = _budget(r), "by {excess:,} B" if r.gate == "max-tile" else "short by {excess:,} B"
    if r.failing_tiles is None:  # a text summary: what its maximum and detailed tiles show
        return (f"at least {r.compared or 0:,} tile(s) {what} in {r.source} (from its printed maximum "
                f"(excluding gaps) and detailed tiles; {_partials(r)}): {_offenders(r.worst, r.compared, phrase)}")
    return f"{r.failing_tiles:,} tile(s) {what} in {r.source}: {_offenders(r.worst, r.failing_tiles, phrase)}"


def _oom_gate(r: GateResult) -> str:
    c = r.count
    assert c is not None
    if not r.partial:  # every tile's bytes
        return f"{c.count:,} tile(s) out of memory in {r.source}: {_offenders(r.worst, c.count)}"
    shown = ([_offenders(r.worst, len(r.worst))] if r.worst else []) + \
        ([f"tile(s) {', '.join(map(str, r.named))} (named by its out-of-memory messages)"] if r.named else [])
    more = (c.count or c.at_least) - len(r.worst) - len(r.named)
    which = (": " + ", ".join(shown) + (f" and {more:,} more" if more > 0 else "")) if shown else \
        "; neither its detailed tiles nor its maximum say which"
    if r.printed:
        return f"{c.count:,} tile(s) out of memory in {r.source} (the count it printed; {_partials(r)}){which}"
    figure = f"{c.count:,}" if c.count is not None else f"at least {c.at_least:,}"
    why = reason(c.reason) if c.reason is not None else ""
    return f"{figure} tile(s) out of memory in {r.source} ({basis(c)}; {why}){which}"


def _growth_limit(r: GateResult) -> str:
    if isinstance(r.budget, Percent):
        return f"{r.budget} of {r.per_tile:,} B ({r.limit:,} B)"
    return f"{r.limit:,} B"


def _growth_gate(r: GateResult) -> str:
    partial = "" if not r.partial else \
        f" (of the {r.compared:,} tile(s) whose bytes both sides state; {_partials(r)})"
    if r.peaks is not None:
        old_peak, new_peak = r.peaks
        grew = new_peak.bytes - old_peak.bytes
        return (f"the largest tile grew by {grew:,} B (more than {_growth_limit(r)}) from {r.old} to {r.new}: "
                f"{old_peak.bytes:,} B on tile {old_peak.tile} -> {new_peak.bytes:,} B on tile {new_peak.tile} "
                f"(the maxima as printed{partial})")
    return (f"{r.failing_tiles:,} tile(s) grew by more than {_growth_limit(r)} from {r.old} to {r.new}{partial}: "
            f"{_offenders(r.worst, r.failing_tiles, 'by {value:,} B')}")


def _cannot_judge(r: GateResult) -> str:
    if r.why == "count unknown":
        why = reason(r.count.reason) if r.count is not None and r.count.reason is not None else "unknown"
        return f"--fail-on-oom: {r.source}: out-of-memory tiles unknown ({why})"
    if r.why == "percent of unknown":
        return (f"--{r.gate} {r.budget}: {r.source}: bytes per tile unknown, so a percent of them is too (give "
                "--tile-memory or --arch, or a budget in bytes)")
    if r.why == "bytes per tile unknown":
        return f"--{r.gate}: {r.source}: bytes per tile unknown (give --tile-memory or --arch)"
    if r.why == "no maximum":
        return f"--{r.gate}: {r.source} printed no maximum (excluding gaps)"
    if r.why == "nothing compared":
        return (f"--fail-on-growth: {r.source}: no tile's bytes are stated by both sides "
                f"({_partials(r) or 'no tile is known on both sides'}): nothing to judge")
    return f"--{r.gate}: {r.source}: {_partials(r)}"
