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
STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE = 0, 1, 2, 3, 4
STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2
SHN_UNDEF, SHN_ABS, SHN_COMMON = 0, 0xFFF1, 0xFFF2
IMAGE_BASE = 0x4C000  # where the writer lays out allocated sections when it writes symbols (made up: not public)


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


@dataclass(frozen=True)
class Sym:
    """One symbol to write: ``value`` is its offset in ``section`` (the writer adds the section's address).

    ``section`` names one of the file's sections; None writes ``shndx``
    instead (SHN_UNDEF, SHN_ABS, SHN_COMMON). Symbols are written in the
    order given, locals moved first as the ELF specification requires.
    """

    name: str
    section: str | None
    value: int = 0
    size: int = 0
    type: int = STT_OBJECT
    bind: int = STB_GLOBAL
    shndx: int = SHN_UNDEF


def section_symbols(sections: Sequence[Section], file_name: str | None = None) -> list[Sym]:
    """What assemblers and linkers write first: an STT_FILE symbol and an STT_SECTION symbol per allocated section."""
    syms = [Sym(file_name, None, type=STT_FILE, bind=STB_LOCAL, shndx=SHN_ABS)] if file_name else []
    return syms + [Sym("", s.name, type=STT_SECTION, bind=STB_LOCAL) for s in sections if s.flags & SHF_ALLOC]


def _symbol_table(syms: Sequence[Sym], index_of: dict[str, int], address_of: dict[str, int], end: str,
                  is64: bool) -> tuple[bytes, bytes, int]:
    """(.symtab bytes, .strtab bytes, index of the first non-local symbol)."""
    ordered = [s for s in syms if s.bind == STB_LOCAL] + [s for s in syms if s.bind != STB_LOCAL]
    strtab = bytearray(b"\0")
    entries = [bytes(24 if is64 else 16)]
    for s in ordered:
        name = 0
        if s.name:
            name = len(strtab)
            strtab += s.name.encode() + b"\0"
        shndx = s.shndx if s.section is None else index_of[s.section]
        value = s.value + (address_of.get(s.section, 0) if s.section is not None else 0)
        info = (s.bind << 4) | s.type
        if is64:
            entries.append(struct.pack(end + "IBBHQQ", name, info, 0, shndx, value, s.size))
        else:
            entries.append(struct.pack(end + "IIIBBH", name, value, s.size, info, 0, shndx))
    first_global = 1 + sum(1 for s in ordered if s.bind == STB_LOCAL)
    return b"".join(entries), bytes(strtab), first_global


