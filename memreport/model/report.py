"""Reports: one compiled program's memory, in one of three kinds.

- :class:`TileReport`: every tile's bytes (archives, ELF files, graph
  profiles); per tile "complete" unless damaged members were skipped.
- :class:`SummaryReport`: what a Poplar text summary printed (its
  histogram, maxima, out-of-memory count and detailed tiles), kept as
  printed, and the out-of-memory messages of the log around it; per tile
  "partial".
- :class:`TensorMapReport`: a tensor map alone (elements, not bytes).

They share :class:`MemoryReport`, a small protocol (source, format, target,
module, notes, info, the per-tile view) so renderers and the notebook API
take any of them; code that needs what one kind holds asks for that kind
with ``isinstance``. The records check their own invariants. The model
imports nothing above it: the notebook conveniences (``plot()``,
``top_tiles()``...) are installed by :mod:`memreport.notebook`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from .liveness import ProgramLiveness
from .symbols import TileSymbols
from .target import CLI_NAMES, PYTHON_NAMES, StatedTarget, Target, overrides_of, resolve_target
from .values import (
    ArchiveMembers,
    Column,
    OutOfMemoryMessage,
    PrintedSummary,
    ReportPosition,
    SkippedMember,
    TileDetail,
    check_bytes_array,
)

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .tensor_map import TensorMap
    from .variables import Variables

_R = TypeVar("_R", bound="MemoryReport")
OOM_MESSAGES_FORMAT = "oom-messages"  # a log's out-of-memory messages, with no summary (a SummaryReport)
# A compile log's stated outcome: Poplar's "Graph compilation finished: zero tiles overflowed." (or "N tiles
# overflowed") with its "Target info:" line, no summary (a SummaryReport whose printed out-of-memory count is N).
COMPILE_LOG_FORMAT = "poplar-compile-log"
# What each report format is called in what people read.
FORMAT_NAMES: Mapping[str, str] = MappingProxyType({
    "archive": "ELF archive", "thin-archive": "thin ELF archive", "elf": "ELF file",
    "poplar-text": "Poplar text summary", "json-profile": "JSON graph profile",
    "cbor-profile": "CBOR graph profile", "tensor-map": "tensor map", "pop-profile": "PopVision profile (libpva)",
    "csv": "memreport CSV", OOM_MESSAGES_FORMAT: "out-of-memory messages", COMPILE_LOG_FORMAT: "Poplar compile log",
    "lowered-vars": "lowered-variables report",
})
BREAKDOWN_KINDS = ("section", "category", "data type", "tensor", "item")

@dataclass(frozen=True)
class ReportName:
    """How a report is named among its file's reports, as facts: its ``source`` (the file as given), the
    ``module`` a trace names it by, or its ``index`` among the ``count`` reports of its file, and the ``line``
    it starts on (None for a whole file). The one place a report's name is built (:attr:`label`)."""

    source: str
    module: str | None = None
    index: int | None = None
    count: int = 1
    line: int | None = None
    place: str | None = None  # its first line's place in a notebook (``cell 7 [4], line 12``)

    @property
    def where(self) -> str | None:
        """Its first line as a reader shows it: ``line 12,345``, or in a notebook ``cell 7 [4], line 12``."""
        return self.place or (f"line {self.line:,}" if self.line is not None else None)

    @property
    def part(self) -> str | None:
        """What tells it apart among its file's reports: its module, or ``#N`` of several (None: the whole file)."""
        if self.module:
            return self.module
        return f"#{self.index}" if self.index is not None and self.count > 1 else None

    @property
    def part_label(self) -> str | None:
        """Its part, as a table of a file's reports names it: ``module M`` or ``#N`` (None: the whole file)."""
        if self.module:
            return f"module {self.module}"
        return self.part

    @property
    def short_label(self) -> str:
        """The source and its part, without its line: ``run.log#2``, ``t.rep (module M)``."""
        if self.module:
            return f"{self.source} (module {self.module})"
        part = self.part
        return self.source + (part or "")

    @property
    def label(self) -> str:
        """The source, with its module, or its place when a file holds several (``run.log#2 (line 12,345)``)."""
        if self.module:
            return f"{self.source} (module {self.module})"
        if self.index is not None and self.count > 1:
            return f"{self.source}#{self.index} ({self.where})"
        if self.place or (self.line is not None and self.line > 1):
            return f"{self.source} ({self.where})"
        return self.source


