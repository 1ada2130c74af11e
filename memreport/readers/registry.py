"""Reader registry: content decides the format, the file name only breaks ties.

Each reader module registers a :class:`Reader` with a cheap ``accept(prefix)``
test on the first bytes of the file (Pillow's plugin habit). :func:`read_path`
sniffs, dispatches, applies the user's ``--arch`` / ``--tile-memory`` to
what each source stated (:func:`~memreport.model.resolve_target`, the one
home of that rule) and turns any stray low-level failure into a
:class:`~memreport.errors.ReadError` naming the file. Readers themselves
never see the overrides: they report what their source says.
"""
from __future__ import annotations

import importlib
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import ReadError, UnexpectedError, UnrecognisedFormat
from ..model import CLI_NAMES, MemoryReport, OptionNames, resolve_target
from . import compressed

PREFIX_BYTES = 4096


@dataclass(frozen=True)
class ReadOptions:
    """Settings a reader may need beyond the file itself."""

    tile_memory: int | None = None   # bytes per tile, overriding what the source says
    arch: str | None = None          # ipu1 / ipu2 / ipu21, overriding the arch a source names
    skip_bad_members: bool = False   # archives: a damaged member's tile is kept as unknown, not fatal
    thin_root: str | None = None     # thin archives: members may lie anywhere under this directory
    progress: Callable[[int, int], None] | None = None  # (done, total) in reader units
    option_names: OptionNames = CLI_NAMES  # how notes spell the overrides ("--arch" or "arch=")


@dataclass(frozen=True)
class Reader:
    """One input format: a name, a content test and the reading function."""

    name: str
    description: str
    accept: Callable[[bytes], bool]
    read: Callable[[str, bytes, ReadOptions], list[MemoryReport]]
    extensions: tuple[str, ...] = ()
    compressed: bool = False  # reads gzip, xz, bz2 and zstd files itself (streamed): others are told to decompress
    decisive: bool = False  # its content test is specific: when it accepts, the file's extension does not matter


_READERS: list[Reader] = []


def register(reader: Reader) -> Reader:
    """Add a reader; earlier registrations win when several accept a prefix."""
    _READERS.append(reader)
    return reader


def readers() -> list[Reader]:
    """The registered readers, in sniffing order: the built-in ones in :data:`BUILTIN` order, whatever order
    their modules happened to be imported in (by a test, a thread, a user), then any others as registered."""
    _load_builtin()
    return sorted(_READERS, key=_builtin_rank)


def _builtin_rank(reader: Reader) -> int:
    """A built-in reader's place in :data:`BUILTIN`, by the full path of the module that defines it (a
    module inside a built-in reader package counts as that package); any other reader ranks after them."""
    module = getattr(reader.read, "__module__", "") or ""
    name = module[len(_PACKAGE) + 1:] if module.startswith(f"{_PACKAGE}.") else ""
    for position, builtin in enumerate(BUILTIN):
        if name == builtin or name.startswith(f"{builtin}."):
            return position
    return len(BUILTIN)


# The built-in reader modules by their path under this package (family.module), in registration order, which is
# sniffing order. They are loaded by name (Pillow's plugin habit): the registry knows the list and the file
# extensions each module's readers claim, not their code, and each module registers itself on import. A Jupyter
# notebook is claimed before the JSON readers see a JSON object; text comes last: it takes any text the others leave.
_PACKAGE = __package__ or "memreport.readers"
BUILTIN = ("elf.ar", "elf.file", "text.ipynb", "documents.saved_csv", "documents.saved", "documents.lowered_vars",
           "documents.profile", "documents.pva", "text.poplar_text")
BUILTIN_EXTENSIONS = {"elf.ar": (".a",), "elf.file": (".elf", ".o"), "text.ipynb": (".ipynb",),
                      "documents.saved_csv": (".csv",),
                      "documents.saved": (".json",), "documents.lowered_vars": (".json",),
                      "documents.profile": (".json", ".cbor"),
                      "documents.pva": (".pop",), "text.poplar_text": (".txt", ".rep", ".log")}
_BUILTIN_LOADED = False
_BUILTIN_LOCK = threading.Lock()


