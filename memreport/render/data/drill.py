"""Below the tile, as JSON: liveness, symbol tables, lowered variables and the fit plans (the text's are in
:mod:`..text.drill`)."""
from __future__ import annotations

from ...analysis import FitNeeds, LivenessCurve, Summary
from ...analysis.liveness import Liveness, LivenessSummary
from ...model import TileSymbols, VariableRow
from ..words.fit import needs_phrase, plan_sentence
from ..words.liveness import live_at_peak, peak_phrase

# -- JSON ---------------------------------------------------------------------------------------------


def liveness_json(live: Liveness | None) -> dict | None:
    if live is None:
        return None
    share = live.always_live_share
    return {"always_live": live.always_live, "not_always_live": live.not_always_live, "basis": live.basis,
            "always_live_share": None if share is None else round(share, 6), "pressure": live.pressure}


def symbol_json(symbol, whole: int | None) -> dict:
    record = {"name": symbol.name, "demangled": symbol.demangled, "section": symbol.section, "size": symbol.size,
              "address": symbol.address, "kind": symbol.kind, "binding": symbol.binding}
    if whole is not None:
        record["share"] = round(symbol.size / whole, 6) if whole else None
    return record


def symbols_json(table: TileSymbols | None, whole: int | None, limit: int | None) -> dict | None:
    """A tile's symbol table as JSON (its ``limit`` largest symbols; all when None)."""
    if table is None:
        return None
    shown = table.largest(limit)
    return {"member": table.member, "has_symbol_table": table.has_symbol_table,
            "sections": dict(table.sections), "attributed": dict(table.attributed),
            "unattributed": table.unattributed, "attributed_bytes": table.attributed_bytes,
            "unattributed_bytes": table.unattributed_bytes, "num_symbols": table.num_symbols,
            "symbol_bytes": table.symbol_bytes,
            "symbols": [symbol_json(s, whole) for s in shown.symbols],
            "unsized": [symbol_json(s, None) for s in table.unsized],
            "notes": list(table.notes)}


def liveness_summary_json(live: LivenessSummary | None) -> dict | None:
    if live is None:
        return None
    peak = live.peak
    return {**(liveness_json(live.total) or {"always_live": None, "not_always_live": None, "basis": None,
                                             "always_live_share": None, "pressure": None}),
            "top_tiles_pressure": dict(live.top_pressure), "program_steps": live.num_steps,
            "peak_step": None if peak is None else {"step": peak.step, "name": peak.name, "bytes": peak.bytes},
            "peak_live_bytes": live.peak_live_bytes, "curve": curve_json(live.curve)}


def curve_json(curve: LivenessCurve | None) -> dict | None:
    """The liveness curve's peak and limit (the steps themselves are the report's ``liveness_steps``)."""
    if curve is None:
        return None
    index = curve.peak_index
    share = curve.peak_share
    return {"steps": int(curve.live.size), "always_live": curve.always_live,
            "peak": None if index is None else {
                "index": index, "step": curve.paths[index], "name": curve.names[index],
                "bytes": int(curve.live[index]), "not_always_live": int(curve.not_always_live[index]),
                "share": None if share is None else round(share, 6),
                "variables": None if curve.variables is None else [{"name": n, "bytes": b}
                                                                    for n, b in curve.variables]},
            "scope": curve.scope, "limit": curve.limit, "num_ipus": curve.num_ipus,
            "description": f"{peak_phrase(curve)}; {live_at_peak(curve)}"}


def variables_json(rows: tuple[VariableRow, ...] | None, whole: int | None, limit: int | None) -> list | None:
    """A tile's lowered variables, largest first (its ``limit`` largest; all when None)."""
    if rows is None:
        return None
    return [{"name": v.name, "category": v.category, "bytes": v.bytes, "offset": v.offset,
             "always_live": v.always_live, "interleaved": v.interleaved, "frees": v.frees,
             "equivalence_class": v.equivalence_class,
             "share": None if not whole else round(v.bytes / whole, 6)}
            for v in (rows if limit is None else rows[:limit])]


def needs_json(needs: FitNeeds | None) -> dict | None:
    if needs is None:
        return None
    return {"why": needs.why, "inputs": list(needs.inputs), "description": needs_phrase(needs)}


def fit_json(summary: Summary) -> dict:
    """The fit plans (null where the report cannot plan, [] where no tile is over) and why they name no items."""
    plans = summary.fit_plans
    return {"fit_plan": None if plans is None else [
                {**p.as_json(), "description": plan_sentence(p, summary.fit_needs, summary.headroom)} for p in plans],
            "fit_plan_needs": needs_json(summary.fit_needs), "fit_plan_headroom": summary.headroom,
            "fit_plan_tiles_over": summary.fit_over}
