"""Every result analysis hands to the renderers and the API, in one flat module (coverage.py's ``results.py``).

These are facts: numbers, tiles, the reasons a figure is not known as
structured values. Nothing here is a sentence: the words people read are
built from these facts in :mod:`memreport.render.words`. The logic that
computes them (:mod:`.kinds`, :mod:`.verdict`, :mod:`.summary`, :mod:`.diff`...)
imports this module and the model, so analysis is two floors, not a tower.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..config import Origin
from ..model import (
    CLI_NAMES,
    CompileHistory,
    Finding,
    Histogram,
    MemoryReport,
    OptionNames,
    OutOfMemoryMessage,
    ReportName,
    SummaryReport,
    TensorMapReport,
    TileBytes,
    TileReport,
    TileSymbols,
)
from ..model.tensor_map import TensorMap, TileTensor
from ..model.variables import VariableRow

# -- liveness -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Liveness:
    """Always-live and not-always-live bytes of a tile (or a sum of tiles); ``basis``: how the second is measured."""

    always_live: int
    not_always_live: int
    basis: str

    @property
    def always_live_share(self) -> float | None:
        """The always-live fraction of the two (None when both are 0)."""
        total = self.always_live + self.not_always_live
        return None if total == 0 else self.always_live / total

    @property
    def pressure(self) -> str | None:
        """Which holds more bytes: "always-live", "not-always-live" or "even" (None when both are 0)."""
        if self.always_live == self.not_always_live:
            return None if self.always_live == 0 else "even"
        return "always-live" if self.always_live > self.not_always_live else "not-always-live"


@dataclass(frozen=True)
class StepPeak:
    """The program step with the most not-always-live bytes: its path in the step tree ("3.0"), name, bytes."""

    step: str
    name: str | None
    bytes: int


@dataclass(frozen=True)
class LivenessSummary:
    """A program's liveness: totals over its tiles, the pressure on its top tiles, and its peak step.

    ``top_pressure`` counts the top tiles by :attr:`Liveness.pressure`.
    ``num_steps``, ``peak`` and ``curve`` come from the program-step
    liveness where the source has it (None otherwise).
    """

    total: Liveness | None
    top_pressure: dict[str, int]
    num_steps: int | None
    peak: StepPeak | None
    curve: LivenessCurve | None = None  # memory live per program step, where the source has steps

    @property
    def peak_live_bytes(self) -> int | None:
        """Always-live bytes of every tile plus the peak step's not-always-live bytes (libpva users' peak)."""
        if self.total is None or self.peak is None:
            return None
        return self.total.always_live + self.peak.bytes


@dataclass(frozen=True, eq=False)
class LivenessCurve:
    """Memory live at each program step: the program's always-live bytes plus that step's not-always-live bytes.

    ``not_always_live`` holds one int64 per step, in the order the steps
    are walked (depth first: ``paths`` "3", "3.0"...; ``names`` where the
    source names the program). ``always_live`` is every tile's always-live
    bytes (None where the source has no such column: the curve is then the
    not-always-live bytes alone). ``scope`` says what the figures cover:
    "ipu" (a program on one IPU) or "program" (several IPUs: no limit
    applies to their sum); ``limit`` is the memory of that one IPU, None
    where the scope has none or bytes per tile is unknown. ``variables``
    are those the source names as live at the peak (name, bytes), None where
    it names none (a JSON profile's steps name no variables).
    """

    always_live: int | None
    not_always_live: np.ndarray
    paths: tuple[str, ...]
    names: tuple[str | None, ...]
    scope: str
    limit: int | None
    num_ipus: int | None = None
    variables: tuple[tuple[str, int], ...] | None = None

    @cached_property
    def live(self) -> np.ndarray:
        """Bytes live at each step (int64)."""
        return self.not_always_live.astype(np.int64) + (self.always_live or 0)

    @property
    def peak_index(self) -> int | None:
        """The step with the most bytes live (the first among equals); None when there is no step."""
        return int(np.argmax(self.live)) if self.live.size else None

    @property
    def peak_bytes(self) -> int | None:
        index = self.peak_index
        return None if index is None else int(self.live[index])

    @property
    def peak_share(self) -> float | None:
        """The peak as a share of ``limit`` (None where no limit applies)."""
        peak = self.peak_bytes
        return None if peak is None or not self.limit else peak / self.limit


# -- tiles ------------------------------------------------------------------------------------------------------

# Where a tile's figures come from: a report with every tile's bytes ("per-tile"), or, for a text summary,
# a detailed tile, a "Maximum (...) on tile T" line, or an out-of-memory message (its "bytes used" only).
STATED_BY = ("per-tile", "detailed", "maximum", "message")


@dataclass(frozen=True)
class TopTile:
    """One of the most memory-subscribed tiles (or a tile asked for), with its largest breakdown items.

    ``liveness`` is its always-live and not-always-live bytes where the
    source has them; ``symbols`` its symbol table where one was read;
    ``variables`` its lowered variables where the source holds them.
    """

    tile: int
    ipu: int | None
    excluding_gaps: int | None
    including_gaps: int | None
    out_of_memory: bool | None
    breakdown: Mapping[str, int] = field(default_factory=dict)
    name: str | None = None
    regions: Mapping[str, int] = field(default_factory=dict)
    liveness: Liveness | None = None
    symbols: TileSymbols | None = None
    stated_by: str = "per-tile"  # where its figures come from: one of STATED_BY
    # The bytes an out-of-memory message says were used on the tile (its first message naming it; None when no
    # message does): a figure of its own, neither excluding nor including gaps.
    stated_bytes_used: int | None = None
    # Its lowered variables, largest first, where a lowered-variables report was read (None otherwise).
    variables: tuple[VariableRow, ...] | None = None


@dataclass(frozen=True)
class IpuSummary:
    """One IPU's share of a complete report; ``breakdown`` its counted items (categories, sections), largest first."""

    ipu: int
    first_tile: int
    num_tiles: int
    excluding_gaps: int
    including_gaps: int | None
    max_excluding_gaps: TileBytes
    tiles_out_of_memory: int | None
    breakdown: Mapping[str, int] = field(default_factory=dict)
    liveness: Liveness | None = None


@dataclass(frozen=True)
class IpuSpread:
    """Every IPU in brief, for a report of more IPUs than are listed one by one (issue 33 item 15: a profile may
    declare one tile per IPU over 376,832 tiles): how many IPUs hold a known tile (``ipus``), how many
    ``Summary.per_ipu`` lists (the first ones), how many hold a tile out of memory (None when unknown), and the
    ``largest``: the IPUs holding the largest tiles, largest first."""

    ipus: int
    listed: int
    with_out_of_memory: int | None
    largest: tuple[IpuSummary, ...]

    @property
    def left_out(self) -> int:
        """IPUs that ``Summary.per_ipu`` does not list."""
        return self.ipus - self.listed


# -- the out-of-memory verdict ----------------------------------------------------------------------------------

# Why a report's per-tile view is partial (Partial.kind).
PARTIAL_KINDS = ("damaged members", "messages only", "text summary", "tensor map")


@dataclass(frozen=True)
class Partial:
    """Why a report does not hold every tile's bytes: ``kind`` (one of :data:`PARTIAL_KINDS`) and, for damaged
    members, how many were skipped."""

    kind: str
    skipped: int = 0


# Why an out-of-memory count is not plainly computed or printed (CountReason.why).
REASONS = ("bytes per tile unknown", "no per-tile bytes", "printed for other bytes per tile", "messages only",
           "no printed count")


@dataclass(frozen=True)
class CountReason:
    """Why an exact out-of-memory count is missing, or judged rather than printed: the facts the words need.

    ``why`` is one of :data:`REASONS`. ``partial`` says what a source with
    no per-tile bytes is; ``printed``, ``stated`` and ``limit`` are a
    summary's printed count, the bytes per tile it printed and those in use;
    ``host_streams``: its messages are all about host stream buffers;
    ``judge_hint``: bytes per tile would let its printed figures be judged;
    ``unsettled``: nothing else it printed settles the count for these bytes
    per tile; ``names`` spells the overrides as the user does.
    """

    why: str
    partial: Partial | None = None
    printed: int | None = None
    stated: int | None = None
    limit: int | None = None
    host_streams: bool = False
    judge_hint: bool = False
    unsettled: int | None = None
    names: OptionNames = CLI_NAMES


@dataclass(frozen=True)
class OutOfMemoryCount:
    """How many tiles are out of memory, as far as the source can say.

    ``count`` is exact (computed, or printed by a text summary for the bytes
    per tile in use), or None when the source cannot say; ``at_least`` is
    how many tiles are known to be out of memory all the same (``count``
    itself when exact). ``basis`` names what in the source shows a count or
    bound that is not plainly computed or printed ("maximum", "histogram",
    "detailed tiles", "detailed tiles' overflowed regions", "out-of-memory
    count", "out-of-memory messages"), judged for ``basis_limit`` bytes per
    tile when given; ``reason`` why an exact count is missing (or judged).
    """

    count: int | None
    at_least: int = 0
    basis: tuple[str, ...] = ()
    basis_limit: int | None = None
    reason: CountReason | None = None

    @property
    def known(self) -> bool:
        """Whether anything is known: an exact count or a lower bound above 0."""
        return self.count is not None or self.at_least > 0

    @property
    def plain(self) -> bool:
        """Whether the count is simply computed or printed (nothing to explain)."""
        return not self.basis and self.reason is None


@dataclass(frozen=True)
class Largest:
    """The largest thing on a tile: its largest symbol (``kind`` "symbol", with its ``section``) where its
    symbols were read, its largest lowered variable (``kind`` "variable", its category as ``section``), else
    its largest breakdown item (``kind`` the report's breakdown kind: "section", "category")."""

    kind: str
    name: str
    bytes: int
    section: str | None = None


@dataclass(frozen=True)
class LookInto:
    """What to look into next: ``tile`` of the report ``name``, with its symbol tables when ``symbols``."""

    name: ReportName
    tile: int
    symbols: bool


@dataclass(frozen=True)
class Verdict:
    """A report's out-of-memory verdict, everything a renderer says about it chosen once.

    ``count`` is how many tiles are out of memory (counted, printed, or
    bounded: "at least N"); ``printed_count`` what a text summary printed,
    as printed (None for other sources); ``worst`` the largest tile,
    excluding gaps, against ``bytes_per_tile``, on IPU ``worst_ipu`` where
    known; ``largest_on_worst`` the largest thing on it where known;
    ``look_into`` what to look into next. ``message_tiles`` are the tiles
    out-of-memory messages name, ``messages`` every message of the report.
    ``judged``: the count is a text summary's, judged rather than printed
    (its basis and reason are worth a note).
    """

    count: OutOfMemoryCount
    num_tiles: int | None = None
    bytes_per_tile: int | None = None
    worst: TileBytes | None = None
    largest_on_worst: Largest | None = None
    printed_count: int | None = None
    message_tiles: Mapping[int, OutOfMemoryMessage] = field(default_factory=dict)
    messages: tuple[OutOfMemoryMessage, ...] = ()
    judged: bool = False
    worst_ipu: int | None = None
    look_into: LookInto | None = None
    stated_by: str | None = None  # the count is the answer as this one states it (Poplar's stated outcome)

    @property
    def excess(self) -> int | None:
        """Bytes the worst tile holds beyond bytes per tile (0 when it fits; None when either is unknown)."""
        if self.worst is None or self.bytes_per_tile is None:
            return None
        return max(self.worst.bytes - self.bytes_per_tile, 0)

    @property
    def free(self) -> int | None:
        """Bytes per tile the worst tile leaves free (0 when it is over; None when either is unknown)."""
        if self.worst is None or self.bytes_per_tile is None:
            return None
        return max(self.bytes_per_tile - self.worst.bytes, 0)

    @property
    def share(self) -> float | None:
        """The worst tile's bytes as a share of bytes per tile (1.0 is full; None when either is unknown)."""
        if self.worst is None or not self.bytes_per_tile:
            return None
        return self.worst.bytes / self.bytes_per_tile


# -- the fit plan -----------------------------------------------------------------------------------------------

# An item's class (FitItem.liveness, "class" in JSON): what it is, as far as its source says.
FIT_ALWAYS_LIVE, FIT_NOT_ALWAYS_LIVE, FIT_GAP = "always live", "not always live", "gap"
FIT_UNKNOWN = "unknown"  # a source that does not say (an ELF symbol: .bss holds both kinds)
FIT_CLASSES = (FIT_ALWAYS_LIVE, FIT_NOT_ALWAYS_LIVE, FIT_GAP, FIT_UNKNOWN)
FIT_BUDGETS = ("limit", "headroom")
# What names a plan's items (FitItems.source, FitPlan.source); "" where nothing does (the gap only).
FIT_SOURCES = ("symbols", "variables", "tensors", "sections", "categories", "data types", "")
# Why a report's plans do not name what to move (FitNeeds.why), or there are none.
FIT_WHY = ("bytes per tile unknown", "no per-tile bytes", "by section", "by category", "by data type",
           "messages only", "not detailed")
# Inputs that name a tile's items (FitNeeds.inputs).
FIT_INPUTS = ("archive", "lowered variables", "tensor map")


@dataclass(frozen=True)
class FitItem:
    """One thing on a tile a plan may move: its bytes, and the bytes removing it alone frees."""

    name: str
    kind: str  # what it is where it lives: an ELF section (".bss"), a memory category ("variable")
    liveness: str  # one of FIT_CLASSES ("class" in JSON)
    bytes: int
    frees: int
    exact: bool = True

    def __post_init__(self) -> None:
        if self.liveness not in FIT_CLASSES:
            raise ValueError(f"an item's class is one of {', '.join(FIT_CLASSES)}, not {self.liveness!r}")
        if not 0 <= self.frees <= self.bytes:
            raise ValueError(f"item {self.name!r}: frees {self.frees:,} B, outside 0..its {self.bytes:,} B")

    def as_json(self) -> dict[str, object]:
        return {"name": self.name, "kind": self.kind, "class": self.liveness, "bytes": self.bytes,
                "frees": self.frees, "exact": self.exact}


@dataclass(frozen=True, eq=False)
class Shared:
    """Address ranges items share: segment ``pair_segment[k]`` (``lengths`` bytes) is covered by item
    ``pair_item[k]``; removing a set of items frees a segment when every item covering it is in the set."""

    lengths: np.ndarray
    pair_segment: np.ndarray
    pair_item: np.ndarray


@dataclass(frozen=True, eq=False)
class FitItems:
    """The items on one tile, and what removing any set of them frees: each its own ``frees`` (additive), or
    by the ranges they share (``shared``); ``source`` names what they are (one of FIT_SOURCES)."""

    tile: int
    items: tuple[FitItem, ...]
    shared: Shared | None = None
    source: str = ""

    def __post_init__(self) -> None:
        if self.source not in FIT_SOURCES:
            raise ValueError(f"items' source is one of {', '.join(map(repr, FIT_SOURCES))}, not {self.source!r}")
        if self.shared is None:
            return
        s, n = self.shared, len(self.items)
        if s.pair_item.size and (int(s.pair_item.min()) < 0 or int(s.pair_item.max()) >= n):
            raise ValueError(f"shared ranges name items outside 0..{n - 1}")
        covered = np.bincount(s.pair_item, weights=s.lengths[s.pair_segment], minlength=n)
        if any(covered[i] > item.bytes for i, item in enumerate(self.items)):
            raise ValueError("an item covers more bytes than it takes")

    def frees_of(self, chosen: Iterable[int]) -> int:
        """The bytes removing the items ``chosen`` (positions in :attr:`items`) frees together."""
        chosen = sorted(set(chosen))
        if self.shared is None:
            return sum(self.items[i].frees for i in chosen)
        s = self.shared
        flags = np.zeros(len(self.items), dtype=bool)
        flags[chosen] = True
        covering = np.bincount(s.pair_segment, minlength=s.lengths.size)
        taken = np.bincount(s.pair_segment[flags[s.pair_item]], minlength=s.lengths.size)
        return int(s.lengths[(taken == covering) & (covering > 0)].sum())


@dataclass(frozen=True)
class FitPlan:
    """What to move off one tile to close its gap (:mod:`.fit_plan` says how it is chosen).

    ``items`` is the plan, largest first (empty where no source names the
    tile's items: the gap alone); ``source`` what names them (FIT_SOURCES).
    """

    tile: int
    ipu: int | None
    over_by: int  # the gap: bytes over the limit, or short of the headroom budget
    budget: str  # "limit" or "headroom": what over_by is measured against
    items: tuple[FitItem, ...]
    frees: int  # what removing them together frees
    closes_gap: bool
    exact: bool  # the gap and every item's bytes exact
    optimal: bool  # proven the fewest items, then the fewest bytes moved
    at_least: int | None  # no plan closes the gap with fewer items (None: no plan closes it)
    search: str  # "exact" (branch and bound) or "greedy"
    source: str = ""
    candidates: int = 0  # the items on the tile that free something (what the plan chose from)

    @property
    def bytes_moved(self) -> int:
        return sum(item.bytes for item in self.items)

    def as_json(self) -> dict[str, object]:
        return {"tile": self.tile, "ipu": self.ipu, "over_by": self.over_by,
                "items": [item.as_json() for item in self.items], "closes_gap": self.closes_gap,
                "exact": self.exact, "budget": self.budget, "frees": self.frees, "bytes_moved": self.bytes_moved,
                "optimal": self.optimal, "at_least": self.at_least, "search": self.search,
                "source": self.source or None, "candidates": self.candidates}


@dataclass(frozen=True)
class FitNeeds:
    """Why a report's plans do not name what to move, or there are none: ``why`` one of FIT_WHY; ``inputs``
    the inputs that would name the items (FIT_INPUTS), best first."""

    why: str
    inputs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.why not in FIT_WHY or any(i not in FIT_INPUTS for i in self.inputs):
            raise ValueError(f"not a reason a plan names nothing: {self.why!r} {self.inputs!r}")


@dataclass(frozen=True)
class FitChange:
    """One tile over in both builds of a diff: each side's plan, and whether NEW's grew (more items or more bytes
    over)."""

    tile: int
    ipu: int | None
    old: FitPlan
    new: FitPlan

    @property
    def items_compared(self) -> bool:
        """Whether the two plans' items are of one kind (both symbols, both variables...), so their counts compare."""
        return self.old.source == self.new.source != "" and bool(self.old.candidates) == bool(self.new.candidates)

    @property
    def grew(self) -> bool:
        more = self.items_compared and len(self.new.items) > len(self.old.items)
        return more or self.new.over_by > self.old.over_by

    @property
    def shrank(self) -> bool:
        fewer = self.items_compared and len(self.new.items) < len(self.old.items)
        return not self.grew and (fewer or self.new.over_by < self.old.over_by)


# -- one report's figures ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DataTypes:
    """A summary's program-wide ``By Data Type`` figures, as the text report shows them.

    ``largest``: the few largest items with bytes, largest first (ties in
    the printed order); ``rest``: how many more items have bytes and
    ``rest_bytes`` their sum; ``total``: the sum of every item printed, the
    whole each share is of (Poplar prints no total of its own for the list;
    it matches the Excluding Gaps total in published samples).
    """

    largest: tuple[tuple[str, int], ...]
    rest: int
    rest_bytes: int
    total: int


@dataclass(frozen=True)
class TilesAtLeast:
    """What a report without a tile count still implies about it: at least ``ipus`` IPUs of ``tiles_per_ipu``
    tiles (its arch's), so at least ``tiles`` tiles; ``tile`` is the highest tile it names (None: none, and the
    bound is one IPU)."""

    tiles: int
    ipus: int
    tiles_per_ipu: int
    tile: int | None


@dataclass(frozen=True)
class ElementBin:
    """``count`` tiles hold ``[low, high)`` elements."""

    low: int
    high: int
    count: int


@dataclass(frozen=True)
class ElementHistogram:
    """Tiles per element-count bin; every bin is ``bin_elements`` wide."""

    bin_elements: int
    bins: tuple[ElementBin, ...]


@dataclass(frozen=True)
class TileTensors:
    """One tile's tensor data: elements, the estimate, and the tensors on it (largest first)."""

    tile: int
    ipu: int | None
    elements: int
    est_bytes: int
    unknown_size_elements: int
    tensors: tuple[TileTensor, ...]
    excluding_gaps: int | None = None   # from the report, when a report is annotated
    including_gaps: int | None = None


# The report kinds a Summary is of (Summary.kind): every tile's bytes, a text summary, a log's out-of-memory
# messages alone, a tensor map alone.
SUMMARY_KINDS = ("tiles", "summary", "messages", "tensor-map")


@dataclass(frozen=True, eq=False)
class Summary:
    """One report's figures, for the ``top`` tiles and the histogram's ``bin_kib``; what every kind has.

    ``kind`` says which kind of report it is (:data:`SUMMARY_KINDS`); each
    kind's own figures are on its subclass (:class:`TileSummary`,
    :class:`TextSummary`, :class:`TensorMapSummary`), so a renderer asks the
    kind, never tests a field for None. ``histogram`` is None for a source
    with no bytes per tile that printed none; ``oom_bins`` has one entry per
    histogram bin (True: holds an out-of-memory tile, None: cannot say).
    ``top`` are the most memory-subscribed tiles (a summary's first
    ``top_n`` stated tiles), ``stated`` every tile a text summary states
    figures for, ``detailed`` those it detailed, ``selected`` the tiles asked
    for by id. ``tensors`` are the tensors on the top tiles when a tensor map
    of the program was given; ``breakdown_totals`` sums each counted
    breakdown item over the tiles, largest first; ``liveness`` the program's
    liveness where the source has one; ``notes`` say what a selection could
    not show; ``partial`` why the per-tile view is partial (None: complete);
    ``verdict`` is the out-of-memory verdict in full; ``tiles_at_least`` a
    lower bound on a tile count the source does not give; ``name`` the
    report's name among its file's reports. ``fit_plans`` say what to move
    off each tile over its limit (or short of ``headroom`` free bytes),
    worst first (``fit_over`` tiles are over in all: past a thousand, the
    plans are of the worst); ``fit_needs`` why they name no items, where
    they do not.
    """

    kind: str
    report: MemoryReport
    top_n: int
    bin_kib: int | None
    histogram: Histogram | None
    oom_bins: tuple[bool | None, ...]
    including_gaps: int | None
    excluding_gaps: int | None
    max_including_gaps: TileBytes | None
    max_excluding_gaps: TileBytes | None
    top: tuple[TopTile, ...]
    partial: Partial | None
    verdict: Verdict
    name: ReportName
    tiles_at_least: TilesAtLeast | None = None
    detailed: tuple[TopTile, ...] = ()
    stated: tuple[TopTile, ...] = ()
    selected: tuple[TopTile, ...] = ()
    per_ipu: tuple[IpuSummary, ...] = ()  # the first IPUs (all but past tiles.IPU_ROWS: then ipu_spread)
    ipu_spread: IpuSpread | None = None    # every IPU in brief, when per_ipu does not list them all
    tensor_map: TensorMap | None = None
    tensors: tuple[TileTensors, ...] | None = None
    breakdown_totals: Mapping[str, int] = field(default_factory=dict)
    liveness: LivenessSummary | None = None
    notes: tuple[str, ...] = ()
    data_types: DataTypes | None = None
    top_order: str | None = None  # what ``top`` is ranked by; None: the tiles as the source printed them
    fit_plans: tuple[FitPlan, ...] | None = None  # a plan per tile over, worst first ([] none over; None: cannot)
    fit_needs: FitNeeds | None = None  # why the plans name no items (or there are none), and what would name them
    fit_over: int | None = None  # tiles over in all: the plans are of the worst (fit_plan.PLANS_MAX) of them
    headroom: int | None = None  # bytes a tile must leave free (--min-headroom), the plans' budget
    gates: tuple[GateSetting, ...] = ()  # the gates this report was judged by (the run sets them)
    overall: Overall | None = None  # the answer over every report read with it (summarize_all; None: alone)

    @property
    def oom(self) -> OutOfMemoryCount:
        """How many tiles are out of memory (the verdict's count)."""
        return self.verdict.count

    @property
    def label(self) -> str:
        """The source, with its module when a file holds several."""
        return self.report.label


@dataclass(frozen=True, eq=False)
class TileSummary(Summary):
    """A report with every tile's bytes (``report`` a TileReport): ``out_of_memory`` its per-tile mask (None when
    bytes per tile is unknown); ``symbols_readable`` whether a tile's symbols can be read from its source (an
    archive or ELF)."""

    out_of_memory: np.ndarray | None = None
    symbols_readable: bool = False

    @property
    def tiles(self) -> TileReport:
        """The report, as the TileReport it is."""
        assert isinstance(self.report, TileReport)
        return self.report


@dataclass(frozen=True, eq=False)
class TextSummary(Summary):
    """What a text summary printed (``kind`` "summary"), or a log's out-of-memory messages alone (``kind``
    "messages"): its figures as printed, its stated tiles in printed order."""

    @property
    def printed_report(self) -> SummaryReport:
        """The report, as the SummaryReport it is."""
        assert isinstance(self.report, SummaryReport)
        return self.report


@dataclass(frozen=True, eq=False)
class TensorMapSummary(Summary):
    """A tensor map alone (elements, not bytes): its ``element_histogram`` and the tiles holding most tensor
    data (``data_tiles``)."""

    element_histogram: ElementHistogram | None = None
    data_tiles: tuple[TileTensors, ...] = ()

    @property
    def own_tensor_map(self) -> TensorMap:
        """The map itself."""
        assert isinstance(self.report, TensorMapReport)
        return self.report.tensor_map


# -- several reports ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClosingRow:
    """One report: its ``name`` (file, and ``#N`` or module when its file holds several), its ``run`` of the log
    (``"2/16"``; None outside runs), ``arch`` and ``tiles`` (None when the source does not say; then
    ``tiles_at_least``, a lower bound, when one is known), the ``worst`` tile excluding gaps and its bytes, or
    when the report has no such figures the tile whose out-of-memory message states the most bytes used
    (``worst_from_message``), and ``out_of_memory``, the verdict's count."""

    name: ReportName
    run: str | None
    arch: str | None
    tiles: int | None
    worst: TileBytes | None
    out_of_memory: OutOfMemoryCount
    worst_from_message: bool = False
    tiles_at_least: int | None = None
    program: str | None = None  # the compilation it belongs to of the file's ("6/7"; None outside compile logs)

    @property
    def line(self) -> int | None:
        """The line the report starts on (None for a whole file)."""
        return self.name.line

    @classmethod
    def of(cls, summary: Summary) -> ClosingRow:
        """A report's row, from its summary and verdict."""
        report, verdict = summary.report, summary.verdict
        p = report.position
        run = None if p is None or p.run is None else f"{p.run.index}/{p.run.count}"
        stated = [TileBytes(m.tile, m.bytes_used) for m in verdict.messages
                  if m.tile is not None and m.bytes_used is not None]
        worst = verdict.worst
        if worst is None and stated:  # a message's "bytes used": its own measure, marked as such
            worst = max(stated, key=lambda t: t.bytes)
        bound = summary.tiles_at_least
        program = None if p is None or p.program is None or p.programs is None else \
            f"{p.program}/{p.programs.count}"
        return cls(name=summary.name, run=run, arch=report.target.arch,
                   tiles=report.target.num_tiles if report.num_tiles_known else None, worst=worst,
                   out_of_memory=verdict.count, worst_from_message=verdict.worst is None and worst is not None,
                   tiles_at_least=bound.tiles if bound is not None else None, program=program)


@dataclass(frozen=True)
class FailingProgram:
    """A program of the files read that failed, as the verdict over them all lists it (issue #30).

    ``source`` is its file; ``unit`` what a program is there ("run",
    "compilation", "program"; "report" for a file that is one report) and
    ``index`` its place among the file's ``of`` programs (None for a file that
    is one report). ``outcome`` is "out of memory" or "failed"; ``failure``
    what its error states in a few words (the message's tile and bytes, an
    uncaught exception; None where a report's figures say it). ``report`` names
    the memory report that holds it (None: none does), ``line`` and ``place``
    where its error is. ``tile``, ``bytes`` and ``bytes_per_tile`` are its worst
    tile: bytes used as a message states them (``stated``), else excluding gaps
    as its report holds them; ``tiles`` how many tiles are out of memory when
    known (at least that many when ``tiles_exact`` is False); ``look_into`` the
    tile its report says to look into next.
    """

    source: str
    unit: str
    index: int | None
    of: int | None
    outcome: str
    failure: str | None = None
    report: ReportName | None = None
    line: int | None = None
    place: str | None = None
    tile: int | None = None
    bytes: int | None = None
    bytes_per_tile: int | None = None
    stated: bool = False
    tiles: int | None = None
    tiles_exact: bool = False
    look_into: LookInto | None = None

    @property
    def over_by(self) -> int | None:
        """Bytes its worst tile holds beyond bytes per tile (None when either is unknown)."""
        if self.bytes is None or self.bytes_per_tile is None:
            return None
        return self.bytes - self.bytes_per_tile

    @property
    def where(self) -> str | None:
        """Its error's place as a reader shows it: ``line 1,234``, ``cell 7 [4], line 12`` (None: unknown)."""
        return self.place or (None if self.line is None else f"line {self.line:,}")


@dataclass(frozen=True)
class Overall:
    """The answer over every report read, in programs (issue #30): of ``count`` programs (runs, compilations,
    or reports: ``unit``, "program" when the files differ), how many ``failed``, how many of those ran
    ``out_of_memory``, how many cannot say (``unknown``: a report with no count and no failure), the ``worst``
    failure (the most bytes over its tile's memory; else the first), and the ``failing`` programs in order (at
    most :data:`MAX_FAILING` kept: ``failed`` counts all). ``files`` and ``reports`` count what was read;
    ``several`` says whether the answer is over more than one program (a text leads with it then)."""

    unit: str
    count: int
    failed: int
    out_of_memory: int
    unknown: int
    files: int
    reports: int
    failing: tuple[FailingProgram, ...] = ()
    worst: FailingProgram | None = None

    @property
    def several(self) -> bool:
        return self.reports > 1 or self.count > 1


MAX_FAILING = 1_000  # failing programs the verdict over all keeps (more are counted)


@dataclass(frozen=True)
class Closing:
    """The reports of a text of several, a row each: the closing table and the verdict over them all
    (``overall``: in programs, counting those that left no report)."""

    rows: tuple[ClosingRow, ...]
    overall: Overall | None = None

    @classmethod
    def of(cls, summaries: Sequence[Summary]) -> Closing:
        """The rows of several reports, in order, with the answer over them all (:func:`.summarize_all`'s)."""
        return cls(tuple(ClosingRow.of(s) for s in summaries), summaries[0].overall if summaries else None)

    @property
    def several(self) -> bool:
        """Whether the answer is over more than one program (more than one report, when summarized alone)."""
        return self.overall.several if self.overall is not None else len(self.rows) > 1

    @property
    def over(self) -> int:
        """Reports known to have tiles out of memory ("at least" counts too)."""
        return sum(1 for r in self.rows if r.out_of_memory.at_least)

    @property
    def unknown(self) -> int:
        """Reports that cannot say whether any tile is out of memory."""
        return sum(1 for r in self.rows if not r.out_of_memory.known)

    @property
    def one_file(self) -> str | None:
        """The file every row is a part of (its runs, its modules), when there is one and each row has a part."""
        files = {r.name.source for r in self.rows}
        if len(self.rows) < 2 or len(files) != 1 or any(r.name.part is None for r in self.rows):
            return None
        return files.pop()


# -- a diff -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TileChange:
    """One tile whose excluding-gaps bytes changed."""

    tile: int
    ipu: int | None
    old: int
    new: int
    delta: int


@dataclass(frozen=True)
class ItemChange:
    """One item of a tile, before and after: ``old`` None for a new item, ``new`` None for a removed one.

    ``kind`` is "section", "category", "data type", "region", "liveness" or
    "symbol"; ``section`` is where a symbol lies.
    """

    kind: str
    name: str
    old: int | None
    new: int | None
    section: str | None = None

    @property
    def delta(self) -> int:
        return (self.new or 0) - (self.old or 0)

    @property
    def status(self) -> str:
        """"new", "removed", "grew" or "shrank"."""
        if self.old is None:
            return "new"
        if self.new is None:
            return "removed"
        return "grew" if self.delta > 0 else "shrank"


@dataclass(frozen=True)
class TileItems:
    """The changed items of one changed tile, in the order asked for; ``hidden`` changes were under ``min_change``."""

    tile: int
    ipu: int | None
    old: int
    new: int
    items: tuple[ItemChange, ...]
    hidden: int = 0
    notes: tuple[str, ...] = ()

    @property
    def delta(self) -> int:
        return self.new - self.old


@dataclass(frozen=True)
class BuildSummary:
    """One side of a diff: where it came from and its whole-program figures."""

    source: str
    module: str | None
    format: str
    per_tile: str
    num_tiles: int | None  # None when the source does not give it (a lone detailed tile, messages alone)
    bytes_per_tile: int | None
    total_excluding_gaps: int | None
    total_including_gaps: int | None
    max_excluding_gaps: TileBytes | None
    tiles_out_of_memory: int | None
    out_of_memory_at_least: int | None = None  # tiles known out of memory when the count is unknown
    partial: Partial | None = None               # why this side's per-tile view is partial
    report_label: str | None = None              # the report's own label (MemoryReport.label), when known
    oom: OutOfMemoryCount | None = None          # the side's own count, with its basis and reason
    kind: str = "tiles"                          # the report's kind (SUMMARY_KINDS)
    name: ReportName | None = None               # the report's name among its file's reports
    of_reports: int = 1                          # reports its file holds (the largest is compared)
    curve: LivenessCurve | None = None           # memory live per program step, where the source has steps

    @property
    def label(self) -> str:
        """The source, with its module, or its place when a file holds several (``MemoryReport.label``)."""
        if self.report_label is not None:
            return self.report_label
        return self.source + (f" (module {self.module})" if self.module else "")


def _delta(old: int | None, new: int | None) -> int | None:
    return None if old is None or new is None else new - old


@dataclass(frozen=True, eq=False)
class Diff:
    """What changed from ``old`` to ``new``, tile by tile.

    The changed tiles are held as parallel arrays (``tile_ids``, ``old_bytes``,
    ``new_bytes``) sorted by ``|delta|`` descending, then tile id, so a pod
    of tiles diffs without a Python object per tile; ``tiles`` builds the
    records on demand. The out-of-memory lists are None when either side's
    bytes per tile is unknown (``newly_unknown`` says why). ``min_change`` hides smaller changes from the
    listings (``listed``, ``changes()``; the counts cover every change);
    ``below`` holds what changed inside the largest changes (:func:`.diff.with_items`).
    """

    old: BuildSummary
    new: BuildSummary
    tile_ids: np.ndarray
    old_bytes: np.ndarray
    new_bytes: np.ndarray
    compared_tiles: int
    tiles_per_ipu: int | None
    newly_out_of_memory: tuple[int, ...] | None
    no_longer_out_of_memory: tuple[int, ...] | None
    figures_over: str = "every tile"  # "compared tiles" (members skipped), or "not comparable": no deltas
    # Why the out-of-memory lists are None: "not every tile" (a side states only some tiles' bytes: the counts are
    # compared) or "bytes per tile unknown"; None when they are known.
    newly_unknown: str | None = None
    min_change: int = 0
    below: tuple[TileItems, ...] = ()
    sort: str = "delta"
    # The tiles over their limit in both builds, each side's fit plan (None: a side cannot plan).
    fit: tuple[FitChange, ...] | None = None
    gates: tuple[GateSetting, ...] = ()  # the gates NEW was judged by (the run sets them)

    @property
    def per_tile(self) -> str:
        """"complete" when every tile was compared, else "partial"."""
        return "complete" if self.old.per_tile == self.new.per_tile == "complete" else "partial"

    @property
    def delta(self) -> np.ndarray:
        """Per changed tile: new minus old bytes (int64), in ``tile_ids`` order."""
        return self.new_bytes - self.old_bytes

    @property
    def num_changed(self) -> int:
        return int(self.tile_ids.size)

    @property
    def num_grown(self) -> int:
        return int(np.count_nonzero(self.delta > 0))

    @property
    def num_shrunk(self) -> int:
        return int(np.count_nonzero(self.delta < 0))

    @property
    def comparable(self) -> bool:
        """Whether the two sides' whole-program figures cover the same tiles (else no deltas)."""
        return self.figures_over != "not comparable"

    @property
    def total_delta(self) -> int | None:
        """Change in total excluding-gaps bytes (None where a side does not know it)."""
        return _delta(self.old.total_excluding_gaps, self.new.total_excluding_gaps) if self.comparable else None

    @property
    def total_including_gaps_delta(self) -> int | None:
        if not self.comparable:
            return None
        return _delta(self.old.total_including_gaps, self.new.total_including_gaps)

    @property
    def max_delta(self) -> int | None:
        """Change in the largest tile's excluding-gaps bytes (whichever tile that is)."""
        old, new = self.old.max_excluding_gaps, self.new.max_excluding_gaps
        return None if old is None or new is None or not self.comparable else new.bytes - old.bytes

    @property
    def out_of_memory_delta(self) -> int | None:
        if not self.comparable:
            return None
        return _delta(self.old.tiles_out_of_memory, self.new.tiles_out_of_memory)

    @cached_property
    def listed(self) -> np.ndarray:
        """Positions (in ``tile_ids`` order) of the changes of at least ``min_change`` bytes: those listed."""
        if self.min_change <= 1:
            return np.arange(self.num_changed)
        return np.flatnonzero(np.abs(self.delta) >= self.min_change)

    @property
    def num_unlisted(self) -> int:
        """Changed tiles left out of the listings: their change is under ``min_change``."""
        return self.num_changed - int(self.listed.size)

    def changes(self, n: int | None = None) -> list[TileChange]:
        """The first ``n`` listed changed tiles (all when None), largest change first."""
        picked = self.listed if n is None else self.listed[:n]
        tpi = self.tiles_per_ipu
        return [TileChange(t, None if not tpi else t // tpi, o, w, w - o) for t, o, w in zip(
            self.tile_ids[picked].tolist(), self.old_bytes[picked].tolist(), self.new_bytes[picked].tolist())]

    @cached_property
    def tiles(self) -> tuple[TileChange, ...]:
        """Every changed tile, largest ``|delta|`` first, ties by tile id."""
        return tuple(self.changes())


# -- gates ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Offender:
    """A tile that fails a gate: its bytes (or growth) and how far past the limit."""

    tile: int
    value: int
    excess: int


# Why a gate cannot judge (GateResult.why): the figure it needs is not in the source.
GATE_CANNOT = ("count unknown", "no per-tile bytes", "no maximum", "percent of unknown", "bytes per tile unknown",
               "nothing compared")


@dataclass(frozen=True)
class GateResult:
    """The outcome of one gate on one report (or one diff), as facts for its message
    (``memreport.render.words.gate_message``).

    ``failed`` is True, False, or None when the gate cannot judge: ``why``
    (one of :data:`GATE_CANNOT`) names the figure the source lacks, and the
    run treats it as bad usage (exit 2). ``failing_tiles`` is None when the
    source cannot say how many; ``worst`` up to a few, worst first. The rest
    is what the message says: ``count`` (``--fail-on-oom``: the report's
    count; ``printed``: as the summary printed it), ``named`` (tiles only
    out-of-memory messages name), ``partial`` (why a side's view is partial),
    ``budget`` as given (bytes or a Percent), ``limit`` its bytes, ``per_tile``
    the bytes per tile it is a percent of, ``peaks`` (``--fail-on-growth``
    judged by the maxima alone: old and new), ``compared`` (tiles both
    sides state), ``finding`` (``--fail-on-recompile``: the finding's words).
    """

    gate: str                      # the option that asked for it, e.g. "max-tile"
    source: str
    failed: bool | None
    failing_tiles: int | None = 0
    worst: tuple[Offender, ...] = ()
    why: str | None = None
    count: OutOfMemoryCount | None = None
    printed: bool = False
    named: tuple[int, ...] = ()
    partial: tuple[Partial, ...] = ()
    budget: object = None
    limit: int | None = None
    per_tile: int | None = None
    peaks: tuple[TileBytes, TileBytes] | None = None
    compared: int | None = None
    old: str | None = None
    new: str | None = None
    finding: str | None = None
    stated: int = 0                # of ``compared``, tiles judged by the bytes used an out-of-memory message states
    origin: Origin | None = None   # where the gate was set: a budget file's key and line; None: the command line


@dataclass(frozen=True)
class GateSetting:
    """A gate in force: its option (``max-tile``), its value as given (bytes, a
    :class:`~memreport.units.Percent`, or True for a flag) and where it was set (``origin``: a budget file's key
    and line; None: the command line, or the Python call)."""

    gate: str
    value: object
    origin: Origin | None = None


# -- compilations -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompileTotals:
    """Counts and time; each time sums the known durations and says how many were untimed."""

    compilations: int
    compiled: int              # compiled or pre-compiled
    loaded: int                # from the executable cache (or a saved executable)
    skipped: int
    unfinished: int            # not whole in the log: its start or its end is missing
    compile_s: float
    compile_untimed: int
    cache_load_s: float
    cache_load_untimed: int
    loads: int                 # executables loaded onto the IPUs
    reloads: int
    load_s: float
    load_untimed: int
    compiled_or_loaded: int = 0      # whole, with no line saying which (a script's "Compiled/Loaded model in")
    compiled_or_loaded_s: float = 0.0
    compiled_or_loaded_untimed: int = 0
    out_of_memory: int = 0           # ended by an out-of-memory error (issue #30)
    failed: int = 0                  # ended by another error before its end


@dataclass(frozen=True)
class CompileSummary:
    """A history with its findings, totals and notes on what the logs could not show."""

    history: CompileHistory
    findings: tuple[Finding, ...]
    totals: CompileTotals
    notes: tuple[str, ...]
    gates: tuple[GateSetting, ...] = ()  # the gates the logs were judged by (the run sets them)


# -- a trend over builds ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrendBuild:
    """One build of a trend: its ``label`` (``--label``, else the file's name), the file it was read from
    (``path``), its whole-program ``figures`` (of the file's largest report: ``figures.of_reports`` says how many
    it holds), and which of its tiles are out of memory (``over``, ascending, with their bytes in
    ``over_bytes``; None when it holds no per-tile status: a text summary, or bytes per tile unknown) with the
    tiles whose bytes it does not know (``unknown``: skipped members). ``change`` is its total excluding gaps
    minus the previous build's (None for the first build, or when either total is unknown), ``change_share``
    that change as a fraction of the previous total (None when it is unknown or 0)."""

    label: str
    path: str
    figures: BuildSummary
    over: np.ndarray | None
    over_bytes: np.ndarray | None
    unknown: np.ndarray
    tiles_per_ipu: int | None = None
    change: int | None = None
    change_share: float | None = None

    @property
    def worst(self) -> TileBytes | None:
        """The tile holding the most bytes, excluding gaps, and its bytes (None when the source does not say)."""
        return self.figures.max_excluding_gaps

    @property
    def share(self) -> float | None:
        """The worst tile's bytes as a fraction of bytes per tile (None when either is unknown)."""
        per_tile, worst = self.figures.bytes_per_tile, self.worst
        return None if worst is None or not per_tile else worst.bytes / per_tile

    @property
    def headroom(self) -> int | None:
        """Bytes per tile minus the worst tile's bytes: negative when it is over (None when either is unknown)."""
        per_tile, worst = self.figures.bytes_per_tile, self.worst
        return None if worst is None or per_tile is None else per_tile - worst.bytes

    @property
    def count(self) -> OutOfMemoryCount:
        """How many tiles are out of memory, exact or at least (its summary's count)."""
        oom = self.figures.oom
        return oom if oom is not None else OutOfMemoryCount(self.figures.tiles_out_of_memory)


@dataclass(frozen=True)
class TileHistory:
    """A tile out of memory in the last build, through the builds (indices into :attr:`Trend.builds`).

    ``first`` is the earliest build known to have it out of memory;
    ``first_certain`` is False when a build before it cannot say (no per-tile
    status), so it may have been over earlier; ``went_over`` is True when the
    build just before ``first`` had it within memory, so it went over in
    ``first`` itself (whatever an earlier build cannot say). ``since`` starts its last
    unbroken run out of memory (to the last build); ``stayed`` is True when it
    was out of memory in every build from ``first`` on, False when a build
    between had it within memory, None when a build between cannot say.
    ``bytes`` are its bytes in the last build, excluding gaps.
    """

    tile: int
    ipu: int | None
    bytes: int
    first: int
    first_certain: bool
    since: int
    stayed: bool | None
    went_over: bool = False


@dataclass(frozen=True, eq=False)
class Trend:
    """Builds in the order given, and the history of every tile out of memory in the last.

    The histories are parallel arrays (``tiles``, ``first``, ...), ordered by
    the build each tile first went over in, the latest first, then by tile, so a pod of tiles
    out of memory costs no Python object per tile; :meth:`histories` builds
    the records. ``tiles`` is None when the last build holds no per-tile
    status (which tiles are out of memory is unknown).
    """

    builds: tuple[TrendBuild, ...]
    tiles: np.ndarray | None
    tile_bytes: np.ndarray
    first: np.ndarray
    first_certain: np.ndarray
    since: np.ndarray
    stayed: np.ndarray         # 1 stayed over, 0 was within memory between, -1 cannot say
    went_over: np.ndarray      # the build before ``first`` had it within memory
    tiles_per_ipu: int | None
    gates: tuple[GateSetting, ...] = ()  # the gates the last build was judged by (the run sets them)

    @property
    def last(self) -> TrendBuild:
        return self.builds[-1]

    @property
    def num_tiles(self) -> int:
        """Tiles out of memory in the last build whose history is known (0 when ``tiles`` is None)."""
        return 0 if self.tiles is None else int(self.tiles.size)

    def histories(self, n: int | None = None) -> list[TileHistory]:
        """The first ``n`` tiles' histories (every one when None), the latest to go over first, then by tile."""
        if self.tiles is None:
            return []
        end = self.num_tiles if n is None else min(n, self.num_tiles)
        tpi = self.tiles_per_ipu
        stayed = {1: True, 0: False, -1: None}
        return [TileHistory(t, None if not tpi else t // tpi, b, f, bool(c), s, stayed[k], bool(w))
                for t, b, f, c, s, k, w in zip(self.tiles[:end].tolist(), self.tile_bytes[:end].tolist(),
                                               self.first[:end].tolist(), self.first_certain[:end].tolist(),
                                               self.since[:end].tolist(), self.stayed[:end].tolist(),
                                               self.went_over[:end].tolist())]
