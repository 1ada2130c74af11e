"""One run's reading, for the command line, the public API and the notebook alike (docs/ARCHITECTURE.md).

A session reads files (``read_files``: every report of each, or the
``--module`` one), with the user's overrides applied once by the registry
(``read_options`` builds them); reads the symbol tables of the tiles shown
(``with_symbols``: the top tiles and the tiles asked for) from the archive
or ELF file a report was read from, never from a file a saved report only
names; and checks a tensor map against every report (``read_tensor_map``).
It raises :class:`~memreport.errors.MemreportError`; turning errors into exit
codes is the CLI's business.
"""
from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import MemreportError, UnsupportedOperation
from .model import CLI_NAMES, MemoryReport, OptionNames, TileReport, TileSymbols
from .readers import ReadOptions, read_path
from .units import Percent

if TYPE_CHECKING:  # numpy-backed modules load with the calls
    from .model.tensor_map import TensorMap

# Per file: a context around its reading that may hand the reader other options (a progress callback).
Around = Callable[[str, ReadOptions], AbstractContextManager[ReadOptions]]


@dataclass(frozen=True)
class ReadFailure:
    """A file that could not be read, when errors are collected: the file as the user named it, and why (the
    ReadError's message, as the command line prints it)."""

    file: str
    message: str


@dataclass(frozen=True)
class Read:
    """One report and the file it was read from (standard input's spool file, whatever the report is named)."""

    path: str
    report: MemoryReport


@dataclass
class StandardInput:
    """Standard input as one of a run's files (``-`` on the command line): copied in bounded chunks to a file
    (:meth:`spool`), read like any other (a named FIFO or a device is still refused), and named ``<stdin>`` to the
    user (:meth:`named`, :attr:`labels`); the regular file it was redirected from (``< run.log``: its device and
    inode, :attr:`behind`) stands for the spool file when outputs are checked against the inputs."""

    MARK, LABEL = "-", "<stdin>"
    labels: dict[str, str] = field(default_factory=dict)              # spool file -> <stdin>
    behind: dict[str, tuple[int, int]] = field(default_factory=dict)  # spool file -> the file stdin came from

    def spool(self, directory: str, stream: Any = None) -> str:
        """Standard input (or ``stream``) copied to a file in ``directory``: its path."""
        stream = sys.stdin if stream is None else stream
        path = os.path.join(directory, "stdin")
        try:
            st = os.fstat(stream.fileno())
            if stat.S_ISREG(st.st_mode):
                self.behind[path] = (st.st_dev, st.st_ino)
        except (AttributeError, OSError, ValueError):  # closed, or no descriptor (a test's input)
            pass
        with open(path, "wb") as f:
            shutil.copyfileobj(stream.buffer, f, 1 << 20)
        self.labels[path] = self.LABEL
        return path

    def forget(self, path: str) -> None:
        self.labels.pop(path, None)
        self.behind.pop(path, None)

    def paths(self, paths: Sequence[str], enter: Callable[[Any], Any], on_close: Callable[[Callable[[], None]], Any],
              stream: Any = None) -> list[str]:
        """``paths`` with ``-`` (once at most: UnsupportedOperation otherwise) replaced by a file holding standard
        input (or ``stream``) in a temporary directory, entered with ``enter`` and forgotten with ``on_close`` (an
        ExitStack's ``enter_context`` and ``callback``, a click Context's ``with_resource`` and ``call_on_close``)."""
        if self.MARK not in paths:
            return list(paths)
        if list(paths).count(self.MARK) > 1:
            raise UnsupportedOperation("- (standard input) can be given once")
        import tempfile
        spool = self.spool(enter(tempfile.TemporaryDirectory(prefix="memreport-stdin-")), stream)
        on_close(lambda: self.forget(spool))
        return [spool if p == self.MARK else p for p in paths]

    def named(self, text: str) -> str:
        """``text`` (a path, a message) with each spool file named as the user knows it."""
        for spool, label in self.labels.items():
            text = text.replace(spool, label)
        return text

    def redirected(self, paths: Iterable[str]) -> tuple[int, int] | None:
        """The device and inode of the file standard input came from, when it is among ``paths``."""
        return next((self.behind[p] for p in paths if p in self.behind), None)


def read_options(*, tile_memory: int | None = None, arch: str | None = None, skip_bad_members: bool = False,
                 thin_root: str | None = None, names: OptionNames = CLI_NAMES) -> ReadOptions:
    """How inputs are read: the overrides every reader's report is resolved with, spelled as ``names`` does."""
    return ReadOptions(tile_memory=tile_memory, arch=arch, skip_bad_members=skip_bad_members,
                       option_names=names, thin_root=thin_root)


