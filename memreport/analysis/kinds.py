"""Report kinds as behaviour: what each kind of report knows, asked in one place.

A report is one of four kinds: every tile's bytes (:class:`Tiles`: archives,
ELF files, profiles), a text summary's printed figures (:class:`Printed`),
a log's out-of-memory messages alone (:class:`Messages`) and a tensor map
alone (:class:`TensorMap`, elements, not bytes). Each answers the same
questions (totals, maxima, the histogram, which tiles are out of memory and
how many, the top tiles, why its per-tile view is partial) from what it
holds, so :func:`.summary.summarize` and the rest of analysis ask the kind
(:func:`kind_of`) and never branch on the report's type.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..errors import UnsupportedOperation
from ..model import (
    ALWAYS_LIVE,
    CLI_NAMES,
    COMPILE_LOG_FORMAT,
    NOT_ALWAYS_LIVE,
    NOT_ALWAYS_LIVE_MAX,
    OOM_MESSAGES_FORMAT,
    Histogram,
    MemoryReport,
    OptionNames,
    OutOfMemoryMessage,
    SummaryReport,
    TensorMapReport,
    TileBytes,
    TileReport,
    TileSymbols,
    exact_sum,
)
from . import tiles, verdict
from .fit_plan import breakdown_items, printed_over, tile_items, tiles_over
from .liveness import summarize_liveness
from .results import (
    CountReason,
    FitItems,
    FitNeeds,
    IpuSpread,
    IpuSummary,
    LivenessSummary,
    OutOfMemoryCount,
    Partial,
    Summary,
    TensorMapSummary,
    TextSummary,
    TileSummary,
    TopTile,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..model.tensor_map import TensorMap as TensorMapData

# What a plan on a source with no names would need: the inputs that name a tile's items (FitNeeds.inputs).
NAMES_ITEMS = ("lowered variables", "archive")

# The liveness columns a tile's items show, by the names people know them by.
LIVENESS_ITEMS = {ALWAYS_LIVE: "always-live", NOT_ALWAYS_LIVE_MAX: "not-always-live (max)",
                  NOT_ALWAYS_LIVE: "not-always-live"}


class Kind:
    """What every kind answers; a kind that holds no bytes answers None or nothing."""

    name: ClassVar[str]
    summary_class: ClassVar[type[Summary]] = Summary
    stated_by: ClassVar[str | None] = None  # who states its out-of-memory count as the answer, word for word

    def __init__(self, report: MemoryReport) -> None:
        self.report = report

    def totals(self) -> tuple[int | None, int | None]:
        """(including gaps, excluding gaps) over every tile; None where unknown."""
        return None, None

    def maxima(self) -> tuple[TileBytes | None, TileBytes | None]:
        """The largest tile (including gaps, excluding gaps); None where unknown."""
        return None, None

    def histogram(self, bin_kib: int | None = None) -> Histogram | None:
        """Poplar's By Tile histogram, or None for a source with no bytes per tile that printed none."""
        return None

    def out_of_memory(self) -> np.ndarray | None:
        """Per-tile bool mask of the tiles out of memory (None when the kind holds no per-tile bytes)."""
        return None

    def count(self, over: np.ndarray | None, names: OptionNames = CLI_NAMES) -> OutOfMemoryCount:
        """How many tiles are out of memory (``over``: :meth:`out_of_memory`)."""
        return OutOfMemoryCount(None, reason=CountReason("no per-tile bytes", self.partial(), names=names))

    def oom_bins(self, hist: Histogram, over: np.ndarray | None, count: OutOfMemoryCount) -> tuple[bool | None, ...]:
        """Per histogram bin: holds an out-of-memory tile (True, False, or None: cannot say)."""
        return (None,) * len(hist.bins)

    def top_tiles(self, n: int, over: np.ndarray | None) -> list[TopTile]:
        """The ``n`` most memory-subscribed tiles (a summary's stated tiles, in printed order)."""
        return []

    def stated(self) -> list[TopTile]:
        """Every tile a partial source states figures for (:func:`.tiles.stated_tiles`)."""
        return []

    def tiles_of(self, wanted: Sequence[int], over: np.ndarray | None) -> list[TopTile]:
        """The tiles asked for, those the kind holds figures for, in the order given."""
        return []

    def per_ipu(self, over: np.ndarray | None) -> list[IpuSummary]:
        return []

    def ipu_spread(self, over: np.ndarray | None) -> IpuSpread | None:
        """Every IPU in brief, when ``per_ipu`` does not list them all."""
        return None

    def breakdown_totals(self) -> dict[str, int]:
        return {}

    def partial(self) -> Partial | None:
        """Why the per-tile view is partial (None when every tile's bytes are known)."""
        return None

    def top_order(self) -> str | None:
        """What the top tiles are ranked by; None for a source's stated tiles, in the order it printed them."""
        return None

    def partial_skipped(self) -> int:
        """Damaged members skipped: tiles of unknown bytes among every tile's."""
        return 0

    def messages(self) -> tuple[OutOfMemoryMessage, ...]:
        """The out-of-memory messages of the log around the report."""
        return ()

    def message_tiles(self) -> dict[int, OutOfMemoryMessage]:
        """The tiles those messages name as not fitting, each with the first message naming it."""
        return {}

    def printed_count(self) -> int | None:
        """The out-of-memory count the source printed, as printed (None for sources that print none)."""
        return None

    def named_tiles(self) -> list[int]:
        """The tiles a source without a tile count names (detailed, or named by an out-of-memory message)."""
        return []

    def symbols_readable(self) -> bool:
        """Whether a tile's symbols can be read from the source (an archive or ELF file)."""
        return False

    def liveness(self, top: Sequence[int]) -> LivenessSummary | None:
        """The program's liveness where the source has it (``top``: the top tiles, for their pressure)."""
        return None

    def known_bytes(self) -> tuple[np.ndarray, np.ndarray]:
        """(tile ids ascending, excluding-gaps bytes) of every tile whose bytes the report holds."""
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)

    def tile_items(self, tile: int) -> dict[tuple[str, str], int] | None:
        """(kind, name) -> bytes of a tile's breakdown, regions and liveness; None when it does not hold the tile."""
        return None

    def symbol_table(self, tile: int) -> TileSymbols | None:
        """The tile's symbol table, where one was read."""
        return None

    def fit_over(self, headroom: int = 0) -> tuple[np.ndarray, np.ndarray] | None:
        """(tiles, excluding-gaps bytes) of the tiles above bytes per tile less ``headroom``, as far as the kind
        knows them, worst first; None when it cannot say (bytes per tile unknown, no bytes)."""
        return None

    def fit_items(self, tile: int, tensor_map: TensorMapData | None = None) -> FitItems | None:
        """What is on ``tile`` that a plan may move (None when the source names nothing on it)."""
        return None

    def fit_needs(self, tensor_map: TensorMapData | None = None) -> FitNeeds | None:
        """Why the kind's plans name no items (or it has none), and which inputs would; None when they do."""
        return FitNeeds("no per-tile bytes")

    def variable_sizes(self, tile: int) -> dict[str, int] | None:
        """A tile's lowered variables by name (bytes), where the source holds them."""
        return None


