"""A tile ELF's sections and symbol table as plain records, read two ways that agree.

:func:`plain_tables` reads the usual layout directly (``struct``, no
library): a section table where the header says, names from the section-name
table, one symbol table linked to a string table, nothing compressed and no
section of a kind that needs more than its header. Anything else, and any
damage at all, it declines (None), and :func:`reference_tables` reads the
file with pyelftools, the reference, whose errors :mod:`.symbols` turns into
a note. Where the plain reader answers, its records are those pyelftools
gives, field for field, names spelled as pyelftools spells them
(``tests/readers/elf/test_symtab.py`` checks it on every ELF the tests
make, damaged and not). The plain reader exists for speed: importing
pyelftools costs more than reading the five top tiles' tables.
"""
from __future__ import annotations

import io

from .format import (
    ET_DYN,
    ET_EXEC,
    LAYOUTS,
    SHF_COMPRESSED,
    SHN_XINDEX,
    SHT_DYNSYM,
    SHT_NULL,
    SHT_PROGBITS,
    SHT_REL,
    SHT_RELA,
    SHT_STRTAB,
    SHT_SYMTAB,
)

_FAR = 1 << 62  # a string table this far in is damage (pyelftools cannot even seek past 2**63)
# Section types pyelftools builds with more than their header, and may refuse as built (the hash and
# version tables, dynamic sections, the extended-index table, attributes, RELR, Solaris' tables): left to it.
_BUILT_TYPES = {5, 6, 0x12, 0x13, 0x6FFFFFF3, 0x6FFFFFF6, 0x6FFFFFFC, 0x6FFFFFFD, 0x6FFFFFFE, 0x6FFFFFFF, 0x70000003}
_REL_SIZES = {(1, SHT_REL): 8, (1, SHT_RELA): 12, (2, SHT_REL): 16, (2, SHT_RELA): 24}  # what pyelftools asserts
# Names as pyelftools' enums spell them (values they do not name stay numbers).
TYPE_NAMES = {0: "STT_NOTYPE", 1: "STT_OBJECT", 2: "STT_FUNC", 3: "STT_SECTION", 4: "STT_FILE", 5: "STT_COMMON",
              6: "STT_TLS", 7: "STT_NUM", 8: "STT_RELC", 9: "STT_SRELC", 10: "STT_LOOS", 12: "STT_HIOS",
              13: "STT_LOPROC", 15: "STT_HIPROC"}
BIND_NAMES = {0: "STB_LOCAL", 1: "STB_GLOBAL", 2: "STB_WEAK", 3: "STB_NUM", 10: "STB_LOOS", 12: "STB_HIOS",
              13: "STB_LOPROC", 15: "STB_HIPROC"}
SHNDX_NAMES = {0: "SHN_UNDEF", 0xFFF1: "SHN_ABS", 0xFFF2: "SHN_COMMON"}

Section = tuple  # (index, name, whether SHT_NULL, sh_flags, sh_size, sh_addr)
Sym = tuple      # (name, type, bind, shndx, value, size): type, bind and shndx as pyelftools names them


class ElfTables:
    """What :mod:`.symbols` needs of one ELF: its sections and its symbol table."""

    __slots__ = ("linked", "sections", "symbols", "symtab", "table")

    def __init__(self, linked: bool, sections: list[Section], table: str | None, symtab: bool,
                 symbols: list[Sym]) -> None:
        self.linked = linked        # an executable or shared object: symbol values are addresses
        self.sections = sections    # every section, in index order
        self.table = table          # the symbol table's section name (None: the ELF has none)
        self.symtab = symtab        # it is a .symtab (False: only dynamic symbols)
        self.symbols = symbols      # every entry of it, in order


def _string(data: bytes, at: int) -> str:
    """The C string at ``at`` as pyelftools reads it: to the next NUL anywhere in the file ('' if none)."""
    end = data.find(b"\0", at) if at < len(data) else -1
    return data[at:end].decode("utf-8", "replace") if end > at else ""


