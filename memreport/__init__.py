"""memreport: per-tile memory of Graphcore IPU programs, from every report Poplar writes.

>>> import memreport
>>> report = memreport.read("sample_reports/mk2_1472_tiles.a")   # doctest: +SKIP
>>> report.tiles_out_of_memory                                    # doctest: +SKIP

``read`` and ``read_all`` never import matplotlib; only ``report.plot()`` does.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

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
    PYTHON_NAMES,
    Bin,
    Column,
    Histogram,
    MemoryReport,
    PrintedSummary,
    ProgramLiveness,
    SkippedMember,
    Symbol,
    Target,
    TileBytes,
    TileDetail,
    TileSymbols,
)
from .notebook import SummaryReport, TensorMapReport, TileReport
from .readers import ReadOptions

if TYPE_CHECKING:  # numpy-backed analysis loads with the call
    from .analysis.compiles import CompileSummary
    from .analysis.diff import Diff
    from .analysis.results import Trend

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
    "read_compiles",
    "trend",
]


def read_all(path: str | os.PathLike, *, tile_memory: int | str | None = None, arch: str | None = None,
             skip_bad_members: bool = False, thin_root: str | os.PathLike | None = None) -> list[MemoryReport]:
    """Every report a file holds, in file order (a ``.rep`` trace or a log may hold several).

    ``tile_memory`` (bytes per tile: ``638976`` or ``"624KiB"``) overrides
    what every source says; ``arch`` (``"ipu1"``, ``"ipu2"``, ``"ipu21"``)
    replaces the architecture a source names; ``skip_bad_members`` reads an
    archive whose members are partly damaged. A thin archive's members must
    lie under the archive's own directory, or under ``thin_root`` when given.
    A bad argument is a ValueError naming it; an unreadable file a
    :class:`ReadError`.
    """
    return [read.report for read in _reads(path, tile_memory, arch, skip_bad_members, thin_root)]


def _reads(path: str | os.PathLike, tile_memory: object, arch: object, skip_bad_members: object,
           thin_root: object) -> list:
    """Every report of a file with the file it was read from, each the API's report of its kind."""
    from .notebook import public
    from .session import Read, read_files, read_options
    options = read_options(tile_memory=_tile_memory(tile_memory), arch=_arch(arch),
                           skip_bad_members=_flag(skip_bad_members, "skip_bad_members"), names=PYTHON_NAMES,
                           thin_root=_thin_root(thin_root))
    return [Read(r.path, public(r.report)) for r in read_files([path], options)]


def read(path: str | os.PathLike, *, tile_memory: int | str | None = None, arch: str | None = None,
         skip_bad_members: bool = False, thin_root: str | os.PathLike | None = None) -> MemoryReport:
    """The report a file holds; for a file holding several, the largest (by excluding-gaps total).

    The keywords are :func:`read_all`'s.
    """
    from .analysis import largest
    return largest(read_all(path, tile_memory=tile_memory, arch=arch, skip_bad_members=skip_bad_members,
                            thin_root=thin_root))


def _tile_memory(value: object) -> int | None:
    """``tile_memory=`` as bytes: an int (not a bool) or a size string, at least 1 and below 2**63."""
    from .units import check_tile_memory, parse_size
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return check_tile_memory(parse_size(value))
        except ValueError as exc:
            raise ValueError(f"tile_memory: {exc}") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"tile_memory must be a whole number of bytes or a size such as '624KiB', not {value!r}")
    try:
        return check_tile_memory(value)
    except ValueError as exc:
        raise ValueError(f"tile_memory: {exc}") from None


def _arch(value: object) -> str | None:
    if value is None or (isinstance(value, str) and value in ARCHES):
        return value
    names = ", ".join(repr(a) for a in ARCHES)
    raise ValueError(f"arch must be one of {names} (or None), not {value!r}")


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, not {value!r}")
    return value


def _thin_root(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise ValueError(f"thin_root must be a directory path (or None), not {value!r}")
    return os.fspath(value)


def read_compiles(*paths: str | os.PathLike) -> CompileSummary:
    """Every compilation, cache hit and executable load in run logs, read as one sequence, with the findings."""
    from .run import compiles_of
    return compiles_of(paths)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext memreport`` in IPython or Jupyter: the ``%%memreport`` cell magic (a cell's verdict, from what
    it writes) and the ``%memreport PATH`` line magic (needs IPython: the ``notebook`` extra)."""
    from .magic import register
    register(ipython, read_all=read_all, read_compiles=read_compiles)


def diff(old: str | os.PathLike | MemoryReport, new: str | os.PathLike | MemoryReport, *, top: int = 20,
         min_change: int = 0, sort: str = "delta", tile_memory: int | str | None = None, arch: str | None = None,
         skip_bad_members: bool = False, thin_root: str | os.PathLike | None = None) -> Diff:
    """Two builds compared tile by tile, and below the tile for the ``top`` largest changes: what
    ``memreport diff`` computes.

    ``old`` and ``new`` are files (read as :func:`read_all` does, with the
    keywords; of a file holding several reports the largest is compared) or
    reports. Symbol tables of archives and ELF files are read for the tiles
    detailed below the tile. Changes under ``min_change`` bytes are counted
    but not listed; ``sort`` orders the items ("delta", "growth", "new").
    """
    from .run import diff_of
    from .session import Read
    sides = [[Read(side.source, side)] if isinstance(side, MemoryReport)
             else _reads(side, tile_memory, arch, skip_bad_members, thin_root) for side in (old, new)]
    return diff_of(sides[0], sides[1], top=top, min_change=min_change, sort=sort, thin_root=_thin_root(thin_root))[0]


def trend(*paths: str | os.PathLike, labels: Sequence[str] = (), tile_memory: int | str | None = None,
          arch: str | None = None, skip_bad_members: bool = False, thin_root: str | os.PathLike | None = None
          ) -> Trend:
    """Builds in the order given (oldest first), each read once: its figures, and when each tile out of memory in
    the last build first went over: what ``memreport trend`` computes. Of a file holding several reports the
    largest is the build; ``labels`` name the builds (one per path; default: the files' names); the keywords are
    :func:`read_all`'s."""
    from .run import trend_of
    from .session import read_options
    options = read_options(tile_memory=_tile_memory(tile_memory), arch=_arch(arch), names=PYTHON_NAMES,
                           skip_bad_members=_flag(skip_bad_members, "skip_bad_members"),
                           thin_root=_thin_root(thin_root))
    return trend_of(paths, options, labels=list(labels))[0]
