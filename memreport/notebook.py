"""The notebook conveniences of a report: ``plot()``, ``to_dataframe()``, rich display, quick figures.

The model sits below analysis and the renderers and imports neither, so
these reach it the other way round: importing :mod:`memreport` installs
them on every report (:func:`memreport.model.install_views`). numpy-backed
analysis, matplotlib and pandas are imported only when asked for, so
``import memreport`` stays light.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import MemreportError
from .model import PYTHON_NAMES, Histogram, MemoryReport, TileSymbols, install_views

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from .analysis import TopTile
    from .render.picture.figure import ReportFigure


def plot(report: MemoryReport, *, figsize: tuple[float, float] | None = None,
         bin_kib: int | None = None) -> ReportFigure:
    """One matplotlib Figure: memory per tile, the By Tile histogram and a per-IPU heat map."""
    from .analysis import summarize
    from .render.picture.plot import figure
    return figure(summarize(report, bin_kib=bin_kib, names=PYTHON_NAMES), figsize=figsize)


def to_dataframe(report: MemoryReport) -> pandas.DataFrame:
    """One row per tile (per detailed tile for a text report), the CSV's columns; needs pandas."""
    from .analysis import summarize
    from .render.data.dataframe import to_dataframe as frame
    return frame(summarize(report, names=PYTHON_NAMES))


def html(report: MemoryReport) -> str:
    """The report's rich display: the shareable page (issue 25) in a sandboxed frame."""
    from .analysis import summarize
    from .render import render
    html = render("notebook", "html", summarize(report, names=PYTHON_NAMES))
    assert isinstance(html, str)
    return html


def png(report: MemoryReport) -> bytes | None:
    """The report's picture as PNG bytes, or None when it has none (a tensor map) or matplotlib is missing."""
    from .analysis import summarize
    try:
        from .render.picture.plot import render_png
        return render_png(summarize(report, names=PYTHON_NAMES))
    except MemreportError:  # no matplotlib, or nothing to draw (a tensor map): the HTML still shows
        return None


def tiles_out_of_memory(report: MemoryReport) -> int | None:
    """How many tiles are out of memory (None when the source cannot say)."""
    from .analysis import count_out_of_memory
    return count_out_of_memory(report)


def top_tiles(report: MemoryReport, n: int = 5) -> list[TopTile]:
    """The ``n`` most memory-subscribed tiles, largest first (the detailed tiles of a text summary)."""
    from .analysis import top_tiles as top
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a whole number of tiles, 0 or more, not {n!r}")
    return top(report, n)


def tile_symbols(report: MemoryReport, tile: int) -> TileSymbols:
    """One tile's symbol table: the one the report holds, or read again from its archive or ELF file."""
    from .session import tile_symbols as symbols
    return symbols(report, tile)


def histogram(report: MemoryReport, bin_kib: int | None = None) -> Histogram:
    """Poplar's By Tile histogram (a text summary's printed bins)."""
    from .analysis import histogram as bins
    return bins(report, bin_kib)


install_views(plot=plot, to_dataframe=to_dataframe, html=html, png=png, tiles_out_of_memory=tiles_out_of_memory,
              top_tiles=top_tiles, histogram=histogram, tile_symbols=tile_symbols)
