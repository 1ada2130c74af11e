"""The top panel of a picture of a source without every tile's bytes: a text summary's detailed tiles, or the
tiles a log's out-of-memory messages name (the figures each message states), or what the messages say.

Drawn by :mod:`.plot`; the bars, the limit line and the
legend are placed so that none covers another (issue 24: the legend sat on the including-gaps bar, the
limit line ran through a bar's figure).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...analysis import Summary
from ...model import KIB
from ..layout import prose
from ..words import message_description
from .axes import INCLUDING_COLOUR, OOM_COLOUR, TILE_COLOUR, mark_limit, scale_top
from .labels import NOTE_COLOUR, fmt_kib, panel_title, text_panel

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

LABEL_SHARE, LINE_CLEARANCE = 0.07, 0.01  # a bar's figure: its height and gap, as shares of the y axis
MESSAGES_SHOWN = 8                        # bars (and listed messages) at most; the rest are counted
MESSAGE_COLUMNS = 110                     # characters of a listed message's line in the panel


def detailed_tiles(ax: Axes, summary: Summary) -> None:
    """A partial report's detailed tiles as bars: excluding gaps in front, including gaps behind."""
    report, details = summary.report, summary.detailed
    panel_title(ax, "Detailed tiles, as printed (the other tiles' memory is not in this source)")
    if not details:
        ax.text(0.5, 0.5, "this source details no tile", ha="center", va="center", transform=ax.transAxes,
                color=NOTE_COLOUR)
        ax.set_axis_off()
        return
    incl = np.array([np.nan if d.including_gaps is None else d.including_gaps / KIB for d in details])
    excl = np.array([np.nan if d.excluding_gaps is None else d.excluding_gaps / KIB for d in details])
    _bars(ax, [f"tile {d.tile}" for d in details], incl, excl, [bool(d.out_of_memory) for d in details],
          report.target.bytes_per_tile, ("including gaps", "excluding gaps", "excluding gaps, out of memory"))


def message_tiles(ax: Axes, summary: Summary) -> None:
    """A log of out-of-memory messages only: the tiles they name with the bytes each message says were used,
    against the capacity it states; or, when no message states a tile's bytes, what the messages say."""
    report = summary.report
    stated = [m for m in summary.verdict.message_tiles.values() if m.bytes_used is not None]
    stated.sort(key=lambda m: (-(m.bytes_used or 0), m.tile))
    if not stated:
        lines = [line for m in summary.verdict.messages[:MESSAGES_SHOWN]  # the text's words for each
                 for line in prose(f"{m.where}: ", message_description(m), MESSAGE_COLUMNS, hang="  ")]
        more = len(summary.verdict.messages) - MESSAGES_SHOWN
        text_panel(ax, "Out-of-memory messages (no summary in this log; they state no tile's bytes)",
                   lines + ([f"... and {more:,} more"] if more > 0 else []))
        return
    shown = stated[:MESSAGES_SHOWN]
    panel_title(ax, "Tiles the out-of-memory messages name: bytes used, as each message states"
                + (f" (the {len(shown)} largest of {len(stated):,})" if len(stated) > len(shown) else ""))
    capacities = {m.bytes_per_tile for m in shown if m.bytes_per_tile is not None}
    limit = capacities.pop() if len(capacities) == 1 else report.target.bytes_per_tile
    used = np.array([(m.bytes_used or 0) / KIB for m in shown])
    over = [m.bytes_per_tile is not None and (m.bytes_used or 0) > m.bytes_per_tile for m in shown]
    _bars(ax, [f"tile {m.tile}" for m in shown], None, used, over, limit,
          ("", "bytes used", "bytes used, past the capacity stated"))


def _bars(ax: Axes, names: list[str], behind: np.ndarray | None, front: np.ndarray, over: list[bool],
          limit: int | None, legend: tuple[str, str, str]) -> None:
    """Bars in KiB (``behind``, wider and pale, may be None or NaN), each with its front figure, the limit
    line, and a legend above the axes at the right, in the title's row: inside them it covered the bars."""
    x = np.arange(len(names))
    has_behind = behind is not None and not np.isnan(behind).all()
    heights = np.fmax(behind, front) if behind is not None else front
    if behind is not None and has_behind:
        ax.bar(x, behind, width=0.7, color=INCLUDING_COLOUR)
    ax.bar(x, front, width=0.45, color=[OOM_COLOUR if o else TILE_COLOUR for o in over])
    data_max = float(np.nanmax(heights)) if not np.isnan(heights).all() else 0.0
    top = scale_top(data_max, None if limit is None else limit / KIB)
    for xi, value, height in zip(x, front, heights):
        if not np.isnan(value):  # the front figure: the one out of memory is judged by
            ax.text(float(xi), _clear_of_limit(float(height), None if limit is None else limit / KIB, top * 1.2),
                    f"{fmt_kib(value * KIB)}", ha="center", va="bottom", fontsize=8)
    mark_limit(ax, limit, top * 1.2, vertical=False)
    ax.set_ylim(0, top * 1.2)
    ax.set_xticks(x, names, fontsize=8.5)
    ax.set_ylabel("KiB", fontsize=9)
    ax.tick_params(axis="y", labelsize=8)
    from matplotlib.patches import Patch
    # Red means out of memory and nothing else: the legend says so, whatever colour the first bar has.
    handles = ([Patch(facecolor=INCLUDING_COLOUR, label=legend[0])] if has_behind else []) \
        + ([Patch(facecolor=TILE_COLOUR, label=legend[1])] if not all(over) else []) \
        + ([Patch(facecolor=OOM_COLOUR, label=legend[2])] if any(over) else [])
    ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=len(handles), fontsize=8,
              frameon=False, borderaxespad=0.2)


def _clear_of_limit(height: float, limit: float | None, y_max: float) -> float:
    """Where a bar's figure goes (``va="bottom"``): on the bar, or just above the limit line when the line
    would run through the figure (a bar a little under the limit)."""
    if limit is not None and height - LINE_CLEARANCE * y_max <= limit <= height + LABEL_SHARE * y_max:
        return limit + LINE_CLEARANCE * y_max
    return height
