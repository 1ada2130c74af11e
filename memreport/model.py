"""The per-tile memory model every reader produces and every renderer consumes.

Readers fill these frozen records; the records check their own invariants.
Analysis lives in :mod:`memreport.analysis`; the convenience methods on
:class:`MemoryReport` only delegate to it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np  # imported where used: `memreport --version` and `--help` need no numpy
    import pandas
    from matplotlib.figure import Figure

    from .analysis import TopTile

KIB = 1024


@dataclass(frozen=True)
class Arch:
    """Nominal figures of one IPU architecture (FORMATS.md §5-6)."""

    name: str
    tiles_per_ipu: int
    bytes_per_tile: int
    e_flags: int


ARCHES: Mapping[str, Arch] = MappingProxyType({
    "ipu1": Arch("ipu1", 1216, 256 * KIB, 0x1),
    "ipu2": Arch("ipu2", 1472, 624 * KIB, 0x2),
    "ipu21": Arch("ipu21", 1472, 624 * KIB, 0x21),
})
ARCH_BY_EFLAGS: Mapping[int, Arch] = MappingProxyType({a.e_flags: a for a in ARCHES.values()})
# Past any one Poplar graph (a Bow Pod1024 as one graph would have 1,507,328 tiles; a Bow Pod256 has
# 376,832): a larger count is a damaged file. A tensor map's tile count comes from its largest tile id,
# so this also bounds what a tiny file can make memreport draw and write (a row per tile in CSV).
MAX_TILES = 1 << 21


@dataclass(frozen=True)
class Target:
    """The device a report was compiled for; unknown values are None."""

    num_tiles: int
    arch: str | None = None
    num_ipus: int | None = None
    tiles_per_ipu: int | None = None
    bytes_per_tile: int | None = None
    clock_hz: float | None = None
    type: str | None = None

    def __post_init__(self) -> None:
        if self.num_tiles < 0:
            raise ValueError(f"num_tiles must be >= 0, not {self.num_tiles}")
        if self.num_tiles > MAX_TILES:
            raise ValueError(f"{self.num_tiles:,} tiles is beyond any IPU system (at most {MAX_TILES:,})")
        for name in ("num_ipus", "tiles_per_ipu", "bytes_per_tile"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, not {value}")
            if value is not None and value >= 2 ** 63:
                raise ValueError(f"{name} must be below 2**63, not a {int(value).bit_length()}-bit number")
        if self.arch is not None and self.arch not in ARCHES:
            raise ValueError(f"unknown arch {self.arch!r}")

    @classmethod
    def for_arch(cls, arch: str | None, num_tiles: int, bytes_per_tile: int | None = None) -> "Target":
        """A target from an architecture name (or None) and a tile count."""
        spec = ARCHES.get(arch) if arch else None
        if spec is None:
            return cls(num_tiles=num_tiles, bytes_per_tile=bytes_per_tile)
        return cls(
            num_tiles=num_tiles,
            arch=spec.name,
            num_ipus=max(1, math.ceil(num_tiles / spec.tiles_per_ipu)),
            tiles_per_ipu=spec.tiles_per_ipu,
            bytes_per_tile=bytes_per_tile if bytes_per_tile is not None else spec.bytes_per_tile,
        )

    def ipu_of(self, tile: int) -> int | None:
        """The IPU holding a global tile id, or None when tiles per IPU is unknown."""
        return None if not self.tiles_per_ipu else int(tile) // self.tiles_per_ipu


@dataclass(frozen=True, eq=False)
class Column:
    """One per-tile breakdown item (an ELF section, a profile category).

    ``present`` is False where a tile lacks the item (an ELF without that
    section); None means every tile has it. ``counted`` says whether the item
    is part of the tile's memory (SHF_ALLOC sections, profile categories).
    """

    values: np.ndarray
    present: np.ndarray | None = None
    counted: bool = True

    def __post_init__(self) -> None:
        _check_bytes_array("column", self.values)
        if self.present is not None and (self.present.dtype != bool or self.present.shape != self.values.shape):
            raise ValueError("present must be a bool array shaped like values")

    def get(self, tile: int) -> int | None:
        """The item's bytes on one tile, or None where the tile lacks it."""
        if self.present is not None and not self.present[tile]:
            return None
        return int(self.values[tile])