class MemoryReport:
    """What every report kind has; see the kinds for what each holds.

    ``target`` is the resolved device (overrides applied); ``stated`` what
    the source itself said (None for a report built by hand). What only one
    kind holds (every tile's bytes, a summary's printed figures, a tensor
    map) is on that kind alone: analysis asks each kind what it knows
    (:mod:`memreport.analysis.kinds`).
    """

    kind: ClassVar[str] = "report"
    source: str
    format: str
    target: Target
    module: str | None
    info: Mapping[str, Any]
    notes: tuple[str, ...]
    stated: StatedTarget | None
    breakdown_kind: str
    position: ReportPosition | None = None  # where in its file (the text reader's reports)
    files_read: tuple[str, ...] = ()  # files read besides the source (a thin archive's members): inputs too

    @property
    def num_tiles(self) -> int:
        return self.target.num_tiles

    @property
    def num_tiles_known(self) -> bool:
        """Whether the source gives the tile count (a lone detailed tile or out-of-memory messages do not)."""
        return True

    @property
    def per_tile(self) -> str:
        """"complete" when every tile's bytes are known, else "partial"."""
        return "partial"


    @property
    def name(self) -> ReportName:
        """Its name among its file's reports, as facts."""
        p = self.position
        if p is None:
            return ReportName(self.source, self.module)
        return ReportName(self.source, self.module, p.index, p.count, p.line, p.place)

    @property
    def label(self) -> str:
        """The source, with its module, or its place when a file holds several (``run.log#2 (line 12,345)``)."""
        return self.name.label

    @property
    def format_name(self) -> str:
        """The format as people call it ("ELF archive")."""
        return FORMAT_NAMES.get(self.format, self.format)

    def evolve(self: _R, **changes: Any) -> _R:
        """A copy with ``changes`` (checked like any new report)."""
        import dataclasses
        return dataclasses.replace(cast(Any, self), **changes)

    def __repr__(self) -> str:
        module = f" module={self.module!r}" if self.module else ""
        return (f"<{type(self).__name__} {self.source!r}{module} format={self.format} "
                f"tiles={self.num_tiles} per_tile={self.per_tile}>")


@dataclass(frozen=True, eq=False, repr=False)
class TileReport(MemoryReport):
    """Every tile's bytes: ``excluding_gaps`` (and ``including_gaps`` where the source holds it) are int64
    arrays of ``target.num_tiles`` values.

    ``skipped`` lists tiles whose member could not be read: they keep their
    place (later tile ids do not shift), hold 0 in the arrays as a
    placeholder and no breakdown item, and :attr:`known` is False for them
    so no figure counts them.

    ``symbols`` holds the symbol tables read for a few tiles (by tile id:
    the top tiles, tiles asked for); ``liveness_steps`` the not-always-live
    bytes by program step where the source has them; ``variables`` every
    variable laid out in tile memory, where the source lists them (a
    lowered-variables report).
    """

    kind: ClassVar[str] = "tiles"
    source: str
    format: str
    target: Target
    excluding_gaps: np.ndarray
    including_gaps: np.ndarray | None = None
    breakdown: Mapping[str, Column] = field(default_factory=dict)
    breakdown_kind: str = "item"
    regions: Mapping[str, np.ndarray] = field(default_factory=dict)
    tile_names: Sequence[str] | None = None
    module: str | None = None
    info: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    skipped: tuple[SkippedMember, ...] = ()
    stated: StatedTarget | None = None
    symbols: Mapping[int, TileSymbols] = field(default_factory=dict)
    liveness_steps: tuple[ProgramLiveness, ...] | None = None
    members: ArchiveMembers | None = None  # where each member lies in the archive read (archives only)
    files_read: tuple[str, ...] = ()
    variables: Variables | None = None

    def __post_init__(self) -> None:
        n = self.target.num_tiles
        _check_kind(self.breakdown_kind)
        check_bytes_array("excluding_gaps", self.excluding_gaps, n)
        if self.including_gaps is not None:
            check_bytes_array("including_gaps", self.including_gaps, n)
        for name, col in self.breakdown.items():
            if not isinstance(col, Column):
                raise TypeError(f"breakdown {name!r} must be a Column")
            if col.values.shape != (n,):
                raise ValueError(f"breakdown {name!r} has {col.values.shape[0]} values for {n} tiles")
        for name, arr in self.regions.items():
            check_bytes_array(f"region {name!r}", arr, n)
        if self.tile_names is not None and len(self.tile_names) != n:
            raise ValueError(f"{len(self.tile_names)} tile names for {n} tiles")
        if self.skipped:
            tiles = [s.tile for s in self.skipped]
            if len(set(tiles)) != len(tiles) or not all(0 <= t < n for t in tiles):
                raise ValueError(f"skipped tiles must be distinct tiles of 0..{n - 1}")
            if self.excluding_gaps[tiles].any():
                raise ValueError("a skipped tile must hold the placeholder 0")
        for tile, table in self.symbols.items():
            if not isinstance(table, TileSymbols) or table.tile != tile or not 0 <= tile < n:
                raise ValueError(f"symbols of tile {tile}: must be a TileSymbols of that tile, one of 0..{n - 1}")
        if self.variables is not None and self.variables.num_tiles != n:
            raise ValueError(f"variables of {self.variables.num_tiles:,} tiles for {n:,} tiles")

    @property
    def per_tile(self) -> str:
        return "partial" if self.skipped else "complete"

    @property
    def known(self) -> np.ndarray | None:
        if not self.skipped:
            return None
        import numpy as np
        known = np.ones(self.num_tiles, dtype=bool)
        known[[s.tile for s in self.skipped]] = False
        return known


