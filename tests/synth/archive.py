"""A small ELF and ``ar`` writer: test fixtures, the bundled sample and benchmark inputs.

It writes what docs/FORMATS.md §5 describes (32/64-bit, either byte order, GNU or
BSD member names, with or without the ``/`` symbol index) so tests can build
every layout the readers must handle, and compare with ``size -A``.
"""
from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

EM_GRAPHCORE_IPU = 248
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOBITS = 1, 2, 3, 8
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 0x1, 0x2, 0x4


@dataclass(frozen=True)
class Section:
    """One section to write; NOBITS sections take no file space."""

    name: str
    size: int
    type: int = SHT_PROGBITS
    flags: int = SHF_ALLOC
    fill: bytes = b"\0"


def text(size: int) -> Section:
    return Section(".text", size, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, b"\x90")


def data(size: int, name: str = ".data") -> Section:
    return Section(name, size, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, b"\x01")


def bss(size: int, name: str = ".bss") -> Section:
    return Section(name, size, SHT_NOBITS, SHF_ALLOC | SHF_WRITE)


def note(size: int, name: str = ".comment") -> Section:
    """A section that occupies no tile memory (no SHF_ALLOC)."""
    return Section(name, size, SHT_PROGBITS, 0, b"c")


def elf_file(sections: Sequence[Section], *, elfclass: int = 32, little: bool = True,
             machine: int = EM_GRAPHCORE_IPU, e_flags: int = 0x2, e_type: int = 2) -> bytes:
    """An ELF file holding ``sections`` plus ``.shstrtab``; section headers at the end."""
    end = "<" if little else ">"
    is64 = elfclass == 64
    ehsize, shentsize = (64, 64) if is64 else (52, 40)
    names = b"\0"
    name_offsets = []
    for sec in list(sections) + [Section(".shstrtab", 0, SHT_STRTAB, 0)]:
        name_offsets.append(len(names))
        names += sec.name.encode() + b"\0"
    body = bytearray()
    headers = [(0, 0, 0, 0, 0, 0)]  # name, type, flags, offset, size, align
    for sec, name_off in zip(sections, name_offsets):
        offset = ehsize + len(body)
        if sec.type != SHT_NOBITS:
            body += (sec.fill * (sec.size // len(sec.fill) + 1))[:sec.size]
            while len(body) % 4:
                body += b"\0"
        headers.append((name_off, sec.type, sec.flags, offset, sec.size, 4))
    headers.append((name_offsets[-1], SHT_STRTAB, 0, ehsize + len(body), len(names), 1))
    body += names
    while len(body) % 8:
        body += b"\0"
    shoff = ehsize + len(body)
    shnum = len(headers)
    ident = b"\x7fELF" + bytes([2 if is64 else 1, 1 if little else 2, 1, 0]) + bytes(8)
    if is64:
        header = struct.pack(end + "HHIQQQIHHHHHH", e_type, machine, 1, 0, 0, shoff, e_flags,
                             ehsize, 0, 0, shentsize, shnum, shnum - 1)
        fmt = end + "IIQQQQIIQQ"
    else:
        header = struct.pack(end + "HHIIIIIHHHHHH", e_type, machine, 1, 0, 0, shoff, e_flags,
                             ehsize, 0, 0, shentsize, shnum, shnum - 1)
        fmt = end + "IIIIIIIIII"
    table = b"".join(struct.pack(fmt, n, t, f, 0, o, s, 0, 0, a, 0) for n, t, f, o, s, a in headers)
    return ident + header + bytes(body) + table


def _header(name: bytes, size: int, mode: bytes = b"100644") -> bytes:
    header = b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name, 0, 0, 0, mode, size)
    assert len(header) == 60, header
    return header


def ar_archive(members: Iterable[tuple[str, bytes]], *, bsd: bool = False,
               symbol_index: bool = False) -> bytes:
    """An ``ar`` archive of ``(name, data)`` members, odd-sized members padded with ``\\n``.

    GNU style writes ``name/`` for names of up to 15 characters and ``/N``
    into a ``//`` table for longer ones; BSD style writes ``#1/LEN`` with
    the name at the start of the data.
    """
    members = list(members)
    out = bytearray(b"!<arch>\n")

    def add(header: bytes, payload: bytes) -> None:
        out.extend(header)
        out.extend(payload)
        if len(out) % 2:
            out.extend(b"\n")

    if symbol_index:  # count, offsets, names: readers must skip it whatever it holds
        index = struct.pack(">I", len(members)) + bytes(4 * len(members))
        index += b"".join(b"tile_%d\0" % i for i in range(len(members)))
        add(_header(b"__.SYMDEF" if bsd else b"/", len(index), b"0"), index)
    if bsd:
        for name, payload in members:
            raw = name.encode()
            if len(raw) <= 16 and b" " not in raw and not raw.startswith(b"#1/"):
                add(_header(raw, len(payload)), payload)
            else:
                add(_header(b"#1/%d" % len(raw), len(raw) + len(payload)), raw + payload)
        return bytes(out)
    table = bytearray()
    headers = []
    for name, _ in members:
        raw = name.encode()
        if len(raw) <= 15:
            headers.append(raw + b"/")
        else:
            headers.append(b"/%d" % len(table))
            table.extend(raw + b"/\n")
    if table:
        add(_header(b"//", len(table), b""), bytes(table))
    for header_name, (_, payload) in zip(headers, members):
        add(_header(header_name, len(payload)), payload)
    return bytes(out)


def tile_elf(tile: int, text_bytes: int, data_bytes: int = 0, bss_bytes: int = 0, *,
             e_flags: int = 0x2) -> bytes:
    """A tile ELF shaped like Poplar's: ``.text`` plus optional ``.data``/``.bss`` and a note."""
    sections = [text(text_bytes)]
    if data_bytes:
        sections.append(data(data_bytes))
    if bss_bytes:
        sections.append(bss(bss_bytes))
    sections.append(note(16 + tile % 7))
    return elf_file(sections, e_flags=e_flags)


class ArchiveWriter:
    """Stream a GNU ``ar`` archive to a binary file one member at a time (for pod-scale inputs).

    Writes the same bytes as :func:`ar_archive` without holding the members
    in memory; names longer than 15 bytes must be given up front in
    ``long_names``, since their ``//`` table precedes every member.
    """

    def __init__(self, f, long_names: Iterable[str] = ()) -> None:
        self._f = f
        self._long: dict[str, int] = {}
        self._written = 8
        f.write(b"!<arch>\n")
        table = bytearray()
        for name in long_names:
            raw = name.encode()
            if len(raw) > 15 and name not in self._long:
                self._long[name] = len(table)
                table.extend(raw + b"/\n")
        if table:
            self._add(_header(b"//", len(table), b""), bytes(table))

    def _add(self, header: bytes, payload: bytes) -> None:
        self._f.write(header)
        self._f.write(payload)
        self._written += len(header) + len(payload)
        if self._written % 2:
            self._f.write(b"\n")
            self._written += 1

    def add(self, name: str, payload: bytes) -> None:
        """Append one member."""
        raw = name.encode()
        if len(raw) <= 15:
            header_name = raw + b"/"
        elif name in self._long:
            header_name = b"/%d" % self._long[name]
        else:
            raise ValueError(f"member name {name!r} is over 15 bytes and was not in long_names")
        self._add(_header(header_name, len(payload)), payload)
