"""The text report: a header, Poplar's "By Tile" block, per-IPU figures and the top tiles.

The By Tile block is laid out exactly as Poplar prints it (FORMATS.md §1),
so a report rendered from full per-tile data reads like Poplar's own, and a
text report renders back the rows it printed. Its cost grows with the
number of bins, not the number of tiles.
"""
from __future__ import annotations

import math
from typing import Sequence

from .. import analysis
from ..model import Histogram, MemoryReport, TileBytes
from ..tensor_map_model import TensorMap
from ..units import kib

BAR_WIDTH = 40
HISTOGRAM_HEADER = "Range (KB) Histogram (Excluding Gaps)               Count (tiles)"
FORMAT_NAMES = {
    "archive": "ELF archive", "thin-archive": "thin ELF archive", "elf": "ELF file",
    "poplar-text": "Poplar text summary", "json-profile": "JSON graph profile",
    "cbor-profile": "CBOR graph profile", "tensor-map": "tensor map",
}


def histogram_rows(hist: Histogram) -> list[str]:
    """Poplar's histogram rows: range right-aligned in 10, a 40-star bar, the count in 7."""
    if not hist.bins:
        return []
    width = len(str(max(b.high_kib for b in hist.bins)))
    largest = max(b.count for b in hist.bins)
    rows = []
    for b in hist.bins:
        stars = math.ceil(BAR_WIDTH * b.count / largest) if largest else 0
        span = f"{b.low_kib:>{width}} - {b.high_kib:>{width}}"
        rows.append(f"{span:>10} {'*' * stars:<{BAR_WIDTH}}{b.count:>7,}")
    return rows


def maximum_line(label: str, peak: TileBytes) -> str:
    return f"Maximum ({label}): {peak.bytes:,} ({kib(peak.bytes)}) on tile {peak.tile}"


def by_tile_block(report: MemoryReport, bin_kib: int | None = None, indent: str = "  ") -> list[str]:
    """The "By Tile (Excluding Gaps):" block, from its heading to the out-of-memory line."""
    hist = analysis.histogram_if_known(report, bin_kib)
    inner = indent + "  "
    lines = [f"{indent}By Tile (Excluding Gaps):", inner + HISTOGRAM_HEADER]
    lines += [inner + row for row in histogram_rows(hist)] if hist else [inner + "(the source printed no histogram)"]
    lines.append("")
    peak_in = analysis.max_including_gaps(report)
    peak_ex = analysis.max_excluding_gaps(report)
    if peak_in is not None:
        lines.append(inner + maximum_line("Including Gaps", peak_in))
    if peak_ex is not None:
        lines.append(inner + maximum_line("Excluding Gaps", peak_ex))
    lines.append(inner + analysis.out_of_memory_count(report).describe())
    return lines


def header_lines(report: MemoryReport) -> list[str]:
    """Source, format, target and what the source does not hold."""
    t = report.target
    kind = FORMAT_NAMES.get(report.format, report.format)
    source = report.source + (f" (module {report.module})" if report.module else "")
    lines = [f"Source:   {source}", f"Format:   {kind}"]
    parts = [t.arch or "arch unknown"]
    if t.num_ipus and t.tiles_per_ipu and t.num_ipus * t.tiles_per_ipu == t.num_tiles:
        parts.append(f"{t.num_ipus:,} IPU{'s' if t.num_ipus != 1 else ''} x {t.tiles_per_ipu:,} tiles "
                     f"= {t.num_tiles:,} tiles")
    elif t.tiles_per_ipu:
        parts.append(f"{t.num_tiles:,} tiles ({t.tiles_per_ipu:,} per IPU)")
    else:
        parts.append(f"{t.num_tiles:,} tiles")
    if t.bytes_per_tile is not None:
        parts.append(f"{t.bytes_per_tile:,} B ({t.bytes_per_tile / 1024:,.1f} KiB) per tile")
    else:
        parts.append("bytes per tile unknown")
    if t.clock_hz:
        parts.append(f"{t.clock_hz / 1e6:,.1f} MHz")
    lines.append("Target:   " + ", ".join(parts))
    lines.append(f"Per tile: {report.per_tile}")
    lines += [f"Note:     {note}" for note in report.notes]
    oom = analysis.out_of_memory_count(report)
    if oom.count is not None and oom.reason:  # a count judged, not printed: say why the printed one is not used
        lines.append(f"Note:     out-of-memory count judged from what the summary printed: {oom.reason}")
    return lines


def totals_lines(report: MemoryReport) -> list[str]:
    including = analysis.total_including_gaps(report)
    excluding = analysis.total_excluding_gaps(report)
    return [
        "Memory Usage:",
        f"  Including Gaps: {including:,} B" if including is not None else "  Including Gaps: unknown",
        f"  Excluding Gaps: {excluding:,} B" if excluding is not None else "  Excluding Gaps: unknown",
    ]