def plain_tables(data: bytes) -> ElfTables | None:
    """The sections and symbols of an ELF of the usual layout; None for anything else (then ask pyelftools)."""
    if len(data) < 16 or data[:4] != b"\x7fELF":
        return None
    elf_class, elf_data = data[4], data[5]
    layout = LAYOUTS.get((elf_class, elf_data))
    if layout is None or len(data) < 16 + layout.ehdr.size:
        return None
    (e_type, _machine, _version, _entry, _phoff, shoff, _flags, _ehsize, _phentsize, _phnum, shentsize, shnum,
     shstrndx) = layout.ehdr.unpack_from(data, 16)
    shdr = layout.shdr
    if (shoff == 0 or shnum == 0 or shentsize != shdr.size or shoff + shnum * shentsize > len(data)
            or not 0 < shstrndx < shnum or shstrndx == SHN_XINDEX):
        return None
    headers = list(shdr.iter_unpack(data[shoff:shoff + shnum * shentsize]))
    names_at = headers[shstrndx][4]  # sh_offset of the section-name table
    if names_at > _FAR:
        return None
    sections: list[Section] = []
    tables: list[int] = []
    for index, (name, sh_type, flags, addr, _offset, size, link, _info, _align, entsize) in enumerate(headers):
        spelled = _string(data, names_at + name)
        if sh_type in _BUILT_TYPES or flags & SHF_COMPRESSED or (sh_type == SHT_PROGBITS and spelled == ".stab"):
            return None
        if sh_type in (SHT_REL, SHT_RELA) and entsize != _REL_SIZES[elf_class, sh_type]:
            return None
        if sh_type in (SHT_SYMTAB, SHT_DYNSYM):  # pyelftools builds each with its string table, and checks both
            if not (0 <= link < shnum and headers[link][1] == SHT_STRTAB and entsize and size % entsize == 0):
                return None
            tables.append(index)
        sections.append((index, spelled, sh_type == SHT_NULL, flags, size, addr))
    linked = e_type in (ET_EXEC, ET_DYN)
    if not tables:
        return ElfTables(linked, sections, None, False, [])
    chosen = next((t for t in tables if headers[t][1] == SHT_SYMTAB), tables[0])
    _name, sh_type, _flags, _addr, offset, size, link, _info, _align, entsize = headers[chosen]
    sym = layout.sym
    if entsize != sym.size or offset + size > len(data):
        return None
    strings = headers[link][4]
    if strings > _FAR:
        return None
    symbols: list[Sym] = []
    add = symbols.append
    type_names, bind_names, shndx_names = TYPE_NAMES.get, BIND_NAMES.get, SHNDX_NAMES.get
    for fields in sym.iter_unpack(data[offset:offset + size]):
        if elf_class == 1:
            name, value, sym_size, info, _other, shndx = fields
        else:
            name, info, _other, shndx, value, sym_size = fields
        add((_string(data, strings + name), type_names(info & 0xF, info & 0xF), bind_names(info >> 4, info >> 4),
             shndx_names(shndx, shndx), value, sym_size))
    return ElfTables(linked, sections, sections[chosen][1], sh_type == SHT_SYMTAB, symbols)


def reference_tables(data: bytes) -> ElfTables:
    """The same records read by pyelftools (which raises on a damaged file)."""
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection
    elf = ELFFile(io.BytesIO(data))
    sections: list[Section] = []
    tables = []
    for index, section in enumerate(elf.iter_sections()):
        sections.append((index, section.name, section["sh_type"] == "SHT_NULL", int(section["sh_flags"]),
                         int(section["sh_size"]), int(section["sh_addr"])))
        if isinstance(section, SymbolTableSection):
            tables.append(section)
    linked = elf.header["e_type"] in ("ET_EXEC", "ET_DYN")
    table = next((t for t in tables if t["sh_type"] == "SHT_SYMTAB"), tables[0] if tables else None)
    if table is None:
        return ElfTables(linked, sections, None, False, [])
    symbols = [(s.name, s["st_info"]["type"], s["st_info"]["bind"], s["st_shndx"], int(s["st_value"]),
                int(s["st_size"])) for s in table.iter_symbols()]
    return ElfTables(linked, sections, table.name, table["sh_type"] == "SHT_SYMTAB", symbols)
