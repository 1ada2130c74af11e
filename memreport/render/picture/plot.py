"""One picture of a report: memory along the tile index, the By Tile histogram, a per-IPU heat map.

matplotlib is imported only when a figure is drawn, so ``import
memreport`` and ``memreport.read()`` never pay for it. Figures are
:class:`~memreport.render.figure.ReportFigure`, a matplotlib Figure on an
Agg canvas, never made through pyplot: no global state, no GUI backend, and
a notebook shows a returned figure once.

Red means out of memory and nothing else, so a figure of a report with no
out-of-memory tile has no red in it. The figure stays legible from one tile
to a pod: past :data:`MAX_POINTS` tiles the per-tile panel draws per-bucket
min/max envelopes, and past :data:`.heatmap.SMALL_MULTIPLES_MAX_IPUS` IPUs the heat
map turns into one row per IPU (each cell the maximum of a few tiles).
"""
from __future__ import annotations

import contextlib
import gc
import math
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ...analysis import Summary, TensorMapSummary, TextSummary, TileSummary
from ...errors import MissingDependency, UnsupportedOperation
from ...model import KIB, TileReport
from ...units import count
from .. import RenderOptions
from . import heatmap
from .axes import LIMIT_HEADROOM, OOM_COLOUR, TILE_COLOUR, mark_limit, scale_top
from .labels import (
    NOTE_COLOUR,
    TITLE_PAD,
    TOP,
    panel_title,
    printed_summary,
    text_panel,
    title,
    top_table,
)
from .partial import detailed_tiles, message_tiles

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from .figure import ReportFigure as Figure

SKIPPED_COLOUR = "#555555"  # a damaged member's tile: its bytes unknown
ELIDED_COLOUR = "#eeeeee"  # bins a pasted histogram left out: unknown, not empty
MAYBE_COLOUR = "#fdd49e"  # a printed bin across the limit: may hold out-of-memory tiles (hatched, never red)
MAYBE_HATCH = "#b35806"
INCLUDING_LINE = "#8c8c8c"
FIGSIZE = (12.0, 7.5)
FIGSIZE_STEPS = (12.0, 10.0)  # with the liveness panel
DPI = 100
MAX_POINTS = 2048        # tiles drawn one by one; beyond, per-bucket envelopes
BAR_TILES = 64           # up to this many tiles, one bar per tile
LOG_COUNT_RATIO = 100    # histogram counts this far apart get a log axis
IPU_LABEL_ROOM = 8.5     # points the IPU numbers above the per-tile panel take
CROWD = 0.06             # top tiles closer than this share of the axis share one label


def _figure_class():
    """The figure class (importing matplotlib), or a MissingDependency naming the install command."""
    try:
        from .figure import ReportFigure
    except ImportError as exc:
        raise MissingDependency("plotting needs matplotlib (pip install matplotlib)") from exc
    return ReportFigure


_gc_lock = threading.Lock()
_gc_pauses = 0             # figures being drawn now, in every thread
_gc_was_enabled = False    # the collector's state when the first of them began


@contextlib.contextmanager
def without_cyclic_gc() -> Iterator[None]:
    """Python's cyclic garbage collector paused (and resumed as it was): importing matplotlib makes some 50,000
    objects, none of them garbage, and drawing a figure 13,000 more, whose allocations set off collections that
    walk every object again (0.06-0.14 s of a pod-scale ``--png``). The objects are collected as usual after.

    Threads drawing at once share one pause: the first to begin notes the collector's state and pauses it,
    the last to end restores that state. Each thread checking and restoring on its own could leave it off for
    good (one thread sees it enabled, another sees it already paused and pauses it again after the first
    resumed it) (issue #26)."""
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


def figure(summary: Summary, *, figsize: tuple[float, float] | None = None) -> Figure:
    """The report as one matplotlib Figure (Agg canvas, outside pyplot; shows itself in notebooks)."""
    with without_cyclic_gc():
        fig = _figure(summary, figsize)
        fig.plain_texts()  # names from the input are text, never math (tick labels, made when drawn, are numbers)
        return fig


