"""Every figure of one report, computed once: what renderers format and gates judge.

:func:`summarize` is the one place a report's figures are computed for
output. Renderers take :class:`Summary` objects and never call the analysis
functions piecemeal, so a run that writes text, JSON and a picture visits
each figure once, and every output agrees.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import UnsupportedOperation
from ..model import (
    CLI_NAMES,
    Histogram,
    MemoryReport,
    OptionNames,
    SummaryReport,
    TensorMapReport,
    TileBytes,
    TileReport,
)
from ..units import count
from . import tiles
from .liveness import LivenessSummary, summarize_liveness
from .tiles import IpuSummary, TopTile
from .verdict import Largest, OutOfMemoryCount, Verdict, bins_out_of_memory, judge, out_of_memory_count

if TYPE_CHECKING:  # pragma: no cover
    from ..model.tensor_map import TensorMap
    from .closing import ClosingRow, TilesAtLeast
    from .tensors import ElementHistogram, TileTensors


DATA_TYPES_SHOWN = 3  # the program-wide data types a text report lists by name


@dataclass(frozen=True)
class DataTypes:
    """A summary's program-wide ``By Data Type`` figures, as the text report shows them.

    ``largest``: the :data:`DATA_TYPES_SHOWN` largest items with bytes,
    largest first (ties in the printed order); ``rest``: how many more items
    have bytes and ``rest_bytes`` their sum; ``total``: the sum of every item
    printed, the whole each share is of (Poplar prints no total of its own
    for the list; it matches the Excluding Gaps total in published samples).
    """

    largest: tuple[tuple[str, int], ...]
    rest: int
    rest_bytes: int
    total: int


def program_data_types(report: MemoryReport, shown: int = DATA_TYPES_SHOWN) -> DataTypes | None:
    """The largest of the program-wide data types a summary printed; None when it printed none with bytes."""
    stated = report.info.get("memory_by_data_type")
    if not isinstance(stated, Mapping):
        return None
    sized = [(str(name), size) for name, size in stated.items()
             if isinstance(size, int) and not isinstance(size, bool) and size > 0]
    if not sized:
        return None
    ranked = sorted(sized, key=lambda item: -item[1])  # stable: ties keep the printed order
    rest = ranked[shown:]
    return DataTypes(largest=tuple(ranked[:shown]), rest=len(rest), rest_bytes=sum(size for _, size in rest),
                     total=sum(size for _, size in sized))


@dataclass(frozen=True, eq=False)
class Summary:
    """One report's figures, for the ``top`` tiles and the histogram's ``bin_kib``.

    ``histogram`` is None for a source with no bytes per tile that printed
    none (a tensor map); ``oom_bins`` has one entry per histogram bin
    (True: holds an out-of-memory tile, None: cannot say). ``out_of_memory``
    is the per-tile mask of a report with per-tile bytes (None when bytes
    per tile is unknown). ``top`` are the most memory-subscribed tiles (a
    summary's first ``top_n`` detailed tiles), ``detailed`` every tile a text
    summary detailed, ``stated`` every tile it states figures for (detailed
    tiles, Maximum lines, out-of-memory messages: :func:`.tiles.stated_tiles`),
    ``selected`` the tiles asked for by id (``tiles=``).
    ``tensors`` are the tensors on the top tiles when a tensor map of the
    program was given. ``breakdown_totals`` sums each counted breakdown item
    (section, category) over the tiles, largest first; ``liveness`` is the
    program's always-live and not-always-live picture where the source has
    one. ``notes`` say what a selection could not show. ``verdict`` is the
    out-of-memory verdict in full. Chosen once here for the renderers:
    ``top_order``, what the top tiles are ranked by ("including gaps",
    "excluding gaps"; None for a summary's tiles in its printed order),
    ``histogram_as_printed`` (a summary's own bins), and for a tensor map
    alone its ``element_histogram``, the tiles holding most tensor data
    (``data_tiles``) and the map itself (``own_tensor_map``);
    ``rows_stated_by``, where every per-tile row's figures come from
    ("per-tile"; "" for a tensor map's; None when each row says its own, a
    text summary's ``stated`` tiles); ``tile_data``, the report itself when
    it holds every tile's bytes (the per-tile arrays a renderer may chart,
    chart tile by tile or write column-wise; None otherwise);
    ``symbols_readable``, whether a tile's symbols can be read from the
    source (an archive or ELF: ``--symbols``); and ``data_types``, the largest
    of a summary's program-wide By Data Type items (:class:`DataTypes`).
    """

    report: MemoryReport
    top_n: int
    bin_kib: int | None
    out_of_memory: np.ndarray | None
    oom: OutOfMemoryCount
    histogram: Histogram | None
    oom_bins: tuple[bool | None, ...]
    including_gaps: int | None
    excluding_gaps: int | None
    max_including_gaps: TileBytes | None
    max_excluding_gaps: TileBytes | None
    top: tuple[TopTile, ...]
    detailed: tuple[TopTile, ...]
    per_ipu: tuple[IpuSummary, ...]
    partial_reason: str | None
    tensor_map: TensorMap | None = None
    tensors: tuple[TileTensors, ...] | None = None
    selected: tuple[TopTile, ...] = ()
    breakdown_totals: Mapping[str, int] = field(default_factory=dict)
    liveness: LivenessSummary | None = None
    notes: tuple[str, ...] = ()
    stated: tuple[TopTile, ...] = ()
    verdict: Verdict = field(default_factory=lambda: Verdict(OutOfMemoryCount(None)))
    element_histogram: ElementHistogram | None = None
    data_tiles: tuple[TileTensors, ...] = ()
    top_order: str | None = None
    histogram_as_printed: bool = False
    own_tensor_map: TensorMap | None = None
    rows_stated_by: str | None = "per-tile"
    tile_data: TileReport | None = None
    symbols_readable: bool = False
    data_types: DataTypes | None = None

    @property
    def closing_row(self) -> ClosingRow:
        """This report's row in the table that ends a text of several (:mod:`.closing`, issue #23)."""
        from .closing import closing_row
        return closing_row(self.report, self.verdict)

    @property
    def tiles_at_least(self) -> TilesAtLeast | None:
        """A lower bound on the tile count when the source gives none (:func:`.closing.tiles_at_least`)."""
        from .closing import tiles_at_least
        return tiles_at_least(self.report)

    @property
    def label(self) -> str:
        """The source, with its module when a file holds several."""
        return self.report.label

    @property
    def target_text(self) -> str:
        """The target in one line: arch, IPUs x tiles, bytes per tile, clock."""
        t = self.report.target
        parts = [t.arch or "arch unknown"]
        bound = self.tiles_at_least if not self.report.num_tiles_known else None
        if bound is not None:  # what the numbers imply: whole IPUs, enough for the highest tile named
            parts.append(f"at least {bound.tiles:,} tiles ({count(bound.ipus, 'IPU')} x {bound.tiles_per_ipu:,}; "
                         "not stated)")
        elif not self.report.num_tiles_known:
            parts.append("tiles unknown" + (f" ({t.tiles_per_ipu:,} per IPU)" if t.tiles_per_ipu else ""))
        elif t.num_ipus and t.tiles_per_ipu and t.num_ipus * t.tiles_per_ipu == t.num_tiles:
            parts.append(f"{count(t.num_ipus, 'IPU')} x {count(t.tiles_per_ipu, 'tile')} "
                         f"= {count(t.num_tiles, 'tile')}")
        elif t.tiles_per_ipu:
            parts.append(f"{count(t.num_tiles, 'tile')} ({t.tiles_per_ipu:,} per IPU)")
        else:
            parts.append(count(t.num_tiles, "tile"))
        if t.bytes_per_tile is not None:
            parts.append(f"{t.bytes_per_tile:,} B ({t.bytes_per_tile / 1024:,.1f} KiB) per tile")
        else:
            parts.append("bytes per tile unknown")
        if t.clock_hz:
            parts.append(f"{t.clock_hz / 1e6:,.1f} MHz")
        return ", ".join(parts)

    @property
    def oom_note(self) -> str | None:
        """Why a summary's out-of-memory count is not simply its printed one (None otherwise)."""
        return self.verdict.note


def summarize(report: MemoryReport, *, top: int = 5, bin_kib: int | None = None,
              tensor_map: TensorMap | None = None, tiles_asked: Sequence[int] = (),
              names: OptionNames = CLI_NAMES) -> Summary:
    """The figures of ``report`` (its ``top`` tiles; histogram bins of ``bin_kib`` KiB where it can be re-binned).

    ``tiles_asked`` are tiles to detail beside the top tiles, by id.
    Raises :class:`~memreport.errors.UnsupportedOperation` for a ``bin_kib``
    a text summary's printed bins cannot take or a tile the report does not
    have, and a ReadError naming the tensor map when ``tensor_map`` uses
    tiles the report does not have.
    ``names`` spells the overrides in reasons: ``--tile-memory`` on the
    command line, ``tile_memory=`` in Python.
    """
    over = tiles.out_of_memory(report)
    status = out_of_memory_count(report, over, names)
    hist = None if isinstance(report, TensorMapReport) else tiles.histogram_if_known(report, bin_kib)
    top_tiles = tuple(tiles.top_tiles(report, top, over))
    stated = tuple(tiles.stated_tiles(report))
    detailed = tuple(t for t in stated if t.stated_by == "detailed")
    selected, notes = _selected(report, tiles_asked, over)
    tensors = None
    if tensor_map is not None and not isinstance(report, TensorMapReport):
        from .tensors import attribute
        tensors = tuple(attribute(report, tensor_map, top_tiles))
    element_hist: ElementHistogram | None = None
    data_tiles: tuple[TileTensors, ...] = ()
    if isinstance(report, TensorMapReport):  # a tensor map alone: its elements per tile, and where data lies most
        from .tensors import element_histogram, top_data_tiles
        element_hist = element_histogram(report.tensor_map)
        data_tiles = tuple(top_data_tiles(report.tensor_map, top, report.target.tiles_per_ipu))
    peak = tiles.max_excluding_gaps(report)
    # The worst tile's record among those shown: its IPU, its symbols where they were read.
    record = next((t for t in (*top_tiles, *selected, *stated) if peak is not None and t.tile == peak.tile), None)
    symbols_readable = isinstance(report, TileReport) and report.format in ("archive", "elf")
    return Summary(
        report=report, top_n=top, bin_kib=bin_kib, out_of_memory=over if isinstance(report, TileReport) else None,
        oom=status, histogram=hist,
        oom_bins=tuple(bins_out_of_memory(report, hist, over, status)) if hist is not None else (),
        including_gaps=tiles.total_including_gaps(report), excluding_gaps=tiles.total_excluding_gaps(report),
        max_including_gaps=tiles.max_including_gaps(report), max_excluding_gaps=peak,
        top=top_tiles, detailed=detailed, stated=stated, per_ipu=tuple(tiles.per_ipu(report, over)),
        partial_reason=tiles.partial_reason(report), tensor_map=tensor_map, tensors=tensors,
        selected=selected, breakdown_totals=tiles.breakdown_totals(report) if isinstance(report, TileReport) else {},
        liveness=summarize_liveness(report, [t.tile for t in top_tiles]), notes=notes,
        verdict=judge(report, status, peak, _largest_on(report, peak, record), record.ipu if record else None,
                      symbols_readable),
        element_histogram=element_hist, data_tiles=data_tiles, top_order=_top_order(report),
        histogram_as_printed=isinstance(report, SummaryReport) and hist is not None,
        own_tensor_map=report.tensor_map if isinstance(report, TensorMapReport) else None,
        rows_stated_by=None if isinstance(report, SummaryReport) else "" if isinstance(report, TensorMapReport)
        else "per-tile",
        tile_data=report if isinstance(report, TileReport) else None,
        symbols_readable=symbols_readable,
        data_types=program_data_types(report))


def _top_order(report: MemoryReport) -> str | None:
    """What the top tiles are ranked by; None for a summary's, listed in the order it printed them."""
    if isinstance(report, SummaryReport):
        return None
    return "including gaps" if isinstance(report, TileReport) and report.including_gaps is not None \
        else "excluding gaps"


def _largest_on(report: MemoryReport, peak: TileBytes | None, record: TopTile | None) -> Largest | None:
    """The largest thing on the largest tile, where known: its largest symbol where its symbols were read
    (``record``, the tile's record among those shown), else its largest counted breakdown item."""
    if peak is None:
        return None
    if record is not None and record.symbols is not None and record.symbols.symbols:
        s = max(record.symbols.symbols, key=lambda s: s.size)
        return Largest("symbol", s.display_name, s.size, s.section)
    breakdown = record.breakdown if record is not None else None
    if breakdown is None and isinstance(report, TileReport):
        breakdown = tiles.tile_breakdown(report, peak.tile)
    sized = [(name, size) for name, size in (breakdown or {}).items() if size]
    if not sized:
        return None
    name, size = max(sized, key=lambda kv: kv[1])
    return Largest(report.breakdown_kind, name, size)


def _selected(report: MemoryReport, asked: Sequence[int], over: np.ndarray | None
              ) -> tuple[tuple[TopTile, ...], tuple[str, ...]]:
    """The tiles asked for, as records, and notes on those a text summary did not detail."""
    asked = list(dict.fromkeys(int(t) for t in asked))
    # A tile the source states (a detailed block, a Maximum line, a message) exists whatever the tile count
    # says: a lone "Tile # 0" block states no count at all.
    stated = {t.tile for t in tiles.stated_tiles(report)}
    for tile in asked:
        if not 0 <= tile < report.num_tiles and tile not in stated:
            p = report.position
            one = ("; --module '#N' takes the file's Nth report alone" if p is not None and p.count > 1
                   and not report.module else "")
            raise UnsupportedOperation(f"{report.label}: has no tile {tile} ({_tiles_held(report, stated)}){one}")
    if not asked:
        return (), ()
    if isinstance(report, TensorMapReport):
        return (), ("a tensor map holds no bytes per tile: the tiles asked for are not detailed",)
    found = tuple(tiles.tiles_of(report, asked, over))
    missing = sorted(set(asked) - {t.tile for t in found})
    notes = () if not missing else (f"tile(s) {', '.join(map(str, missing))} asked for: a text summary holds only "
                                    "the tiles it detailed",)
    return found, notes


def _tiles_held(report: MemoryReport, stated: set[int]) -> str:
    """Which tiles a report holds, in words, for the error on a tile it has not."""
    if report.num_tiles > 0:
        return f"its tiles are 0..{report.num_tiles - 1}"
    if stated:
        return f"it states only tile(s) {', '.join(map(str, sorted(stated)[:WORDS_TILES]))}" + \
            (" and more" if len(stated) > WORDS_TILES else "")
    return "it states no tile"


WORDS_TILES = 10


def summarize_all(reports: Sequence[MemoryReport], **kwargs: Any) -> list[Summary]:
    """:func:`summarize` for each report, in order."""
    return [summarize(r, **kwargs) for r in reports]
