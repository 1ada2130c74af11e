"""memreport: per-tile memory of Graphcore IPU programs, from every report Poplar writes.

>>> import memreport
>>> report = memreport.read("sample_reports/mk2_1472_tiles.a")   # doctest: +SKIP
>>> report.tiles_out_of_memory                                    # doctest: +SKIP

``read`` and ``read_all`` never import matplotlib; only ``report.plot()`` does.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from . import notebook as _notebook  # noqa: F401  (installs report.plot() and the other conveniences)
from .errors import (
    MemreportError,
    MissingDependency,
    ReadError,
    TileCountMismatch,
    Truncated,
    UnexpectedError,
    UnrecognisedFormat,
    UnsupportedOperation,
)
from .model import (
    ARCHES,
    Bin,
    Column,
    Histogram,
    MemoryReport,
    PrintedSummary,
    ProgramLiveness,
    SkippedMember,
    SummaryReport,
    Symbol,
    Target,
    TensorMapReport,
    TileBytes,
    TileDetail,
    TileReport,
    TileSymbols,
)
from .readers import ReadOptions

if TYPE_CHECKING:  # pragma: no cover
    from .analysis.diff import Diff

__version__ = "0.1.0"

__all__ = [
    "ARCHES",
    "Bin",
    "Column",
    "Histogram",
    "MemoryReport",
    "MemreportError",
    "MissingDependency",
    "PrintedSummary",
    "ProgramLiveness",
    "ReadError",
    "ReadOptions",
    "SkippedMember",
    "SummaryReport",
    "Symbol",
    "Target",
    "TensorMapReport",
    "TileBytes",
    "TileCountMismatch",
    "TileDetail",
    "TileReport",
    "TileSymbols",
    "Truncated",
    "UnexpectedError",
    "UnrecognisedFormat",
    "UnsupportedOperation",
    "__version__",
    "diff",
    "read",
    "read_all",
]


def read_all(path: str | os.PathLike, *, tile_memory: int | str | None = None, arch: str | None = None,
             skip_bad_members: bool = False) -> list[MemoryReport]:
    """Every report a file holds, in file order (a ``.rep`` trace may hold several)."""
    from .readers import read_path
    from .units import check_tile_memory, parse_size
    if isinstance(tile_memory, str):
        tile_memory = parse_size(tile_memory)
    if tile_memory is not None:  # a bad setting is the caller's ValueError, not a ReadError blaming the file
        tile_memory = check_tile_memory(tile_memory)
    options = ReadOptions(tile_memory=tile_memory, arch=arch, skip_bad_members=skip_bad_members)
    return read_path(path, options)


def read(path: str | os.PathLike, **kwargs) -> MemoryReport:
    """The report a file holds; for a file holding several, the largest (by excluding-gaps total)."""
    from .analysis import largest
    return largest(read_all(path, **kwargs))


def diff(old: str | os.PathLike | MemoryReport, new: str | os.PathLike | MemoryReport, *, top: int = 20,
         min_change: int = 0, sort: str = "delta", **kwargs) -> Diff:
    """Two builds compared tile by tile, and below the tile for the ``top`` largest changes.

    ``old`` and ``new`` are files (read as :func:`read` does, with ``kwargs``)
    or reports. Symbol tables of archives and ELF files are read for the
    tiles detailed below the tile. Changes under ``min_change`` bytes are
    counted but not listed; ``sort`` orders the items ("delta", "growth", "new").
    """
    from .analysis.diff import diff_reports, with_items
    from .readers.symbols import has_symbols, with_symbols
    sides = [side if isinstance(side, MemoryReport) else read(side, **kwargs) for side in (old, new)]
    changes = diff_reports(sides[0], sides[1], min_change=min_change)
    tiles = [c.tile for c in changes.changes(top)]
    sides = [with_symbols(s, tiles) if isinstance(s, TileReport) and has_symbols(s) else s for s in sides]
    return with_items(changes, sides[0], sides[1], top, sort=sort)
