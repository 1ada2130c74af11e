"""The lean ELF section scan against pyelftools, on every layout the writer makes."""
from __future__ import annotations

import numpy as np
import pytest

import memreport
from memreport.errors import ReadError, Truncated
from memreport.readers.elf.file import scan_elf
from tests.conftest import pyelftools_sections
from tests.synth.archive import SHF_ALLOC, bss, data, elf_file, nobits_name_table, note, text

SECTIONS = [text(1000), data(24), bss(4096), note(7), data(3, ".rodata")]


@pytest.mark.parametrize("elfclass", [32, 64])
@pytest.mark.parametrize("little", [True, False])
def test_scan_agrees_with_pyelftools(elfclass, little):
    blob = elf_file(SECTIONS, elfclass=elfclass, little=little, e_flags=0x21)
    scanned = scan_elf(blob, 0, len(blob))
    assert [(n, s, f) for n, _, f, s in scanned.sections] == pyelftools_sections(blob)
    assert scanned.machine == 248 and scanned.e_flags == 0x21
    assert scanned.allocated_bytes == 1000 + 24 + 4096 + 3


@pytest.mark.parametrize("elfclass,little", [(32, True), (64, False)])
def test_bare_elf_is_a_one_tile_report(tmp_path, elfclass, little):
    path = tmp_path / "tile.elf"
    path.write_bytes(elf_file(SECTIONS, elfclass=elfclass, little=little, e_flags=0x1))
    report = memreport.read(path)
    assert report.format == "elf"
    assert report.target.arch == "ipu1"
    assert report.target.bytes_per_tile == 262_144
    assert report.excluding_gaps.tolist() == [5123]
    assert report.including_gaps is None
    assert report.tile_names == ["tile.elf"]
    assert report.breakdown[".bss"].values.tolist() == [4096]
    assert report.breakdown[".comment"].counted is False
    assert report.breakdown[".text"].counted is True


def test_non_ipu_elf_has_unknown_tile_memory(tmp_path):
    path = tmp_path / "host.o"
    path.write_bytes(elf_file([text(10)], elfclass=64, machine=62, e_flags=0))
    report = memreport.read(path)
    assert report.target.arch is None and report.target.bytes_per_tile is None
    assert report.tiles_out_of_memory is None
    override = memreport.read(path, tile_memory="8")
    assert override.target.bytes_per_tile == 8
    assert override.tiles_out_of_memory == 1
    as_ipu1 = memreport.read(path, arch="ipu1")
    assert as_ipu1.target.bytes_per_tile == 262_144 and as_ipu1.target.tiles_per_ipu == 1216


def test_duplicate_section_names_are_summed():
    blob = elf_file([text(10), text(32), note(5)])
    sections = scan_elf(blob, 0, len(blob)).sections
    assert [s[0] for s in sections] == [".text", ".text", ".comment", ".shstrtab"]
    assert scan_elf(blob, 0, len(blob)).allocated_bytes == 42


def test_nobits_counts_without_file_space():
    small = elf_file([bss(10_000_000)])
    assert len(small) < 400
    assert scan_elf(small, 0, len(small)).allocated_bytes == 10_000_000


def test_section_flags_decide_what_counts():
    blob = elf_file([text(100), note(50, ".debug_info"), note(9, ".rela.text")])
    scanned = scan_elf(blob, 0, len(blob))
    assert scanned.allocated_bytes == 100
    assert all(not (f & SHF_ALLOC) for n, _, f, _ in scanned.sections if n != ".text")


def test_not_elf_names_offset():
    with pytest.raises(ReadError, match=r"not an ELF file \(starts with b'hello wo'\) \(at byte offset 7\)"):
        scan_elf(b"xxxxxxxhello world", 7, 11)


def test_truncated_section_table():
    blob = elf_file([text(100)])
    with pytest.raises(Truncated, match="section header table .* runs past the end"):
        scan_elf(blob, 0, len(blob) - 1)


