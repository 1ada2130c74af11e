"""Below the tile, for the text and JSON reports: symbols, liveness and categories.

What a crowded tile holds: the largest symbols of its ELF (archives), its
always-live and not-always-live bytes and the program's categories
(profiles). Every figure comes from the :class:`~memreport.analysis.Summary`;
this module only lays it out.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...analysis import IpuSummary, LivenessCurve, Summary, TopTile
from ...analysis.liveness import Liveness, LivenessSummary
from ...model import TileSymbols, VariableRow
from ..layout import WIDTH, prose, visible
from ..words.liveness import live_at_peak, peak_phrase, what_is_live

TEXT_SYMBOLS = 10   # symbols (and lowered variables) listed per tile in text unless --symbols says otherwise
BLOCKS = "▁▂▃▄▅▆▇█"  # the liveness curve's eight heights
UNSIZED_NAMED = 2   # unsized symbols named in text (globals first: local labels rarely matter)
CATEGORIES_BY_IPU = 3


def _pct(part: int, whole: int | None) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "?"


# -- text ---------------------------------------------------------------------------------------------


def liveness_phrase(live: Liveness) -> str:
    """"always-live 4,672 B (81%), not-always-live 1,108 B (19%): mostly always-live"."""
    share = live.always_live_share
    if share is None:
        return "always-live 0 B, not-always-live 0 B"
    text = (f"always-live {live.always_live:,} B ({100 * share:.0f}%), "
            f"not-always-live {live.not_always_live:,} B ({100 * (1 - share):.0f}%)")
    return text + (f": mostly {live.pressure}" if live.pressure in ("always-live", "not-always-live") else ": even")


def symbols_lines(tile: TopTile, table: TileSymbols, limit: int | None, width: int = WIDTH) -> list[str]:
    """One tile's largest symbols: bytes, share of the tile, section, name; then what no symbol covers."""
    where = f"Symbols on tile {tile.tile}" + (f" ({table.member})" if table.member else "")
    if table.has_symbol_table is not True:
        return [f"{where}: none read"] + [f"  {note}" for note in table.notes]
    shown = table.largest(limit).symbols
    count = f"largest {len(shown):,} of {table.num_symbols:,}" if len(shown) < (table.num_symbols or 0) \
        else f"{table.num_symbols:,}"
    lines = prose("", f"{where}, {count} sized symbol(s):", width, hang="  ")
    whole = tile.excluding_gaps
    if shown:
        size_w = max(len("Bytes"), *(len(f"{s.size:,}") for s in shown))
        sections = [visible(s.section) for s in shown]  # as shown: the widths count a name's escapes
        section_w = max(len("Section"), *map(len, sections))
        lines.append(f"  {'Bytes':>{size_w}}  {'Share':>6}  {'Section':<{section_w}}  Symbol")
        for s, section in zip(shown, sections):
            name = visible(s.display_name)
            row = f"  {s.size:>{size_w},}  {_pct(s.size, whole):>6}  {section:<{section_w}}  {name}"
            if len(row) > width:  # the name whole on a line of its own, under the row (it is searched for)
                row = f"  {s.size:>{size_w},}  {_pct(s.size, whole):>6}  {section}\n    {name}"
            lines += [line.rstrip() for line in row.split("\n")]
    rest = (table.num_symbols or 0) - len(shown)
    if rest > 0:
        rest_bytes = (table.symbol_bytes or 0) - sum(s.size for s in shown)
        lines += prose("  ", f"+{rest:,} more sized symbol(s), {rest_bytes:,} B (--symbols N to list more)", width,
                       hang="    ")
    gaps = table.unattributed
    detail = ", ".join(f"{name} {size:,} B" for name, size in sorted(gaps.items(), key=lambda kv: (-kv[1], kv[0])))
    lines += prose("  ", f"Unattributed (no sized symbol covers them): {table.unattributed_bytes:,} B"
                   + (f" ({detail})" if detail else ""), width, hang="    ")
    if table.unsized:
        named = sorted(table.unsized, key=lambda s: (s.binding == "local", s.kind == "notype", s.display_name))
        names = ", ".join(s.display_name for s in named[:UNSIZED_NAMED])
        more = f", +{len(table.unsized) - UNSIZED_NAMED:,} more" if len(table.unsized) > UNSIZED_NAMED else ""
        lines += prose("  ", f"No size in the symbol table: {len(table.unsized):,} symbol(s) ({names}{more})",
                       width, hang="    ")
    for note in table.notes:
        lines += prose("  Note: ", note, width)
    return lines


