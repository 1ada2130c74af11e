"""Rich display for notebooks: a report's summary and its top tiles as HTML tables.

Every value from a file (source names, section and category names, ELF
member names) is escaped: a report is untrusted input.
"""
from __future__ import annotations

from html import escape
from typing import Iterable

from .. import analysis
from ..model import KIB, MemoryReport
from .text import FORMAT_NAMES, breakdown_items

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


def _target(report: MemoryReport) -> str:
    t = report.target
    parts = [t.arch or "arch unknown"]
    if t.num_ipus and t.tiles_per_ipu and t.num_ipus * t.tiles_per_ipu == t.num_tiles:
        parts.append(f"{t.num_ipus:,} IPU{'s' if t.num_ipus != 1 else ''} × {t.tiles_per_ipu:,} tiles")
    else:
        parts.append(f"{t.num_tiles:,} tiles")
    parts.append(_bytes(t.bytes_per_tile) + " per tile" if t.bytes_per_tile else "bytes per tile unknown")
    return ", ".join(parts)


def summary_rows(report: MemoryReport) -> list[tuple[str, str]]:
    """(label, escaped HTML) pairs for the summary table."""
    source = escape(report.source) + (f" (module {escape(report.module)})" if report.module else "")
    rows = [("Source", source),
            ("Format", escape(FORMAT_NAMES.get(report.format, report.format))),
            ("Target", escape(_target(report))),
            ("Per tile", escape(report.per_tile))]
    if report.format != "tensor-map":
        rows += [("Excluding gaps", escape(_bytes(analysis.total_excluding_gaps(report)))),
                 ("Including gaps", escape(_bytes(analysis.total_including_gaps(report))))]
        for label, peak in (("Max (excluding gaps)", analysis.max_excluding_gaps(report)),
                            ("Max (including gaps)", analysis.max_including_gaps(report))):
            if peak is not None:
                rows.append((label, escape(f"{_bytes(peak.bytes)} on tile {peak.tile}")))
        status = analysis.out_of_memory_count(report)
        oom_text = (f"{status.count:,}" if status.count is not None else
                    f"at least {status.at_least:,}" if status.at_least else "unknown")
        rows.append(("Tiles out of memory",
                     f'<span style="{OOM_STYLE}">{oom_text}</span>' if status.at_least else escape(oom_text)))
    notes = list(report.notes)
    if report.is_printed_summary:  # why its out-of-memory figure is not simply the printed count
        notes += [n for n in (analysis.out_of_memory_count(report).note(),) if n]
    rows += [("Note", escape(note)) for note in notes]
    return rows


def top_tiles_table(report: MemoryReport, n: int = 5) -> str:
    """The top tiles (the detailed tiles for a text report) as an HTML table; empty when there are none."""
    if report.format == "tensor-map":
        return ""
    top = analysis.top_tiles(report, n)
    if not top:
        return ""
    limit = report.target.bytes_per_tile
    show_name = any(t.name for t in top)
    head = ["Tile", "IPU"] + (["Member"] if show_name else []) + [
        "Excluding gaps", "Including gaps", "% of tile", "Out of memory",
        f"Largest {escape(breakdown_items(report.breakdown_kind))}"]
    aligns = ["right", "right"] + (["left"] if show_name else []) + ["right", "right", "right", "left", "left"]
    rows = [_row(head, "th", aligns)]
    for t in top:
        pct = f"{100 * t.excluding_gaps / limit:.1f}%" if limit and t.excluding_gaps is not None else "?"
        oom = ("?" if t.out_of_memory is None else
               f'<span style="{OOM_STYLE}">yes</span>' if t.out_of_memory else "no")
        items = ", ".join(f"{escape(name)} {size:,} B" for name, size in list(t.breakdown.items())[:3])
        cells = [str(t.tile), "?" if t.ipu is None else str(t.ipu)]
        cells += [escape(t.name or "")] if show_name else []
        cells += ["?" if t.excluding_gaps is None else f"{t.excluding_gaps:,} B",
                  "?" if t.including_gaps is None else f"{t.including_gaps:,} B", pct, oom, items]
        rows.append(_row(cells, aligns=aligns))
    title = "Detailed tiles (as printed)" if report.is_printed_summary else f"Top {len(top)} tiles"
    return f"<p><b>{title}</b></p><table>{''.join(rows)}</table>"


def render_html(report: MemoryReport, *, top: int = 5) -> str:
    """A self-contained HTML fragment: the summary table, then the top tiles."""
    summary = "".join(_row([f"<b>{label}</b>", value]) for label, value in summary_rows(report))
    return (f'<div class="memreport"><p><b>MemoryReport</b></p><table>{summary}</table>'
            f"{top_tiles_table(report, top)}</div>")
