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
    give nothing before a whole block). b"" when they cannot be had; an uncompressed ``source`` as it is.

    It reads as :func:`open_stream` does: on into the next member, stream or
    frame (an empty first member: ``| gzip >> job.log.gz`` of a step that
    printed nothing), and what came out before a cut or damage is kept (a
    small gzip file with a bad CRC gives its text; the stream reader notes
    the damage)."""
    start = None if isinstance(source, bytes) else source.tell()
    first = source if isinstance(source, bytes) else source.read(max(size, 64))  # enough for every magic
    name = kind(first)
    if name is None:
        return first[:size]
    if start is not None:
        source.seek(start)  # type: ignore[union-attr]
    raw = io.BytesIO(first) if isinstance(source, bytes) else _Limited(source, HEAD_INPUT)
    out = bytearray()
    errors: tuple[type[BaseException], ...] = (EOFError, *stream_errors())
    try:
        stream = open_stream(cast(BinaryIO, raw), name)
        read = getattr(stream, "read1", stream.read)  # read() of a buffered stream loses its data at a cut
        while len(out) < size:
            piece = read(size - len(out))  # never more than asked: a 64 KiB piece can hold 64 MB
            if not piece:
                break
            out += piece
    except MissingDecoder:
        return b""
    except errors:
        pass
    return bytes(out[:size])


class _Limited(io.RawIOBase):
    """The first ``limit`` bytes of the open file ``source``, from where it stands, as a file of its own."""

    def __init__(self, source: BinaryIO, limit: int) -> None:
        super().__init__()
        self._source, self._left = source, limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._source.read(min(len(buffer), self._left))
        buffer[:len(data)] = data
        self._left -= len(data)
        return len(data)


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
