"""The ``ar`` container written by ``target.saveArchive`` (FORMATS.md §5).

GNU and BSD member names, the ``/`` (and ``/SYM64/``, ``__.SYMDEF``)
symbol index, the ``//`` long-name table, odd-size padding, and thin
archives whose members live beside the archive. A tile's id is its member's
position, not counting the index and the name table.
"""
from __future__ import annotations

import mmap
import os
from typing import Iterator

from ..errors import ReadError, Truncated
from . import ReadOptions, Reader, register
from .elf import TileSections, scan_elf, tiles_report

AR_MAGIC = b"!<arch>\n"
THIN_MAGIC = b"!<thin>\n"
HEADER_SIZE = 60
_SYMBOL_INDEXES = {"/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED", "__.SYMDEF_64", "__.SYMDEF_64 SORTED"}


class Member:
    """Where one member's data lies (``data_offset`` is None for a thin archive's member)."""

    __slots__ = ("name", "header_offset", "data_offset", "size")

    def __init__(self, name: str, header_offset: int, data_offset: int | None, size: int) -> None:
        self.name, self.header_offset, self.data_offset, self.size = name, header_offset, data_offset, size


def _number(field: bytes, what: str, at: int) -> int:
    text = field.strip()
    if not text.isdigit():
        raise ReadError(f"ar member header: {what} {field.decode('latin-1').strip()!r} is not a number",
                        offset=at)
    return int(text)


def iter_members(buf: bytes | mmap.mmap) -> Iterator[Member]:
    """Every file member of the archive in ``buf``, skipping the symbol index and name table."""
    thin = buf[:8] == THIN_MAGIC
    size_total = len(buf)
    long_names = b""
    offset = 8
    while offset < size_total:
        if offset + HEADER_SIZE > size_total:
            if offset + 1 == size_total and buf[offset:offset + 1] == b"\n":
                break  # a stray final pad byte
            raise Truncated(f"ar member header cut short ({size_total - offset} of 60 bytes)", offset=offset)
        header = buf[offset:offset + HEADER_SIZE]
        if header[58:60] != b"`\n":
            raise ReadError(f"ar member header lacks its end marker (found {bytes(header[58:60])!r})",
                            offset=offset + 58)
        size = _number(header[48:58], "size", offset + 48)
        raw = bytes(header[:16]).rstrip(b" ")
        data = offset + HEADER_SIZE
        special = raw in (b"/", b"//", b"/SYM64/")
        stored = not thin or special  # a thin archive stores only its index and name table
        if stored and data + size > size_total:
            raise Truncated(f"ar member at {offset} declares {size} bytes but only {size_total - data} remain",
                            offset=offset + 48)
        name_len = 0
        if raw == b"//":
            long_names = bytes(buf[data:data + size])
        elif raw.startswith(b"#1/"):
            name_len = _number(raw[3:], "BSD name length", offset + 3)
            if name_len > size:
                raise ReadError(f"BSD member name of {name_len} bytes exceeds the member's {size}", offset=offset)
            name = bytes(buf[data:data + name_len]).rstrip(b"\0").decode("utf-8", "replace")
        elif raw.startswith(b"/") and raw[1:].isdigit():
            start = int(raw[1:])
            end = long_names.find(b"\n", start)
            if start >= len(long_names) or end < 0:
                raise ReadError(f"long member name {raw.decode()} outside the name table", offset=offset)
            name = long_names[start:end].rstrip(b"/").decode("utf-8", "replace")
        elif raw.endswith(b"/") and raw != b"/":
            name = raw[:-1].decode("utf-8", "replace")
        else:
            name = raw.decode("utf-8", "replace")
        if raw != b"//" and not (name_len == 0 and raw.decode("latin-1") in _SYMBOL_INDEXES) \
                and not (name_len and name in _SYMBOL_INDEXES):
            yield Member(name, offset, data + name_len if stored else None, size - name_len)
        offset = data + (size if stored else 0)
        offset += offset % 2


def _read_thin_member(archive: str, member: Member) -> bytes:
    path = os.path.join(os.path.dirname(archive), member.name)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise ReadError(f"thin archive member {member.name!r} cannot be read: {exc.strerror}",
                        offset=member.header_offset) from None


def read_archive(path: str, prefix: bytes, options: ReadOptions) -> list:
    """Every tile ELF in an archive, as one report."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    try:
        names: list[str] = []
        tiles: list[TileSections] = []
        cache: dict = {}
        progress = options.progress
        for member in iter_members(buf):
            try:
                if member.data_offset is None:
                    data = _read_thin_member(path, member)
                    tile = scan_elf(data, 0, len(data), names_cache=cache)
                else:
                    tile = scan_elf(buf, member.data_offset, member.size, names_cache=cache)
            except ReadError as exc:
                if exc.offset is not None and member.data_offset is None:
                    exc.offset = None  # an offset into the thin member's own file would mislead
                raise exc.located(member=f"{member.name}", path=path) from None
            names.append(member.name)
            tiles.append(tile)
            if progress is not None and len(tiles) % 4096 == 0:
                progress(member.header_offset, size)
    finally:
        if isinstance(buf, mmap.mmap):
            buf.close()
    if not tiles:
        raise ReadError("archive holds no members (an empty archive is not a report)")
    if progress is not None:
        progress(size, size)
    fmt = "thin-archive" if prefix.startswith(THIN_MAGIC) else "archive"
    return [tiles_report(path, fmt, names, tiles, options)]


register(Reader("ar", "ar archive of tile ELF files",
                lambda prefix: prefix.startswith(AR_MAGIC) or prefix.startswith(THIN_MAGIC),
                read_archive, (".a",)))
