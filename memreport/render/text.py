"""The text report: a header, Poplar's "By Tile" block, per-IPU figures and the top tiles.

The By Tile block is laid out exactly as Poplar prints it (docs/FORMATS.md
§1), so a report rendered from full per-tile data reads like Poplar's own,
and a text summary renders back the rows it printed. Everything shown comes
from the report's :class:`~memreport.analysis.Summary`; its cost grows with
the number of bins, not the number of tiles.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..analysis import Summary, TopTile
from ..model import OOM_MESSAGES_FORMAT, TensorMapReport
from ..units import count, plural
from . import RenderOptions, drill, verdict_text
from .poplar import HISTOGRAM_HEADER, WIDTH, histogram_rows, maximum_line, prose

RULE = "=" * 78
RED, YELLOW, RESET = "\x1b[31m", "\x1b[33m", "\x1b[0m"
NEAR_LIMIT = 0.95  # yellow: within 5 % of bytes per tile


def by_tile_block(summary: Summary, indent: str = "  ") -> list[str]:
    """The "By Tile (Excluding Gaps):" block, from its heading to the out-of-memory line."""
    inner = indent + "  "
    lines = [f"{indent}By Tile (Excluding Gaps):", inner + HISTOGRAM_HEADER]
    hist = summary.histogram
    lines += [inner + row for row in histogram_rows(hist)] if hist else [inner + "(the source printed no histogram)"]
    lines.append("")
    if summary.max_including_gaps is not None:
        lines.append(inner + maximum_line("Including Gaps", summary.max_including_gaps))
    if summary.max_excluding_gaps is not None:
        lines.append(inner + maximum_line("Excluding Gaps", summary.max_excluding_gaps))
    lines.append(inner + summary.oom.describe())
    return lines


def header_lines(summary: Summary, width: int = WIDTH) -> list[str]:
    """Source, format, target and what the source does not hold (notes wrapped to ``width``)."""
    report = summary.report
    lines = [f"Source:   {summary.label}", f"Format:   {report.format_name}", f"Target:   {summary.target_text}",
             f"Per tile: {report.per_tile}"]
    notes = [*report.notes, *summary.notes]
    oom = summary.oom
    if oom.count is not None and oom.reason:  # a count judged, not printed: say why the printed one is not used
        notes.append(f"out-of-memory count judged from what the summary printed: {oom.reason}")
    for note in notes:
        lines += prose("Note:     ", note, width)
    return lines


def totals_lines(summary: Summary) -> list[str]:
    including, excluding = summary.including_gaps, summary.excluding_gaps
    return [
        "Memory Usage:",
        f"  Including Gaps: {including:,} B" if including is not None else "  Including Gaps: unknown",
        f"  Excluding Gaps: {excluding:,} B" if excluding is not None else "  Excluding Gaps: unknown",
    ]


def per_ipu_lines(summary: Summary) -> list[str]:
    """One row per IPU for multi-IPU reports (complete per-tile data only)."""
    ipus = summary.per_ipu
    if len(ipus) < 2:
        return []
    lines = ["By IPU:", f"  {'IPU':>5}  {'Tiles':>6}  {'Excluding gaps':>16}  {'Max tile':>9}  {'Max bytes':>11}  "
             f"{'OOM tiles':>9}"]
    for s in ipus:
        oom = "?" if s.tiles_out_of_memory is None else f"{s.tiles_out_of_memory:,}"
        lines.append(f"  {s.ipu:>5}  {s.num_tiles:>6,}  {s.excluding_gaps:>14,} B  {s.max_excluding_gaps.tile:>9}  "
                     f"{s.max_excluding_gaps.bytes:>9,} B  {oom:>9}")
    return lines


def _items(breakdown: dict[str, int], limit: int) -> str:
    """The ``limit`` largest items with bytes, and how many more have bytes (0 B items are neither)."""
    sized = [(name, size) for name, size in breakdown.items() if size]
    shown = [f"{name} {size:,} B" for name, size in sized[:limit]]
    rest = len(sized) - limit
    return ", ".join(shown) + (f", +{rest} more" if rest > 0 else "")


def top_tiles_lines(summary: Summary, items: int = 3, options: RenderOptions | None = None) -> list[str]:
    """The top tiles: tile, IPU, bytes, % of tile memory, largest breakdown items; OOM tiles flagged."""
    top = summary.top
    if not top:
        return []
    # A summary's detailed tiles, Maximum lines and out-of-memory messages, in its order, not a ranking.
    heading = "Tiles as printed:" if summary.top_order is None else \
        f"Top {count(len(top), 'tile')} (by {summary.top_order}):"
    return tiles_lines(summary, top, heading, items, options)


def selected_lines(summary: Summary, items: int = 3, options: RenderOptions | None = None) -> list[str]:
    """The tiles asked for by id (``--tile``), laid out as the top tiles are."""
    if not summary.selected:
        return []
    return tiles_lines(summary, summary.selected, f"Tile{'s' if len(summary.selected) > 1 else ''} asked for:", items,
                       options)


def _status(t: TopTile, limit: int | None) -> str:
    """The key fact, shown right after the bytes: out of memory, and by how much."""
    if not t.out_of_memory:
        return ""
    used = t.excluding_gaps
    if limit is not None and used is not None and used > limit:
        return f"OUT OF MEMORY by {used - limit:,} B"
    return "OUT OF MEMORY (overflowed)" if used is not None else "OUT OF MEMORY"


def _coloured(row: str, t: TopTile, limit: int | None, color: bool) -> str:
    """Red for an out-of-memory tile, yellow within 5 % of bytes per tile; plain without ``color``."""
    if not color:
        return row
    if t.out_of_memory:
        return RED + row + RESET
    if limit and t.excluding_gaps is not None and t.excluding_gaps >= NEAR_LIMIT * limit:
        return YELLOW + row + RESET
    return row


def _wrap_items(lead: str, listed: str, width: int) -> list[str]:
    """``lead`` then the items, broken after their commas so each line fits ``width`` where it can."""
    lines, line = [], lead
    for i, part in enumerate(listed.split(", ")):
        piece = part if i == 0 else ", " + part
        if i and len(line) + len(piece) > width:
            lines.append(line + ",")
            line = " " * len(lead) + part
        else:
            line += piece
    return lines + [line]


def tiles_lines(summary: Summary, top: Sequence[TopTile], title: str, items: int = 3,
                options: RenderOptions | None = None) -> list[str]:
    """A table of tiles under ``title``: tile, IPU, bytes, % of tile memory, out of memory, largest items,
    regions, liveness.

    Out of memory comes right after the bytes (the key fact stays in view);
    the largest items go on the next line when the row would pass the width
    (``options.width``, 100 columns by default).
    """
    options = options or RenderOptions()
    width = options.width or WIDTH
    report = summary.report
    limit = report.target.bytes_per_tile
    show_incl = any(t.including_gaps is not None for t in top)
    show_name = any(t.name for t in top)
    show_from = any(t.stated_by != "per-tile" for t in top)
    show_stated = any(t.stated_bytes_used is not None for t in top)  # a message's "bytes used": its own column
    statuses = [_status(t, limit) for t in top]
    status_width = max(len(s) for s in statuses)
    lines = [title]
    head = f"  {'':1} {'Tile':>6}  {'IPU':>4}  {'Excluding gaps':>16}"
    if show_incl:
        head += f"  {'Including gaps':>16}"
    if show_stated:
        head += f"  {'Used (message)':>16}"
    head += f"  {'% of tile':>9}"
    if show_from:
        head += f"  {'From':<8}"
    if show_name:
        name_width = max(len("Member"), *(len(t.name or "") for t in top))
        head += f"  {'Member':<{name_width}}"
    if status_width:
        head += f"  {'Out of memory':<{status_width}}"
    largest = f"Largest {plural(report.breakdown_kind)}"
    rows = []
    for t, status in zip(top, statuses):
        mark = "!" if t.out_of_memory else " "
        ipu = "?" if t.ipu is None else str(t.ipu)
        excl = "?" if t.excluding_gaps is None else f"{t.excluding_gaps:,} B"
        row = f"  {mark} {t.tile:>6}  {ipu:>4}  {excl:>16}"
        if show_incl:
            incl = "?" if t.including_gaps is None else f"{t.including_gaps:,} B"
            row += f"  {incl:>16}"
        if show_stated:
            stated = "" if t.stated_bytes_used is None else f"{t.stated_bytes_used:,} B"
            row += f"  {stated:>16}"
        used = t.excluding_gaps
        pct = f"{100 * used / limit:.1f}%" if limit and used is not None else "?"
        row += f"  {pct:>9}"
        if show_from:
            row += f"  {t.stated_by:<8}"
        if show_name:
            row += f"  {t.name or '':<{name_width}}"
        if status_width:
            row += f"  {status:<{status_width}}"
        rows.append((row, _items(dict(t.breakdown), items)))
    # The items stay on the row when every row fits the width; else each table row puts them on a line below.
    inline = all(len(row) + 2 + len(listed) <= width for row, listed in rows) and len(head) + 2 + len(largest) <= width
    lines.append(f"{head}  {largest}" if inline else head.rstrip())
    for t, (row, listed) in zip(top, rows):
        if inline and listed:
            row += f"  {listed}"
        lines.append(_coloured(row.rstrip(), t, limit, options.color))
        if listed and not inline:  # wrapped at the items' commas to the width, continued under the first
            lines += _wrap_items(f"  {'':1} {'':>6}  {largest.lower()}: ", listed, width)
        if t.regions:
            regions = ", ".join(f"{name.replace('_', '-')} {size:,} B" for name, size in t.regions.items())
            lines.append(f"  {'':1} {'':>6}  regions: {regions}")
        if t.liveness is not None:
            lines.append(f"  {'':1} {'':>6}  liveness: {drill.liveness_phrase(t.liveness)}")
    if any(t.out_of_memory for t in top):
        lines.append("  (! = out of memory)")
    if show_stated:
        lines.append("  (used (message) = the bytes its out-of-memory message says were used)")
    return lines


def data_types_lines(summary: Summary) -> list[str]:
    """A summary's largest program-wide data types with their share, shown after Poplar's block (which stays
    as printed); nothing when the summary printed no By Data Type list with bytes."""
    types = summary.data_types
    if types is None:
        return []
    rows = [(name, size) for name, size in types.largest]
    if types.rest:
        rows.append((f"{types.rest:,} more", types.rest_bytes))
    name_w = max(len(name) for name, _ in rows)
    size_w = max(len(f"{size:,}") for _, size in rows)
    lines = [f"Data types over all tiles (share of the {types.total:,} B By Data Type lists):"]
    lines += [f"  {name:<{name_w}}  {size:>{size_w},} B  {100 * size / types.total:>5.1f}%" for name, size in rows]
    return lines


def messages_lines(summary: Summary) -> list[str]:
    """The out-of-memory messages of the log: line, kind, and what each states (docs/FORMATS.md §8.6)."""
    messages = summary.verdict.messages
    if not messages:
        return []
    width = max(len(w.message.kind) for w in messages)
    numbers = max(len(f"{w.message.line:,}") for w in messages)
    lines = [f"Out-of-memory messages ({len(messages):,}):"]
    lines += [f"  line {w.message.line:>{numbers},}  {w.message.kind:<{width}}  {w.description}" for w in messages]
    return lines


def _drilled(summary: Summary, symbols: int | None) -> list[TopTile]:
    """The tiles whose symbol tables follow: the out-of-memory top tiles (every top tile with ``--symbols``),
    then the tiles asked for."""
    top = [t for t in summary.top if symbols is not None or t.out_of_memory]
    return [*top, *(t for t in summary.selected if t.tile not in {u.tile for u in top})]


def render_report(summary: Summary, options: RenderOptions | None = None) -> str:
    """One report as text: the verdict first, then the detail (with a tensor map, the tensors on its top
    tiles), the verdict's first line again last; with ``options.brief`` the verdict and the top tiles only."""
    from . import tensors
    options = options or RenderOptions()
    width = options.width or WIDTH
    report = summary.report
    verdict = verdict_text.report_lines(summary, width)
    if options.brief:
        return "\n\n".join("\n".join(s) for s in [verdict, top_tiles_lines(summary, options=options),
                                                 selected_lines(summary, options=options)] if s) + "\n"
    if isinstance(report, TensorMapReport):  # elements only, no bytes: its own sections
        return "\n\n".join("\n".join(s) for s in [verdict, header_lines(summary, width),
                                                 tensors.tensor_map_lines(summary)]) + "\n"
    limit = drill.TEXT_SYMBOLS if options.symbols is None else options.symbols
    if report.format == OOM_MESSAGES_FORMAT:  # nothing printed but the messages
        body = ["Out of memory:", "  " + summary.oom.describe()]
    else:
        body = totals_lines(summary) + [""] + by_tile_block(summary)
    sections: list[Sequence[str]] = [verdict, header_lines(summary, width), body]
    for extra in (data_types_lines(summary),  # after Poplar's block, which stays as printed
                  messages_lines(summary), per_ipu_lines(summary), top_tiles_lines(summary, options=options),
                  selected_lines(summary, options=options),
                  *drill.all_symbols_lines(_drilled(summary, options.symbols), limit),
                  drill.categories_lines(summary), drill.liveness_lines(summary)):
        if extra:
            sections.append(extra)
    if summary.tensors is not None:
        sections.append(tensors.attribution_lines(summary))
    sections.append([verdict[0]])  # the answer again, where | tail looks
    return "\n\n".join("\n".join(s) for s in sections) + "\n"


def render(summaries: Sequence[Summary], options: RenderOptions | None = None) -> str:
    """Several reports, one after another, separated by a rule; after the last, a table of them all."""
    from .closing import closing_lines
    text = f"\n{RULE}\n\n".join(render_report(s, options) for s in summaries)
    rows = [s.closing_row for s in summaries] if len(summaries) > 1 else []
    table = closing_lines(rows, (options and options.width) or WIDTH)
    return text + (f"\n{RULE}\n\n" + "\n".join(table) + "\n" if table else "")
