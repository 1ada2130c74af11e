"""What the panels of a report's picture share: its colours and the axis scale against the bytes-per-tile
limit, and the limit's dashed line (:mod:`.plot` and :mod:`.plot_partial` draw with them)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...model import KIB
from .labels import fmt_kib

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

OOM_COLOUR = "#d62728"
TILE_COLOUR = "#1f77b4"
INCLUDING_COLOUR = "#c6dbef"
LIMIT_COLOUR = "#222222"
LIMIT_HEADROOM = 1.5     # stretch an axis to the limit only when it is this close to the data


def scale_top(data_max: float, limit: float | None) -> float:
    """Axis top: the limit when it is near the data (so fullness shows), else the data's maximum."""
    if limit is not None and limit <= LIMIT_HEADROOM * max(data_max, 1):
        return max(data_max, limit)
    return max(data_max, 1)


def mark_limit(ax: Axes, limit: int | None, top: float, vertical: bool, bottom: float = 0.0) -> None:
    """The bytes-per-tile limit as a dashed line, or an arrow note when it is off the axis (``bottom`` to
    ``top``): a label placed at the limit itself could lie thousands of axis widths away."""
    if limit is None:
        return
    label = f"limit {fmt_kib(limit)}"
    value = limit / KIB
    if value < bottom:  # every tile is past the limit: say where it lies, at the axis's start
        ax.text(0.01, 0.97, f"← {label}" if vertical else f"{label} ↓", transform=ax.transAxes, ha="left",
                va="top", fontsize=8.5, color=LIMIT_COLOUR)
    elif value <= top:
        if vertical:
            ax.axvline(value, color=LIMIT_COLOUR, ls="--", lw=1.1)
            low, high = ax.get_xlim()
            right = (value - low) / (high - low) > 0.7  # near the right edge: label on the line's left
            ax.text(value, 0.98, f"{label} " if right else f" {label}", transform=ax.get_xaxis_transform(),
                    ha="right" if right else "left", va="top", fontsize=8.5, color=LIMIT_COLOUR)
        else:
            # Outside the axes, in the right margin, where no tile label can run into it.
            ax.axhline(value, color=LIMIT_COLOUR, ls="--", lw=1.1)
            ax.text(1.005, value, f"limit\n{fmt_kib(limit)}", transform=ax.get_yaxis_transform(), ha="left",
                    va="center", fontsize=8, color=LIMIT_COLOUR)
    else:
        arrow = "→" if vertical else "↑"
        ax.text(0.99, 0.97, f"{label} {arrow}", transform=ax.transAxes, ha="right", va="top", fontsize=8.5,
                color=LIMIT_COLOUR)