class Tiles(Kind):
    """Every tile's bytes (a :class:`~memreport.model.TileReport`)."""

    name = "tiles"
    summary_class = TileSummary
    report: TileReport

    def totals(self) -> tuple[int | None, int | None]:
        r = self.report
        return (None if r.including_gaps is None else exact_sum(r.including_gaps)), exact_sum(r.excluding_gaps)

    def maxima(self) -> tuple[TileBytes | None, TileBytes | None]:
        r = self.report
        including = None if r.including_gaps is None else tiles.argmax(r.including_gaps, r.known)
        return including, tiles.argmax(r.excluding_gaps, r.known)

    def histogram(self, bin_kib: int | None = None) -> Histogram:
        return tiles.tiles_histogram(self.report, bin_kib)

    def out_of_memory(self) -> np.ndarray | None:
        return verdict.out_of_memory(self.report)

    def count(self, over: np.ndarray | None, names: OptionNames = CLI_NAMES) -> OutOfMemoryCount:
        return verdict.tiles_count(self.report, over, names)

    def oom_bins(self, hist: Histogram, over: np.ndarray | None, count: OutOfMemoryCount) -> tuple[bool | None, ...]:
        return tuple(verdict.tiles_bins_out_of_memory(self.report, hist, over))

    def top_tiles(self, n: int, over: np.ndarray | None) -> list[TopTile]:
        return tiles.tiles_of(self.report, tiles.top_tile_ids(self.report, n).tolist(), over)

    def tiles_of(self, wanted: Sequence[int], over: np.ndarray | None) -> list[TopTile]:
        return tiles.tiles_of(self.report, wanted, over)

    def per_ipu(self, over: np.ndarray | None) -> list[IpuSummary]:
        return tiles.per_ipu(self.report, over)

    def ipu_spread(self, over: np.ndarray | None) -> IpuSpread | None:
        return tiles.ipu_spread(self.report, over)

    def breakdown_totals(self) -> dict[str, int]:
        return tiles.breakdown_totals(self.report)

    def partial(self) -> Partial | None:
        skipped = len(self.report.skipped)
        return Partial("damaged members", skipped) if skipped else None

    def partial_skipped(self) -> int:
        return len(self.report.skipped)

    def symbols_readable(self) -> bool:
        return self.report.format in ("archive", "elf")

    def liveness(self, top: Sequence[int]) -> LivenessSummary | None:
        return summarize_liveness(self.report, top)

    def known_bytes(self) -> tuple[np.ndarray, np.ndarray]:
        r = self.report
        ids = np.arange(r.num_tiles) if r.known is None else np.flatnonzero(r.known)
        return ids, r.excluding_gaps[ids].astype(np.int64)

    def tile_items(self, tile: int) -> dict[tuple[str, str], int] | None:
        r = self.report
        if r.known is not None and not r.known[tile]:
            return None
        found: dict[tuple[str, str], int] = {}
        for name, col in r.breakdown.items():
            value = col.get(tile)
            if value is None:
                continue
            if col.counted:
                found[r.breakdown_kind, name] = value
            elif name in LIVENESS_ITEMS:
                found["liveness", LIVENESS_ITEMS[name]] = value
        for name, values in r.regions.items():
            found["region", name] = int(values[tile])
        return found

    def symbol_table(self, tile: int) -> TileSymbols | None:
        return self.report.symbols.get(tile)

    def fit_over(self, headroom: int = 0) -> tuple[np.ndarray, np.ndarray] | None:
        return tiles_over(self.report, headroom)

    def fit_items(self, tile: int, tensor_map: TensorMapData | None = None) -> FitItems | None:
        return tile_items(self.report, tile, tensor_map)

    def fit_needs(self, tensor_map: TensorMapData | None = None) -> FitNeeds | None:
        r = self.report
        if r.target.bytes_per_tile is None:
            return FitNeeds("bytes per tile unknown")
        if r.variables is not None or self.symbols_readable() or tensor_map is not None:
            return None
        if r.breakdown_kind == "section":  # an ELF's sections: a symbol table names what is in them
            return FitNeeds("by section", ("archive",))
        return FitNeeds("by category", (*NAMES_ITEMS, "tensor map"))

    def variable_sizes(self, tile: int) -> dict[str, int] | None:
        v = self.report.variables
        return None if v is None else v.by_name(tile)

    def top_order(self) -> str | None:
        return "including gaps" if self.report.including_gaps is not None else "excluding gaps"


