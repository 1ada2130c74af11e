"""GitHub-flavoured Markdown of a trend: the answer, the table of builds, the tiles out of memory in the last build
with when each went over, the notes; within a comment's limit at any scale (:mod:`.blocks`)."""
from __future__ import annotations

from collections.abc import Sequence

from ...analysis.results import Trend
from ...units import count
from .. import RenderOptions
from ..cells import Column, history_columns, trend_columns
from ..words import trend_notes, trend_verdict
from .blocks import LIMIT, Fitted, cell, code, gates, table

ROWS = (200, 20)  # shorter versions of a long table: its first rows (builds: the first and the last)
FITS = LIMIT // 16  # more rows than this never fit a comment (a row is at least 16 characters): not even tried


def _table(columns: Sequence[Column], rows: Sequence[int] | range) -> str:
    return table([c.head for c in columns], [[cell(c.cells[i]) for c in columns] for i in rows],
                 right=[k for k, c in enumerate(columns) if c.right])


def render_trend(trend: Trend, options: RenderOptions | None = None) -> str:
    """The trend: its answer first, then the builds, the tiles and the notes."""
    fitted = Fitted()
    said = trend_verdict(trend)
    first, last = trend.builds[0].label, trend.last.label
    span = code(last) if len(trend.builds) == 1 else f"{code(first)} → {code(last)}"
    fitted.add(f"## memreport trend: {count(len(trend.builds), 'build')}, {span}\n\n**{cell(said.headline)}**"
               + "".join(f"  \n{cell(line)}" for line in said.lines) + gates(trend.gates), "the heading")
    builds = trend_columns(trend)
    n = len(trend.builds)
    shorter = [_table(builds, [*range(k // 2), *range(n - k // 2, n)])
               + f"\n\n{n - k:,} builds between left out: the JSON and CSV outputs list every one."
               for k in ROWS if k < n]
    fitted.add(_table(builds, range(n)), "the table of builds", *shorter)
    histories, n = trend.histories(FITS), trend.num_tiles
    if histories:
        tiles = history_columns(trend, histories)
        heading = f"### Tiles out of memory in {code(last)} ({n:,}), the latest to go over first\n\n"
        shorter = [heading + _table(tiles, range(k)) + f"\n\n{n - k:,} more tiles: the JSON output lists every one."
                   for k in ROWS if k < n]
        if n <= FITS:
            fitted.add(heading + _table(tiles, range(n)), "the tiles out of memory", *shorter, priority=1)
        else:  # the whole list would never fit: its first rows
            fitted.add(shorter[0], "the tiles out of memory", *shorter[1:], priority=1, cut=True)
    notes = trend_notes(trend)
    if notes:
        fitted.add("\n".join(f"- {cell(note)}" for note in notes), "the notes", priority=2)
    return fitted.text()