def per_ipu_lines(report: MemoryReport) -> list[str]:
    """One row per IPU for multi-IPU reports (complete per-tile data only)."""
    ipus = analysis.per_ipu(report)
    if len(ipus) < 2:
        return []
    lines = ["By IPU:", f"  {'IPU':>5}  {'Tiles':>6}  {'Excluding gaps':>16}  {'Max tile':>9}  {'Max bytes':>11}  "
             f"{'OOM tiles':>9}"]
    for s in ipus:
        oom = "?" if s.tiles_out_of_memory is None else f"{s.tiles_out_of_memory:,}"
        lines.append(f"  {s.ipu:>5}  {s.num_tiles:>6,}  {s.excluding_gaps:>14,} B  {s.max_excluding_gaps.tile:>9}  "
                     f"{s.max_excluding_gaps.bytes:>9,} B  {oom:>9}")
    return lines


def breakdown_items(kind: str) -> str:
    """The plural of a breakdown kind: sections, categories, data types."""
    return kind[:-1] + "ies" if kind.endswith("y") else kind + "s"


def _items(breakdown: dict[str, int], limit: int) -> str:
    shown = [f"{name} {size:,} B" for name, size in list(breakdown.items())[:limit]]
    rest = len(breakdown) - limit
    return ", ".join(shown) + (f", +{rest} more" if rest > 0 else "")


def top_tiles_lines(report: MemoryReport, n: int, items: int = 3) -> list[str]:
    """The top tiles: tile, IPU, bytes, % of tile memory, largest breakdown items; OOM tiles flagged."""
    top = analysis.top_tiles(report, n)
    if not top:
        return []
    limit = report.target.bytes_per_tile
    show_incl = any(t.including_gaps is not None for t in top)
    show_name = any(t.name for t in top)
    printed = report.is_printed_summary  # its detailed tiles, in its order, not a ranking
    title = "Detailed tiles (as printed)" if printed else f"Top {len(top)} tiles"
    by = "including gaps" if report.including_gaps is not None else "excluding gaps"
    lines = [f"{title}:" if printed else f"{title} (by {by}):"]
    head = f"  {'':1} {'Tile':>6}  {'IPU':>4}  {'Excluding gaps':>16}"
    if show_incl:
        head += f"  {'Including gaps':>16}"
    head += f"  {'% of tile':>9}"
    if show_name:
        width = max(len("Member"), *(len(t.name or "") for t in top))
        head += f"  {'Member':<{width}}"
    lines.append(head + f"  Largest {breakdown_items(report.breakdown_kind)}")
    for t in top:
        mark = "!" if t.out_of_memory else " "
        ipu = "?" if t.ipu is None else str(t.ipu)
        excl = "?" if t.excluding_gaps is None else f"{t.excluding_gaps:,} B"
        row = f"  {mark} {t.tile:>6}  {ipu:>4}  {excl:>16}"
        if show_incl:
            incl = "?" if t.including_gaps is None else f"{t.including_gaps:,} B"
            row += f"  {incl:>16}"
        used = t.excluding_gaps
        pct = f"{100 * used / limit:.1f}%" if limit and used is not None else "?"
        row += f"  {pct:>9}"
        if show_name:
            row += f"  {t.name or '':<{width}}"
        row += f"  {_items(dict(t.breakdown), items)}"
        if t.out_of_memory and limit is not None and used is not None:
            row += f"  OUT OF MEMORY by {used - limit:,} B" if used > limit else "  OUT OF MEMORY (overflowed)"
        lines.append(row.rstrip())
        if t.regions:
            regions = ", ".join(f"{name.replace('_', '-')} {size:,} B" for name, size in t.regions.items())
            lines.append(f"  {'':1} {'':>6}  regions: {regions}")
    if any(t.out_of_memory for t in top):
        lines.append("  (! = out of memory)")
    return lines


def render_report(report: MemoryReport, *, top: int = 5, bin_kib: int | None = None,
                  tensor_map: TensorMap | None = None) -> str:
    """One report as text (``tensor_map`` adds the tensors on its top tiles)."""
    from . import tensors
    if report.format == "tensor-map":  # elements only, no bytes: its own sections
        return tensors.render_tensor_map_report(report, top=top)
    sections: list[Sequence[str]] = [header_lines(report), totals_lines(report) + [""] +
                                     by_tile_block(report, bin_kib)]
    for extra in (per_ipu_lines(report), top_tiles_lines(report, top)):
        if extra:
            sections.append(extra)
    if tensor_map is not None:
        sections.append(tensors.attribution_lines(report, tensor_map, top))
    return "\n\n".join("\n".join(s) for s in sections) + "\n"


def render(reports: Sequence[MemoryReport], *, top: int = 5, bin_kib: int | None = None,
           tensor_map: TensorMap | None = None) -> str:
    """Several reports, one after another, separated by a rule."""
    rule = "\n" + "=" * 78 + "\n\n"
    return rule.join(render_report(r, top=top, bin_kib=bin_kib, tensor_map=tensor_map) for r in reports)
