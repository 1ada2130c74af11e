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

import numpy as np

from ..errors import ReadError, Truncated
from ..model import MemoryReport
from . import ReadOptions, Reader, register
from .elf import TileSections, scan_elf
from .elf_bulk import SectionNames, SectionRows, scan_many, sections_report

AR_MAGIC = b"!<arch>\n"
THIN_MAGIC = b"!<thin>\n"
HEADER_SIZE = 60
BATCH_MEMBERS = 4096    # members scanned at once; progress is reported after each full batch
BATCH_BYTES = 32 << 20  # at most this much of the archive mapped in before its pages are released
_DONTNEED = getattr(mmap, "MADV_DONTNEED", None)
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


def iter_members(buf: bytes | mmap.mmap, start: int = 8, long_names: bytes = b"") -> Iterator[Member]:
    """Every file member of the archive in ``buf``, skipping the symbol index and name table.

    ``start`` and ``long_names`` resume a walk at a member header, with the
    ``//`` name table read so far.
    """
    thin = buf[:8] == THIN_MAGIC
    size_total = len(buf)
    offset = start
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


def _walk(buf: mmap.mmap, offset: int, long_names: bytes, max_members: int, max_bytes: int) -> tuple:
    """The members from ``offset`` on, as :func:`iter_members` finds them, in plain lists (the fast path).

    Stops after ``max_members`` members or ``max_bytes`` bytes, and at the
    first header :func:`iter_members` would reject or that this walk does not
    handle, leaving it to ``iter_members`` (which raises the same errors).
    Returns (names, header offsets, data offsets, sizes, next offset,
    long_names, stopped early).
    """
    end = len(buf)
    limit = offset + max_bytes
    names: list[str] = []
    headers: list[int] = []
    starts: list[int] = []
    sizes: list[int] = []
    while offset < end and len(names) < max_members and offset < limit:
        header = buf[offset:offset + HEADER_SIZE]
        if len(header) < HEADER_SIZE or header[58:60] != b"`\n":
            break
        field = header[48:58].strip()
        if not field.isdigit():
            break
        size = int(field)
        data = offset + HEADER_SIZE
        if data + size > end:
            break
        raw = header[:16].rstrip(b" ")
        name_len = 0
        if raw == b"//":
            long_names = buf[data:data + size]
            name = None
        elif raw[:1] == b"/":
            if raw == b"/" or raw == b"/SYM64/":
                name = None
            elif raw[1:].isdigit():
                start = int(raw[1:])
                stop = long_names.find(b"\n", start)
                if start >= len(long_names) or stop < 0:
                    break
                name = long_names[start:stop].rstrip(b"/").decode("utf-8", "replace")
            else:
                break
        elif raw[:3] == b"#1/":
            if not raw[3:].strip().isdigit():
                break
            name_len = int(raw[3:])
            if not 0 < name_len <= size:
                break
            name = buf[data:data + name_len].rstrip(b"\0").decode("utf-8", "replace")
            if name in _SYMBOL_INDEXES:
                name = None
        elif raw[-1:] == b"/":
            name = raw[:-1].decode("utf-8", "replace")
        else:
            name = raw.decode("utf-8", "replace")
            if raw.decode("latin-1") in _SYMBOL_INDEXES:
                name = None
        if name is not None:
            names.append(name)
            headers.append(offset)
            starts.append(data + name_len)
            sizes.append(size - name_len)
        offset = data + size
        offset += offset % 2
    stopped = offset < end and len(names) < max_members and offset < limit
    return names, headers, starts, sizes, offset, long_names, stopped


def _release(buf: mmap.mmap, start: int, stop: int) -> None:
    """Unmap pages already read so the mapped archive never counts whole towards memory use."""
    if _DONTNEED is None:
        return
    start -= start % mmap.PAGESIZE
    if stop > start:
        try:
            buf.madvise(_DONTNEED, start, stop - start)
        except (OSError, ValueError):  # a platform without it: only memory use suffers
            pass


