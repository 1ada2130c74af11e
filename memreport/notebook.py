"""The reports the Python API hands out, with a notebook's conveniences: ``plot()``, ``to_dataframe()``, rich
display, ``top_tiles()``, ``tiles_out_of_memory``.

The model's report kinds hold facts and check their invariants; they know
nothing of analysis or the renderers, which sit above them. The API layer
adds the conveniences by subclassing each kind here (:class:`TileReport`,
:class:`SummaryReport`, :class:`TensorMapReport`, what ``memreport.read``
returns and ``memreport.TileReport`` names), so the model needs no table of
views filled from above. numpy-backed analysis, matplotlib and pandas are
imported only when asked for, so ``import memreport`` stays light.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from . import model
from .errors import MemreportError
from .model import PYTHON_NAMES, Histogram, MemoryReport, TileSymbols

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from .analysis import TopTile
    from .render.picture.figure import ReportFigure


class Conveniences:
    """What a report offers in a notebook: figures on demand and a rich display."""

    @property
    def tiles_out_of_memory(self) -> int | None:
        """How many tiles exceed bytes per tile (None when the source cannot say exactly)."""
        from .analysis import count_out_of_memory
        return count_out_of_memory(self._report)

    @property
    def tiles_out_of_memory_at_least(self) -> int:
        """How many tiles are known to exceed bytes per tile: ``tiles_out_of_memory`` when exact, else a lower
        bound (what out-of-memory messages or a printed histogram show; 0 when nothing does)."""
        from .analysis import out_of_memory_count
        return out_of_memory_count(self._report).at_least

    def top_tiles(self, n: int = 5) -> list[TopTile]:
        """The ``n`` most memory-subscribed tiles, largest first (the stated tiles of a text summary)."""
        from .analysis import top_tiles
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"n must be a whole number of tiles, 0 or more, not {n!r}")
        return top_tiles(self._report, n)

    def histogram(self, bin_kib: int | None = None) -> Histogram:
        """Poplar's By Tile histogram (a text summary's printed bins)."""
        from .analysis import histogram
        return histogram(self._report, bin_kib)

    def plot(self, *, figsize: tuple[float, float] | None = None, bin_kib: int | None = None) -> ReportFigure:
        """One matplotlib Figure: memory per tile, the By Tile histogram and a per-IPU heat map."""
        from .analysis import summarize
        from .render.picture.plot import figure
        return figure(summarize(self._report, bin_kib=bin_kib, names=PYTHON_NAMES), figsize=figsize)

    def to_dataframe(self) -> pandas.DataFrame:
        """One row per tile (per stated tile for a text report), the CSV's columns; needs pandas."""
        from .analysis import summarize
        from .render.data.dataframe import to_dataframe
        return to_dataframe(summarize(self._report, names=PYTHON_NAMES))

    def tile_symbols(self, tile: int) -> TileSymbols:
        """One tile's symbol table: the one the report holds, or read again from its archive or ELF file."""
        from .session import tile_symbols
        return tile_symbols(self._report, tile)

    def _repr_html_(self) -> str:
        """The report's page in a sandboxed frame (issue 25)."""
        from .analysis import summarize
        from .render import render
        html = render("notebook", "html", summarize(self._report, names=PYTHON_NAMES))
        assert isinstance(html, str)
        return html

    def _repr_png_(self) -> bytes | None:
        """The report's picture, or None when it has none (a tensor map) or matplotlib is missing."""
        from .analysis import summarize
        try:
            from .render.picture.plot import render_png
            return render_png(summarize(self._report, names=PYTHON_NAMES))
        except MemreportError:  # no matplotlib, or nothing to draw (a tensor map): the HTML still shows
            return None

    @property
    def _report(self) -> MemoryReport:
        assert isinstance(self, MemoryReport)
        return self


class TileReport(Conveniences, model.TileReport):
    __doc__ = model.TileReport.__doc__


class SummaryReport(Conveniences, model.SummaryReport):
    __doc__ = model.SummaryReport.__doc__


class TensorMapReport(Conveniences, model.TensorMapReport):
    __doc__ = model.TensorMapReport.__doc__


_PUBLIC: dict[type, type] = {model.TileReport: TileReport, model.SummaryReport: SummaryReport,
                             model.TensorMapReport: TensorMapReport}
R = TypeVar("R", bound=MemoryReport)


def public(report: R) -> R:
    """``report`` as the API's report of its kind (the same facts, with the conveniences): no copy of its
    arrays, no new check (the model checked it when it was made)."""
    kind = _PUBLIC.get(type(report))
    if kind is None:
        return report
    made: R = object.__new__(kind)
    made.__dict__.update(report.__dict__)
    return made


@dataclass(frozen=True)
class Answer:
    """The answer over reports, in programs: what ``memreport FILE...`` says first and its JSON's top-level
    ``verdict`` holds, key for key (docs/SCHEMA.md). ``str(answer)`` is the text's first line.

    ``unit`` is what a program is ("run", "compilation", "program",
    "report"); of ``programs``, ``failed`` failed, ``out_of_memory`` of them
    out of memory, ``unknown`` cannot say; ``failing`` has a record per failed
    program (its ``text`` the line ``--brief`` prints), ``worst`` the worst of
    them; ``next_command`` what to run next.
    """

    text: str
    unit: str
    programs: int
    failed: int
    out_of_memory: int
    unknown: int
    files: int
    reports: int
    worst: dict[str, Any] | None
    failing: list[dict[str, Any]]
    failing_left_out: int
    next_command: str | None

    def __str__(self) -> str:
        return self.text

    @classmethod
    def of(cls, reports: Sequence[MemoryReport]) -> Answer:
        """The answer over ``reports`` (every report read, in order)."""
        from .analysis import summarize_all
        from .render.data.report import verdict_json
        answer = verdict_json(summarize_all(reports, names=PYTHON_NAMES))
        assert answer is not None  # summarize_all gives every summary the answer over them all
        return cls(**answer)
