"""The plain ELF symbol reader against pyelftools: where it answers, it answers as pyelftools does."""
from __future__ import annotations

import random
import struct

import pytest
from elftools.common.exceptions import ELFError

from memreport.readers.elf import symtab as elf_symbols
from memreport.readers.elf.symbols import tile_symbols
from memreport.readers.elf.symtab import plain_tables, reference_tables
from tests.conftest import needs_gcc
from tests.synth.archive import SHT_PROGBITS, Section, Sym, elf_file, text, tile_elf
from tests.synth.symbols import codelet_elf, compile_objects


def records(tables) -> tuple:
    return tables.linked, tables.sections, tables.table, tables.symtab, tables.symbols


def reference_or_error(data: bytes):
    try:
        return records(reference_tables(data))
    except (ELFError, ValueError, KeyError, IndexError, AssertionError, OverflowError, struct.error) as exc:
        return type(exc).__name__  # what tile_symbols turns into a note


SHAPES = [codelet_elf(), codelet_elf(e_type=1), codelet_elf(elfclass=64), codelet_elf(elfclass=32, little=False),
          codelet_elf(elfclass=64, little=False), tile_elf(3, 100, 20, 300)]


@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_the_usual_layouts_are_read_plainly_and_as_pyelftools_reads_them(shape):
    data = SHAPES[shape]
    plain = plain_tables(data)
    assert plain is not None
    assert records(plain) == records(reference_tables(data))


def test_a_poplar_tile_has_its_records_exactly():
    plain = plain_tables(codelet_elf())
    assert plain is not None and plain.linked and plain.symtab and plain.table == ".symtab"
    assert [s[1] for s in plain.sections] == [
        "", ".text.__runCodelet_poplin__ConvPartial1x1Out___half_half_true_false",
        ".text.__runCodelet_popops__ScaledAddSupervisor___float_float_float_true_false",
        ".text.castFloatToGf8Supervisor", ".text",
        ".data.__runCodelet_poplin__ConvPartial1x1Out___half_half_true_false_jump_table", ".bss", ".comment",
        ".symtab", ".strtab", ".shstrtab"]
    by_name = {s[0]: s for s in plain.symbols}
    assert by_name["relu_3/activations"] == ("relu_3/activations", "STT_OBJECT", "STB_GLOBAL", 6, 0x4C000 + 536 + 6_000,
                                             3_000)
    assert by_name["__poplar_version"][3] == "SHN_ABS" and by_name["scratch"][3] == "SHN_COMMON"


def _flip(data: bytes, rng: random.Random) -> bytes:
    """``data`` with a few bytes of its headers or symbol table changed (where damage changes the reading)."""
    blob = bytearray(data)
    is64 = blob[4] == 2
    shoff = struct.unpack_from("<Q" if is64 else "<I", blob, 0x28 if is64 else 0x20)[0] if blob[5] == 1 else \
        struct.unpack_from(">Q" if is64 else ">I", blob, 0x28 if is64 else 0x20)[0]
    for _ in range(rng.choice((1, 1, 2, 3))):
        where = rng.random()
        if where < 0.15:
            at = rng.randrange(0, 64 if is64 else 52)
        elif where < 0.75 and shoff < len(blob):
            at = rng.randrange(shoff, len(blob))
        else:
            at = rng.randrange(len(blob))
        blob[at] = rng.choice((0, 0xFF, 1, 2, 3, 8, 11, blob[at] ^ (1 << rng.randrange(8)), rng.randrange(256)))
    if rng.random() < 0.05:
        blob = blob[:rng.randrange(len(blob))]
    return bytes(blob)


def test_damaged_files_are_declined_or_read_as_pyelftools_reads_them():
    """2,000 damaged tiles: the plain reader declines (None) or gives exactly pyelftools' records."""
    rng = random.Random(20261123)
    changed = declined = 0
    for i in range(2_000):
        shape = SHAPES[i % len(SHAPES)]
        data = _flip(shape, rng)
        plain = plain_tables(data)
        if plain is None:
            declined += 1
            continue
        assert records(plain) == reference_or_error(data), i
        changed += records(plain) != records(reference_tables(shape))
    assert changed > 600 and declined > 200  # damage that changes the reading, read alike; and declined


def test_tile_symbols_is_the_same_with_or_without_the_plain_reader(monkeypatch):
    rng = random.Random(7)
    damaged = [_flip(SHAPES[i % len(SHAPES)], rng) for i in range(300)]
    fast = [tile_symbols(0, "t", data) for data in SHAPES + damaged]
    monkeypatch.setattr(elf_symbols, "plain_tables", lambda data: None)
    monkeypatch.setattr("memreport.readers.elf.symbols.plain_tables", lambda data: None)
    assert [tile_symbols(0, "t", data) for data in SHAPES + damaged] == fast


def _with_section(section_type: int, flags: int = 0, name: str = ".extra") -> bytes:
    return elf_file([text(16), Section(name, 8, section_type, flags)], symbols=[Sym("f", ".text", 0, 4, 2)])


@pytest.mark.parametrize("data, why", [
    (_with_section(6), "a .dynamic section (pyelftools reads its string table as it builds it)"),
    (_with_section(0x12), "an extended section index table"),
    (_with_section(0x6FFFFFF6), "a GNU hash table"),
    (_with_section(SHT_PROGBITS, 0x800), "a compressed section"),
    (_with_section(SHT_PROGBITS, name=".stab"), "a stabs section"),
    (b"\x7fELF\x03\x01" + bytes(60), "an unknown ELF class"),
    (codelet_elf()[:40], "a truncated ELF header"),
])
def test_unusual_layouts_are_left_to_pyelftools(data, why):
    assert plain_tables(data) is None, why


def test_an_ifunc_symbol_is_called_so():
    data = elf_file([text(32)], symbols=[Sym("resolver", ".text", 0, 8, 10)])  # STT_GNU_IFUNC
    plain = plain_tables(data)
    assert plain is not None and plain.symbols[-1][1] == "STT_LOOS"  # pyelftools' name for type 10
    assert [(s.name, s.kind) for s in tile_symbols(0, None, data).symbols] == [("resolver", "ifunc")]


def test_the_section_types_left_to_pyelftools_are_those_it_builds():
    from elftools.elf import enums
    built = {"SHT_SUNW_LDYNSYM", "SHT_SYMTAB_SHNDX", "SHT_SUNW_syminfo", "SHT_GNU_verneed", "SHT_GNU_verdef",
             "SHT_GNU_versym", "SHT_DYNAMIC", "SHT_ARM_ATTRIBUTES", "SHT_RISCV_ATTRIBUTES", "SHT_HASH",
             "SHT_GNU_HASH", "SHT_RELR"}
    values = {value for name in dir(enums) if name.startswith("ENUM_SH_TYPE")
              for key, value in getattr(enums, name).items() if key in built}
    assert values == elf_symbols._BUILT_TYPES


@needs_gcc
def test_gcc_objects_are_read_as_pyelftools_reads_them(tmp_path):
    for name in compile_objects(tmp_path):
        data = (tmp_path / name).read_bytes()
        plain = plain_tables(data)
        assert plain is not None, name  # .rela, .note.gnu.property and groups are all plain
        assert records(plain) == records(reference_tables(data))