def _load_builtin() -> None:
    """Import the built-in reader modules once (each registers itself on import); safe from many threads."""
    global _BUILTIN_LOADED
    if _BUILTIN_LOADED:
        return
    with _BUILTIN_LOCK:
        if _BUILTIN_LOADED:
            return
        for name in BUILTIN:
            importlib.import_module(f"{_PACKAGE}.{name}")
        _BUILTIN_LOADED = True  # only now: another thread must not see a half-filled registry


def _sniffed(prefix: bytes, suffix: str) -> Reader | None:
    """The reader :func:`identify` picks for ``prefix`` (None: none accepts it): the first accepting reader
    that claims the extension ``suffix``, else the first accepting one.

    Built-in modules are imported one at a time, only until the choice is
    settled: when an accepting reader claims the extension, or when one
    accepts and no later reader (built-in by its declared extensions, or
    registered by others) could claim it. An archive so never loads the
    text, profile and saved-report readers (30 ms of a run).
    """
    if not _BUILTIN_LOADED:
        others = any(_builtin_rank(r) == len(BUILTIN) for r in _READERS)
        accepting: list[Reader] = []
        for position, name in enumerate(BUILTIN):
            importlib.import_module(f"{_PACKAGE}.{name}")  # thread-safe: a module is imported once
            accepting += [r for r in _READERS if _builtin_rank(r) == position and r.accept(prefix)]
            later = others or any(suffix in BUILTIN_EXTENSIONS[n] for n in BUILTIN[position + 1:])
            if any(suffix in r.extensions or r.decisive for r in accepting) or (accepting and not later):
                return _chosen(accepting, suffix)
    return _chosen([r for r in readers() if r.accept(prefix)], suffix)  # every reader: then those of others


def _chosen(accepting: list[Reader], suffix: str) -> Reader | None:
    """The first decisive reader that accepts (a notebook named ``.json`` is a notebook), else the first that
    claims the extension, else the first that accepts."""
    return next((r for r in accepting if r.decisive), None) or \
        next((r for r in accepting if suffix in r.extensions), accepting[0] if accepting else None)