class Printed(Kind):
    """What a text summary printed (a :class:`~memreport.model.SummaryReport`): figures as printed."""

    name = "summary"
    summary_class = TextSummary
    report: SummaryReport

    def totals(self) -> tuple[int | None, int | None]:
        return self.report.printed.including_gaps, self.report.printed.excluding_gaps

    def maxima(self) -> tuple[TileBytes | None, TileBytes | None]:
        return self.report.printed.max_including_gaps, self.report.printed.max_excluding_gaps

    def histogram(self, bin_kib: int | None = None) -> Histogram | None:
        return tiles.printed_histogram(self.report, bin_kib)

    def count(self, over: np.ndarray | None, names: OptionNames = CLI_NAMES) -> OutOfMemoryCount:
        return verdict.summary_count(self.report, names)

    def oom_bins(self, hist: Histogram, over: np.ndarray | None, count: OutOfMemoryCount) -> tuple[bool | None, ...]:
        return tuple(verdict.summary_bins_out_of_memory(self.report, hist, count))

    def stated(self) -> list[TopTile]:
        return tiles.stated_tiles(self.report)

    def top_tiles(self, n: int, over: np.ndarray | None) -> list[TopTile]:
        return self.stated()[:n]

    def tiles_of(self, wanted: Sequence[int], over: np.ndarray | None) -> list[TopTile]:
        stated = {t.tile: t for t in self.stated()}
        return [stated[t] for t in wanted if t in stated]

    def partial(self) -> Partial | None:
        return Partial("text summary")

    def messages(self) -> tuple[OutOfMemoryMessage, ...]:
        return self.report.oom_messages

    def message_tiles(self) -> dict[int, OutOfMemoryMessage]:
        return verdict.message_tiles(self.report)

    def printed_count(self) -> int | None:
        return self.report.printed.tiles_out_of_memory

    def tile_items(self, tile: int) -> dict[tuple[str, str], int] | None:
        detail = next((d for d in self.report.detailed_tiles if d.tile == tile), None)
        if detail is None:
            return None
        found: dict[tuple[str, str], int] = {}
        found.update((("data type", k), v) for k, v in detail.breakdown.items())
        found.update((("region", k), v) for k, v in detail.regions.items())
        return found

    def named_tiles(self) -> list[int]:
        named = [m.tile for m in self.report.oom_messages if m.names_tile and m.tile is not None]
        return [*named, *(d.tile for d in self.report.detailed_tiles)]

    def known_bytes(self) -> tuple[np.ndarray, np.ndarray]:
        known = tiles.stated_excluding_gaps(self.report)  # detailed tiles and the Maximum (Excluding Gaps) line
        ids = np.array(sorted(known), dtype=np.int64)
        return ids, np.array([known[t] for t in ids.tolist()], dtype=np.int64)

    def fit_over(self, headroom: int = 0) -> tuple[np.ndarray, np.ndarray] | None:
        return printed_over(self.report, dict(zip(*(a.tolist() for a in self.known_bytes()))), headroom)

    def fit_items(self, tile: int, tensor_map: TensorMapData | None = None) -> FitItems | None:
        detail = next((d for d in self.report.detailed_tiles if d.tile == tile), None)
        return None if detail is None else breakdown_items(tile, dict(detail.breakdown), "data type")

    def fit_needs(self, tensor_map: TensorMapData | None = None) -> FitNeeds | None:
        if self.report.target.bytes_per_tile is None:
            return FitNeeds("bytes per tile unknown")
        return FitNeeds("by data type", NAMES_ITEMS)


