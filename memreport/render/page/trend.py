"""The trend page: the answer, a line chart per figure over the builds (with the limit where a figure has one),
the table of builds, the tiles out of memory in the last build, and the notes."""
from __future__ import annotations

from typing import Any

from ...analysis.results import Trend
from ..cells import Column, history_columns, trend_columns
from ..words import gates_line, trend_notes, trend_verdict
from . import document as doc
from .contract import page_data

TILES_SHOWN = 200  # tiles out of memory the page lists (the JSON lists every one)

# The charts, in order: key (the canvas is #ID-KEY), heading, what the hint says of the limit line.
CHARTS = (("worst", "Worst tile, bytes excluding gaps", "dashed red: tile memory"),
          ("headroom", "Headroom: bytes per tile minus the worst tile", "dashed red: 0 B (below: out of memory)"),
          ("oom", "Tiles out of memory", "an open circle: at least that many"),
          ("total", "Total, excluding gaps", ""))


def _table(columns: list[Column], rows: range, classes: list[str] | None = None) -> str:
    return doc.table([doc.text(c.head) for c in columns], ([doc.text(c.cells[i]) for c in columns] for i in rows),
                     numeric=[k for k, c in enumerate(columns) if c.right], row_classes=classes)


def section_data(trend: Trend, sid: str) -> dict[str, Any]:
    """The charts' data (``contract.TREND_SECTION``): a value per build of each figure, and its limit."""
    builds = trend.builds
    per_tile = [b.figures.bytes_per_tile for b in builds]
    counts = [b.count for b in builds]

    def chart(key: str, unit: str, values: list[int | None], limits: list[int | None],
              at_least: list[bool] | None = None) -> dict[str, Any]:
        return {"key": key, "unit": unit, "values": values, "limit": limits,
                "at_least": at_least or [False] * len(builds)}

    return {"id": sid, "builds": [b.label for b in builds],
            "worst_tiles": [None if b.worst is None else b.worst.tile for b in builds],
            "charts": [
                chart("worst", "bytes", [None if b.worst is None else b.worst.bytes for b in builds], per_tile),
                chart("headroom", "bytes", [b.headroom for b in builds], [None if p is None else 0 for p in per_tile]),
                chart("oom", "tiles", [c.count if c.count is not None else c.at_least or None for c in counts],
                      [None] * len(builds), [c.count is None and bool(c.at_least) for c in counts]),
                chart("total", "bytes", [b.figures.total_excluding_gaps for b in builds], [None] * len(builds))]}


def render_trend_page(trend: Trend) -> str:
    """The trend as one self-contained page."""
    sid = "t0"
    n = len(trend.builds)
    title = f"memreport trend: {n:,} builds, {trend.builds[0].label} → {trend.last.label}" if n > 1 else \
        f"memreport trend: {trend.last.label}"
    parts = [f"<header><h1>{doc.text(title)}</h1></header><main><section class=report id={sid}>",
             doc.verdict(trend_verdict(trend), gates_line(trend.gates))]
    for key, heading, hint in CHARTS:
        parts.append(f"<h3>{heading}</h3><canvas class=trend id={sid}-{key}></canvas>"
                     + (f"<p class=hint>{hint}</p>" if hint else ""))
    parts.append(f"<h3>Builds ({n:,}), in the order given</h3>"
                 + _table(trend_columns(trend), range(n), ["oom" if b.count.at_least else "" for b in trend.builds]))
    histories = trend.histories(TILES_SHOWN)
    if histories:
        more = trend.num_tiles - len(histories)
        parts.append(f"<h3>Tiles out of memory in {doc.text(trend.last.label)} ({trend.num_tiles:,}), the latest to "
                     "go over first</h3>" + _table(history_columns(trend, histories), range(len(histories)))
                     + (f"<p class=hint>{more:,} more tiles: the JSON output lists every one</p>" if more > 0 else ""))
    notes = trend_notes(trend)
    if notes:
        parts.append(f"<h3>Notes</h3>{doc.notes_list(notes)}")
    parts.append("</section></main>")
    return doc.document(title, "".join(parts), page_data("trend", [section_data(trend, sid)]))
