"""The ELF layouts memreport reads, declared once (the System V gABI; docs/FORMATS.md §5).

Both tile scans, the reference one (:mod:`.file`) and the bulk one
(:mod:`.bulk`), and the symbol-table reader (:mod:`.symtab`) take their
header and symbol layouts and constants from here.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

ELF_MAGIC = b"\x7fELF"
EM_GRAPHCORE_IPU = 248
SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_REL, SHT_DYNSYM = 0, 1, 2, 3, 4, 9, 11
SHT_NOBITS = 8
SHF_ALLOC, SHF_COMPRESSED = 0x2, 0x800
ET_EXEC, ET_DYN = 2, 3
SHN_XINDEX = 0xFFFF
MAX_SECTION_BYTES = 1 << 40  # a TiB: far past any memory, and tile sums of such stay inside int64

# The ELF header after e_ident and a section header, field by field (the System V gABI). "H" is a
# 16-bit half, "I" a 32-bit word, "W" a class-sized word (Addr, Off, sh_flags and the like: 32 bits in
# ELFCLASS32, 64 in ELFCLASS64).
EHDR_FIELDS = (("type", "H"), ("machine", "H"), ("version", "I"), ("entry", "W"), ("phoff", "W"),
               ("shoff", "W"), ("flags", "I"), ("ehsize", "H"), ("phentsize", "H"), ("phnum", "H"),
               ("shentsize", "H"), ("shnum", "H"), ("shstrndx", "H"))
SHDR_FIELDS = (("name", "I"), ("type", "I"), ("flags", "W"), ("addr", "W"), ("offset", "W"), ("size", "W"),
               ("link", "I"), ("info", "I"), ("addralign", "W"), ("entsize", "W"))
# A symbol table entry: the two classes order its fields differently ("B" is a byte).
SYM_FIELDS = {1: (("name", "I"), ("value", "W"), ("size", "W"), ("info", "B"), ("other", "B"), ("shndx", "H")),
              2: (("name", "I"), ("info", "B"), ("other", "B"), ("shndx", "H"), ("value", "W"), ("size", "W"))}


@dataclass(frozen=True)
class Layout:
    """One ELF class and byte order: the headers as structs (the reference scan) and numpy record types
    (the bulk scan), both made from :data:`EHDR_FIELDS` and :data:`SHDR_FIELDS`."""

    ehdr: struct.Struct     # the ELF header after e_ident
    shdr: struct.Struct     # a section header
    sym: struct.Struct      # a symbol table entry (fields as SYM_FIELDS orders them for the class)
    ehdr_dtype: np.dtype    # the whole ELF header, e_ident included
    shdr_dtype: np.dtype


def _layout(elf_class: int, elf_data: int) -> Layout:
    order = "<" if elf_data == 1 else ">"
    codes = {"B": "B", "H": "H", "I": "I", "W": "I" if elf_class == 1 else "Q"}
    numpy_codes = {"H": "u2", "I": "u4", "Q": "u8"}

    def struct_of(fields):
        return struct.Struct(order + "".join(codes[c] for _, c in fields))

    def dtype_of(fields, prefix=()):
        return np.dtype(list(prefix) + [(name, order + numpy_codes[codes[c]]) for name, c in fields])

    return Layout(struct_of(EHDR_FIELDS), struct_of(SHDR_FIELDS), struct_of(SYM_FIELDS[elf_class]),
                  dtype_of(EHDR_FIELDS, [("ident", "V16")]), dtype_of(SHDR_FIELDS))


# (EI_CLASS, EI_DATA) -> layout: ELFCLASS32/64 (1, 2) by ELFDATA2LSB/MSB (1, 2)
LAYOUTS = {(elf_class, elf_data): _layout(elf_class, elf_data) for elf_class in (1, 2) for elf_data in (1, 2)}
