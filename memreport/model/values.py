"""The small records reports are made of: per-tile columns, printed figures, histogram bins."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np  # imported where used: `memreport --version` and `--help` need no numpy


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
        check_bytes_array("column", self.values)
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


def check_bytes_array(name: str, arr: np.ndarray, n: int | None = None) -> None:
    """A ValueError/TypeError unless ``arr`` is a 1-D integer array of non-negative sizes (``n`` long)."""
    import numpy as np
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be a 1-D integer numpy array")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} values for {n} tiles")
    if arr.size and arr.dtype.kind == "i" and int(arr.min()) < 0:
        raise ValueError(f"{name} holds a negative size")
