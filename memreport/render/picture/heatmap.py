"""The per-IPU tile heat map: each IPU's tiles as a grid, or one row per IPU at pod scale.

Tiles are laid out by tile id (the physical placement is not in any
report): an IPU of 1,472 tiles is 32 rows of 46, one of 1,216 is 32 rows of
38. Up to :data:`SMALL_MULTIPLES_MAX_IPUS` IPUs are drawn as small multiples
in a near-square mosaic; more become one row per IPU. Cells that stand for
several tiles show their maximum and are out of memory if any of their
tiles is, so shrinking a pod to a few hundred pixels never hides a hot or
overflowing tile.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from ...analysis import TileSummary
from ...model import KIB

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

MIN_TILES = 64                 # fewer tiles are clearer as a table than as a grid
SMALL_MULTIPLES_MAX_IPUS = 4
GRID_ROWS = 32
GAP = 2                        # blank columns between side-by-side IPUs
ROW_GAP = 5                    # blank rows between rows of IPUs, room for their labels
MAX_RINGS = 50                 # out-of-memory cells ringed when there are at most this many
MAX_CELLS = (160, 400)         # (rows, columns) drawn at most; more are max-pooled


@dataclass(frozen=True)
class Layout:
    """The heat map's image (KiB, NaN where no tile), its out-of-memory mask and its labels."""

    kib: np.ndarray
    over: np.ndarray
    title: str
    equal_aspect: bool
    block_labels: list[tuple[float, float, str]]            # (x, y of the block's top edge, text)
    xticks: tuple[list[float], list[str]] = ([], [])
    yticks: tuple[list[float], list[str]] = ([], [])
    xlabel: str = ""


def grid_shape(tiles: int) -> tuple[int, int]:
    """(rows, columns) of one IPU's grid: 32 rows of 16-64 tiles where that is exact, else about 2:3."""
    if tiles % GRID_ROWS == 0 and 16 * GRID_ROWS <= tiles <= 64 * GRID_ROWS:
        return GRID_ROWS, tiles // GRID_ROWS
    cols = max(1, math.ceil(math.sqrt(tiles * 1.5)))
    return math.ceil(tiles / cols), cols