def _figure(summary: Summary, figsize: tuple[float, float] | None) -> Figure:
    report = summary.report
    if isinstance(summary, TensorMapSummary):
        raise UnsupportedOperation(f"{report.source}: a tensor map counts elements, not bytes: "
                                   "plot an archive or profile of the same program")
    curve = summary.liveness.curve if summary.liveness is not None else None
    fig = _figure_class()(figsize=figsize or (FIGSIZE_STEPS if curve is not None else FIGSIZE), dpi=DPI)
    title(fig, summary)
    grid = fig.add_gridspec(3 if curve is not None else 2, 2,
                            height_ratios=(1.05, 1, 0.85) if curve is not None else (1.05, 1),
                            width_ratios=(1.25, 1), left=0.06, right=0.94, bottom=0.07 if curve is None else 0.055,
                            top=(0.84 if report.per_tile == "partial" else 0.86) + (0.03 if curve is not None else 0),
                            hspace=0.42 if curve is None else 0.48, wspace=0.2)
    if curve is not None:  # memory live per program step, across the foot of the picture
        from .liveness import draw as draw_liveness
        draw_liveness(fig.add_subplot(grid[2, :]), curve)
    if isinstance(summary, TileSummary) and summary.tiles.num_tiles == 0:
        text_panel(fig.add_subplot(grid[:, :]), "No tiles", ["This report holds no tiles: nothing to draw."])
        return fig
    if not isinstance(summary, TileSummary) and not summary.detailed:
        # Only a printed histogram (or, in a log without a summary, out-of-memory messages): it takes the top
        # row, what was printed the bottom one.
        draw_top = message_tiles if summary.histogram is None and summary.verdict.messages else _histogram
        draw_top(fig.add_subplot(grid[0, :]), summary)
        printed_summary(fig.add_subplot(grid[1, :]), summary)
        return fig
    top, hist_ax = fig.add_subplot(grid[0, :]), fig.add_subplot(grid[1, 0])
    # The heat map's colour bar sits in the right margin, outside its axes.
    side = fig.add_subplot(grid[1, 1].subgridspec(1, 2, width_ratios=(14, 1), wspace=0)[0, 0])
    if not isinstance(summary, TileSummary):
        detailed_tiles(top, summary)
        _histogram(hist_ax, summary)
        printed_summary(side, summary)
    else:
        every = summary.tiles
        _per_tile(top, summary)
        _histogram(hist_ax, summary)
        if every.num_tiles >= heatmap.MIN_TILES:
            limit = every.target.bytes_per_tile
            data_max = float(every.excluding_gaps.max()) / KIB
            # Colour up to the limit (tiles beyond it are drawn red), unless the limit is far off.
            vmax = limit / KIB if limit and limit / KIB <= LIMIT_HEADROOM * data_max else data_max
            heatmap.draw(side, summary, OOM_COLOUR, vmax)
        else:
            top_table(side, summary)
    return fig


def render_png(summary: Summary, options: RenderOptions | None = None, *,
               figsize: tuple[float, float] | None = None) -> bytes:
    """The figure as PNG bytes."""
    with without_cyclic_gc():
        return figure(summary, figsize=figsize).to_png()


