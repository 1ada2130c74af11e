"""The shareable page: one self-contained HTML file per run (report, diff, compiles or trend), and the notebook's
display.

Charts are plain canvas (the ES modules of ``js/``, joined into the page's
one script by :mod:`.script`; the data they draw is declared in
:mod:`.contract`) rather than a vendored library: the chart that must stay smooth at pod scale is a min/max bar per
pixel column, red where the column holds an out-of-memory tile (some 30
lines of canvas), and the per-IPU heat map and the compiles timeline are not
a charting library's kind of chart either; uPlot (MIT, about 50 KB) would
add its size and still leave all three drawn here (BENCHMARKS.md, "The HTML
page").
"""
from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from .. import RenderOptions

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis import Summary
    from ...analysis.compiles import CompileSummary
    from ...analysis.diff import Diff
    from ...analysis.results import Trend


def render_report_page(summaries: Sequence[Summary]) -> str:
    """Every report on one page, a section each."""
    from .report import render_report_page as page
    return page(summaries)


def render_diff_page(diff: Diff) -> str:
    """What changed, tile by tile."""
    from .diff import render_diff_page as page
    return page(diff)


def render_compiles_page(compiles: CompileSummary) -> str:
    """The compilations' timeline and findings."""
    from .compiles import render_compiles_page as page
    return page(compiles)


def render_trend_page(trend: Trend) -> str:
    """The builds over time: a line chart per figure, the tiles' histories."""
    from .trend import render_trend_page as page
    return page(trend)


def render_report(summaries: Sequence[Summary], options: RenderOptions) -> str:
    return render_report_page(summaries)


def render_diff(diff: Diff, options: RenderOptions) -> str:
    return render_diff_page(diff)


def render_compiles(compiles: CompileSummary, options: RenderOptions) -> str:
    return render_compiles_page(compiles)


def render_trend(trend: Trend, options: RenderOptions) -> str:
    return render_trend_page(trend)


def render_notebook(summary: Summary, options: RenderOptions) -> str:
    """The notebook renderer (subject ``notebook``): :func:`notebook_html` at its default height."""
    return notebook_html(summary)


def notebook_html(summary: Summary, height: int = 760) -> str:
    """The report's page for a notebook's rich display: in a sandboxed frame (scripts only), so its policy and
    script stay its own."""
    page = render_report_page([summary])
    return (f'<iframe srcdoc="{escape(page, quote=True)}" sandbox="allow-scripts" '
            f'style="width:100%;height:{height}px;border:1px solid #ddd" title="memreport"></iframe>')