@dataclass(frozen=True)
class TileDetail:
    """What a source printed about one tile (a text report's detailed tiles)."""

    tile: int
    including_gaps: int | None
    excluding_gaps: int | None
    breakdown: Mapping[str, int] = field(default_factory=dict)
    regions: Mapping[str, int] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TileBytes:
    """A tile and a byte count (the Maximum lines)."""

    tile: int
    bytes: int


@dataclass(frozen=True)
class Bin:
    """One histogram row: ``count`` tiles in ``[low_kib, high_kib)`` KiB."""

    low_kib: int
    high_kib: int
    count: int


@dataclass(frozen=True)
class Histogram:
    """Tiles per KiB bin; every bin has the width ``bin_kib``."""

    bin_kib: int
    bins: tuple[Bin, ...]

    @property
    def total(self) -> int:
        return sum(b.count for b in self.bins)


@dataclass(frozen=True)
class PrintedSummary:
    """Figures a source printed itself (text reports): kept, never recomputed."""

    histogram: Histogram | None = None
    max_including_gaps: TileBytes | None = None
    max_excluding_gaps: TileBytes | None = None
    tiles_out_of_memory: int | None = None
    including_gaps: int | None = None
    excluding_gaps: int | None = None


@dataclass(frozen=True)
class SkippedMember:
    """A damaged archive member left out by ``skip_bad_members``: its tile's bytes are unknown."""

    tile: int
    member: str
    reason: str