def _buckets(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-bucket (centre, min, max) over consecutive runs of ``size`` tiles."""
    n = values.size
    padded = np.pad(values, (0, -n % size), mode="edge").reshape(-1, size)
    centres = np.arange(padded.shape[0]) * size + (size - 1) / 2
    return centres, padded.min(axis=1), padded.max(axis=1)


def _per_tile(ax: Axes, summary: TileSummary) -> None:
    """Memory along the tile index: bars, a step line or min/max envelopes, by tile count."""
    report = summary.tiles
    values = report.excluding_gaps
    n = values.size
    limit = report.target.bytes_per_tile
    over = summary.out_of_memory
    over = np.zeros(n, dtype=bool) if over is None else over
    kib = values / KIB
    x = np.arange(n)
    data_max = float(kib.max()) if n else 0.0
    if report.including_gaps is not None and n:
        data_max = max(data_max, _including(ax, report.including_gaps / KIB))
    top = scale_top(data_max, None if limit is None else limit / KIB)
    if n <= BAR_TILES:
        ax.bar(x, kib, width=0.8, color=np.where(over, OOM_COLOUR, TILE_COLOUR), label="excluding gaps")
        ax.set_xticks(x if n <= 32 else x[::max(1, n // 16)])
    elif n <= MAX_POINTS:
        ax.fill_between(x, kib, step="mid", color=TILE_COLOUR, alpha=0.35, lw=0)
        ax.step(x, kib, where="mid", color=TILE_COLOUR, lw=0.6, label="excluding gaps")
        ax.vlines(x[over], 0, kib[over], color=OOM_COLOUR, lw=1.3, zorder=3)
    else:
        size = math.ceil(n / MAX_POINTS)
        centres, low, high = _buckets(kib, size)
        ax.fill_between(centres, low, high, step="mid", color=TILE_COLOUR, alpha=0.35, lw=0,
                        label=f"excluding gaps, min–max of each run of {size} tiles")
        ax.step(centres, high, where="mid", color=TILE_COLOUR, lw=0.6)
    if n > BAR_TILES and over.any():
        ax.scatter(x[over], kib[over], s=14, color=OOM_COLOUR, zorder=4, lw=0,
                   label=f"{int(over.sum()):,} out of memory")
    if report.skipped:  # damaged members: their tiles' bytes are unknown, marked where they would be drawn
        skipped = np.array(sorted(s.tile for s in report.skipped))
        ax.scatter(skipped, np.zeros(skipped.size), s=22, marker="x", color=SKIPPED_COLOUR, zorder=5, lw=1.2,
                   clip_on=False, label=f"{count(skipped.size, 'tile')} skipped: bytes unknown")
    if report.including_gaps is not None or n > MAX_POINTS or report.skipped:
        # Above the axes at the right, clear of the data and of the top-tile labels.
        tpi = report.target.tiles_per_ipu
        several_ipus = tpi is not None and n > tpi
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.05 if several_ipus else 1.0), ncol=3,
                  fontsize=8, frameon=False, borderaxespad=0.2)
    mark_limit(ax, limit, top * 1.2, vertical=False)
    labelled = _ipu_boundaries(ax, report)
    # Label the top tiles where their ranking figure is drawn: including gaps where known.
    _label_top(ax, summary, kib if report.including_gaps is None else np.maximum(kib, report.including_gaps / KIB),
               None if limit is None else limit / KIB, top * 1.2)
    ax.set_xlim(-0.6 if n <= BAR_TILES else -0.5, n - 0.4 if n <= BAR_TILES else n - 0.5)
    ax.set_ylim(0, top * 1.2)
    panel_title(ax, "Memory per tile" + (", excluding gaps" if report.including_gaps is None else ""),
                 TITLE_PAD + (IPU_LABEL_ROOM if labelled else 0.0))
    ax.set_xlabel("tile", fontsize=9)
    ax.set_ylabel("KiB", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.margins(x=0)


def _including(ax: Axes, kib: np.ndarray) -> float:
    """Including gaps as a grey line behind (per-bucket maxima past MAX_POINTS tiles); returns its maximum."""
    if kib.size > MAX_POINTS:
        x, _, kib = _buckets(kib, math.ceil(kib.size / MAX_POINTS))
    else:
        x = np.arange(kib.size)
    ax.step(x, kib, where="mid", color=INCLUDING_LINE, lw=0.8, zorder=1, label="including gaps")
    return float(kib.max())


IPU_LINES = 1024  # IPU boundaries drawn at most (a Bow Pod1024's): past it they would grey the plot


def _ipu_boundaries(ax: Axes, report: TileReport) -> bool:
    """Vertical lines between IPUs and their numbers along the top (thinned at pod scale); whether drawn."""
    tpi = report.target.tiles_per_ipu
    n = report.num_tiles
    if not tpi or n <= tpi:
        return False
    num_ipus = math.ceil(n / tpi)
    # One collection, not a line per IPU: a profile may claim one tile per IPU (100,000 IPUs took minutes); and
    # none past IPU_LINES, where they would stand closer than a pixel or two and grey the plot (376,832 lines
    # took 17 s and 120 MB to draw, issue 33 item 15): the labels still mark the IPUs.
    if num_ipus <= IPU_LINES:
        ax.vlines(np.arange(1, num_ipus) * tpi - 0.5, 0, 1, transform=ax.get_xaxis_transform(), color="#999999",
                  lw=0.6 if num_ipus <= 16 else 0.4, zorder=0)
    from matplotlib.transforms import ScaledTranslation
    step = math.ceil(num_ipus / 16)
    # Text just above the axes, 1 pt clear of it (a secondary axis's tick labels, without an axis to lay out).
    above = ax.get_xaxis_transform() + ScaledTranslation(0, 1 / 72, ax.figure.dpi_scale_trans)
    for k in range(0, num_ipus, step):  # centred on the tiles each IPU holds (the last may be partly filled)
        ax.text((k * tpi + min((k + 1) * tpi, n)) / 2, 1.0, f"IPU {k}", transform=above, ha="center", va="bottom",
                fontsize=7.5)
    return True


LABEL_GAP, LABEL_HEIGHT = 5.0, 12.0  # points: a top-tile label's distance above its tile, and its height
EDGE_GAP = 4.0          # points: a top-tile label at the axes' edge starts this far inside them


def crowd_label(tiles: list[int], out_of_memory: list[int] | None = None) -> str:
    """The label of top tiles that crowd together: "tile 5", "tiles 3, 5"; when only some of them are out of
    memory, those named after the list ("tiles 0, 1, 2, 3, 5; OOM: 5"), so the mark cannot be read as the whole
    list's, nor as the last tile's when it is another's (issue #26)."""
    if len(tiles) == 1:
        return f"tile {tiles[0]}"
    label = "tiles " + ", ".join(map(str, tiles))
    if out_of_memory and len(out_of_memory) < len(tiles):
        label += "; OOM: " + ", ".join(map(str, out_of_memory))
    return label


def _label_top(ax: Axes, summary: Summary, kib: np.ndarray, limit_kib: float | None = None,
               y_max: float | None = None) -> None:
    """Tile numbers over the five most memory-subscribed tiles; tiles that crowd share one label (naming
    which are out of memory when only some are).

    A label that would sit on the limit line (a tile just under the limit)
    goes above the line instead, joined to its tile by a thin leader.
    """
    over = summary.out_of_memory if isinstance(summary, TileSummary) else None
    points_per_kib = None
    if limit_kib is not None and y_max:
        fig = ax.get_figure()
        height = fig.get_size_inches()[1] if fig is not None else 0.0  # type: ignore[union-attr]
        points_per_kib = ax.get_position().height * float(height) * 72 / y_max
    span = max(summary.report.num_tiles, 1)
    groups: list[list[int]] = []
    for tile in sorted(t.tile for t in summary.top[:TOP]):
        if groups and tile - groups[-1][-1] < CROWD * span:
            groups[-1].append(tile)
        else:
            groups.append([tile])
    for group in groups:
        peak = max(group, key=lambda t: kib[t])
        label = crowd_label(group, None if over is None else [t for t in group if over[t]])
        where = peak / span
        ha = "left" if where < 0.03 else "right" if where > 0.97 else "center"  # stay inside the axes
        # At an edge, clear of the axis line (tile 0's label sat on the y axis, its tick labels beside it),
        # with a dot on the tile: a lone tile at the edge is a sliver along the spine.
        inward = {"left": EDGE_GAP, "right": -EDGE_GAP}.get(ha, 0.0)
        if inward:
            ax.plot([peak], [kib[peak]], marker="o", ms=2.5, color="#555555", clip_on=False, zorder=5)
        place: dict = {"xytext": (inward, LABEL_GAP), "textcoords": "offset points"}
        if points_per_kib is not None and limit_kib is not None and y_max:
            below = (limit_kib - float(kib[peak])) * points_per_kib  # points from the tile up to the line
            # The layout may still shrink the axes: judge generously, then place in data units, above the line.
            if -2 <= below <= 1.5 * (LABEL_GAP + LABEL_HEIGHT):
                place = {"xytext": (peak, limit_kib + 0.03 * y_max), "textcoords": "data",
                         "arrowprops": {"arrowstyle": "-", "lw": 0.5, "color": "#555555", "shrinkA": 0,
                                        "shrinkB": 0}}
        ax.annotate(label, xy=(peak, kib[peak]), ha=ha, va="bottom", fontsize=7.5, **place,
                    bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.75})


