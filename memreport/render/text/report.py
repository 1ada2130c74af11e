"""The text report: a header, Poplar's "By Tile" block, per-IPU figures and the top tiles.

The By Tile block is laid out exactly as Poplar prints it (docs/FORMATS.md
§1), so a report rendered from full per-tile data reads like Poplar's own,
and a text summary renders back the rows it printed. Everything shown comes
from the report's :class:`~memreport.analysis.Summary`; its cost grows with
the number of bins, not the number of tiles.
"""
from __future__ import annotations

from collections.abc import Sequence

from ...analysis import Closing, Summary, TensorMapSummary, TopTile
from ...units import count
from .. import RenderOptions
from ..cells import Column
from ..layout import WIDTH, by_tile_block, fit_table, prose, visible
from ..words import count_phrase, ipus_heading, ipus_note, message_description, reason, target
from . import drill, tensors
from . import verdict as verdict_text
from .closing import closing_lines
from .terminal import RED, RESET, YELLOW, shown
from .tiles import NEAR_LIMIT, tiles_lines

__all__ = ["NEAR_LIMIT", "RED", "RESET", "RULE", "YELLOW", "by_tile_block", "render", "render_report", "tiles_lines"]

RULE = "=" * 78


def header_lines(summary: Summary, width: int = WIDTH) -> list[str]:
    """Source, format, target and what the source does not hold (notes wrapped to ``width``)."""
    report = summary.report
    lines = [f"Source:   {visible(summary.label)}", f"Format:   {report.format_name}",
             *prose("Target:   ", target(summary), width), f"Per tile: {report.per_tile}"]
    notes = [*report.notes, *summary.notes]
    oom = summary.oom
    if oom.count is not None and oom.reason:  # a count judged, not printed: say why the printed one is not used
        notes.append(f"out-of-memory count judged from what the summary printed: {reason(oom.reason)}")
    for note in notes:
        lines += prose("Note:     ", note, width)
    return lines


def totals_lines(summary: Summary) -> list[str]:
    including, excluding = summary.including_gaps, summary.excluding_gaps
    return [
        "Memory Usage:",
        f"  Including Gaps: {including:,} B" if including is not None else "  Including Gaps: unknown",
        f"  Excluding Gaps: {excluding:,} B" if excluding is not None else "  Excluding Gaps: unknown",
    ]


def per_ipu_lines(summary: Summary, width: int = WIDTH) -> list[str]:
    """One row per IPU for multi-IPU reports (complete per-tile data only); past the IPUs listed one by one,
    those holding the largest tiles and a line on them all (:attr:`Summary.ipu_spread`)."""
    spread = summary.ipu_spread
    ipus = drill.shown_ipus(summary)
    if spread is None and len(ipus) < 2:
        return []
    columns = [Column("ipu", "IPU", tuple(str(s.ipu) for s in ipus), True, 5),
               Column("tiles", "Tiles", tuple(f"{s.num_tiles:,}" for s in ipus), True, 6),
               Column("excluding", "Excluding gaps", tuple(f"{s.excluding_gaps:,} B" for s in ipus), True, 16),
               Column("tile", "Max tile", tuple(str(s.max_excluding_gaps.tile) for s in ipus), True, 9),
               Column("bytes", "Max bytes", tuple(f"{s.max_excluding_gaps.bytes:,} B" for s in ipus), True, 11),
               Column("oom", "OOM tiles", tuple("?" if s.tiles_out_of_memory is None else f"{s.tiles_out_of_memory:,}"
                                                for s in ipus), True, 9)]
    heading = "By IPU:" if spread is None else f"By IPU ({ipus_heading(spread)}):"
    return [heading, *fit_table(columns, width).lines,
            *([] if spread is None else prose("  ", ipus_note(spread) + ".", width, hang="  "))]


def top_tiles_lines(summary: Summary, items: int = 3, options: RenderOptions | None = None) -> list[str]:
    """The top tiles: tile, IPU, bytes, % of tile memory, largest breakdown items; OOM tiles flagged."""
    top = summary.top
    if not top:
        return []
    # A summary's detailed tiles, Maximum lines and out-of-memory messages, in its order, not a ranking.
    heading = "Tiles as printed:" if summary.top_order is None else \
        f"Top {count(len(top), 'tile')} (by {summary.top_order}):"
    return tiles_lines(summary, top, heading, items, options)


def selected_lines(summary: Summary, items: int = 3, options: RenderOptions | None = None) -> list[str]:
    """The tiles asked for by id (``--tile``), laid out as the top tiles are."""
    if not summary.selected:
        return []
    return tiles_lines(summary, summary.selected, f"Tile{'s' if len(summary.selected) > 1 else ''} asked for:", items,
                       options)


def data_types_lines(summary: Summary) -> list[str]:
    """A summary's largest program-wide data types with their share, shown after Poplar's block (which stays
    as printed); nothing when the summary printed no By Data Type list with bytes."""
    types = summary.data_types
    if types is None:
        return []
    rows = [(visible(name), size) for name, size in types.largest]
    if types.rest:
        rows.append((f"{types.rest:,} more", types.rest_bytes))
    name_w = max(len(name) for name, _ in rows)
    size_w = max(len(f"{size:,}") for _, size in rows)
    lines = [f"Data types over all tiles (share of the {types.total:,} B By Data Type lists):"]
    lines += [f"  {name:<{name_w}}  {size:>{size_w},} B  {100 * size / types.total:>5.1f}%" for name, size in rows]
    return lines


