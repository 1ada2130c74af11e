"""The liveness curve in words: its peak step and bytes, the limit where one applies, the variables live there.

Built from a :class:`~memreport.analysis.LivenessCurve`: memory live at each
program step (always-live plus the step's not-always-live bytes). A curve
of a program on one IPU is held against that IPU's memory; a program on
several IPUs sums them, and no limit applies to a sum (the tiles overflow
one by one). Where the source names no variables at a step, that is said.
"""
from __future__ import annotations

from ...analysis import LivenessCurve
from ...units import count

VARIABLES_SHOWN = 5  # variables live at the peak named in a line


def step_name(curve: LivenessCurve, index: int) -> str:
    """``step 212 (fwd/conv2d_7)``: a step by its path in the step tree, with its program's name."""
    name = curve.names[index]
    return f"step {curve.paths[index]}" + (f" ({name})" if name else "")


def what_is_live(curve: LivenessCurve) -> str:
    """What a step's figure adds up."""
    if curve.always_live is None:
        return "not-always-live bytes only (the source has no always-live bytes)"
    return "always-live + the step's not-always-live bytes"


def limit_phrase(curve: LivenessCurve) -> str:
    """The limit the curve is held against, or why there is none."""
    if curve.limit is not None:
        share = curve.peak_share
        return f"{100 * share:.1f}% of the IPU's {curve.limit:,} B" if share is not None else \
            f"the IPU's {curve.limit:,} B"
    if curve.scope == "program":
        ipus = f"{count(curve.num_ipus, 'IPU')}" if curve.num_ipus else "an unknown number of IPUs"
        return f"a sum over {ipus}: no limit applies to it (tiles overflow one by one)"
    return "no limit: bytes per tile unknown"


def peak_phrase(curve: LivenessCurve) -> str:
    """``peak 1,234,567 B at step 212 (fwd) of 400; 45.2% of the IPU's 918,552,576 B``."""
    index, peak = curve.peak_index, curve.peak_bytes
    if index is None or peak is None:
        return "no program step"
    return f"peak {peak:,} B at {step_name(curve, index)} of {curve.live.size:,}; {limit_phrase(curve)}"


def live_at_peak(curve: LivenessCurve, shown: int = VARIABLES_SHOWN) -> str:
    """The variables the source names as live at the peak, largest first, or why none are named."""
    if curve.variables is None:
        return ("variables live at the peak: not in this source (a graph profile's program steps name none; "
                "libpva's notAlwaysLiveMemory.variables does)")
    if not curve.variables:
        return "variables live at the peak: none listed"
    ranked = sorted(curve.variables, key=lambda v: (-v[1], v[0]))
    names = ", ".join(f"{name} ({size:,} B)" for name, size in ranked[:shown])
    more = f", +{len(ranked) - shown:,} more" if len(ranked) > shown else ""
    return f"variables live at the peak: {names}{more}"


def peak_change(old: LivenessCurve | None, new: LivenessCurve | None) -> str | None:
    """A diff's liveness peak: ``Liveness peak: 1,000 B (step 3) → 1,500 B (step 5): +500 B``; None when
    neither side has program steps."""
    if old is None and new is None:
        return None
    sides = []
    for curve in (old, new):
        index, peak = (None, None) if curve is None else (curve.peak_index, curve.peak_bytes)
        sides.append("no program steps" if index is None or peak is None or curve is None
                     else f"{peak:,} B ({step_name(curve, index)})")
    text = f"Liveness peak: {sides[0]} → {sides[1]}"
    if old is not None and new is not None and old.peak_bytes is not None and new.peak_bytes is not None:
        if (old.always_live is None) != (new.always_live is None):
            return text + " (not compared: one side has no always-live bytes)"
        text += f": {new.peak_bytes - old.peak_bytes:+,} B"
    return text