def elf_file(sections: Sequence[Section], *, elfclass: int = 32, little: bool = True,
             machine: int = EM_GRAPHCORE_IPU, e_flags: int = 0x2, e_type: int = 2,
             symbols: Sequence[Sym] | None = None) -> bytes:
    """An ELF file holding ``sections`` plus ``.shstrtab``; section headers at the end.

    With ``symbols``, it also holds ``.symtab`` and ``.strtab`` (not
    allocated), and allocated sections get addresses from
    :data:`IMAGE_BASE` on, as a linker lays out an executable (``e_type`` 2);
    in a relocatable object (``e_type`` 1) symbol values stay offsets.
    """
    end = "<" if little else ">"
    is64 = elfclass == 64
    ehsize, shentsize = (64, 64) if is64 else (52, 40)
    sections = list(sections)
    address_of: dict[str, int] = {}
    symtab = strtab = b""
    first_global = 0
    if symbols is not None:
        index_of = {sec.name: i for i, sec in enumerate(sections, 1)}
        if e_type == 2:
            at = IMAGE_BASE
            for sec in sections:
                if sec.flags & SHF_ALLOC:
                    address_of[sec.name] = at
                    at += (sec.size + 7) // 8 * 8
        symtab, strtab, first_global = _symbol_table(symbols, index_of, address_of, end, is64)
        sections += [Section(".symtab", len(symtab), SHT_SYMTAB, 0), Section(".strtab", len(strtab), SHT_STRTAB, 0)]
    contents = {".symtab": symtab, ".strtab": strtab}
    names = b"\0"
    name_offsets = []
    for sec in list(sections) + [Section(".shstrtab", 0, SHT_STRTAB, 0)]:
        name_offsets.append(len(names))
        names += sec.name.encode() + b"\0"
    body = bytearray()
    headers = [(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]  # name, type, flags, offset, size, align, addr, link, info, entsize
    for index, (sec, name_off) in enumerate(zip(sections, name_offsets), 1):
        offset = ehsize + len(body)
        link = info = entsize = 0
        if symbols is not None and sec.name in contents and sec.type in (SHT_SYMTAB, SHT_STRTAB) \
                and index > len(sections) - 2:
            body += contents[sec.name]
            if sec.type == SHT_SYMTAB:
                link, info, entsize = index + 1, first_global, 24 if is64 else 16
        elif sec.type != SHT_NOBITS:
            body += (sec.fill * (sec.size // len(sec.fill) + 1))[:sec.size]
        while len(body) % 4:
            body += b"\0"
        headers.append((name_off, sec.type, sec.flags, offset, sec.size, 4, address_of.get(sec.name, 0), link, info,
                        entsize))
    headers.append((name_offsets[-1], SHT_STRTAB, 0, ehsize + len(body), len(names), 1, 0, 0, 0, 0))
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
    table = b"".join(struct.pack(fmt, n, t, f, ad, o, s, lk, inf, a, es)
                     for n, t, f, o, s, a, ad, lk, inf, es in headers)
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


SEQ_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # an Itanium substitution's sequence id is in base 36


def demangling_bomb(levels: int, function: str = "lets_get_exponential") -> str:
    """An Itanium-mangled name whose C++ name doubles at each level (issue #33 item 11): ``Pair`` of the level
    below twice, the second a substitution of the first (``S0_``, ``S1_``...), the form gimli-rs/cpp_demangle
    issue 53 shows. 20 levels: 161 bytes that demangle to 12 MB."""
    def seq(k: int) -> str:
        digits = ""
        while True:
            digits, k = SEQ_DIGITS[k % 36] + digits, k // 36
            if not k:
                return f"S{digits}_"
    return (f"_Z{len(function)}{function}P4PairI" + "S_I" * (levels - 1) + "iiE"
            + "".join(seq(k) + "E" for k in range(levels - 1)))


def cxx_archive(tiles: Sequence[Sequence[str]]) -> bytes:
    """An archive of a tile ELF per list of ``tiles``, each holding a sized ``.text`` symbol per name of its list
    (the first the largest) and a ``.bss`` variable: what the symbols of a report's tiles are read and demangled
    from."""
    members = []
    for tile, names in enumerate(tiles):
        sections = [text(100 * len(names) + 100 * tile), bss(1_000 * (tile + 1)), note(16)]
        syms = [Sym(name, ".text", 100 * k, 300 - 100 * k if k < 2 else 50, STT_FUNC) for k, name in enumerate(names)]
        syms.append(Sym("activations", ".bss", 0, 1_000 * (tile + 1), STT_OBJECT))
        members.append((f"tile_{tile}.elf", elf_file(sections, symbols=syms)))
    return ar_archive(members)


def bomb_archive(levels: int = 20, tiles: int = 4) -> bytes:
    """An archive of ``tiles`` tile ELFs whose largest symbol is a :func:`demangling_bomb` (5 KB at 20 levels): the
    symbols of the tiles a report details are demangled by default."""
    return cxx_archive([[demangling_bomb(levels, f"step{tile}"), "_ZN6popops9BroadcastIfE7computeEv"]
                        for tile in range(tiles)])


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


def nobits_name_table(blob: bytes) -> bytes:
    """``blob`` (32-bit, little-endian, from elf_file) with its section-name table's type set to NOBITS."""
    patched = bytearray(blob)
    shoff, = struct.unpack_from("<I", blob, 32)
    shstrndx, = struct.unpack_from("<H", blob, 50)
    struct.pack_into("<I", patched, shoff + 40 * shstrndx + 4, 8)  # sh_type = SHT_NOBITS
    return bytes(patched)
