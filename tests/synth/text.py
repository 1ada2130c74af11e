"""Synthetic Poplar text summaries and TensorFlow ``.rep`` traces, laid out as Poplar prints them.

Column widths follow the walk-through in graphcore/tensorflow's
``docs/logging.rst`` (docs/FORMATS.md §1): item values end at fixed columns per
level, and ``By Type`` names are padded to the longest name plus eight, with
the numbers right-aligned to the widest (both fit the two published blocks;
Poplar's own rule for that list is not published).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from memreport.model import KIB, Bin, Histogram, TileBytes

REP_RULE = "-" * 70
# The By Tile layout, written here from docs/FORMATS.md §1 and the published samples, independently of
# memreport's renderer: the tests compare the two, so neither may borrow from the other.
HISTOGRAM_HEADER = "Range (KB) Histogram (Excluding Gaps)               Count (tiles)"
BAR = 40
MAX_BINS = 128
REGION_NAMES = {"non_interleaved": "Non-interleaved", "interleaved": "Interleaved", "overflowed": "Overflowed"}
# The data types Poplar lists, in its order (logging.rst).
DATA_TYPES = (
    "Variables", "Constants", "Host Exchange Packet Headers", "Global Exchange Packet Headers", "Stack",
    "Vertex Instances", "Copy Descriptors", "VectorList Descriptors", "Vertex Field Data", "Control Table",
    "Control Code", "Vertex Code", "Internal Exchange Code", "Host Exchange Code", "Global Exchange Code",
    "Instrumentation Results", "Shared Code Storage", "Shared Data Storage",
)
VERTEX_CATEGORIES = ("Internal vertex state", "Edge pointers", "Copy pointers", "Padding", "Descriptors")


@dataclass(frozen=True)
class MemoryScope:
    """One ``Memory Usage:`` breakdown (the whole program's or one tile's)."""

    including_gaps: int
    regions: Mapping[str, int]  # non_interleaved, interleaved, overflowed
    data_types: Mapping[str, int] = field(default_factory=dict)
    vertex_data: int | None = None
    vertex_by_category: Mapping[str, int] = field(default_factory=dict)
    vertex_by_type: Mapping[str, int] = field(default_factory=dict)
    label: str | None = "Total"

    @property
    def excluding_gaps(self) -> int:
        return sum(self.regions.values())


@dataclass(frozen=True)
class TextSummary:
    """Everything a summary prints; ``replicas`` adds the SDK 2/3 replica lines."""

    num_ipus: int
    tiles_per_ipu: int
    bytes_per_tile: int
    clock_hz: float
    graph: Mapping[str, int]
    memory: MemoryScope
    histogram: Histogram
    max_including_gaps: TileBytes
    max_excluding_gaps: TileBytes
    tiles_out_of_memory: int
    tiles: tuple[tuple[int, MemoryScope], ...] = ()
    replicas: int | None = None

    @property
    def num_tiles(self) -> int:
        return self.num_ipus * self.tiles_per_ipu


def _item(key: str, value: str, width: int) -> str:
    """``key`` then ``value`` right-aligned so the line is ``width`` wide (one space at least)."""
    return key + value.rjust(max(width - len(key), len(value) + 1))


def target_lines(num_ipus: int, tiles_per_ipu: int, bytes_per_tile: int, clock_hz: float,
                 replicas: int | None = None) -> list[str]:
    """The ``Target:`` section; kB and MB are binary, as Poplar prints them."""
    tiles = num_ipus * tiles_per_ipu
    items = [("Number of IPUs", f"{num_ipus:,}"), ("Tiles per IPU", f"{tiles_per_ipu:,}"),
             ("Total Tiles", f"{tiles:,}"), ("Memory Per-Tile", f"{bytes_per_tile / KIB:,.1f} kB"),
             ("Total Memory", f"{tiles * bytes_per_tile / KIB**2:,.1f} MB"),
             ("Clock Speed (approx)", f"{clock_hz / 1e6:,.1f} MHz")]
    if replicas is not None:
        ipus = num_ipus // replicas
        items += [("Number of Replicas", f"{replicas:,}"), ("IPUs per Replica", f"{ipus:,}"),
                  ("Tiles per Replica", f"{ipus * tiles_per_ipu:,}"),
                  ("Memory per Replica", f"{ipus * tiles_per_ipu * bytes_per_tile / KIB**2:,.1f} MB")]
    return ["Target:"] + [f"  {key + ':':<24}{value}" for key, value in items]


def graph_lines(graph: Mapping[str, int]) -> list[str]:
    """The ``Graph:`` section (``{"Number of vertices": 1219, ...}``)."""
    return ["Graph:"] + [f"  {key + ':':<24}{value:>12,}" for key, value in graph.items()]


def memory_lines(scope: MemoryScope) -> list[str]:
    """A ``Memory Usage:`` block, from its heading to the last vertex type."""
    lines = ["Memory Usage:"]
    if scope.label is not None:
        lines.append(f"  {scope.label}:")
    lines += ["    " + _item("Including Gaps:", f"{scope.including_gaps:,} B", 36), "    Excluding Gaps:",
              "      By Memory Region:"]
    lines += ["        " + _item(REGION_NAMES.get(k, k) + ":", f"{v:,} B", 32) for k, v in scope.regions.items()]
    if scope.data_types:
        lines.append("      By Data Type:")
        lines += ["          " + _item(k + ":", f"{v:,} B", 46) for k, v in scope.data_types.items()]
    if scope.vertex_data is not None:
        lines += [f"        Vertex Data ({scope.vertex_data:,}B):", "          By Category:"]
        lines += ["            " + _item(k + ":", f"{v:,} B", 39) for k, v in scope.vertex_by_category.items()]
        lines.append("          By Type:")
        if scope.vertex_by_type:
            name_width = max(map(len, scope.vertex_by_type)) + 8
            number_width = max(len(f"{v:,}") for v in scope.vertex_by_type.values())
            lines += [f"            {k:<{name_width}} {v:>{number_width},} B" for k, v in scope.vertex_by_type.items()]
    return lines


def histogram_rows(hist: Histogram) -> list[str]:
    """Poplar's rows: ``lo - hi`` padded to the widest bound and right-aligned in 10, a bar of
    ``ceil(40 * count / largest)`` stars padded to 40, the count right-aligned in 7."""
    if not hist.bins:
        return []
    width = len(str(hist.bins[-1].high_kib))
    largest = max(b.count for b in hist.bins)
    rows = []
    for b in hist.bins:
        stars = -(-BAR * b.count // largest) if largest else 0  # ceil in integers
        rows.append(f"{f'{b.low_kib:>{width}} - {b.high_kib:>{width}}':>10} {'*' * stars:<{BAR}}{b.count:>7,}")
    return rows


def maximum_line(label: str, peak: TileBytes) -> str:
    """``Maximum (L): N (X.Y K) on tile T``, K binary and rounded to one decimal."""
    return f"Maximum ({label}): {peak.bytes:,} ({peak.bytes / KIB:,.1f} K) on tile {peak.tile}"


def poplar_bins(values: np.ndarray) -> Histogram:
    """Bins as Poplar chooses them: the smallest power-of-two KiB width giving at most 128 bins from the
    floor of the smallest tile to the ceiling of the largest, aligned to multiples of the width."""
    low, high = int(values.min()), int(values.max())
    width = 1
    while high // (width * KIB) - low // (width * KIB) + 1 > MAX_BINS:
        width *= 2
    first, last = low // (width * KIB), high // (width * KIB)
    counts = np.bincount(values // (width * KIB) - first, minlength=last - first + 1)
    return Histogram(width, tuple(Bin((first + i) * width, (first + i + 1) * width, int(c))
                                  for i, c in enumerate(counts)))


def by_tile_lines(hist: Histogram, max_including_gaps: TileBytes, max_excluding_gaps: TileBytes,
                  tiles_out_of_memory: int) -> list[str]:
    """The ``By Tile (Excluding Gaps):`` block, indented as inside ``Memory Usage:``."""
    return (["  By Tile (Excluding Gaps):", "    " + HISTOGRAM_HEADER]
            + ["    " + row for row in histogram_rows(hist)]
            + ["", "    " + maximum_line("Including Gaps", max_including_gaps),
               "    " + maximum_line("Excluding Gaps", max_excluding_gaps),
               f"    {tiles_out_of_memory:,} tile(s) out of memory"])


def tile_lines(tile: int, scope: MemoryScope) -> list[str]:
    """One detailed tile: ``Tile # T memory usage:`` then its ``Memory Usage:`` block."""
    return [f"Tile # {tile} memory usage:"] + memory_lines(scope)


