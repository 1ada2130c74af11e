"""The report page: a section per report with the verdict, every tile, a heat map per IPU, the By Tile
histogram, the top tiles, out-of-memory messages and notes.

The verdict and the tables are HTML (readable with scripts off); the charts
are drawn by page.js from the section's data: per-tile arrays packed once
(:func:`.document.pack`), the breakdown columns while they fit the page's
budget, and the symbol tables of the tiles memreport drilled into.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...analysis import Closing, Summary, TensorMapSummary, TileSummary, TopTile
from ...model import TileReport
from ...units import plural
from ..cells import LEFT, closing_cells, tile_columns
from ..layout import by_tile_block
from ..words import (
    gates_line,
    heat_note,
    message_description,
    overall_verdict,
    partial_reason,
    report_notes,
    target,
    verdict,
)
from ..words.fit import plan_lines, plan_sentence
from . import document as doc
from .contract import page_data
from .liveness import curve_data, curve_html

SYMBOLS_SHOWN = 50
PLANS_ON_PAGE = 500  # fit plans a page holds for its tiles' panels (the worst tiles over)
# Characters of packed per-tile data a page holds at most: per-tile bytes first, then breakdown and region
# columns, largest first, while they fit (2.6 MB at 94,208 tiles, 10.6 MB at 376,832: the pages' size budgets).
DATA_BUDGET_MIN = 1024 * 1024
DATA_BUDGET_PER_TILE = 28


def verdict_html(summary: Summary) -> str:
    """The verdict block: the text's words (:func:`.verdict.verdict`), the fit plans of the worst tiles over
    and the gates judged, as HTML."""
    return doc.verdict(verdict(summary), gates_line(summary.gates), plan_lines(summary))


def tiles_table(summary: Summary, tiles: Sequence[TopTile], section: str) -> str:
    """The top tiles (or the tiles asked for): the tile table's columns (:func:`..cells.tile_columns`), out-of-memory
    rows marked, the largest items written as prose that wraps; a tile's number selects it where there is a chart."""
    columns = tile_columns(summary, tiles)
    charted = isinstance(summary, TileSummary)
    rows, classes = [], []
    for i, t in enumerate(tiles):
        cells = [doc.text(c.cells[i]) for c in columns]
        if charted:  # a link where there is a chart
            cells[0] = f'<a href="#{section}-chart" data-section={section} data-tile={t.tile}>{t.tile}</a>'
        rows.append(cells)
        classes.append("oom" if t.out_of_memory else "")
    notes = [c.note for c in columns if c.note]
    return doc.table([doc.text(c.head) for c in columns], rows, cls="tiles",  # the largest items wrap
                     numeric=[i for i, c in enumerate(columns) if c.right],
                     prose=[i for i, c in enumerate(columns) if c.key == "items"], row_classes=classes) + \
        "".join(f"<p class=hint>({doc.text(n)})</p>" for n in notes)


def messages_table(summary: Summary) -> str:
    messages = summary.verdict.messages  # each message in words, chosen once in summarize
    if not messages:
        return ""
    placed = any(m.place for m in messages)  # a notebook's: cell 6 [4], line 10
    rows = [[doc.text(m.where) if placed else f"{m.line:,}", doc.text(m.kind), doc.text(message_description(m))]
            for m in messages]
    return (f"<h3>Out-of-memory messages ({len(messages):,})</h3>"
            + doc.table(["Where" if placed else "Line", "Kind", "What it says"], rows,
                        numeric=() if placed else (0,), prose=(2,)))


def _symbols(tiles: Sequence[TopTile]) -> dict[str, Any]:
    drilled: dict[str, Any] = {}
    for t in tiles:
        s = t.symbols
        if s is None or str(t.tile) in drilled:
            continue
        ranked = sorted(s.symbols, key=lambda y: (-y.size, y.display_name))
        drilled[str(t.tile)] = {
            "member": s.member,
            "symbols": [{"name": y.display_name, "section": y.section, "bytes": y.size}
                        for y in ranked[:SYMBOLS_SHOWN]],
            "more": max(0, len(ranked) - SYMBOLS_SHOWN), "notes": list(s.notes)}
    return drilled


