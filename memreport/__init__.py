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
    SkippedMember,
    SummaryReport,
    Target,
    TensorMapReport,
    TileBytes,
    TileDetail,
    TileReport,
)
from .readers import ReadOptions

if TYPE_CHECKING:  # numpy-backed analysis loads with the call
    from .analysis.compiles import CompileSummary

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
    "read_compiles",
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


def read_compiles(*paths: str | os.PathLike) -> CompileSummary:
    """Every compilation, cache hit and executable load in run logs, read as one sequence, with the findings."""
    from .analysis.compiles import summarize_compiles
    from .readers.compile_log import read_compile_logs
    return summarize_compiles(read_compile_logs(paths))