def all_symbols_lines(tiles: Sequence[TopTile], limit: int | None, width: int = WIDTH) -> list[list[str]]:
    """A block per tile that has a symbol table read."""
    return [symbols_lines(t, t.symbols, limit, width) for t in tiles if t.symbols is not None]


def _items(breakdown: Mapping[str, int], whole: int, limit: int) -> str:
    sized = [(name, size) for name, size in breakdown.items() if size]  # 0 B items are neither shown nor counted
    shown = [f"{name} {size:,} B ({_pct(size, whole)})" for name, size in sized[:limit]]
    rest = len(sized) - limit
    return ", ".join(shown) + (f", +{rest} more" if rest > 0 else "")


def shown_ipus(summary: Summary) -> Sequence[IpuSummary]:
    """The IPUs the text shows one by one: every IPU, or past those listed, the ones holding the largest tiles."""
    return summary.per_ipu if summary.ipu_spread is None else summary.ipu_spread.largest


def categories_lines(summary: Summary, width: int = WIDTH) -> list[str]:
    """A profile's categories over all tiles, largest first, and per IPU on a multi-IPU program."""
    if summary.report.breakdown_kind != "category" or not summary.breakdown_totals:
        return []
    totals = [(visible(name), size) for name, size in summary.breakdown_totals.items()]  # as shown
    whole = sum(size for _, size in totals)
    name_w = max(len(name) for name, _ in totals)
    size_w = max(len(f"{size:,}") for _, size in totals)
    lines = ["Categories (all tiles, largest first):"]
    lines += [f"  {name:<{name_w}}  {size:>{size_w},} B  {_pct(size, whole):>6}" for name, size in totals]
    if len(summary.per_ipu) > 1:
        lines += ["", "Categories by IPU (largest first):" if summary.ipu_spread is None
                  else "Categories of the IPUs holding the largest tiles (largest first):"]
        for ipu in shown_ipus(summary):
            lines += prose(f"  IPU {ipu.ipu}: ", _items(ipu.breakdown, ipu.excluding_gaps, CATEGORIES_BY_IPU), width)
    return lines


def liveness_lines(summary: Summary, width: int = WIDTH) -> list[str]:
    """Always-live against not-always-live bytes: over the program, on the top tiles, per IPU, by program step."""
    live = summary.liveness
    if live is None:
        return []
    lines = ["Liveness:"]
    total = live.total
    if total is not None:
        share = total.always_live_share
        always = f"{100 * share:.1f}%" if share is not None else "?"
        never = f"{100 * (1 - share):.1f}%" if share is not None else "?"
        digits = max(len(f"{total.always_live:,}"), len(f"{total.not_always_live:,}"))
        for name, size, share_text, what in (
                ("Always-live:    ", total.always_live, always, "code, vertex state, weights, optimiser state"),
                ("Not-always-live:", total.not_always_live, never,
                 f"activations and temporaries; per tile: {total.basis}")):
            lines += prose(f"  {name} {size:>{digits},} B  {share_text:>6}  ", what, width)
        if live.top_pressure:
            parts = [f"{n} mostly {kind}" if kind != "even" else f"{n} even"
                     for kind, n in sorted(live.top_pressure.items(), key=lambda kv: (-kv[1], kv[0]))]
            lines += prose(f"  Top {len(summary.top)} tiles: ", ", ".join(parts), width)
        if len(summary.per_ipu) > 1:
            lines += [line for ipu in shown_ipus(summary) if ipu.liveness is not None
                      for line in prose(f"  IPU {ipu.ipu}: ", liveness_phrase(ipu.liveness), width)]
    lines += steps_lines(live, width)
    return lines


