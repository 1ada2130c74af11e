"""The picture's words: its title, and the panels that are text (what a partial source printed, the top tiles).

Shared with :mod:`.plot`, which draws the rest; matplotlib comes in with the
figure these functions are given.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...analysis import Summary
from ...model import KIB, OOM_MESSAGES_FORMAT
from ...units import count
from ..cells import tile_cells

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
    t = report.target
    fig.text(0.5, 0.975, displayable(middle_shortened(report.label, TITLE_CHARS)), ha="center", va="top",
             fontsize=13, weight="bold")
    parts = [t.arch] if t.arch else []
    bound = summary.tiles_at_least if not report.num_tiles_known else None
    if bound is not None:
        parts.append(f"at least {bound.tiles:,} tiles")
    elif not report.num_tiles_known:
        parts.append("tiles unknown")
    elif t.num_ipus and t.tiles_per_ipu and t.num_ipus * t.tiles_per_ipu == t.num_tiles:
        parts.append(f"{count(t.num_ipus, 'IPU')} × {count(t.tiles_per_ipu, 'tile')}")
    else:
        parts.append(count(t.num_tiles, "tile"))
    parts.append(f"{fmt_kib(t.bytes_per_tile)} per tile" if t.bytes_per_tile else "bytes per tile unknown")
    peak = summary.max_excluding_gaps
    if peak is not None:
        share = f" ({100 * peak.bytes / t.bytes_per_tile:.1f}%)" if t.bytes_per_tile else ""
        parts.append(f"max {fmt_kib(peak.bytes)}{share} on tile {peak.tile}")
    parts.append(summary.oom.title())
    fig.text(0.5, 0.935, "  ·  ".join(parts), ha="center", va="top", fontsize=10.5)
    note: str | None
    if report.skipped:
        note = (f"{len(report.skipped):,} damaged member(s) skipped; their tiles' memory is unknown: marked x at 0, "
                "counted in no figure")
    elif report.format == OOM_MESSAGES_FORMAT:
        note = "this log holds no memory summary, only out-of-memory messages"
    elif summary.rows_stated_by is None:  # a text summary
        note = "this source printed a histogram, maxima and at most a few detailed tiles, not every tile's memory"
    else:
        note = summary.partial_reason
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
    report = summary.report
    lines = []
    hist = report.printed.histogram if report.printed else None
    if hist is not None:
        lines.append(f"Histogram:  {hist.total:,} tiles in {len(hist.bins)} bins of {hist.bin_kib} KiB"
                     + (" (rows left out)" if hist.elided_before else ""))
    for label, peak in (("incl. gaps", summary.max_including_gaps), ("excl. gaps", summary.max_excluding_gaps)):
        if peak is not None:
            lines.append(f"Max {label}: {peak.bytes:,} B ({fmt_kib(peak.bytes)}) on tile {peak.tile}")
    lines += summary.verdict.count_lines()  # what was printed, as printed; a recount only beside it, labelled
    lines.append(f"Detailed tiles: {len(report.detailed_tiles)} of "
                 + (f"{report.num_tiles:,}" if report.num_tiles_known else "an unknown tile count"))
    if report.oom_messages:
        named = sorted(summary.verdict.message_tiles)
        lines.append(f"Out-of-memory messages: {len(report.oom_messages):,}"
                     + (f" (tiles {', '.join(map(str, named[:6]))}{', ...' if len(named) > 6 else ''})"
                        if named else ""))
    if summary.histogram is None and report.oom_messages:  # plot._figure drew the messages' tiles above
        lines += ["", "No per-tile line or heat map: out-of-memory",
                  "messages name a few tiles, not every tile's",
                  "memory. An ELF archive or a graph profile",
                  "of the same program holds it."]
    else:
        lines += ["", "No per-tile line or heat map: a text summary",
                  "does not print every tile's memory. An ELF",
                  "archive or a graph profile of the same",
                  "program holds it."]
    text_panel(ax, "As printed", lines)


def top_table(ax: Axes, summary: Summary) -> None:
    """The top tiles as a small table (for reports too small for a heat map)."""
    report = summary.report
    limit = report.target.bytes_per_tile
    lines = [f"{'tile':>6} {'IPU':>4} {'excl. gaps':>14}  {'% of tile':>9}"]
    for t in summary.top[:TOP]:
        c = tile_cells(t, limit)
        mark = "  OOM" if c.out_of_memory else ""
        lines.append(f"{c.tile:>6} {c.ipu:>4} {c.excluding_gaps:>14}  {c.share:>9}{mark}")
    text_panel(ax, f"Top {count(min(TOP, report.num_tiles), 'tile')}", lines)