def _plans(summary: Summary) -> dict[str, Any]:
    """The fit plans of the worst tiles over, by tile, for their panels (``contract.PLAN``)."""
    plans = summary.fit_plans or ()
    return {"plans": {str(p.tile): {
                "sentence": plan_sentence(p, summary.fit_needs, summary.headroom),
                "items": [{"name": i.name, "kind": i.kind, "class": i.liveness, "bytes": i.bytes, "frees": i.frees}
                          for i in p.items]} for p in plans[:PLANS_ON_PAGE]},
            "plans_more": max(0, max(summary.fit_over or 0, len(plans)) - min(len(plans), PLANS_ON_PAGE))}


def _columns(report: TileReport, budget: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """The breakdown and region columns, largest first, while they fit ``budget`` characters; notes on any left
    out."""
    cols: list[dict[str, Any]] = []
    regions: list[dict[str, Any]] = []
    left: list[str] = []
    ranked = sorted(report.breakdown.items(), key=lambda kv: (not kv[1].counted, -int(kv[1].values.sum()), kv[0]))
    for name, column in ranked:
        packed = doc.pack(column.values)
        present = doc.pack(column.present) if column.present is not None else None
        size = doc.packed_size(packed) + doc.packed_size(present)
        if size > budget:
            left.append(name)
            continue
        budget -= size
        cols.append({"name": name, "counted": column.counted, "values": packed, "present": present})
    for name, values in report.regions.items():
        packed = doc.pack(values)
        if doc.packed_size(packed) > budget:
            left.append(f"region {name}")
            continue
        budget -= doc.packed_size(packed)
        regions.append({"name": name.replace("_", "-"), "values": packed})
    notes = [] if not left else [f"left out of this page to keep it small: the per-tile {', '.join(left)} "
                                 "(the text, JSON and CSV outputs hold them)"]
    return cols, regions, notes


def section_data(summary: Summary, sid: str) -> tuple[dict[str, Any], list[str]]:
    """The section's data for the script (``contract.REPORT_SECTION``), and notes on what it left out."""
    report = summary.report
    target = report.target
    kind = plural(report.breakdown_kind)
    spread = summary.ipu_spread  # more IPUs than are listed one by one: one grid of every tile
    data: dict[str, Any] = {"id": sid, "bytes_per_tile": target.bytes_per_tile, "tiles_per_ipu": target.tiles_per_ipu,
                            "heat_tiles_per_ipu": target.tiles_per_ipu if spread is None else None,
                            "breakdown_heading": kind[:1].upper() + kind[1:], "histogram": [],
                            "drilled": _symbols([*summary.top, *summary.selected]), "tiles": None,
                            **_plans(summary),
                            "liveness": [curve_data(summary.liveness.curve)] if summary.liveness and
                            summary.liveness.curve else []}
    if summary.histogram is not None:
        flags = list(summary.oom_bins) + [None] * (len(summary.histogram.bins) - len(summary.oom_bins))
        data["histogram"] = [{"low_kib": b.low_kib, "high_kib": b.high_kib, "count": b.count, "out_of_memory": flag}
                             for b, flag in zip(summary.histogram.bins, flags)]
    notes: list[str] = [] if spread is None else [heat_note(spread)]
    if isinstance(summary, TileSummary):
        report = summary.tiles
        arrays = {"excluding_gaps": doc.pack(report.excluding_gaps), "including_gaps": doc.pack(report.including_gaps),
                  "out_of_memory": doc.pack(summary.out_of_memory), "known": doc.pack(report.known)}
        budget = max(DATA_BUDGET_MIN, DATA_BUDGET_PER_TILE * report.num_tiles)
        cols, regions, left = _columns(report, budget - sum(doc.packed_size(a) for a in arrays.values()))
        notes += left
        data["tiles"] = {"count": report.num_tiles, **arrays, "breakdown": cols, "regions": regions,
                         "names": list(report.tile_names) if report.tile_names is not None and report.num_tiles <= 4096
                         else None}
    return data, notes


def _distinct(notes: Sequence[str | None]) -> list[str]:
    """The notes in order, each once: a note that another one already says in full (a phrase repeated inside a
    longer note) is left out."""
    given = [n for n in notes if n]
    return [n for i, n in enumerate(given)
            if not any(n in other and (n != other or j < i) for j, other in enumerate(given) if j != i)]


def report_section(summary: Summary, index: int) -> tuple[str, dict[str, Any]]:
    """One report's section (HTML) and its data."""
    sid = f"r{index}"
    report = summary.report
    data, left_out = section_data(summary, sid)
    parts = [f"<section class=report id={sid}><h2>{doc.path(report.label)}</h2>",
             f"<p class=meta>{doc.text(report.format_name)} · {doc.text(target(summary))} · per tile: "
             f"{doc.text(report.per_tile)}</p>"]
    if not isinstance(summary, TensorMapSummary):
        parts.append(verdict_html(summary))
    if isinstance(summary, TileSummary):
        parts.append(f"<h3>Every tile</h3><div class=chart id={sid}-chart data-section={sid}>"
                     "<div class=tools><button data-act=in title='Zoom in'>+</button>"
                     "<button data-act=out title='Zoom out'>−</button><button data-act=reset>Whole program</button>"
                     "<button data-act=fit title='Scale to the largest tile or to tile memory'>Fit height</button>"
                     "<span class=view></span></div><canvas class=tiles></canvas>"
                     "<p class=hint>Wheel or +/− to zoom, drag to pan; click a tile for its breakdown. "
                     "Bars: each pixel column's largest tile (light) and smallest (dark); red: out of memory.</p>"
                     f"</div><div class=detail id={sid}-detail><p>Click a tile (or a top tile's number) to see "
                     "what is on it.</p></div>"
                     f"<h3>Heat map per IPU</h3><div class=heat id={sid}-heat></div>")
    elif summary.partial is not None:  # a text summary or messages: where the chart would be, why there is none
        parts.append(f"<p class=nochart>No per-tile chart or heat map: {doc.text(partial_reason(summary.partial))}."
                     "</p>")
    curve = summary.liveness.curve if summary.liveness is not None else None
    parts.append(curve_html(sid, [("", curve)] if curve is not None else []))
    if summary.histogram is not None:
        parts.append(f"<h3>By Tile (Excluding Gaps)</h3><canvas class=hist id={sid}-hist></canvas>"
                     f"<details><summary>As Poplar prints it</summary><pre>"
                     f"{doc.text(chr(10).join(by_tile_block(summary, indent='')))}</pre></details>")
    if summary.top:
        title = "Tiles as printed" if summary.top_order is None else f"Top {len(summary.top):,} tiles"
        parts.append(f"<h3>{title}</h3>{tiles_table(summary, summary.top, sid)}")
    if summary.selected:
        parts.append(f"<h3>Tiles asked for</h3>{tiles_table(summary, summary.selected, sid)}")
    parts.append(messages_table(summary))
    notes = _distinct([*report_notes(summary),
                       partial_reason(summary.partial) if isinstance(summary, TileSummary) and summary.partial
                       else None, *left_out])
    if notes:
        parts.append(f"<h3>Notes</h3>{doc.notes_list(notes)}")
    parts.append("</section>")
    return "".join(parts), data


def reports_overview(rows: Closing) -> str:
    """Several reports, or a file of several programs: the answer over them all first (in programs: runs,
    compilations; the first failing ones; what to run next), then the text's closing table, a row each, its
    source a link to the report's section."""
    said = overall_verdict(rows.overall) if rows.overall is not None else None
    cells = closing_cells(rows)
    table = doc.table(["Report", *cells.heads],
                      ([f'<a href="#r{i}">{doc.path(r.name.short_label)}</a>', *map(doc.text, c)]
                       for i, (r, c) in enumerate(zip(rows.rows, cells.cells))),
                      cls="reports", numeric=[i + 1 for i, h in enumerate(cells.heads) if h not in LEFT], prose=(0,),
                      row_classes=["oom" if r.out_of_memory.at_least else "" for r in rows.rows])
    verdict = doc.verdict(said) if said is not None else ""
    return f"<section class=overview>{verdict}{table}{doc.notes_list(cells.footnotes)}</section>"


def render_report_page(summaries: Sequence[Summary]) -> str:
    """Every report on one page, a section each."""
    sections, data = [], []
    for i, summary in enumerate(summaries):
        html, section = report_section(summary, i)
        sections.append(html)
        data.append(section)
    title = summaries[0].label if len(summaries) == 1 else f"{len(summaries):,} reports"
    rows = Closing.of(summaries)
    overview = reports_overview(rows) if rows.several else ""
    body = f"<header><h1>memreport: {doc.text(title)}</h1></header><main>{overview}{''.join(sections)}</main>"
    return doc.document(f"memreport: {title}", body, page_data("report", data))