def steps_lines(live: LivenessSummary, width: int = WIDTH) -> list[str]:
    if live.num_steps is None:
        return []
    if live.peak is None:
        return ["  Program steps: none listed"]
    name = f" ({live.peak.name})" if live.peak.name else ""
    lines = prose("  Program steps: ", f"{live.num_steps:,}; the most not-always-live bytes, {live.peak.bytes:,} B, "
                  f"at step {live.peak.step}{name}", width, hang="    ")
    if live.curve is not None:  # the peak live, against the limit where one applies, with the curve to it
        return lines + curve_lines(live.curve, width)
    if live.peak_live_bytes is not None:
        lines += prose("  ", f"Peak live (always-live + that step): {live.peak_live_bytes:,} B", width, hang="    ")
    return lines


def sparkline(values: list[int], columns: int) -> tuple[str, int, int]:
    """``values`` as one line of :data:`BLOCKS` at most ``columns`` wide (each column the most of the steps it
    stands for, so the peak stays), from the least (▁) to the most (█); with those two figures."""
    columns = max(1, columns)
    if len(values) > columns:  # column c stands for steps [c n / columns, (c + 1) n / columns)
        n = len(values)
        values = [max(values[c * n // columns:(c + 1) * n // columns]) for c in range(columns)]
    low, high = min(values), max(values)
    top = len(BLOCKS) - 1
    line = "".join(BLOCKS[top if high == low else (v - low) * top // (high - low)] for v in values)
    return line, low, high


def curve_lines(curve: LivenessCurve, width: int = WIDTH) -> list[str]:
    """The liveness curve as one line of block characters as wide as the text, its scale, the peak against the
    limit where one applies, and the variables live at the peak (or why none are named)."""
    values = curve.live.tolist()
    line, low, high = sparkline(values, width - 4)
    lines = prose("  ", f"Live per step ({what_is_live(curve)}), {len(values):,} steps:", width, hang="    ")
    lines.append(f"    {line}")
    lines += prose("    ", f"{BLOCKS[0]} {low:,} B to {BLOCKS[-1]} {high:,} B; {peak_phrase(curve)}", width,
                   hang="      ")
    lines += prose("    ", live_at_peak(curve), width, hang="      ")
    return lines


def variables_lines(tile: TopTile, rows: tuple[VariableRow, ...], limit: int | None, width: int = WIDTH) -> list[str]:
    """One tile's lowered variables, largest first: bytes, share of the tile, category, always-live,
    interleaved, what removing it alone frees (variables sharing addresses free less), name."""
    shown = rows if limit is None else rows[:limit]
    whole = tile.excluding_gaps
    lines = prose("", f"Variables on tile {tile.tile}, "
                  + (f"largest {len(shown):,} of {len(rows):,}:" if len(shown) < len(rows) else f"{len(rows):,}:"),
                  width, hang="  ")
    if not shown:
        return lines
    names = [(visible(v.name), visible(v.category)) for v in shown]  # as shown: the widths count the escapes
    size_w = max(len("Bytes"), *(len(f"{v.bytes:,}") for v in shown))
    frees_w = max(len("Frees"), *(len(f"{v.frees:,}") for v in shown))
    cat_w = max(len("Category"), *(len(category) for _, category in names))
    lines.append(f"  {'Bytes':>{size_w}}  {'Share':>6}  {'Category':<{cat_w}}  Live    Interleaved  "
                 f"{'Frees':>{frees_w}}  Variable")
    for v, (name, category) in zip(shown, names):
        row = (f"  {v.bytes:>{size_w},}  {_pct(v.bytes, whole):>6}  {category:<{cat_w}}  "
               f"{'always' if v.always_live else 'not':<6}  {'yes' if v.interleaved else 'no':<11}  "
               f"{v.frees:>{frees_w},}  {name}")
        lines.append(row if len(row) <= width else row[:len(row) - len(name)].rstrip() + f"\n    {name}")
    lines = [part for line in lines for part in line.split("\n")]
    rest = rows[len(shown):]
    if rest:
        lines += prose("  ", f"+{len(rest):,} more variable(s), {sum(v.bytes for v in rest):,} B (--symbols N "
                       "lists more)", width, hang="    ")
    return lines


def all_variables_lines(tiles: Sequence[TopTile], limit: int | None, width: int = WIDTH) -> list[list[str]]:
    """A block per tile that lists its lowered variables."""
    return [variables_lines(t, t.variables, limit, width) for t in tiles if t.variables is not None]
