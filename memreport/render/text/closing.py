"""The table that ends a text of several reports: a row per report or run (rows from :mod:`memreport.analysis.closing`).

Source and line, arch, tiles, the worst tile and its bytes (excluding gaps;
``*`` the bytes used an out-of-memory message states), and the tiles out of
memory; what a source does not say is ``?``, a tile count known only as a
lower bound ``>=2,432`` (whole IPUs, explained under the table). The table
fits the width (100 columns by default): a long source is shortened in the
middle, where paths differ least (``logs/rank-...-03.log``).
"""
from __future__ import annotations

from ...analysis import Closing
from ..cells import LEFT, Column, closing_cells
from ..layout import WIDTH, Step, fit_table, prose, visible

MIN_SOURCE = 12  # a source is never shortened below this (the table is wider than the width instead)


def closing_lines(closing: Closing, width: int | None = None) -> list[str]:
    """The table under a heading naming how many reports; nothing for no rows."""
    rows = closing.rows
    if not rows:
        return []
    width = width or WIDTH
    table = closing_cells(closing)
    file, sources = visible(table.file or ""), [visible(s) for s in table.sources]  # as shown: the widths count escapes
    columns = [Column("source", "Source", tuple(sources))] + [
        Column(h, h, tuple(row[k] for row in table.cells), right=h not in LEFT) for k, h in enumerate(table.heads)]
    where = next((c for c in columns if c.key == "Where"), None)  # a notebook's place, over two lines if need be
    narrow = {"Where": [cell.replace(", line ", ",\nline ") for cell in where.cells]} if where else None
    laid = fit_table(columns, width, steps=[*([Step("Where", "narrow")] if where else []),
                                            Step("source", "shorten", MIN_SOURCE)], narrow=narrow, stack=True)
    lines = [*prose("", f"Reports{' in ' + file if file else ''} ({len(rows):,}):", width), *laid.lines]
    for note in table.footnotes:
        lines += prose("  (", note + ")", width)
    return lines
