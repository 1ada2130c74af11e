"""The picture's words: its title, and the panels that are text (what a partial source printed, the top tiles).

Shared with :mod:`.plot`, which draws the rest; matplotlib comes in with the
figure these functions are given.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...analysis import Summary
from ...model import KIB
from ...units import count
from ..cells import tile_columns
from ..words import picture_partial_note, picture_title, printed_lines

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from .figure import ReportFigure as Figure

NOTE_COLOUR = "#555555"
TOP = 5
TITLE_PAD = 6.0          # points between a panel and its title (matplotlib's default)
TITLE_CHARS = 90          # a title's characters that fit the figure's width at its font size


def fmt_kib(nbytes: int | float) -> str:
    return f"{nbytes / KIB:,.1f} KiB"


def title(fig: Figure, summary: Summary) -> None:
    report = summary.report
    fig.text(0.5, 0.975, displayable(middle_shortened(report.label, TITLE_CHARS)), ha="center", va="top",
             fontsize=13, weight="bold")
    fig.text(0.5, 0.935, "  ·  ".join(picture_title(summary)), ha="center", va="top", fontsize=10.5)
    note = picture_partial_note(summary)
    if note:
        fig.text(0.5, 0.905, f"Partial per-tile view: {note}", ha="center", va="top", fontsize=9.5,
                 style="italic", color=NOTE_COLOUR)


def middle_shortened(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: the middle of a long path replaced by "…", keeping its start
    and, whole where it can, its end (the file name and module that tell reports apart)."""
    if len(text) <= limit:
        return text
    keep_end = max(limit * 2 // 3, limit - 12)
    slash = text.find("/", len(text) - keep_end)  # the kept end starts at a path separator when one is near
    end = text[slash:] if 0 <= slash < len(text) - keep_end // 2 else text[-keep_end:]
    return text[:max(limit - len(end) - 1, 0)] + "…" + end


def displayable(text: str) -> str:
    """``text`` with the stand-ins for bytes a file name held that were not UTF-8 (lone surrogates, which
    matplotlib cannot draw) shown as U+FFFD, as a terminal shows them."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def panel_title(ax: Axes, title: str, pad: float = TITLE_PAD) -> None:
    """A panel's title, left, ``pad`` points above it: placed, not left to matplotlib's search for what it
    must clear (which lays out every tick label once more: a tenth of a second of text layout)."""
    ax.set_title(title, fontsize=10.5, loc="left", y=1.0, pad=pad)


def text_panel(ax: Axes, title: str, lines: list[str]) -> None:
    ax.set_axis_off()
    panel_title(ax, title)
    ax.text(0.0, 0.95, "\n".join(lines), transform=ax.transAxes, ha="left", va="top", fontsize=9,
            family="monospace")


def printed_summary(ax: Axes, summary: Summary) -> None:
    """What a partial source printed, and what it leaves out."""
    text_panel(ax, "As printed", printed_lines(summary))


def top_table(ax: Axes, summary: Summary) -> None:
    """The top tiles as a small table (for reports too small for a heat map)."""
    report = summary.report
    lines = [f"{'tile':>6} {'IPU':>4} {'excl. gaps':>14}  {'% of tile':>9}"]
    shown = summary.top[:TOP]
    columns = {c.key: c.cells for c in tile_columns(summary, shown)}
    for i, t in enumerate(shown):
        mark = "  OOM" if t.out_of_memory else ""
        lines.append(f"{columns['tile'][i]:>6} {columns['ipu'][i]:>4} {columns['excluding'][i]:>14}  "
                     f"{columns['share'][i]:>9}{mark}")
    text_panel(ax, f"Top {count(min(TOP, report.num_tiles), 'tile')}", lines)