def summary_text(summary: TextSummary) -> str:
    """The whole summary, sections separated by blank lines, ending in a newline."""
    s = summary
    sections = [target_lines(s.num_ipus, s.tiles_per_ipu, s.bytes_per_tile, s.clock_hz, s.replicas),
                graph_lines(s.graph),
                memory_lines(s.memory) + [""] + by_tile_lines(s.histogram, s.max_including_gaps,
                                                              s.max_excluding_gaps, s.tiles_out_of_memory)]
    sections += [tile_lines(tile, scope) for tile, scope in s.tiles]
    return "\n\n".join("\n".join(lines) for lines in sections) + "\n"


# ---------------------------------------------------------------- a consistent summary from per-tile bytes

_DATA_TYPE_PERCENT = {  # an arbitrary but fixed split; Variables takes the remainder
    "Constants": 2, "Host Exchange Packet Headers": 1, "Stack": 15, "Vertex Instances": 6, "Copy Descriptors": 1,
    "VectorList Descriptors": 1, "Vertex Field Data": 3, "Control Code": 8, "Vertex Code": 5,
    "Internal Exchange Code": 4, "Host Exchange Code": 3, "Instrumentation Results": 1,
}
VERTEX_TYPES = ("poplin::ConvPartial1x1Out<float,float,true,false>", "popops::ScaledAddSupervisor<float,float,true>")


