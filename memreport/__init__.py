"""memreport: per-tile memory of Graphcore IPU programs, from every report Poplar writes.

>>> import memreport
>>> report = memreport.read("sample_reports/mk2_1472_tiles.a")   # doctest: +SKIP
>>> report.tiles_out_of_memory                                    # doctest: +SKIP

``read`` and ``read_all`` never import matplotlib; only ``report.plot()`` does.
"""
from __future__ import annotations

import os

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
    SkippedMember,
    SummaryReport,
    Target,
    TensorMapReport,
    TileBytes,
    TileDetail,
    TileReport,
)
from .readers import ReadOptions

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
    "ReadError",
    "ReadOptions",
    "SkippedMember",
    "SummaryReport",
    "Target",
    "TensorMapReport",
    "TileBytes",
    "TileCountMismatch",
    "TileDetail",
    "TileReport",
    "Truncated",
    "UnexpectedError",
    "UnrecognisedFormat",
    "UnsupportedOperation",
    "__version__",
    "read",
    "read_all",
]


def read_all(path: str | os.PathLike, *, tile_memory: int | str | None = None, arch: str | None = None,
             skip_bad_members: bool = False, thin_root: str | os.PathLike | None = None) -> list[MemoryReport]:
    """Every report a file holds, in file order (a ``.rep`` trace may hold several).

    A thin archive's members must lie under the archive's own directory, or
    under ``thin_root`` when given.
    """
    from .readers import read_path
    from .units import check_tile_memory, parse_size
    if isinstance(tile_memory, str):
        tile_memory = parse_size(tile_memory)
    if tile_memory is not None:  # a bad setting is the caller's ValueError, not a ReadError blaming the file
        tile_memory = check_tile_memory(tile_memory)
    options = ReadOptions(tile_memory=tile_memory, arch=arch, skip_bad_members=skip_bad_members,
                          thin_root=None if thin_root is None else os.fspath(thin_root))
    return read_path(path, options)


def read(path: str | os.PathLike, **kwargs) -> MemoryReport:
    """The report a file holds; for a file holding several, the largest (by excluding-gaps total)."""
    from .analysis import largest
    return largest(read_all(path, **kwargs))