def _pool(kib: np.ndarray, over: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Max-pool (any-pool for ``over``) into blocks of ``rows`` x ``cols`` cells; NaN stays NaN."""
    if rows == cols == 1:
        return kib, over, 1, 1
    h, w = kib.shape
    kib = np.pad(kib, ((0, -h % rows), (0, -w % cols)), constant_values=np.nan)
    over = np.pad(over, ((0, -h % rows), (0, -w % cols)), constant_values=False)
    shape = (kib.shape[0] // rows, rows, kib.shape[1] // cols, cols)
    blocks = kib.reshape(shape)
    # fmax ignores NaN; a block of padding only stays NaN.
    pooled = np.fmax.reduce(np.fmax.reduce(blocks, axis=3), axis=1)
    return pooled, np.asarray(over.reshape(shape).any(axis=(1, 3))), rows, cols


def _mosaic(flat: np.ndarray, flat_over: np.ndarray, num_ipus: int, tpi: int):
    """Each IPU's grid, the IPUs themselves in a near-square mosaic; returns image, mask, labels, columns."""
    rows, cols = grid_shape(tpi)
    across = math.ceil(math.sqrt(num_ipus))
    down = math.ceil(num_ipus / across)
    band = ROW_GAP if num_ipus > 1 else 0  # a blank band above each row of IPUs holds their labels
    kib = np.full((down * (rows + band), across * cols + (across - 1) * GAP), np.nan)
    over = np.zeros(kib.shape, dtype=bool)
    labels = []
    for k in range(num_ipus):
        top, left = (k // across) * (rows + band) + band, (k % across) * (cols + GAP)
        cells = np.full(rows * cols, np.nan)
        cells[:tpi] = flat[k * tpi:(k + 1) * tpi]
        kib[top:top + rows, left:left + cols] = cells.reshape(rows, cols)
        mask = np.zeros(rows * cols, dtype=bool)
        mask[:tpi] = flat_over[k * tpi:(k + 1) * tpi]
        over[top:top + rows, left:left + cols] = mask.reshape(rows, cols)
        if band:
            labels.append((left + (cols - 1) / 2, top - 0.5, f"IPU {k}"))
    return kib, over, labels, cols


def layout(summary: TileSummary) -> Layout:
    """Arrange a complete report's tiles for the heat map."""
    report = summary.tiles
    values = report.excluding_gaps
    n = values.size
    tpi = report.target.tiles_per_ipu or n
    if tpi > 2 * n:  # sized by the tiles the file holds, not by a tile count it merely declares
        tpi = n
    num_ipus = math.ceil(n / tpi)
    over = summary.out_of_memory
    flat = np.full(num_ipus * tpi, np.nan)
    flat[:n] = values / KIB
    if report.known is not None:  # skipped tiles: unknown, drawn blank like padding
        flat[:n][~report.known] = np.nan
    flat_over = np.zeros(num_ipus * tpi, dtype=bool)
    if over is not None:
        flat_over[:n] = over
    if num_ipus <= SMALL_MULTIPLES_MAX_IPUS:
        kib, oom, labels, cols = _mosaic(flat, flat_over, num_ipus, tpi)
        kib, oom, fy, fx = _pool(kib, oom, math.ceil(kib.shape[0] / MAX_CELLS[0]),
                                 math.ceil(kib.shape[1] / MAX_CELLS[1]))
        title = f"{'Each IPU' if num_ipus > 1 else 'The IPU'}: {cols} tiles per row, tile 0 top left"
        if report.target.tiles_per_ipu is None:
            title = f"Tiles, {cols} per row from tile 0 top left"
        if fx * fy > 1:
            title += f" (cell = max of {fx * fy})"
        labels = [(x / fx, (y + 0.5) / fy - 0.5, text) for x, y, text in labels]
        return Layout(kib, oom, title, True, labels)
    kib, oom, fy, fx = _pool(flat.reshape(num_ipus, tpi), flat_over.reshape(num_ipus, tpi),
                             math.ceil(num_ipus / MAX_CELLS[0]), math.ceil(tpi / MAX_CELLS[1]))
    title = "One row per IPU" + (f" (cell = max of {fx} tiles)" if fx > 1 else "")
    step = math.ceil(num_ipus / 16)
    ipus = list(range(0, num_ipus, step))
    tick = max(1, int(round(tpi / 4, -2)) if tpi >= 400 else tpi // 4)
    marks = list(range(0, tpi, tick))[:5]
    return Layout(kib, oom, title, False, [], ([(t + 0.5) / fx - 0.5 for t in marks], [f"{t:,}" for t in marks]),
                  ([k / fy for k in ipus], [f"IPU {k}" for k in ipus]), "tile within IPU")


def draw(ax: Axes, summary: TileSummary, oom_colour: str, vmax_kib: float | None = None) -> None:
    """Draw the heat map with a colour bar in KiB; out-of-memory cells in ``oom_colour``."""
    import matplotlib

    lay = layout(summary)
    limit = summary.report.target.bytes_per_tile
    finite = lay.kib[np.isfinite(lay.kib)]
    vmax = vmax_kib if vmax_kib is not None else (limit / KIB if limit else float(finite.max(initial=1.0)))
    any_over = bool(lay.over.any())
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad=(1, 1, 1, 0), over=oom_colour)
    aspect: Literal["equal", "auto"] = "equal" if lay.equal_aspect else "auto"
    top = max(vmax, 1e-9)
    # An out-of-memory cell takes the colour map's "over" colour whatever its bytes (a tile can be out of memory
    # by its overflowed region alone): one image, not a second one of the mask drawn over the first.
    shown = np.where(lay.over, 2 * top + 1, lay.kib) if any_over else lay.kib
    image = ax.imshow(shown, cmap=cmap, vmin=0, vmax=top, interpolation="nearest", aspect=aspect)
    if any_over:
        ys, xs = np.nonzero(lay.over)
        if ys.size <= MAX_RINGS:  # a cell may be a pixel or two: a ring makes a few findable
            ax.scatter(xs, ys, s=70, facecolors="none", edgecolors=oom_colour, linewidths=1.2,
                       clip_on=False)  # a ring on an edge row drawn whole, past the cells
    # An inset follows the axes after aspect shrinking, so the bar stays beside the grid.
    bar = ax.figure.colorbar(image, cax=ax.inset_axes((1.03, 0.0, 0.035, 1.0)),
                             extend="max" if any_over else "neither")
    label = "KiB per tile" + (", top = limit" if limit and vmax == limit / KIB else "")
    bar.set_label(label + ("; red: out of memory" if any_over else ""), fontsize=8)
    bar.ax.tick_params(labelsize=7.5)
    ax.set_title(lay.title, fontsize=10.5, loc="left", y=1.0)  # placed: no search for what to clear
    ax.set_anchor("W")  # keep a narrow grid under its left-aligned title
    for x, y, text in lay.block_labels:
        ax.text(x, y, text, ha="center", va="bottom", fontsize=7.5, clip_on=False)
    ax.set_xticks(*lay.xticks, fontsize=7.5)
    ax.set_yticks(*lay.yticks, fontsize=7.5)
    ax.set_xlabel(lay.xlabel, fontsize=8.5)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
