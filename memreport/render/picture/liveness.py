"""The picture's liveness panel: bytes live at each program step (always-live + the step's not-always-live), the
IPU's memory as a dashed line where a limit applies, the peak marked and named (:mod:`..words.liveness`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...analysis import LivenessCurve
from ..words.liveness import limit_phrase, step_name
from .axes import LIMIT_COLOUR, OOM_COLOUR, TILE_COLOUR
from .labels import NOTE_COLOUR, TITLE_PAD, panel_title

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

MIB = 1 << 20
LIMIT_RANGE = 4.0  # the IPU's memory is drawn up to this many times the peak (the curve keeps a quarter)
MAX_POINTS = 4096  # steps drawn one by one; beyond, each bucket's highest (the peak is never averaged away)


def _highest(values: np.ndarray, points: int) -> tuple[np.ndarray, np.ndarray]:
    """(step index, bytes) of at most ``points`` points: every step, or each bucket's highest step."""
    if values.size <= points:
        return np.arange(values.size), values
    edges = np.linspace(0, values.size, points + 1).astype(np.int64)
    starts = edges[:-1][np.diff(edges) > 0]
    best = np.array([s + int(np.argmax(values[s:e])) for s, e in zip(starts, np.append(starts[1:], values.size))])
    return best, values[best]


def draw(ax: Axes, curve: LivenessCurve) -> None:
    """The curve, its peak and the limit (a dashed line up to :data:`LIMIT_RANGE` times the peak, else said in
    the corner)."""
    live = curve.live
    index, peak = curve.peak_index, curve.peak_bytes
    steps, values = _highest(live, MAX_POINTS)
    ax.plot(steps, values / MIB, color=TILE_COLOUR, lw=1.2)
    ax.set_xlim(-0.5, max(live.size - 0.5, 0.5))
    top = float(peak or 1) * 1.3  # room above the peak for its label
    limit = curve.limit
    if limit is not None and limit <= LIMIT_RANGE * float(peak or 1):
        ax.axhline(limit / MIB, color=LIMIT_COLOUR, ls="--", lw=1.1)
        ax.text(0.005, limit / MIB, f" IPU memory {limit / MIB:,.1f} MiB", transform=ax.get_yaxis_transform(),
                ha="left", va="bottom", fontsize=8.5, color=LIMIT_COLOUR)
        top = max(top, limit * 1.1)  # room above the line for its label
    ax.set_ylim(0, top / MIB)
    if index is not None and peak is not None:
        ax.plot([index], [peak / MIB], "o", color=OOM_COLOUR, ms=5)
        right = index > 0.7 * live.size
        ax.annotate(f"peak {peak:,} B\n{step_name(curve, index)}", (index, peak / MIB), xytext=(-8 if right else 8, 3),
                    textcoords="offset points", ha="right" if right else "left", va="bottom", fontsize=8.5,
                    color=OOM_COLOUR)
    ax.set_xlabel(f"program step (of {live.size:,})", fontsize=9)
    ax.set_ylabel("live, MiB", fontsize=9)
    ax.tick_params(labelsize=8.5)
    ax.grid(axis="y", color="#e4e4e4", lw=0.8)
    ax.set_title(limit_phrase(curve), fontsize=8.5, loc="right", y=1.0, pad=TITLE_PAD, color=NOTE_COLOUR)
    what = "always-live + not-always-live" if curve.always_live is not None else "not-always-live only"
    panel_title(ax, f"Liveness over program steps ({what})")