def read_prefix(path: str) -> bytes:
    """The first bytes of a file, with errors for missing paths, directories, pipes and devices."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise ReadError("no such file", path=path) from None
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc), path=path) from None
    if stat.S_ISDIR(mode):
        raise ReadError("is a directory", path=path)
    if not stat.S_ISREG(mode):  # a FIFO would block the open forever; readers map and re-read their input
        raise ReadError("not a regular file (a pipe, socket or device): save it to a file first", path=path)
    try:
        with open(path, "rb") as f:
            return f.read(PREFIX_BYTES)
    except FileNotFoundError:
        raise ReadError("no such file", path=path) from None
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc), path=path) from None


def identify(path: str, prefix: bytes) -> Reader:
    """The reader for a file: the first whose content test accepts it (extension breaks ties).

    A compressed file (gzip, xz, bz2, zstd: by its magic bytes) is sniffed by
    the start of what it holds, and its extension is the one before ``.gz``;
    only a reader that streams compressed input may take it.
    """
    return _identify(path, prefix, _inner(path, prefix))


def _inner(path: str, prefix: bytes) -> bytes:
    """The first bytes of what a compressed file holds (``prefix`` itself when it is not compressed)."""
    if not compressed.kind(prefix):
        return prefix
    try:
        with open(path, "rb") as f:
            return compressed.head(f, PREFIX_BYTES)
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc), path=path) from None


def _identify(path: str, prefix: bytes, inner: bytes) -> Reader:
    if not prefix:
        raise ReadError("empty file", path=path)
    packing = compressed.kind(prefix)
    suffix = Path(path).suffix.lower()
    if packing:
        if not inner:
            missing = packing == compressed.ZSTD and compressed.zstandard() is None
            raise ReadError(f"{packing}-compressed: reading it needs the zstandard package (pip install "
                            "'memreport[zstd]'), or decompress it first (unzstd)" if missing else
                            f"{packing}-compressed, but nothing of it decompresses (the file is cut short or "
                            "damaged)", path=path)
        prefix, suffix = inner, Path(Path(path).stem).suffix.lower()
    else:
        prefix = _past_hole(path, prefix)
    chosen = _sniffed(prefix, suffix)
    if chosen is None:
        names = ", ".join(r.description for r in readers())
        what = f"{packing}-compressed, and what it holds is in an " if packing else ""
        raise UnrecognisedFormat(f"{what}unrecognised format (expected {names})", path=path)
    if packing and not chosen.compressed:
        raise ReadError(f"{packing}-compressed {chosen.description}: memreport streams compressed logs only; "
                        f"decompress it first ({compressed.TOOLS[packing]})", path=path)
    return chosen


HOLE_LIMIT = 64 << 20  # bytes of NULs looked past at a file's start for something to sniff


def _past_hole(path: str, prefix: bytes) -> bytes:
    """``prefix``, or when it is all NULs (logrotate's copytruncate leaves such a hole where the log was), one
    NUL and the first bytes after the hole, for sniffing (``prefix`` if there are none within
    :data:`HOLE_LIMIT`); SEEK_DATA skips a sparse hole without reading it."""
    if prefix.strip(b"\x00") or len(prefix) < PREFIX_BYTES:
        return prefix
    try:
        with open(path, "rb") as f:
            try:
                start = os.lseek(f.fileno(), 0, getattr(os, "SEEK_DATA", os.SEEK_SET))  # a sparse hole: skipped
            except OSError:
                start = 0
            f.seek(start)
            while start < HOLE_LIMIT:
                chunk = f.read(1 << 20)
                if not chunk:
                    return prefix
                body = chunk.lstrip(b"\x00")
                if body:
                    return b"\x00" + body[:PREFIX_BYTES - 1] if len(body) >= PREFIX_BYTES - 1 else \
                        b"\x00" + body + f.read(PREFIX_BYTES - 1 - len(body))
                start += len(chunk)
    except OSError:
        pass
    return prefix


def read_path(path: str | os.PathLike, options: ReadOptions | None = None) -> list[MemoryReport]:
    """Every report a file holds, in file order, with the overrides in ``options`` applied."""
    path = os.fspath(path)
    options = options or ReadOptions()
    prefix = read_prefix(path)
    inner = _inner(path, prefix)  # the reader sees the start of the text, decompressed
    reader = _identify(path, prefix, inner)
    prefix = inner
    with reading(path, reader.description):
        reports = reader.read(path, prefix, options)
    if not reports:
        raise ReadError(f"{reader.description}: holds no report", path=path)
    return [resolve(report, options, path) for report in reports]


def resolve(report: MemoryReport, options: ReadOptions, path: str | None = None) -> MemoryReport:
    """``report`` with its target resolved from what its source stated and the overrides in ``options``."""
    if report.stated is None:  # built by hand: nothing stated to resolve
        return report
    try:
        target, notes = resolve_target(report.stated, tile_memory=options.tile_memory, arch=options.arch,
                                       names=options.option_names)
        return report.evolve(target=target, notes=report.notes + tuple(notes))
    except ValueError as exc:  # a bad override, or a stated target the report's own figures contradict
        raise ReadError(str(exc), path=path or report.source) from None


@contextmanager
def reading(path: str, what: str) -> Iterator[None]:
    """Turn every failure inside into a ReadError naming ``path``.

    Readers raise precise ReadErrors themselves; this is the last resort, so
    a stray low-level exception never reaches a user as a traceback. Such an
    exception becomes an :class:`~memreport.errors.UnexpectedError` that
    names its type and keeps it as ``__cause__``, so the bug stays findable.
    """
    try:
        yield
    except ReadError as exc:
        raise exc.located(path) from None
    except MemoryError:  # the environment's limit (ulimit -v, a container's memory), not a bug
        raise ReadError(f"{what}: out of memory while reading (MemoryError): the file needs more memory than "
                        "this process may use", path=path) from None
    except RecursionError:
        raise ReadError(f"{what}: too deeply nested (RecursionError)", path=path) from None
    except OSError as exc:  # an I/O error of the disk or the file system, not of memreport
        raise ReadError(f"{what}: cannot read: {exc.strerror or exc}", path=path) from None
    except Exception as exc:
        detail = " ".join(str(exc).split())
        detail = detail if len(detail) <= 200 else detail[:197] + "..."
        raise UnexpectedError(f"{what}: unexpected {type(exc).__name__} while reading ({detail}); this is a "
                              "memreport bug: please report it with the file", path=path) from exc