class _Tiles:
    """Tiles gathered so far: member names, ELF header fields and section rows."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.names: list[str] = []
        self.table = SectionNames()
        self.rows: list[SectionRows] = []
        self.machine: list[np.ndarray] = []
        self.e_flags: list[np.ndarray] = []
        self.cache: dict = {}

    def add_batch(self, buf, data, names, starts, sizes) -> None:
        """Scan a batch with the vectorised scan; members it leaves go to scan_elf, in order."""
        first = len(self.names)
        bases = np.array(starts, dtype=np.int64)
        lengths = np.array(sizes, dtype=np.int64)
        batch = scan_many(buf, data, bases, lengths, self.table)
        batch.rows.tile += first
        self.rows.append(batch.rows)
        for i in np.flatnonzero(~batch.ok).tolist():
            try:
                tile = scan_elf(buf, starts[i], sizes[i], names_cache=self.cache)
            except ReadError as exc:
                raise exc.located(member=names[i], path=self.path) from None
            self.rows.append(SectionRows.from_sections(first + i, [tile], self.table))
            batch.machine[i], batch.e_flags[i] = tile.machine, tile.e_flags
        self.machine.append(batch.machine)
        self.e_flags.append(batch.e_flags)
        self.names.extend(names)

    def add(self, name: str, tile: TileSections) -> None:
        self.rows.append(SectionRows.from_sections(len(self.names), [tile], self.table))
        self.machine.append(np.array([tile.machine], dtype=np.int64))
        self.e_flags.append(np.array([tile.e_flags], dtype=np.int64))
        self.names.append(name)

    def report(self, fmt: str, options: ReadOptions) -> MemoryReport:
        machine = np.concatenate(self.machine) if self.machine else np.zeros(0, dtype=np.int64)
        e_flags = np.concatenate(self.e_flags) if self.e_flags else np.zeros(0, dtype=np.int64)
        return sections_report(self.path, fmt, self.names, machine, e_flags, SectionRows.concat(self.rows),
                               self.table.names, options)


def read_archive(path: str, prefix: bytes, options: ReadOptions) -> list:
    """Every tile ELF in an archive, as one report."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    tiles = _Tiles(path)
    progress = options.progress
    data = None
    try:
        offset, long_names = 8, b""
        if isinstance(buf, mmap.mmap) and not prefix.startswith(THIN_MAGIC):
            # The fast path: batches of members, each scanned at once, its pages released after.
            data = np.frombuffer(buf, dtype=np.uint8)
            while offset < size:
                room = BATCH_MEMBERS - len(tiles.names) % BATCH_MEMBERS
                names, headers, starts, sizes, next_offset, long_names, stopped = _walk(
                    buf, offset, long_names, room, BATCH_BYTES)
                if names:
                    tiles.add_batch(buf, data, names, starts, sizes)
                    if progress is not None and len(tiles.names) % BATCH_MEMBERS == 0:
                        progress(headers[-1], size)
                _release(buf, offset, next_offset)
                offset = next_offset
                if stopped:
                    break
            del data
        # The reference path: thin archives, and whatever the fast walk left (it raises the errors).
        released = offset
        for member in iter_members(buf, offset, long_names):
            try:
                if member.data_offset is None:
                    blob = _read_thin_member(path, member)
                    tile = scan_elf(blob, 0, len(blob), names_cache=tiles.cache)
                else:
                    tile = scan_elf(buf, member.data_offset, member.size, names_cache=tiles.cache)
            except ReadError as exc:
                if exc.offset is not None and member.data_offset is None:
                    exc.offset = None  # an offset into the thin member's own file would mislead
                raise exc.located(member=f"{member.name}", path=path) from None
            tiles.add(member.name, tile)
            if len(tiles.names) % BATCH_MEMBERS == 0:
                if progress is not None:
                    progress(member.header_offset, size)
                if isinstance(buf, mmap.mmap):
                    _release(buf, released, member.header_offset)
                    released = member.header_offset
    finally:
        data = None
        if isinstance(buf, mmap.mmap):
            try:
                buf.close()
            except BufferError:  # a view still held by a traceback: the mapping goes with it
                pass
    if not tiles.names:
        raise ReadError("archive holds no members (an empty archive is not a report)")
    if progress is not None:
        progress(size, size)
    fmt = "thin-archive" if prefix.startswith(THIN_MAGIC) else "archive"
    return [tiles.report(fmt, options)]


register(Reader("ar", "ar archive of tile ELF files",
                lambda prefix: prefix.startswith(AR_MAGIC) or prefix.startswith(THIN_MAGIC),
                read_archive, (".a",)))
