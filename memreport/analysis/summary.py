"""Every figure of one report, computed once: what renderers format and gates judge.

:func:`summarize` is the one place a report's figures are computed for
output. It asks the report's kind (:mod:`.kinds`) for what the kind knows
and returns the Summary of that kind (:mod:`.results`), so a run that
writes text, JSON and a picture visits each figure once, and every output
agrees.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import UnsupportedOperation
from ..model import CLI_NAMES, MemoryReport, OptionNames, TileBytes, min_ipus
from ..units import Percent
from .fit_plan import PLANS_MAX, fit_plan
from .kinds import Kind, Tiles, kind_of
from .overall import overall
from .results import DataTypes, FitItems, FitNeeds, FitPlan, Largest, Summary, TilesAtLeast, TopTile
from .verdict import judge

if TYPE_CHECKING:  # pragma: no cover
    from ..model.tensor_map import TensorMap


DATA_TYPES_SHOWN = 3  # the program-wide data types a text report lists by name
WORDS_TILES = 10       # tiles an error names before "and more"


def program_data_types(report: MemoryReport, shown: int = DATA_TYPES_SHOWN) -> DataTypes | None:
    """The largest of the program-wide data types a summary printed; None when it printed none with bytes."""
    stated = report.info.get("memory_by_data_type")
    if not isinstance(stated, Mapping):
        return None
    sized = [(str(name), size) for name, size in stated.items()
             if isinstance(size, int) and not isinstance(size, bool) and size > 0]
    if not sized:
        return None
    ranked = sorted(sized, key=lambda item: -item[1])  # stable: ties keep the printed order
    rest = ranked[shown:]
    return DataTypes(largest=tuple(ranked[:shown]), rest=len(rest), rest_bytes=sum(size for _, size in rest),
                     total=sum(size for _, size in sized))


def tiles_at_least(report: MemoryReport) -> TilesAtLeast | None:
    """A lower bound on the tile count of a report whose source does not give one (out-of-memory messages alone,
    a lone ``Tile # N`` block), from its tiles per IPU (stated, or its arch's) and the highest tile it names:
    whole IPUs, ceil((tile + 1) / tiles per IPU) of them, at least one (issue #23). None when the tile count is
    known or tiles per IPU are not."""
    per_ipu = report.target.tiles_per_ipu
    if report.num_tiles_known or not per_ipu:
        return None
    top = max(kind_of(report).named_tiles(), default=None)
    ipus = max(1, report.target.num_ipus or 1, min_ipus(top, per_ipu) if top is not None else 1)
    return TilesAtLeast(ipus * per_ipu, ipus, per_ipu, top)


def headroom_bytes(report: MemoryReport, headroom: int | Percent | None) -> int | None:
    """``--min-headroom`` in bytes for ``report`` (a percent of its bytes per tile, rounded up as the gate does);
    None when none is asked, or a percent of unknown bytes per tile."""
    per_tile = report.target.bytes_per_tile
    if isinstance(headroom, Percent):
        return None if per_tile is None else headroom.ceil_of(per_tile)
    return headroom


def fit_plans(kind: Kind, headroom: int | None = None, tensor_map: TensorMap | None = None
              ) -> tuple[tuple[FitPlan, ...] | None, FitNeeds | None, int | None]:
    """A plan for each of the :data:`.fit_plan.PLANS_MAX` worst tiles above bytes per tile (less ``headroom``),
    worst first; why they name no items where they do not; how many tiles are over in all. No plans (None)
    where the kind cannot say which tiles are over."""
    needs = kind.fit_needs(tensor_map)
    over = kind.fit_over(headroom or 0)
    per_tile = kind.report.target.bytes_per_tile
    if over is None or per_tile is None:
        return None, needs, None
    target, budget = per_tile - (headroom or 0), "headroom" if headroom else "limit"
    plans = []
    for tile, size in zip(*(a[:PLANS_MAX].tolist() for a in over)):
        items = kind.fit_items(tile, tensor_map) or FitItems(tile, ())
        plans.append(fit_plan(items, size - target, ipu=kind.report.target.ipu_of(tile), budget=budget))
    return tuple(plans), needs, int(over[0].size)


def summarize(report: MemoryReport, *, top: int = 5, bin_kib: int | None = None,
              tensor_map: TensorMap | None = None, tiles_asked: Sequence[int] = (),
              names: OptionNames = CLI_NAMES, headroom: int | Percent | None = None) -> Summary:
    """The figures of ``report`` (its ``top`` tiles; histogram bins of ``bin_kib`` KiB where it can be re-binned).

    ``tiles_asked`` are tiles to detail beside the top tiles, by id.
    Raises :class:`~memreport.errors.UnsupportedOperation` for a ``bin_kib``
    a text summary's printed bins cannot take or a tile the report does not
    have, and a ReadError naming the tensor map when ``tensor_map`` uses
    tiles the report does not have.
    ``names`` spells the overrides in reasons: ``--tile-memory`` on the
    command line, ``tile_memory=`` in Python. ``headroom`` (bytes, or a
    percent of bytes per tile: ``--min-headroom``) is the free memory the fit
    plans aim for beside the limit.
    """
    kind = kind_of(report)
    over = kind.out_of_memory()
    status = kind.count(over, names)
    hist = kind.histogram(bin_kib)
    top_tiles = tuple(kind.top_tiles(top, over))
    stated = tuple(kind.stated())
    selected, notes = _selected(kind, tiles_asked, over)
    tensors = None
    if tensor_map is not None and kind.name != "tensor-map":
        from .tensors import attribute
        tensors = tuple(attribute(report, tensor_map, top_tiles))
    including, excluding = kind.totals()
    max_including, peak = kind.maxima()
    # The worst tile's record among those shown: its IPU, its symbols where they were read.
    record = next((t for t in (*top_tiles, *selected, *stated) if peak is not None and t.tile == peak.tile), None)
    symbols_readable = kind.symbols_readable()
    printed = kind.printed_count()
    figures: dict[str, Any] = {
        "kind": kind.name, "report": report, "top_n": top, "bin_kib": bin_kib, "histogram": hist,
        "oom_bins": kind.oom_bins(hist, over, status) if hist is not None else (),
        "including_gaps": including, "excluding_gaps": excluding, "max_including_gaps": max_including,
        "max_excluding_gaps": peak, "top": top_tiles, "partial": kind.partial(), "name": report.name,
        "tiles_at_least": tiles_at_least(report),
        "verdict": judge(report, status, peak, _largest_on(kind, peak, record), record.ipu if record else None,
                      symbols_readable, kind.messages(), kind.message_tiles(), printed,
                      judged=kind.name in ("summary", "messages") and not status.plain,
                      shown=peak is not None and peak.tile in set(tiles_asked), stated_by=kind.stated_by),
        "detailed": tuple(t for t in stated if t.stated_by == "detailed"), "stated": stated, "selected": selected,
        "per_ipu": tuple(kind.per_ipu(over)), "ipu_spread": kind.ipu_spread(over), "tensor_map": tensor_map,
        "tensors": tensors,
        "breakdown_totals": kind.breakdown_totals(), "liveness": kind.liveness([t.tile for t in top_tiles]),
        "notes": notes, "data_types": program_data_types(report),
        "top_order": kind.top_order(), "headroom": headroom_bytes(report, headroom)}
    figures["fit_plans"], figures["fit_needs"], figures["fit_over"] = fit_plans(kind, figures["headroom"], tensor_map)
    if isinstance(kind, Tiles):
        figures.update(out_of_memory=over, top_order=kind.top_order(), symbols_readable=symbols_readable)
    elif kind.name == "tensor-map":
        from .tensors import element_histogram, top_data_tiles
        own = report.tensor_map  # type: ignore[attr-defined]
        figures.update(element_histogram=element_histogram(own),
                       data_tiles=tuple(top_data_tiles(own, top, report.target.tiles_per_ipu)))
    return kind.summary_class(**figures)


def _largest_on(kind: Kind, peak: TileBytes | None, record: TopTile | None) -> Largest | None:
    """The largest thing on the largest tile, where known: its largest symbol where its symbols were read
    (``record``, the tile's record among those shown), its largest lowered variable, else its largest counted
    breakdown item."""
    if peak is None:
        return None
    if record is not None and record.symbols is not None and record.symbols.symbols:
        s = max(record.symbols.symbols, key=lambda s: s.size)
        return Largest("symbol", s.display_name, s.size, s.section)
    if record is not None and record.variables:  # largest first: a lowered-variables report's
        v = record.variables[0]
        return Largest("variable", v.name, v.bytes, v.category)
    breakdown = record.breakdown if record is not None else None
    if breakdown is None and isinstance(kind, Tiles):
        from .tiles import tile_breakdown
        breakdown = tile_breakdown(kind.report, peak.tile)
    sized = [(name, size) for name, size in (breakdown or {}).items() if size]
    if not sized:
        return None
    name, size = max(sized, key=lambda kv: kv[1])
    return Largest(kind.report.breakdown_kind, name, size)


def _selected(kind: Kind, asked: Sequence[int], over: np.ndarray | None
              ) -> tuple[tuple[TopTile, ...], tuple[str, ...]]:
    """The tiles asked for, as records, and notes on those a text summary did not detail."""
    report = kind.report
    asked = list(dict.fromkeys(int(t) for t in asked))
    # A tile the source states (a detailed block, a Maximum line, a message) exists whatever the tile count
    # says: a lone "Tile # 0" block states no count at all.
    stated = {t.tile for t in kind.stated()}
    for tile in asked:
        if not 0 <= tile < report.num_tiles and tile not in stated:
            name = report.name
            one = "; --module '#N' takes the file's Nth report alone" if name.count > 1 and not name.module else ""
            raise UnsupportedOperation(f"{report.label}: has no tile {tile} ({_tiles_held(report, stated)}){one}")
    if not asked:
        return (), ()
    if kind.name == "tensor-map":
        return (), ("a tensor map holds no bytes per tile: the tiles asked for are not detailed",)
    found = tuple(kind.tiles_of(asked, over))
    missing = sorted(set(asked) - {t.tile for t in found})
    notes = () if not missing else (f"tile(s) {', '.join(map(str, missing))} asked for: a text summary holds only "
                                    "the tiles it detailed",)
    return found, notes


def _tiles_held(report: MemoryReport, stated: set[int]) -> str:
    """Which tiles a report holds, in words, for the error on a tile it has not."""
    if report.num_tiles > 0:
        return f"its tiles are 0..{report.num_tiles - 1}"
    if stated:
        return f"it states only tile(s) {', '.join(map(str, sorted(stated)[:WORDS_TILES]))}" + \
            (" and more" if len(stated) > WORDS_TILES else "")
    return "it states no tile"


def summarize_all(reports: Sequence[MemoryReport], **kwargs: Any) -> list[Summary]:
    """:func:`summarize` for each report, in order, each knowing the answer over them all (``overall``: in
    programs, :func:`.overall.overall`)."""
    return together([summarize(r, **kwargs) for r in reports])


def together(summaries: Sequence[Summary]) -> list[Summary]:
    """``summaries`` of reports read together, each knowing the answer over them all (``overall``)."""
    answer = overall(summaries)
    return [replace(s, overall=answer) for s in summaries]

