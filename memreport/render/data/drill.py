"""Below the tile, as JSON: liveness and symbol tables (the text's are in :mod:`..text.drill`)."""
from __future__ import annotations

from ...analysis.liveness import Liveness, LivenessSummary
from ...model import TileSymbols

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
            "peak_live_bytes": live.peak_live_bytes}
