"""Rich display for notebooks: a report's summary and its top tiles as HTML tables.

Every value from a file (source names, section and category names, ELF
member names) is escaped: a report is untrusted input.
"""
from __future__ import annotations

from collections.abc import Iterable
from html import escape

from ..analysis import Summary
from ..model import KIB
from ..units import count, plural
from . import RenderOptions
from .cells import tile_cells

OOM_STYLE = "color:#d62728;font-weight:bold"
CELL = "padding:1px 8px;text-align:{align}"


def _bytes(value: int | None) -> str:
    if value is None:
        return "unknown"
    if value >= 10 * KIB * KIB:  # totals: MiB reads better than hundreds of thousands of KiB
        return f"{value:,} B ({value / (KIB * KIB):,.1f} MiB)"
    return f"{value:,} B ({value / KIB:,.1f} KiB)"


def _row(cells: Iterable[str], tag: str = "td", aligns: Iterable[str] = ()) -> str:
    aligns = list(aligns)
    out = []
    for i, cell in enumerate(cells):
        align = aligns[i] if i < len(aligns) else "left"
        out.append(f'<{tag} style="{CELL.format(align=align)}">{cell}</{tag}>')
    return "<tr>" + "".join(out) + "</tr>"


def _target(summary: Summary) -> str:
    t = summary.report.target
    parts = [t.arch or "arch unknown"]
    if not summary.report.num_tiles_known:
        parts.append("tiles unknown")
    elif t.num_ipus and t.tiles_per_ipu and t.num_ipus * t.tiles_per_ipu == t.num_tiles:
        parts.append(f"{count(t.num_ipus, 'IPU')} × {count(t.tiles_per_ipu, 'tile')}")
    else:
        parts.append(count(t.num_tiles, "tile"))
    parts.append(_bytes(t.bytes_per_tile) + " per tile" if t.bytes_per_tile else "bytes per tile unknown")
    return ", ".join(parts)


def summary_rows(summary: Summary) -> list[tuple[str, str]]:
    """(label, escaped HTML) pairs for the summary table."""
    report = summary.report
    source = escape(report.label)
    rows = [("Source", source),
            ("Format", escape(report.format_name)),
            ("Target", escape(_target(summary))),
            ("Per tile", escape(report.per_tile))]
    if summary.own_tensor_map is None:  # a report of bytes, not a tensor map
        rows += [("Excluding gaps", escape(_bytes(summary.excluding_gaps))),
                 ("Including gaps", escape(_bytes(summary.including_gaps)))]
        for label, peak in (("Max (excluding gaps)", summary.max_excluding_gaps),
                            ("Max (including gaps)", summary.max_including_gaps)):
            if peak is not None:
                rows.append((label, escape(f"{_bytes(peak.bytes)} on tile {peak.tile}")))
        oom_text = summary.oom.short()
        rows.append(("Tiles out of memory",
                     f'<span style="{OOM_STYLE}">{oom_text}</span>' if summary.oom.at_least else escape(oom_text)))
    notes = list(report.notes) + ([summary.oom_note] if summary.oom_note else [])
    rows += [("Note", escape(note)) for note in notes]
    return rows


def top_tiles_table(summary: Summary) -> str:
    """The top tiles (the detailed tiles for a text report) as an HTML table; empty when there are none."""
    report, top = summary.report, summary.top
    if summary.own_tensor_map is not None or not top:
        return ""
    limit = report.target.bytes_per_tile
    show_name = any(t.name for t in top)
    head = ["Tile", "IPU"] + (["Member"] if show_name else []) + [
        "Excluding gaps", "Including gaps", "% of tile", "Out of memory",
        f"Largest {escape(plural(report.breakdown_kind))}"]
    aligns = ["right", "right"] + (["left"] if show_name else []) + ["right", "right", "right", "left", "left"]
    rows = [_row(head, "th", aligns)]
    for t in top:
        c = tile_cells(t, limit)
        oom = ("?" if c.out_of_memory is None else
               f'<span style="{OOM_STYLE}">yes</span>' if c.out_of_memory else "no")
        items = ", ".join(f"{escape(name)} {size:,} B" for name, size in list(t.breakdown.items())[:3])
        cells = [c.tile, c.ipu] + ([escape(t.name or "")] if show_name else [])
        cells += [c.excluding_gaps, c.including_gaps, c.share, oom, items]
        rows.append(_row(cells, aligns=aligns))
    title = "Tiles as printed" if summary.top_order is None else f"Top {count(len(top), 'tile')}"
    return f"<p><b>{title}</b></p><table>{''.join(rows)}</table>"


def render_html(summary: Summary, options: RenderOptions | None = None) -> str:
    """A self-contained HTML fragment: the summary table, then the top tiles."""
    table = "".join(_row([f"<b>{label}</b>", value]) for label, value in summary_rows(summary))
    return (f'<div class="memreport"><p><b>MemoryReport</b></p><table>{table}</table>'
            f"{top_tiles_table(summary)}</div>")