def _histogram(ax: Axes, summary: Summary) -> None:
    """Poplar's By Tile histogram: tiles per KiB bin (the printed bins for a text report)."""
    report, hist = summary.report, summary.histogram
    panel_title(ax, "By Tile histogram" + (" (as printed)" if isinstance(summary, TextSummary) else ""))
    if hist is None or not hist.bins:
        ax.text(0.5, 0.5, "no histogram in this source", ha="center", va="center", transform=ax.transAxes,
                color=NOTE_COLOUR)
        ax.set_axis_off()
        return
    limit = report.target.bytes_per_tile
    lows = np.array([b.low_kib for b in hist.bins], dtype=float)
    counts = np.array([b.count for b in hist.bins])
    # Red only for a bin holding an out-of-memory tile; a printed bin across the limit whose tiles may lie on
    # either side is hatched, not red (with no limit at all, nothing can be judged: plain bars).
    held = summary.oom_bins
    maybe = [h is None and limit is not None and b.count > 0 for h, b in zip(held, hist.bins)]
    colours = [OOM_COLOUR if h else MAYBE_COLOUR if m else TILE_COLOUR for h, m in zip(held, maybe)]
    plain = ~np.array(maybe, dtype=bool)
    _bars(ax, lows[plain], counts[plain], hist.bin_kib, facecolors=np.array(colours)[plain], edgecolors="white",
          linewidths=0.4 if len(hist.bins) <= 64 else 0)
    if not plain.all():
        _bars(ax, lows[~plain], counts[~plain], hist.bin_kib, facecolors=MAYBE_COLOUR, edgecolors=MAYBE_HATCH,
              hatch="////", linewidths=0.6)
    # Where the source left rows out, its bins are unknown: shaded, never drawn as empty bins.
    gaps = [(a.high_kib, b.low_kib) for a, b in zip(hist.bins, hist.bins[1:]) if b.low_kib > a.high_kib]
    for left, right in gaps:
        ax.axvspan(left, right, color=ELIDED_COLOUR, lw=0)
    _histogram_legend(ax, any(h and b.count for h, b in zip(held, hist.bins)), any(maybe), bool(gaps))
    nonzero = counts[counts > 0]
    if nonzero.size and nonzero.max() >= LOG_COUNT_RATIO * nonzero.min():
        ax.set_yscale("log")
        ax.set_ylim(0.7, nonzero.max() * 1.6)
        _power_labels(ax)
        _minor_ticks_as_one_line(ax)
    else:
        ax.set_ylim(0, max(1, counts.max()) * 1.1)
        from matplotlib.ticker import MaxNLocator
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # tile counts: never "0.25 tiles"
    high = float(hist.bins[-1].high_kib)
    top = scale_top(high, None if limit is None else limit / KIB)
    pad = hist.bin_kib
    ax.set_xlim(lows[0] - pad, max(high, top) + pad)
    mark_limit(ax, limit, max(high, top) + pad, vertical=True, bottom=lows[0] - pad)
    _annotate_out_of_memory(ax, summary, lows, counts)
    ax.set_xlabel(f"KiB per tile, excluding gaps ({hist.bin_kib} KiB bins)", fontsize=9)
    ax.set_ylabel("tiles" + (" (log)" if ax.get_yscale() == "log" else ""), fontsize=9)
    ax.tick_params(labelsize=8)