@dataclass(frozen=True, eq=False)
class MemoryReport:
    """One compiled program's memory, tile by tile.

    ``excluding_gaps`` (and ``including_gaps`` where the source holds it) are
    int64 arrays of ``target.num_tiles`` values when the per-tile view is
    complete; both are None for a partial source (a text summary), which
    keeps what it printed in ``printed`` and ``detailed_tiles``.

    ``skipped`` lists tiles whose member could not be read: they keep their
    place (later tile ids do not shift), hold 0 in the arrays as a
    placeholder and no breakdown item, and :attr:`known` is False for them
    so no figure counts them.
    """

    source: str
    format: str
    target: Target
    excluding_gaps: np.ndarray | None = None
    including_gaps: np.ndarray | None = None
    breakdown: Mapping[str, Column] = field(default_factory=dict)
    breakdown_kind: str = "item"
    regions: Mapping[str, np.ndarray] = field(default_factory=dict)
    tile_names: Sequence[str] | None = None
    detailed_tiles: tuple[TileDetail, ...] = ()
    printed: PrintedSummary | None = None
    module: str | None = None
    info: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    skipped: tuple[SkippedMember, ...] = ()

    def __post_init__(self) -> None:
        n = self.target.num_tiles
        if self.including_gaps is not None and self.excluding_gaps is None:
            raise ValueError("including_gaps needs excluding_gaps")
        for name, arr in (("excluding_gaps", self.excluding_gaps), ("including_gaps", self.including_gaps)):
            if arr is not None:
                _check_bytes_array(name, arr, n)
        for name, col in self.breakdown.items():
            if not isinstance(col, Column):
                raise TypeError(f"breakdown {name!r} must be a Column")
            if col.values.shape != (n,):
                raise ValueError(f"breakdown {name!r} has {col.values.shape[0]} values for {n} tiles")
        for name, arr in self.regions.items():
            _check_bytes_array(f"region {name!r}", arr, n)
        if self.tile_names is not None and len(self.tile_names) != n:
            raise ValueError(f"{len(self.tile_names)} tile names for {n} tiles")
        for detail in self.detailed_tiles:
            if n and not 0 <= detail.tile < n:
                raise ValueError(f"detailed tile {detail.tile} outside 0..{n - 1}")
        if self.skipped:
            tiles = [s.tile for s in self.skipped]
            if self.excluding_gaps is None:
                raise ValueError("skipped tiles need per-tile arrays")
            if len(set(tiles)) != len(tiles) or not all(0 <= t < n for t in tiles):
                raise ValueError(f"skipped tiles must be distinct tiles of 0..{n - 1}")
            if self.excluding_gaps[tiles].any():
                raise ValueError("a skipped tile must hold the placeholder 0")

    @property
    def per_tile(self) -> str:
        """"complete" when every tile's bytes are known, else "partial"."""
        return "complete" if self.excluding_gaps is not None and not self.skipped else "partial"

    @property
    def is_printed_summary(self) -> bool:
        """True for a summary that printed its own figures (a text summary), not for other partial reports.

        Its figures are kept as printed and only its detailed tiles have
        per-tile bytes; a tensor map or an archive with skipped members is
        partial for other reasons.
        """
        return self.excluding_gaps is None and self.printed is not None

    @property
    def known(self) -> np.ndarray | None:
        """Per-tile bool, False for skipped tiles; None when every tile in the arrays is known."""
        if not self.skipped:
            return None
        import numpy as np
        known = np.ones(self.num_tiles, dtype=bool)
        known[[s.tile for s in self.skipped]] = False
        return known

    @property
    def num_tiles(self) -> int:
        return self.target.num_tiles

    # Convenience for notebooks: thin delegates to memreport.analysis.
    @property
    def tiles_out_of_memory(self) -> int | None:
        """How many tiles exceed bytes per tile (None when unknown)."""
        from .analysis import count_out_of_memory
        return count_out_of_memory(self)

    def top_tiles(self, n: int = 5) -> list["TopTile"]:
        """The ``n`` most memory-subscribed tiles, largest first."""
        from .analysis import top_tiles
        return top_tiles(self, n)

    def histogram(self, bin_kib: int | None = None) -> "Histogram":
        """Poplar's By Tile histogram (printed bins for a text report)."""
        from .analysis import histogram
        return histogram(self, bin_kib)

    # Pictures and tables for notebooks: renderers imported on use, so model.py never imports
    # matplotlib or pandas.
    def plot(self, *, figsize: tuple[float, float] | None = None, bin_kib: int | None = None) -> "Figure":
        """One matplotlib Figure: memory per tile, the By Tile histogram and a per-IPU heat map."""
        from .render.plot import figure
        return figure(self, figsize=figsize, bin_kib=bin_kib)

    def to_dataframe(self) -> "pandas.DataFrame":
        """One row per tile (per detailed tile for a text report), the CSV's columns; needs pandas."""
        from .render.dataframe import to_dataframe
        return to_dataframe(self)

    def _repr_html_(self) -> str:
        from .render.html import render_html
        return render_html(self)

    def _repr_png_(self) -> bytes | None:
        from .errors import MemreportError
        from .render.plot import render_png
        try:
            return render_png(self)
        except MemreportError:  # no matplotlib, or nothing to draw (a tensor map): the HTML still shows
            return None

    def __repr__(self) -> str:
        module = f" module={self.module!r}" if self.module else ""
        return (f"<MemoryReport {self.source!r}{module} format={self.format} "
                f"tiles={self.num_tiles} per_tile={self.per_tile}>")


def _check_bytes_array(name: str, arr: np.ndarray, n: int | None = None) -> None:
    import numpy as np
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be a 1-D integer numpy array")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} values for {n} tiles")
    if arr.size and arr.dtype.kind == "i" and int(arr.min()) < 0:
        raise ValueError(f"{name} holds a negative size")
