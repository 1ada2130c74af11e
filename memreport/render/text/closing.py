"""The table that ends a text of several reports: a row per report or run (rows from :mod:`memreport.analysis.closing`).

Source and line, arch, tiles, the worst tile and its bytes (excluding gaps;
``*`` the bytes used an out-of-memory message states), and the tiles out of
memory; what a source does not say is ``?``, a tile count known only as a
lower bound ``>=2,432`` (whole IPUs, explained under the table). The table
fits the width (100 columns by default): a long source is shortened in the
middle, where paths differ least (``logs/rank-...-03.log``).
"""
from __future__ import annotations

from collections.abc import Sequence

from ...analysis import Closing
from ..cells import closing_cells
from ..layout import WIDTH, middle_shortened, prose, visible

MIN_SOURCE = 12  # a source is never shortened below this (the table is wider than the width instead)


def closing_lines(closing: Closing, width: int | None = None) -> list[str]:
    """The table under a heading naming how many reports; nothing for no rows."""
    rows = closing.rows
    if not rows:
        return []
    width = width or WIDTH
    table = closing_cells(closing)
    heads, cells = table.heads, table.cells
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    rest = 2 + sum(w + 2 for w in widths)  # the indent, then two spaces before each column after the source
    file, sources = table.file, [visible(s) for s in table.sources]  # as shown: the widths count escapes
    source_width = min(max(len("Source"), *(len(s) for s in sources)), max(MIN_SOURCE, width - rest))
    arch = heads.index("Arch")

    def line(source: str, values: Sequence[str]) -> str:
        parts = [f"{v:<{w}}" if i == arch else f"{v:>{w}}" for i, (v, w) in enumerate(zip(values, widths))]
        return ("  " + f"{source:<{source_width}}  " + "  ".join(parts)).rstrip()

    lines = [*prose("", f"Reports{' in ' + file if file else ''} ({len(rows):,}):", width), line("Source", heads)]
    lines += [line(middle_shortened(source, source_width), c) for source, c in zip(sources, cells)]
    for note in table.footnotes:
        lines += prose("  (", note + ")", width)
    return lines