def _power_labels(ax: Axes) -> None:
    """Label a log axis of tile counts 1, 10, 100, 1k, 10k in plain text: matplotlib's default writes 10⁰, 10¹
    ... as mathtext, whose parser costs a tenth of a second to build on a figure's first draw."""
    from matplotlib.ticker import FuncFormatter, NullFormatter
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: short_count(value)))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _minor_ticks_as_one_line(ax: Axes) -> None:
    """The y axis's minor tick marks as one line of tick markers, as matplotlib draws each tick's, instead of
    a tick object apiece (a log axis over five decades has 40 or more: 50 ms of a pod's figure)."""
    from matplotlib import rcParams
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullLocator
    low, high = ax.get_ylim()
    locs = np.asarray(ax.yaxis.get_minor_locator()(), dtype=float)
    locs = locs[(locs >= low) & (locs <= high)]
    ax.yaxis.set_minor_locator(NullLocator())
    ax.add_line(Line2D(np.zeros(locs.size), locs, transform=ax.get_yaxis_transform(), linestyle="none",
                       marker=0,  # matplotlib.markers.TICKLEFT: a y tick's mark, pointing out as by default
                       markersize=rcParams["ytick.minor.size"],
                       markeredgewidth=rcParams["ytick.minor.width"], color=rcParams["ytick.color"], clip_on=False))


