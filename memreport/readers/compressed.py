"""Compressed inputs recognised by content: gzip, xz, bz2 (the standard library) and zstd (``zstandard``).

CI systems keep logs compressed (``run.log.gz``). Only the magic bytes
decide, never the file name. :func:`kind` names a prefix's compression,
:func:`head` decompresses the start of a file for sniffing (a few KiB, never
the file) and :func:`open_stream` opens the whole file as a stream of its
decompressed bytes: concatenated members or frames (a CI log appended to,
gzip's ``cat a.gz b.gz``) read as one text, as ``zcat`` reads them.
The text family streams such a log (:mod:`memreport.readers.text.logtext`);
other readers map or seek their input, so a compressed archive or profile is
named and refused (decompress it first).
"""
from __future__ import annotations

import bz2
import gzip
import importlib
import io
import lzma
import zlib
from collections.abc import Callable
from typing import BinaryIO, cast

GZIP, XZ, BZIP2, ZSTD = "gzip", "xz", "bz2", "zstd"
_MAGIC = ((GZIP, b"\x1f\x8b\x08"), (XZ, b"\xfd7zXZ\x00"), (ZSTD, b"\x28\xb5\x2f\xfd"))
_BZIP2_BLOCK = b"1AY&SY"  # after "BZh" and the block size digit: the first block's magic (an empty stream has none)
_BZIP2_EMPTY = b"\x17rE8P\x90"  # ... or the end-of-stream magic
TOOLS = {GZIP: "gunzip", XZ: "unxz", BZIP2: "bunzip2", ZSTD: "unzstd"}


def kind(prefix: bytes) -> str | None:
    """The compression of a file starting with ``prefix`` (None: not compressed, as far as we read)."""
    for name, magic in _MAGIC:
        if prefix.startswith(magic):
            return name
    if prefix[:3] == b"BZh" and prefix[3:4] in b"123456789" and prefix[3:4] and \
            prefix[4:10] in (_BZIP2_BLOCK, _BZIP2_EMPTY):
        return BZIP2
    return None


def zstandard():
    """The ``zstandard`` module, or None when it is not installed (``pip install memreport[zstd]``)."""
    try:
        return importlib.import_module("zstandard")
    except ImportError:
        return None


class MissingDecoder(Exception):
    """The file is compressed in a way this Python cannot decompress (zstd without ``zstandard``)."""


HEAD_INPUT = 4 << 20  # compressed bytes read at most to decompress a file's first few KiB (a bz2 block needs all)


def head(source: bytes | BinaryIO, size: int = 4096) -> bytes:
    """Up to ``size`` decompressed bytes of the start of a compressed file: ``source`` its first bytes, or the
    file open at its start (read on, up to :data:`HEAD_INPUT`, until ``size`` bytes come out: bz2 and zstd
    give nothing before a whole block). b"" when they cannot be had; an uncompressed ``source`` as it is."""
    first = source if isinstance(source, bytes) else source.read(max(size, 64))  # enough for every magic
    name = kind(first)
    if name is None:
        return first[:size]
    if name == ZSTD:
        return _zstd_head(io.BytesIO(b"") if isinstance(source, bytes) else source, first, size)
    decoder = _decoder(name)
    out, piece, taken = b"", first, len(first)
    try:
        while True:
            out += decoder(piece, size - len(out))  # never more than asked: a 64 KiB piece can hold 64 MB
            if len(out) >= size or isinstance(source, bytes) or taken >= HEAD_INPUT:
                break
            piece = source.read(64 << 10)
            taken += len(piece)
            if not piece:
                break
    except (zlib.error, lzma.LZMAError, OSError, EOFError, ValueError):
        pass
    return out[:size]


def _decoder(name: str) -> Callable[[bytes, int], bytes]:
    """A function decompressing successive pieces of a ``name`` stream, at most so many bytes out of each."""
    if name == GZIP:
        inflate = zlib.decompressobj(wbits=31)
        return lambda data, most: inflate.decompress(inflate.unconsumed_tail + data, most)
    return (lzma.LZMADecompressor() if name == XZ else bz2.BZ2Decompressor()).decompress


def _zstd_head(source: BinaryIO, first: bytes, size: int) -> bytes:
    module = zstandard()
    if module is None:
        return b""
    joined = io.BytesIO(first + source.read((1 << 20) - len(first)))  # a zstd block is at most 128 KiB
    try:
        return module.ZstdDecompressor().stream_reader(joined, read_across_frames=True).read(size)
    except Exception:  # zstandard.ZstdError (not importable when absent)  # noqa: BLE001
        return b""


def open_stream(raw: BinaryIO, name: str) -> BinaryIO:
    """The decompressed bytes of the open file ``raw`` (compressed as ``name``), a read() at a time.

    Members, streams and frames that follow each other are one text. Reading
    a cut stream raises :class:`EOFError`; corrupt data ``OSError``,
    ``zlib.error``, ``lzma.LZMAError`` or zstandard's error.
    """
    if name == GZIP:
        return cast(BinaryIO, gzip.GzipFile(fileobj=raw, mode="rb"))
    if name == XZ:
        return cast(BinaryIO, lzma.LZMAFile(raw, "rb"))
    if name == BZIP2:
        return cast(BinaryIO, bz2.BZ2File(raw, "rb"))
    if name == ZSTD:
        module = zstandard()
        if module is None:
            raise MissingDecoder("zstd-compressed: reading it needs the zstandard package "
                                 "(pip install 'memreport[zstd]'), or decompress it first (unzstd)")
        return cast(BinaryIO, module.ZstdDecompressor().stream_reader(raw, read_across_frames=True))
    raise ValueError(f"not a compression: {name!r}")


def stream_errors() -> tuple[type[BaseException], ...]:
    """What reading a damaged compressed stream raises (beyond :class:`EOFError`, a cut stream)."""
    errors: tuple[type[BaseException], ...] = (OSError, zlib.error, lzma.LZMAError, ValueError)
    module = zstandard()
    if module is not None:
        errors += (module.ZstdError,)
    return errors