class Messages(Printed):
    """A log's out-of-memory messages, with no summary around them."""

    name = "messages"

    def partial(self) -> Partial | None:
        return Partial("messages only")

    def fit_needs(self, tensor_map: TensorMapData | None = None) -> FitNeeds | None:
        if self.report.target.bytes_per_tile is None:
            return FitNeeds("bytes per tile unknown")
        return FitNeeds("messages only", NAMES_ITEMS)


class Stated(Printed):
    """Poplar's stated outcome of a compilation (``Graph compilation finished: zero tiles overflowed.``) with its
    Target info line: a count Poplar states, no summary (docs/FORMATS.md §8.15)."""

    stated_by = "Poplar"


class TensorMap(Kind):
    """A tensor map alone: where tensors' elements lie. It holds no bytes."""

    name = "tensor-map"
    summary_class = TensorMapSummary
    report: TensorMapReport

    def histogram(self, bin_kib: int | None = None) -> Histogram | None:
        if bin_kib is not None:
            raise UnsupportedOperation(f"{self.report.source}: holds no per-tile values and printed no histogram")
        return None

    def partial(self) -> Partial | None:
        return Partial("tensor map")


_KINDS: dict[str, type[Kind]] = {"tiles": Tiles, "summary": Printed, "tensor-map": TensorMap}