def split_tiles(excluding: np.ndarray, bytes_per_tile: int) -> dict[str, dict[str, np.ndarray]]:
    """Per-tile regions, data types and vertex data that add up to ``excluding``."""
    x = np.asarray(excluding, dtype=np.int64)
    interleaved_cap = min(128 * KIB, bytes_per_tile // 2)
    non_interleaved = np.minimum(x, bytes_per_tile - interleaved_cap)
    interleaved = np.minimum(x - non_interleaved, interleaved_cap)
    regions = {"non_interleaved": non_interleaved, "interleaved": interleaved,
               "overflowed": x - non_interleaved - interleaved}
    parts = {name: x * _DATA_TYPE_PERCENT.get(name, 0) // 100 for name in DATA_TYPES}
    parts["Variables"] = x - sum(v for k, v in parts.items() if k != "Variables")
    vertex = parts["Vertex Instances"]
    categories = {name: np.zeros_like(x) for name in VERTEX_CATEGORIES}
    categories["Internal vertex state"] = vertex * 2 // 3
    categories["Edge pointers"] = vertex - categories["Internal vertex state"]
    types = {VERTEX_TYPES[0]: vertex - vertex // 2, VERTEX_TYPES[1]: vertex // 2}
    return {"regions": regions, "data_types": parts, "vertex_by_category": categories, "vertex_by_type": types}


def _scope(split: dict[str, dict[str, np.ndarray]], including: int, pick) -> MemoryScope:
    got = {group: {k: int(pick(v)) for k, v in items.items()} for group, items in split.items()}
    return MemoryScope(including_gaps=including, regions=got["regions"], data_types=got["data_types"],
                       vertex_data=got["data_types"]["Vertex Instances"],
                       vertex_by_category=got["vertex_by_category"], vertex_by_type=got["vertex_by_type"])


def summary_from_tiles(excluding: Sequence[int] | np.ndarray, including: Sequence[int] | np.ndarray, *,
                       num_ipus: int, tiles_per_ipu: int, bytes_per_tile: int, clock_hz: float,
                       graph: Mapping[str, int], detailed: int = 5, replicas: int | None = None) -> TextSummary:
    """A summary whose every printed figure follows from the per-tile bytes given."""
    ex = np.asarray(excluding, dtype=np.int64)
    inc = np.asarray(including, dtype=np.int64)
    if ex.shape != (num_ipus * tiles_per_ipu,) or inc.shape != ex.shape:
        raise ValueError("need one excluding and one including value per tile")
    split = split_tiles(ex, bytes_per_tile)
    hist = poplar_bins(ex)
    top = sorted(range(ex.size), key=lambda t: (-int(inc[t]), t))[:detailed]
    tiles = tuple((t, _scope(split, int(inc[t]), lambda v, t=t: v[t])) for t in top)
    return TextSummary(
        num_ipus=num_ipus, tiles_per_ipu=tiles_per_ipu, bytes_per_tile=bytes_per_tile, clock_hz=clock_hz,
        graph=graph, memory=_scope(split, int(inc.sum()), lambda v: v.sum()), histogram=hist,
        max_including_gaps=TileBytes(int(np.argmax(inc)), int(inc.max())),
        max_excluding_gaps=TileBytes(int(np.argmax(ex)), int(ex.max())),
        tiles_out_of_memory=int(np.count_nonzero(ex > bytes_per_tile)), tiles=tiles, replicas=replicas)


# ---------------------------------------------------------------- the .rep event wrapper

def _event(when: str, text: str) -> str:
    return f"{REP_RULE}\n=> @ {when}: {text}\n"


def compile_begin(when: str, module: str) -> str:
    return _event(when, f"Compile begin: {module}\n")


def compile_end(when: str, module: str, duration_us: int, report: str) -> str:
    return _event(when, f"Compile end: {module}\nDuration: {duration_us} us\n{report}")


def load_engine(when: str, module: str) -> str:
    return _event(when, f"Load engine: {module}\n")


def transfer(when: str, direction: str, data: str) -> str:
    """A ``Host->Device`` or ``Device->Host`` event."""
    return _event(when, f"{direction}\n{data}\n")


def execute(when: str, module: str, report: str) -> str:
    return _event(when, f"Execute: {module}\n{report}")


def rep_trace(events: Iterable[str]) -> str:
    """A ``Trace_Event_Report.rep``: the events, concatenated as TensorFlow 1.x writes them."""
    return "".join(events)


# -- the small summary, the elided excerpt and a file to hold them, as several reader tests read them -------------

# Two Mk2-sized IPUs of four tiles each: tiles 2 and 5 are over 624 KiB.
EXCLUDING = np.array([100_000, 200_000, 650_000, 150_000, 120_000, 700_001, 90_000, 300_000])
INCLUDING = EXCLUDING + 1_000 * np.arange(8)
GRAPH = {"Number of vertices": 40, "Number of edges": 80, "Number of variables": 12, "Number of compute sets": 3}


def small_summary(**kwargs) -> TextSummary:
    """The two-IPU summary of EXCLUDING and INCLUDING (options as :func:`summary_from_tiles` takes them)."""
    return summary_from_tiles(EXCLUDING, INCLUDING, num_ipus=2, tiles_per_ipu=4, bytes_per_tile=638_976,
                              clock_hz=1.33e9, graph=GRAPH, **kwargs)


SMALL = small_summary()
SMALL_TEXT = summary_text(SMALL)
OTHER_TEXT = summary_text(small_summary(detailed=2))

# The imbalanced histogram and tile block quoted in graphcore/tensorflow docs/logging.rst:
# indented by the document, zero rows and list items elided with "." lines.
ELIDED = """\
    Target:
      Number of IPUs:         1
      Tiles per IPU:          1,216
      Total Tiles:            1,216
      Memory Per-Tile:        256.0 kB
      Total Memory:           304.0 MB
      Clock Speed (approx):   1,600.0 MHz

    By Tile (Excluding Gaps):
        Range (KB) Histogram (Excluding Gaps)               Count (tiles)
           0 -   8 *                                            20
           8 -  16 ****************************************  1,192
          16 -  24 *                                             2
          24 -  32                                               0
        .
        .
        .
         504 - 512 *                                             1
         512 - 520                                               0
        .
        .
        .
         800 - 808                                               0
         808 - 816 *                                             1

        Maximum (Including Gaps): 834,416 (814.9 K) on tile 0
        Maximum (Excluding Gaps): 834,339 (814.8 K) on tile 0
        2 tile(s) out of memory

    Tile # 0 memory usage:
    Memory Usage:
      Total:
        Including Gaps:            834,416 B
        Excluding Gaps:
          By Memory Region:
            Non-interleaved:       122,880 B
            Interleaved:           131,072 B
            Overflowed:            580,387 B
          By Data Type:
              Variables:                           807,658 B
              Constants:                                 0 B
              Stack:                                 3,168 B
                .
                .
                .

            Vertex Data (22,353B):
              By Category:
                Internal vertex state:          4,152 B
                Edge pointers:                 10,798 B
                .
                .
                .
              By Type:
                poplin::ConvPartial1x1Out<float,float,true,false>                                6,648 B
                popops::BinaryOp1DSupervisor<popops::expr::BinaryOpType::MULTIPLY,float>           752 B
                .
                .
                .
"""


def write(tmp_path: Path, text: str, name: str = "run.log") -> Path:
    """``text`` at ``tmp_path/name`` in UTF-8; its path."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path
