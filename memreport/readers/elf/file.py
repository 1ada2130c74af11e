"""Tile ELF files: a lean section-header scan for the bulk pass (docs/FORMATS.md §5).

pyelftools is the reference reader (the tests compare every section of
every member with it), but it costs tens of seconds over 94,208 tiles, so
the bulk scan reads only the ELF header, the section table and the
section-name table, straight from the mapped archive.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import ReadError, Truncated
from ...model import MemoryReport
from ..registry import Reader, ReadOptions, register
from .fileview import FileView
from .format import ELF_MAGIC, LAYOUTS, MAX_SECTION_BYTES, SHF_ALLOC, SHN_XINDEX, SHT_NOBITS, SHT_NULL
from .sections import SectionNames, SectionRows, sections_report


@dataclass(frozen=True)
class TileSections:
    """One tile ELF: machine, flags and its sections as (name, type, flags, size)."""

    machine: int
    e_flags: int
    sections: tuple[tuple[str, int, int, int], ...]

    @property
    def allocated_bytes(self) -> int:
        """Tile memory excluding gaps: the SHF_ALLOC sections, NOBITS included."""
        return sum(size for _, _, flags, size in self.sections if flags & SHF_ALLOC)


def scan_elf(buf: bytes | FileView, base: int, length: int, *, member: str | None = None,
             names_cache: dict | None = None, quote: bool = True) -> TileSections:
    """Parse the section table of the ELF file at ``buf[base:base+length]``.

    ``quote=False`` keeps the first bytes of a file that is not an ELF out
    of the error (a thin archive may name any file).
    """

    def fail(message: str, at: int, cls: type[ReadError] = ReadError) -> ReadError:
        return cls(message, member=member, offset=base + at)

    ident = buf[base:base + 16] if length >= 16 else buf[base:base + length]
    if ident[:4] != ELF_MAGIC:
        raise fail(f"not an ELF file (starts with {bytes(ident[:8])!r})" if quote else "not an ELF file", 0)
    if len(ident) < 16:
        raise fail("ELF header cut short", len(ident), Truncated)
    cls, order_byte = ident[4], ident[5]
    if cls not in (1, 2) or order_byte not in (1, 2):
        raise fail(f"bad ELF class {cls} or byte order {order_byte}", 4)
    layout = LAYOUTS[cls, order_byte]
    ehdr, shdr = layout.ehdr, layout.shdr
    if length < 16 + ehdr.size:
        raise fail("ELF header cut short", length, Truncated)
    (_, machine, _, _, _, shoff, e_flags, _, _, _, shentsize, shnum,
     shstrndx) = ehdr.unpack(buf[base + 16:base + 16 + ehdr.size])
    if shoff == 0:
        return TileSections(machine, e_flags, ())
    if shentsize != shdr.size:
        raise fail(f"section header size {shentsize}, expected {shdr.size}", 16 + ehdr.size - 6)
    if shoff + shdr.size > length:
        raise fail(f"section header table at {shoff} lies past the end of the file ({length} bytes)",
                           length, Truncated)
    if shnum == 0 or shstrndx == SHN_XINDEX:  # extended numbering lives in section 0
        first = shdr.unpack(buf[base + shoff:base + shoff + shdr.size])
        shnum = shnum or first[5]
        shstrndx = first[6] if shstrndx == SHN_XINDEX else shstrndx
        if shnum == 0:  # section 0 says there is no other section
            return TileSections(machine, e_flags, ())
    if shoff + shnum * shdr.size > length:
        raise fail(f"section header table ({shnum} entries at {shoff}) runs past the end of the file "
                           f"({length} bytes)", length, Truncated)
    table = buf[base + shoff:base + shoff + shnum * shdr.size]
    headers = list(shdr.iter_unpack(table))
    if shnum and not 0 < shstrndx < shnum:
        raise fail(f"section-name table index {shstrndx} outside 1..{shnum - 1}", 16 + ehdr.size - 2)
    _, str_type, _, _, str_off, str_size = headers[shstrndx][:6]
    if str_type == SHT_NOBITS:  # no bytes in the file: reading at its offset would read whatever lies there
        raise fail(f"section-name table (section {shstrndx}) is NOBITS: it holds no names",
                   shoff + shstrndx * shdr.size)
    if str_off + str_size > length:
        raise fail(f"section-name table ({str_size:,} bytes at {str_off:,}) runs past the end of the file "
                   f"({length:,} bytes)", length, Truncated)
    strtab = bytes(buf[base + str_off:base + str_off + str_size])
    names = names_cache.get(strtab) if names_cache is not None else None
    if names is None:
        names = {}
        if names_cache is not None:
            names_cache[strtab] = names
    sections = []
    for index, header in enumerate(headers[1:], 1):
        name_off, sh_type, sh_flags, _, offset, size = header[:6]
        if sh_type == SHT_NULL:
            continue
        name = names.get(name_off)
        if name is None:
            if name_off >= len(strtab):
                raise fail(f"section {index} name offset {name_off} outside the section-name table",
                                   shoff + index * shdr.size)
            end = strtab.find(b"\0", name_off)
            name = strtab[name_off:end if end >= 0 else len(strtab)].decode("utf-8", "replace")
            names[name_off] = name
        if sh_type != SHT_NOBITS and offset + size > length:
            raise fail(f"section {name!r} ({size} bytes at {offset}) runs past the end of the file "
                               f"({length} bytes)", length, Truncated)
        if size >= MAX_SECTION_BYTES:  # only NOBITS can get here: it takes no file space
            raise fail(f"section {name!r} declares {size:,} bytes: no memory is that large",
                       shoff + index * shdr.size)
        sections.append((name, sh_type, sh_flags, size))
    return TileSections(machine, e_flags, tuple(sections))


def tiles_report(source: str, fmt: str, names: Sequence[str], tiles: Sequence[TileSections]) -> MemoryReport:
    """The per-tile model from every tile's sections: one column per section name."""
    table = SectionNames()
    rows = SectionRows.from_sections(0, tiles, table)
    machine = np.array([t.machine for t in tiles], dtype=np.int64)
    e_flags = np.array([t.e_flags for t in tiles], dtype=np.int64)
    return sections_report(source, fmt, names, machine, e_flags, rows, table.names)


def read_elf(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """A bare ELF file: a one-tile report."""
    with open(path, "rb") as f:  # read only as far as the section table needs: code may be megabytes
        view = FileView(f.fileno())
        tile = scan_elf(view, 0, len(view))
    name = os.path.basename(path)
    return [tiles_report(path, "elf", [name], [tile])]


register(Reader("elf", "ELF file", lambda prefix: prefix.startswith(ELF_MAGIC), read_elf, (".elf", ".o")))
__all__ = ["TileSections", "scan_elf", "tiles_report"]