def short_count(value: float) -> str:
    """A tick's count, short: 1, 10, 100, 1k, 10k, 100k, 1M (as narrow as matplotlib's 10ⁿ)."""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:g}{suffix}"
    return f"{value:g}"


def _bars(ax: Axes, lefts: np.ndarray, heights: np.ndarray, width: float, **style) -> None:
    """Bars from ``lefts`` to ``lefts + width``, 0 to ``heights``, as one collection: a patch per bar took a
    millisecond each to make and draw (the By Tile histogram of a pod has 70 or more)."""
    from matplotlib.collections import PolyCollection
    x0, x1 = lefts, lefts + width
    zero = np.zeros_like(lefts, dtype=float)
    corners = np.stack([np.stack([x0, zero], 1), np.stack([x0, heights], 1), np.stack([x1, heights], 1),
                        np.stack([x1, zero], 1)], axis=1)
    ax.add_collection(PolyCollection(list(corners), **style), autolim=False)


def _annotate_out_of_memory(ax: Axes, summary: Summary, lows: np.ndarray, counts: np.ndarray) -> None:
    """The out-of-memory bins made unmissable: a red note with the count, pointing at the first of them
    (a bin of one tile is a sliver at y=1 on a log axis)."""
    held = [i for i, h in enumerate(summary.oom_bins) if h and counts[i]]
    if not held:
        return
    status = summary.oom
    n = status.count if status.count is not None else int(counts[held].sum())
    first = held[0]
    x = float(lows[first]) + summary.histogram.bin_kib / 2 if summary.histogram else float(lows[first])
    ax.annotate(f"{count(n, 'tile')} out of memory", xy=(x, float(counts[first])), xycoords="data",
                xytext=(0.97, 0.55), textcoords="axes fraction", ha="right", va="center", fontsize=8.5,
                color=OOM_COLOUR, weight="bold",
                arrowprops={"arrowstyle": "->", "color": OOM_COLOUR, "lw": 1.0},
                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": OOM_COLOUR, "lw": 0.6})


def _histogram_legend(ax: Axes, red: bool, maybe: bool, elided: bool = False) -> None:
    """Say what the bar colours mean, when a bar is not plain."""
    from matplotlib.patches import Patch
    handles = [Patch(facecolor=ELIDED_COLOUR, label="rows the source left out")] if elided else []
    if red:
        handles.append(Patch(facecolor=OOM_COLOUR, label="out of memory"))
    if maybe:
        handles.append(Patch(facecolor=MAYBE_COLOUR, edgecolor=MAYBE_HATCH, hatch="////",
                             label="may hold out-of-memory tiles"))
    if handles:  # above the axes at the right, in the title's row: clear of the bars and the limit label
        ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=len(handles), fontsize=7.5,
                  frameon=False, borderaxespad=0.1, handlelength=1.5, columnspacing=1.0)