def test_truncated_section_data():
    blob = elf_file([text(100)])
    # The section table is at the end; cut the code out from under it by lying about the size.
    import struct
    patched = bytearray(blob)
    shoff = struct.unpack_from("<I", blob, 32)[0]
    struct.pack_into("<I", patched, shoff + 40 + 20, 10_000)  # .text sh_size
    with pytest.raises(Truncated, match=r"section '.text' \(10000 bytes at 52\) runs past the end"):
        scan_elf(bytes(patched), 0, len(patched))


def test_bad_section_name_index():
    import struct
    blob = bytearray(elf_file([text(4)]))
    struct.pack_into("<H", blob, 50, 77)  # e_shstrndx
    with pytest.raises(ReadError, match="section-name table index 77 outside 1..2"):
        scan_elf(bytes(blob), 0, len(blob))


def test_elf_without_sections_is_an_empty_tile():
    import struct
    blob = bytearray(elf_file([text(4)]))
    struct.pack_into("<I", blob, 32, 0)  # e_shoff = 0
    assert scan_elf(bytes(blob), 0, len(blob)).sections == ()


def test_columns_are_int64():
    blob = elf_file(SECTIONS)
    from memreport.readers.elf.file import tiles_report
    report = tiles_report("x", "elf", ["a", "b"], [scan_elf(blob, 0, len(blob))] * 2)
    assert report.excluding_gaps.dtype == np.int64
    assert all(c.values.dtype == np.int64 for c in report.breakdown.values())


def test_a_nobits_section_name_table_is_refused():
    """NOBITS has no bytes in the file: its offset must not be read as names (whatever lies there)."""
    blob = nobits_name_table(elf_file([text(4), data(8)]))
    with pytest.raises(ReadError, match=r"^section-name table \(section 3\) is NOBITS: it holds no names "
                                        r"\(at byte offset 212\)$"):
        scan_elf(blob, 0, len(blob))


def test_a_section_name_table_past_the_member_is_refused_with_its_extent():
    import struct
    blob = bytearray(elf_file([text(4)]))
    shoff, = struct.unpack_from("<I", blob, 32)
    struct.pack_into("<I", blob, shoff + 40 * 2 + 20, 5000)  # .shstrtab sh_size
    with pytest.raises(Truncated, match=r"section-name table \(5,000 bytes at 56\) runs past the end of the file "
                                        r"\(\d+ bytes\)"):
        scan_elf(bytes(blob), 0, len(blob))


@pytest.mark.parametrize("elfclass,little", [(32, True), (32, False), (64, True), (64, False)])
def test_one_layout_declaration_reads_alike_as_struct_and_numpy(elfclass, little):
    """elf_format.py declares the headers once; the reference scan's structs and the bulk scan's records agree."""
    from memreport.readers.elf import bulk as elf_bulk
    from memreport.readers.elf import file as elf
    from memreport.readers.elf import format as elf_format
    blob = elf_file(SECTIONS, elfclass=elfclass, little=little, e_flags=0x21)
    layout = elf_format.LAYOUTS[1 if elfclass == 32 else 2, 1 if little else 2]
    header = np.frombuffer(blob, layout.ehdr_dtype, count=1)[0]
    assert layout.ehdr.unpack_from(blob, 16) == tuple(int(header[name]) for name, _ in elf_format.EHDR_FIELDS)
    shoff, shnum = int(header["shoff"]), int(header["shnum"])
    sections = np.frombuffer(blob, layout.shdr_dtype, count=shnum, offset=shoff)
    assert list(layout.shdr.iter_unpack(blob[shoff:shoff + shnum * layout.shdr.size])) == [
        tuple(int(s[name]) for name, _ in elf_format.SHDR_FIELDS) for s in sections]
    assert elf_bulk.LAYOUTS is elf.LAYOUTS is elf_format.LAYOUTS and not hasattr(elf, "ipu_arch")