def read_files(paths: Iterable[str | os.PathLike], options: ReadOptions, module: str | None = None, *,
               labels: Mapping[str, str] | None = None, around: Around | None = None,
               errors: list[ReadFailure] | None = None) -> list[Read]:
    """Every report of every file, in order (of each file only ``module``, a name or ``#N``, when given).

    ``labels`` names files as the user knows them (standard input's spool
    file as ``<stdin>``); ``around`` wraps each file's reading (a progress
    bar, warnings caught). The first unreadable file raises its error (a
    ReadError, a MissingDependency...), unless ``errors`` is given: then each
    unreadable file is appended to it, named by its label, and the others are
    read (``memreport logs/*``). A module a file does not hold raises an
    UnsupportedOperation naming those it holds, always.
    """
    from .analysis.tiles import pick_module
    found: list[Read] = []
    for path in (os.fspath(p) for p in paths):
        with (around or _plain)(path, options) as file_options:
            try:
                reports = read_path(path, file_options)
            except MemreportError as exc:  # what exits 1 on the command line
                if errors is None or isinstance(exc, UnsupportedOperation):
                    raise
                named = (labels or {}).get(path, path)
                errors.append(ReadFailure(named, str(exc).replace(path, named)))
                continue
            label = (labels or {}).get(path)
            if label is not None:
                reports = [r.evolve(source=label) for r in reports]
            if module is not None:
                reports = [pick_module(reports, module)]
        found.extend(Read(path, report) for report in reports)
    return found


def _plain(path: str, options: ReadOptions) -> AbstractContextManager[ReadOptions]:
    return nullcontext(options)


def reads_symbols(read: Read, labels: Mapping[str, str] | None = None) -> bool:
    """Whether the report's symbol tables can be read from the file it was read from: an archive or ELF file,
    named as read (a saved report names the file it was made from, which it does not hold)."""
    from .readers.elf.symbols import has_symbols
    return has_symbols(read.report) and read.report.source == (labels or {}).get(read.path, read.path)


def with_symbols(reads: Sequence[Read], top: int = 0, tiles: Sequence[int] = (), thin_root: str | None = None,
                 labels: Mapping[str, str] | None = None, *, fit: bool = False,
                 headroom: int | Percent | Callable[[str], int | Percent | None] | None = None) -> list[MemoryReport]:
    """The reports, those of archives and ELF files holding the symbol tables of their ``top`` tiles and of
    ``tiles`` (tiles outside a report are left for the summary to refuse), and with ``fit`` those of the tiles
    their fit plans are for (over bytes per tile, less ``headroom``: one for all, or each input path's); a
    ReadError when one cannot be read, or its file changed since."""
    from .analysis import top_tile_ids
    from .analysis.fit_plan import symbol_tiles
    from .analysis.summary import headroom_bytes
    from .readers.elf.symbols import with_symbols as read_symbols
    reports = []
    for read in reads:
        report = read.report
        if reads_symbols(read, labels):
            assert isinstance(report, TileReport)
            wanted = top_tile_ids(report, top).tolist() + [t for t in tiles if t < report.num_tiles]
            if fit:
                own = headroom(read.path) if callable(headroom) else headroom
                wanted += symbol_tiles(report, headroom_bytes(report, own) or 0)
            named = report.source
            spooled = report if read.path == named else report.evolve(source=read.path)
            report = read_symbols(spooled, wanted, thin_root).evolve(source=named)
        reports.append(report)
    return reports


def tile_symbols(report: MemoryReport, tile: int, thin_root: str | None = None) -> TileSymbols:
    """One tile's symbol table: the one the report holds, or read again from its archive or ELF file."""
    if not isinstance(report, TileReport):
        raise UnsupportedOperation(f"{report.label}: a {report.format_name} holds no ELF symbol tables")
    found = report.symbols.get(tile)
    if found is not None:
        return found
    from .readers.elf.symbols import read_symbols
    return read_symbols(report, [tile], thin_root)[tile]


def read_tensor_map(path: str, reports: Sequence[MemoryReport]) -> TensorMap:
    """A tensor map, checked to fit every report (a ReadError naming it otherwise)."""
    from .analysis.tensors import check_matches
    from .readers.documents.tensor_map import read_tensor_map as read_map
    tensor_map = read_map(path)
    for report in reports:
        check_matches(report, tensor_map)
    return tensor_map


def reports_of(reads: Iterable[Read]) -> Iterator[MemoryReport]:
    """The reports alone."""
    return (read.report for read in reads)
