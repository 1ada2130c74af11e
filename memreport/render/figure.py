"""The Figure class of memreport's pictures; importing this module imports matplotlib.

Figures are made without pyplot (no global state, no GUI backend), so
IPython has no reason to know how to show them. :class:`ReportFigure`
shows itself through ``_repr_png_``; where matplotlib-inline has registered
its own formatter for figures, IPython uses that one instead, so a figure
is shown once either way.
"""
from __future__ import annotations

import io
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


class ReportFigure(Figure):
    """A matplotlib Figure on an Agg canvas that displays itself in notebooks."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        FigureCanvasAgg(self)

    def to_png(self) -> bytes:
        """The figure as PNG bytes, at its own size and dpi."""
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=self.dpi)
        return buf.getvalue()

    def _repr_png_(self) -> bytes:
        return self.to_png()