@dataclass(frozen=True, eq=False, repr=False)
class SummaryReport(MemoryReport):
    """What a text summary printed: its figures as printed (never recomputed), and its detailed tiles.

    The other tiles' bytes are not in the source: only the histogram's
    bins know them, as counts. ``oom_messages`` are the out-of-memory
    messages a log holds before the summary (or alone: then nothing else was
    printed). A tile count of 0 means the source does not give one
    (:attr:`num_tiles_known`).
    """

    kind: ClassVar[str] = "summary"
    source: str
    format: str
    target: Target
    printed: PrintedSummary = field(default_factory=PrintedSummary)
    detailed_tiles: tuple[TileDetail, ...] = ()
    breakdown_kind: str = "data type"
    module: str | None = None
    info: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    stated: StatedTarget | None = None
    oom_messages: tuple[OutOfMemoryMessage, ...] = ()
    position: ReportPosition | None = None

    def __post_init__(self) -> None:
        _check_kind(self.breakdown_kind)
        n = self.target.num_tiles
        for detail in self.detailed_tiles:
            if n and not 0 <= detail.tile < n:
                raise ValueError(f"detailed tile {detail.tile} outside 0..{n - 1}")
        for message in self.oom_messages:
            if n and message.tile is not None and message.tile >= n:
                raise ValueError(f"out-of-memory message (line {message.line}) names tile {message.tile}, "
                                 f"outside 0..{n - 1}")

    @property
    def num_tiles_known(self) -> bool:
        return self.target.num_tiles > 0


    @property
    def printed_bytes_per_tile(self) -> int | None:
        """The bytes per tile the source printed: the summary's Memory Per-Tile, or for a summary with no
        Target the capacity its out-of-memory messages state (None when neither did)."""
        return None if self.stated is None else self.stated.bytes_per_tile


@dataclass(frozen=True, eq=False, repr=False)
class TensorMapReport(MemoryReport):
    """A tensor map alone: where tensors' elements lie. It holds no bytes, so no memory usage."""

    kind: ClassVar[str] = "tensor-map"
    source: str
    format: str
    target: Target
    tensor_map: TensorMap
    breakdown_kind: str = "tensor"
    module: str | None = None
    info: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    stated: StatedTarget | None = None

    def __post_init__(self) -> None:
        _check_kind(self.breakdown_kind)
        n = self.target.num_tiles
        if self.tensor_map.num_tiles > n:
            raise ValueError(f"the tensor map uses {self.tensor_map.num_tiles:,} tiles, the target has {n:,}")
        if self.tensor_map.num_tiles < n:  # the map covers every tile: those past its highest hold no element
            from dataclasses import replace
            object.__setattr__(self, "tensor_map", replace(self.tensor_map, num_tiles=n))


def _check_kind(kind: str) -> None:
    if kind not in BREAKDOWN_KINDS:
        raise ValueError(f"breakdown_kind must be one of {', '.join(BREAKDOWN_KINDS)}, not {kind!r}")


def source_notes(report: MemoryReport) -> tuple[str, ...]:
    """The report's notes without those its target's overrides left (:func:`~.target.resolve_target`'s).

    What the source itself said: a saved report keeps these, and reading it
    back resolves the target again, which says the rest anew.
    """
    stated = report.stated
    if stated is None:
        return report.notes
    from dataclasses import replace
    tile_memory, arch = overrides_of(stated, report.target)
    source = replace(stated, given_tile_memory=None, given_arch=None)
    for names in (CLI_NAMES, PYTHON_NAMES):
        try:
            _, notes = resolve_target(source, tile_memory=tile_memory, arch=arch, names=names)
        except ValueError:  # pragma: no cover - the target was resolved from this once already
            return report.notes
        if not notes:
            return report.notes
        if report.notes[len(report.notes) - len(notes):] == tuple(notes):
            return report.notes[:len(report.notes) - len(notes)]
    return report.notes
