"""The fit plan in words: what to move off each tile over its limit, and what would name it where nothing does.

Built from :class:`~memreport.analysis.FitPlan` facts only (the tile, the
gap, the items chosen, what they free, whether the figures are exact), so
every form says the same: ``To fit tile 0: move momentum (160,000 B, .bss)
off it; that frees 160,000 B of the 71,142 B over.`` A plan by category
(a profile, a text summary) says it cannot name what to move and which
input would; a plan of estimated bytes (a tensor map) says "about".
"""
from __future__ import annotations

from collections.abc import Sequence

from ...analysis import FitChange, FitItem, FitNeeds, FitPlan, Summary
from ...units import count

PLANS_SHOWN = 3  # plans the text, the Markdown and the verdict block show before "N more tiles"

# The inputs that name a tile's items (FitNeeds.inputs), as people know them.
INPUTS = {"lowered variables": "a lowered-variables report (debug.loweredVarDumpFile with a .json name)",
          "archive": "the archive.a of the same program (autoReport.all, target.saveArchive)",
          "tensor map": "a tensor map (--tensor-map: estimated bytes)"}
# What a plan's items are, when they are not things a program names.
BY = {"sections": "section", "categories": "category", "data types": "data type"}
UNNAMED = {"symbols": "sized symbol", "variables": "variable", "tensors": "tensor of known size",
           "sections": "section", "categories": "category", "data types": "data type"}


def _bytes(n: int, exact: bool) -> str:
    return f"{n:,} B" if exact else f"about {n:,} B"


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def item_phrase(item: FitItem) -> str:
    """``momentum (160,000 B, .bss)``: the item, its bytes, where it lives and its class where its source says
    (estimated bytes say so)."""
    said = "" if item.liveness == "unknown" else f", {item.liveness}"
    return f"{item.name} ({_bytes(item.bytes, item.exact)}{'' if item.exact else ' estimated'}, {item.kind}{said})"


def inputs_phrase(inputs: Sequence[str]) -> str:
    """"a lowered-variables report (...) or the archive.a of the same program"."""
    named = [INPUTS[i] for i in inputs]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " or " + named[-1]


def needs_phrase(needs: FitNeeds) -> str | None:
    """Why a report's plans name no items, and what would: a sentence after its plans (None when nothing would
    name them, or no plan is possible: the verdict says why)."""
    if not needs.inputs:
        return None
    if needs.why in ("messages only", "not detailed"):
        return f"No input read names what is on these tiles: {inputs_phrase(needs.inputs)} does."
    by = {"by section": "sections", "by category": "categories", "by data type": "data types"}.get(needs.why, "")
    return f"These plans move whole {by}, not named things: {inputs_phrase(needs.inputs)} names what is in them."


def _aim(plan: FitPlan, headroom: int | None) -> tuple[str, str]:
    """(what the plan is for, what the gap is called): "To fit tile 0" and "over", or for a headroom budget
    "To leave 10,000 B free on tile 0" and "short"."""
    if plan.budget == "headroom" and headroom:
        return f"To leave {headroom:,} B free on tile {plan.tile}", "short"
    return f"To fit tile {plan.tile}", "over"


def plan_sentence(plan: FitPlan, needs: FitNeeds | None = None, headroom: int | None = None) -> str:
    """One tile's plan as a sentence (see the module's notes)."""
    aim, gap_word = _aim(plan, headroom)
    gap = f"the {plan.over_by:,} B {gap_word}"
    exact = all(i.exact for i in plan.items)
    if not plan.items:
        held = ("nothing read names what is on it" if not plan.candidates else
                f"no {UNNAMED.get(plan.source, 'item')} on it frees anything")
        return f"{aim}: {plan.over_by:,} B {gap_word}; {held}."
    listed = _and([item_phrase(i) for i in plan.items])
    if plan.source in BY:  # categories: whole kinds of memory, not things to move
        text = f"{aim}: free {gap} from {listed}"
        if plan.source == "sections" and needs is None:  # an archive whose symbols were not read for this tile
            text += f" (no symbol of tile {plan.tile} was read: --tile {plan.tile} --symbols 20 lists them)"
        return text + "."
    if not plan.closes_gap:
        return (f"{aim}: moving every {UNNAMED.get(plan.source, 'item')} named on it ({listed}) frees only "
                f"{_bytes(plan.frees, exact)} of {gap}: the rest is in nothing named.")
    text = f"{aim}: move {listed} off it; that frees {_bytes(plan.frees, exact)} of {gap}"
    if not plan.optimal:
        text += f" (no plan of fewer than {count(plan.at_least or 0, 'item')} closes it; fewer bytes may)"
    return text + "."


def plan_lines(summary: Summary, shown: int = PLANS_SHOWN) -> list[str]:
    """The plans of a report's worst tiles, a sentence each, then how many more there are (nothing when no tile
    is over, or the report cannot plan)."""
    plans = summary.fit_plans or ()
    lines = [plan_sentence(p, summary.fit_needs, summary.headroom) for p in plans[:shown]]
    over = max(summary.fit_over or 0, len(plans))
    if over > shown:
        lines.append(more_plans(over - shown, len(plans) - shown))
    needs = summary.fit_needs
    why = needs_phrase(needs) if plans and needs is not None else None
    return lines + ([why] if why else [])


def more_plans(n: int, planned: int | None = None) -> str:
    """``N more tiles: --format json lists every plan`` (of the ``planned`` worst of them, when not of all)."""
    if planned is None or planned >= n:
        return f"{count(n, 'more tile')}: --format json lists every plan."
    return f"{count(n, 'more tile')}: --format json lists the plans of the {planned:,} worst of them."


def plan_change(change: FitChange) -> str:
    """A tile over in both builds: how its plan changed (items, bytes over)."""
    old, new = change.old, change.new
    word = "grew" if change.grew else "shrank" if change.shrank else "held"
    if not change.items_compared:  # one side names no items, or names other things: only the gap compares
        word += f"; items not compared: OLD's are {old.source or 'not named'}, NEW's {new.source or 'not named'}"
    return (f"tile {change.tile}: {count(len(old.items), 'item')}, {old.over_by:,} B over → "
            f"{count(len(new.items), 'item')}, {new.over_by:,} B over ({word})")


def plan_changes_lines(changes: Sequence[FitChange] | None, shown: int = PLANS_SHOWN) -> list[str]:
    """A diff's plans for the tiles over in both builds: how many grew in NEW, and the first few of those."""
    if not changes:
        return []
    grew = [c for c in changes if c.grew]
    lines = [f"Fit plans of the {count(len(changes), 'tile')} over in both builds: "
             + (f"{len(grew):,} grew in NEW (more items to move or more bytes over)" if grew else
                "none grew in NEW (no more items to move, no more bytes over)")]
    lines += [plan_change(c) for c in grew[:shown]]
    if len(grew) > shown:
        lines.append(f"{count(len(grew) - shown, 'more tile')} grew: --format json lists every plan.")
    return lines