def kind_of(report: MemoryReport) -> Kind:
    """The behaviour of ``report``'s kind (by its ``kind`` and, for a log's messages alone, its format)."""
    if report.kind == "summary" and report.format == OOM_MESSAGES_FORMAT:
        return Messages(report)
    if report.kind == "summary" and report.format == COMPILE_LOG_FORMAT:
        return Stated(report)
    try:
        return _KINDS[report.kind](report)
    except KeyError:
        raise TypeError(f"not a report of a known kind: {report!r}") from None


def histogram(report: MemoryReport, bin_kib: int | None = None) -> Histogram:
    """Poplar's "By Tile (Excluding Gaps)" histogram (docs/FORMATS.md §1 bin rule; a text summary's printed
    bins); an UnsupportedOperation for a report that holds none."""
    hist = kind_of(report).histogram(bin_kib)
    if hist is None:
        raise UnsupportedOperation(f"{report.source}: holds no per-tile values and printed no histogram")
    return hist


def histogram_if_known(report: MemoryReport, bin_kib: int | None = None) -> Histogram | None:
    """:func:`histogram`, or None for a source with no per-tile bytes that printed no histogram."""
    return kind_of(report).histogram(bin_kib)


def max_excluding_gaps(report: MemoryReport) -> TileBytes | None:
    """The largest tile excluding gaps (printed or computed)."""
    return kind_of(report).maxima()[1]


def max_including_gaps(report: MemoryReport) -> TileBytes | None:
    """The largest tile including gaps; None where the source has no gap information."""
    return kind_of(report).maxima()[0]


def total_excluding_gaps(report: MemoryReport) -> int | None:
    """Bytes over all tiles, excluding gaps."""
    return kind_of(report).totals()[1]


def total_including_gaps(report: MemoryReport) -> int | None:
    """Bytes over all tiles, including gaps; None where unknown."""
    return kind_of(report).totals()[0]


def largest(reports: Sequence[MemoryReport]) -> MemoryReport:
    """The report with the most bytes excluding gaps (the first among equals): what ``read`` returns."""
    return max(reports, key=lambda r: total_excluding_gaps(r) or 0)


def top_tiles(report: MemoryReport, n: int = 5) -> list[TopTile]:
    """The ``n`` most memory-subscribed tiles (for a text report, its stated tiles in printed order)."""
    kind = kind_of(report)
    return kind.top_tiles(n, kind.out_of_memory())


def out_of_memory_count(report: MemoryReport, names: OptionNames = CLI_NAMES) -> OutOfMemoryCount:
    """How many tiles are out of memory: computed, printed, or bounded (:mod:`.verdict`)."""
    kind = kind_of(report)
    return kind.count(kind.out_of_memory(), names)


def count_out_of_memory(report: MemoryReport) -> int | None:
    """How many tiles are out of memory (None when the source cannot say exactly)."""
    return out_of_memory_count(report).count


def bins_out_of_memory(report: MemoryReport, hist: Histogram) -> list[bool | None]:
    """Per bin of ``hist``: True when it holds an out-of-memory tile, False when none, None when the source
    cannot say (a printed bin that straddles bytes per tile)."""
    kind = kind_of(report)
    over = kind.out_of_memory()
    return list(kind.oom_bins(hist, over, kind.count(over)))


def out_of_memory(report: MemoryReport) -> np.ndarray | None:
    """Per-tile bool mask of the tiles out of memory (None when the report holds no per-tile bytes, or bytes per
    tile is unknown and no overflowed region is known)."""
    return kind_of(report).out_of_memory()


def per_ipu(report: MemoryReport) -> list[IpuSummary]:
    """Per-IPU totals, maxima and out-of-memory counts (reports with every tile's bytes and known tiles per IPU)."""
    kind = kind_of(report)
    return kind.per_ipu(kind.out_of_memory())
