"""Tensor-map sections for the text and JSON renderers.

Two uses: a tensor map alone (an element histogram and the tiles holding
the most tensor data), and a tensor map beside a report (the tensors on the
report's top tiles). Bytes from a tensor map are always labelled as an
estimate of tensor data, never as memory usage.
"""
from __future__ import annotations

from ...analysis import Summary, TensorMapSummary
from ...analysis.tensors import ElementHistogram, TileTensors
from ...model import exact_sum
from ...model.tensor_map import ESTIMATE_LABEL, TensorMap
from ..layout import BAR_WIDTH, WIDTH, bar, prose, visible

TENSORS_PER_TILE = 10


# -- text ---------------------------------------------------------------------------------------------


def histogram_lines(hist: ElementHistogram, indent: str = "    ") -> list[str]:
    """Element bins laid out like Poplar's By Tile rows: range, a 40-star bar, the tile count."""
    if not hist.bins:
        return [indent + "(no tiles)"]
    width = len(f"{max(b.high for b in hist.bins):,}")
    span_width = max(len("Range (elements)"), 2 * width + 3)
    largest = max(b.count for b in hist.bins)
    lines = [indent + f"{'Range (elements)':>{span_width}} {'Histogram':<{BAR_WIDTH}}{'Count (tiles)':>14}"]
    for b in hist.bins:
        span = f"{b.low:>{width},} - {b.high:>{width},}"
        lines.append(indent + f"{span:>{span_width}} {bar(b.count, largest):<{BAR_WIDTH}}{b.count:>14,}")
    return lines


def _estimate(value: int | None) -> str:
    return "?" if value is None else f"~{value:,} B"


def tile_block(row: TileTensors, limit: int = TENSORS_PER_TILE, indent: str = "  ", width: int = WIDTH) -> list[str]:
    """One tile: its bytes (when a report gives them), its tensor data, and its largest tensors."""
    where = f"Tile {row.tile}" + ("" if row.ipu is None else f" (IPU {row.ipu})")
    facts = []
    if row.excluding_gaps is not None:
        facts.append(f"{row.excluding_gaps:,} B excluding gaps")
    data = f"tensors: {len(row.tensors):,}, {row.elements:,} elements, {_estimate(row.est_bytes)} estimated"
    if row.unknown_size_elements:
        data += f" (+{row.unknown_size_elements:,} elements of unknown size)"
    if row.excluding_gaps:
        data += f", {100 * row.est_bytes / row.excluding_gaps:.1f}% of excluding gaps"
    lines = [f"{indent}{where}: " + "; ".join(facts + [data])]
    if len(lines[0]) > width:  # the tensor figures on lines of their own, under the tile's bytes
        lines = [f"{indent}{where}: " + "; ".join(facts) + ";", *prose(indent + "  ", data, width)] if facts \
            else prose(f"{indent}{where}: ", data, width, hang=indent + "  ")
    if not row.tensors:
        return lines
    shown = row.tensors[:limit]
    elements_width = max(len("Elements"), *(len(f"{t.elements:,}") for t in shown))
    bytes_width = max(len("Est. bytes"), *(len(_estimate(t.est_bytes)) for t in shown))
    inner = indent + "  "
    lines.append(f"{inner}{'Elements':>{elements_width}}  {'Est. bytes':>{bytes_width}}  Tensor (computation)")
    for t in shown:
        lines.append(f"{inner}{t.elements:>{elements_width},}  {_estimate(t.est_bytes):>{bytes_width}}  "
                     f"{visible(t.name)} ({visible(t.computation)})")
    rest = row.tensors[limit:]
    if rest:
        lines.append(f"{inner}+{len(rest):,} more tensor(s), {sum(t.elements for t in rest):,} elements")
    return lines


def _unknown_line(tensor_map: TensorMap, indent: str = "  ", width: int = WIDTH) -> list[str]:
    unknown = tensor_map.unknown_element_types
    if not unknown:
        return []
    return prose(indent, f"? = element type of unknown size ({', '.join(unknown)}): no byte estimate", width,
                 hang=indent + "  ")


def tensor_map_lines(summary: TensorMapSummary, width: int = WIDTH) -> list[str]:
    """A tensor map on its own: counts, the element histogram, and the tiles holding the most data."""
    tensor_map = summary.own_tensor_map
    elements = exact_sum(tensor_map.elements_by_tile)
    est = exact_sum(tensor_map.est_bytes_by_tile)
    lines = [
        "Tensor map:",
        f"  Tensors:      {len(tensor_map.tensors):,} in {len(tensor_map.computations):,} computation(s)",
        f"  Elements:     {elements:,} on {int((tensor_map.elements_by_tile > 0).sum()):,} of "
        f"{tensor_map.num_tiles:,} tiles",
        f"  Tensor data:  {_estimate(est)} estimated",
        *prose("  ", f"({ESTIMATE_LABEL})", width, hang="   "),
        "",
        "  By Tile (tensor elements):",
    ]
    assert summary.element_histogram is not None  # summarize gives a tensor map its element histogram
    lines += histogram_lines(summary.element_histogram)
    rows = summary.data_tiles
    if rows:
        lines += ["", f"Tiles holding the most tensor data (top {len(rows)}, by estimated bytes):",
                  *prose("  ", f"({ESTIMATE_LABEL})", width, hang="   ")]
        for row in rows:
            lines += tile_block(row, width=width)
        lines += _unknown_line(tensor_map, width=width)
    return lines


def attribution_lines(summary: Summary, width: int = WIDTH) -> list[str]:
    """The tensors on the report's top tiles (``--tensor-map``)."""
    tensor_map, rows = summary.tensor_map, summary.tensors or ()
    assert tensor_map is not None
    lines = [f"Tensors on the top {len(rows)} tiles (from {visible(tensor_map.source)}):",
             *prose("  ", f"({ESTIMATE_LABEL})", width, hang="   ")]
    if not rows:
        return lines + ["  (no tiles)"]
    for row in rows:
        lines += tile_block(row, width=width)
    return lines + _unknown_line(tensor_map, width=width)