def messages_lines(summary: Summary, width: int = WIDTH) -> list[str]:
    """The out-of-memory messages of the log: line (a notebook's cell and line), kind, and what each states
    (docs/FORMATS.md §8.6)."""
    messages = summary.verdict.messages
    if not messages:
        return []
    kinds = max(len(m.kind) for m in messages)
    placed = any(m.place for m in messages)  # a notebook's: cell 6 [4], line 10
    wheres = [m.where if placed else f"line {m.line:,}" for m in messages]
    at = max(len(w) for w in wheres)
    lines = [f"Out-of-memory messages ({len(messages):,}):"]
    for m, where in zip(messages, wheres):  # what each states wrapped under its first word
        lead = f"  {where:<{at}}  {m.kind:<{kinds}}  " if placed else f"  line {m.line:>{at - 5},}  {m.kind:<{kinds}}  "
        lines += prose(lead, message_description(m), width, hang=None if len(lead) <= width // 2 else "      ")
    return lines


def _drilled(summary: Summary, symbols: int | None) -> list[TopTile]:
    """The tiles whose symbol tables follow: the out-of-memory top tiles (every top tile with ``--symbols``),
    then the tiles asked for."""
    top = [t for t in summary.top if symbols is not None or t.out_of_memory]
    return [*top, *(t for t in summary.selected if t.tile not in {u.tile for u in top})]


def render_report(summary: Summary, options: RenderOptions | None = None) -> str:
    """One report as text: the verdict first, then the detail (with a tensor map, the tensors on its top
    tiles), the verdict's first line again last; with ``options.brief`` the verdict and the top tiles only."""
    options = options or RenderOptions()
    width = options.width or WIDTH
    verdict = verdict_text.report_lines(summary, width) + verdict_text.gates_lines(summary.gates, width)
    plans = verdict_text.plan_lines(summary, width)
    if options.brief:
        return "\n\n".join("\n".join(s) for s in [verdict, plans, top_tiles_lines(summary, options=options),
                                                 selected_lines(summary, options=options),
                                                 verdict_text.report_headline(summary, width)]
                             if s) + "\n"
    if isinstance(summary, TensorMapSummary):  # elements only, no bytes: its own sections
        return "\n\n".join("\n".join(s) for s in [verdict, header_lines(summary, width),
                                                 tensors.tensor_map_lines(summary, width),
                                                 verdict_text.report_headline(summary, width)]) + "\n"
    limit = drill.TEXT_SYMBOLS if options.symbols is None else options.symbols
    if summary.kind == "messages":  # nothing printed but the messages
        body = ["Out of memory:", *prose("  ", count_phrase(summary.oom), width, hang="    ")]
    else:
        body = totals_lines(summary) + [""] + by_tile_block(summary, width=width)
    sections: list[Sequence[str]] = [verdict, *([plans] if plans else []), header_lines(summary, width), body]
    for extra in (data_types_lines(summary),  # after Poplar's block, which stays as printed
                  messages_lines(summary, width), per_ipu_lines(summary, width),
                  top_tiles_lines(summary, options=options), selected_lines(summary, options=options),
                  *drill.all_symbols_lines(_drilled(summary, options.symbols), limit, width),
                  *drill.all_variables_lines(_drilled(summary, options.symbols), limit, width),
                  drill.categories_lines(summary, width), drill.liveness_lines(summary, width)):
        if extra:
            sections.append(extra)
    if summary.tensors is not None:
        sections.append(tensors.attribution_lines(summary, width))
    sections.append(verdict_text.report_headline(summary, width))  # the answer again, where | tail looks
    return "\n\n".join("\n".join(s) for s in sections) + "\n"


def render(summaries: Sequence[Summary], options: RenderOptions | None = None) -> str:
    """Several reports: the answer over them all first (in programs: runs, compilations), then each report,
    separated by a rule, then a table of them all and the answer again (what a terminal is given:
    :func:`.terminal.shown`); ``options.brief`` keeps the answer and a line per failing program. One report of
    one program is itself alone."""
    options = options or RenderOptions()
    width = options.width or WIDTH
    rows = Closing.of(summaries)
    if not rows.several:
        return shown("".join(render_report(s, options) for s in summaries), options.color)
    overall = rows.overall  # None: summarized one by one, not together (no answer over them all)
    top = verdict_text.overall_lines(overall, width, every=options.brief) if overall is not None else []
    if options.brief and overall is not None:  # the answer, a line per failing program, the answer again (| tail)
        again = [""] + verdict_text.overall_last(overall, width) if len(top) > 1 else []  # one line is both
        return shown("\n".join(top + again) + "\n", options.color)
    parts = (["\n".join(top) + "\n"] if top else []) + [render_report(s, options) for s in summaries]
    text = f"\n{RULE}\n\n".join(parts)
    table = closing_lines(rows, width) + [""] if len(summaries) > 1 else []
    last = table + (verdict_text.overall_last(overall, width) if overall is not None else [])
    return shown(text + f"\n{RULE}\n\n" + "\n".join(last) + "\n", options.color)  # its last line the answer
