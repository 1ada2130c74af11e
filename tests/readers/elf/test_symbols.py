"""Symbols on a tile: gcc-built objects against ``nm -S --size-sort`` and pyelftools; Poplar-shaped ELFs exactly."""
from __future__ import annotations

import io
import shutil
import subprocess
from dataclasses import replace

import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

import memreport
from memreport.errors import ReadError
from memreport.model import TileReport, TileSymbols
from memreport.readers.elf.symbols import has_symbols, read_symbols, tile_symbols, with_symbols
from tests.conftest import needs_gcc, needs_size
from tests.synth.archive import (
    SHF_ALLOC,
    SHT_PROGBITS,
    ar_archive,
    tile_elf,
)
from tests.synth.symbols import ADD, CONV, codelet_elf, codelet_expected, compile_objects

needs_nm = pytest.mark.skipif(shutil.which("nm") is None, reason="GNU nm is not installed")


def test_a_poplar_shaped_tile_elf_exactly():
    table = tile_symbols(0, "tile_0.elf", codelet_elf())
    assert table == codelet_expected()
    assert table.num_symbols == 8 and table.symbol_bytes == 15_478
    assert table.section_bytes == 10_532 and table.attributed_bytes == 9_474 and table.unattributed_bytes == 1_058
    assert table.unattributed == {f".text.{ADD}": 4, ".text.castFloatToGf8Supervisor": 4, ".text": 50, ".bss": 1_000}
    assert table.symbols[-2].display_name == "popops::Broadcast<float>::compute()"


@pytest.mark.parametrize("elfclass,little", [(32, False), (64, True), (64, False)])
def test_every_elf_class_and_byte_order_reads_the_same(elfclass, little):
    assert tile_symbols(0, "tile_0.elf", codelet_elf(elfclass=elfclass, little=little)) == codelet_expected()


def test_a_relocatable_object_counts_offsets_in_sections():
    """In an object file (ET_REL) symbol values are offsets in their sections, which all start at 0."""
    table = tile_symbols(0, None, codelet_elf(e_type=1))
    expected = codelet_expected(member=None)
    assert table.attributed == expected.attributed
    assert [(s.name, s.size, s.address) for s in table.symbols][:3] == [
        ("conv2d_7/weights", 6_000, 0), ("conv2d_7/weights_alias", 6_000, 0), ("relu_3/activations", 3_000, 6_000)]


def test_a_stripped_elf_is_said_so():
    table = tile_symbols(4, "t4", tile_elf(4, 100, 20, 300))
    assert table == TileSymbols(4, "t4", {".text": 100, ".data": 20, ".bss": 300}, {".text": 0, ".data": 0, ".bss": 0},
                                has_symbol_table=False,
                                notes=("the ELF has no symbol table (stripped): no byte is attributed to a symbol",))
    assert table.unattributed_bytes == 420


def test_a_damaged_symbol_table_is_a_note_not_an_error():
    blob = bytearray(codelet_elf())
    shoff = int.from_bytes(blob[32:36], "little")
    symtab = shoff + 40 * 8  # sections 1..7, then .symtab
    blob[symtab + 20:symtab + 24] = (10 ** 7).to_bytes(4, "little")  # its size: far past the end of the file
    table = tile_symbols(0, "t", bytes(blob))
    assert table.has_symbol_table is None and table.symbols == () and table.sections == {}
    assert len(table.notes) == 1 and table.notes[0].startswith("the symbol table cannot be read (")


def archive_with_symbols(tmp_path, name: str = "build.a"):
    members = [("tile_0.elf", codelet_elf()), ("t1", tile_elf(1, 64, 8, 1000))]
    path = tmp_path / name
    path.write_bytes(ar_archive(members, symbol_index=True))
    return path


def test_read_symbols_finds_each_member_again(tmp_path):
    report = memreport.read(archive_with_symbols(tmp_path))
    assert has_symbols(report)
    found = read_symbols(report, [1, 0, 1])
    assert list(found) == [0, 1]
    assert found[0] == codelet_expected()
    assert found[1].has_symbol_table is False and found[1].member == "t1"
    held = with_symbols(report, [0])
    assert held.symbols == {0: found[0]} and report.symbols == {}
    assert with_symbols(held, [0]) is held  # nothing more to read
    assert held.tile_symbols(0) is held.symbols[0] and report.tile_symbols(0) == found[0]


def test_a_changed_archive_is_refused(tmp_path):
    path = archive_with_symbols(tmp_path)
    report = memreport.read(path)
    path.write_bytes(ar_archive([("other.elf", codelet_elf()), ("t1", tile_elf(1, 64, 8, 1000))]))
    with pytest.raises(ReadError, match=r"tile 0 is member 'other\.elf', but the report read 'tile_0\.elf' there: "
                                        r"the file changed since it was read"):
        read_symbols(report, [0])
    path.write_bytes(ar_archive([("tile_0.elf", codelet_elf()), ("t1", tile_elf(1, 64, 8, 2000))]))
    with pytest.raises(ReadError, match=r"member 't1' now holds 2,072 B but the report read 1,072 B"):
        read_symbols(report, [1])
    path.write_bytes(ar_archive([("tile_0.elf", codelet_elf())]))
    with pytest.raises(ReadError, match="holds no tile 1 now"):
        read_symbols(report, [1])


def test_tiles_outside_the_report_and_reports_without_elves(tmp_path):
    report = memreport.read(archive_with_symbols(tmp_path))
    with pytest.raises(ReadError, match=r"no tile 2 \(tiles are 0\.\.1\)"):
        read_symbols(report, [2])
    profile = TileReport("p.json", "json-profile", report.target, excluding_gaps=report.excluding_gaps)
    assert not has_symbols(profile)
    with pytest.raises(ReadError, match="JSON graph profile: holds no ELF symbol tables"):
        read_symbols(profile, [0])


def test_a_skipped_member_has_a_note(tmp_path):
    path = tmp_path / "bad.a"
    path.write_bytes(ar_archive([("tile_0.elf", codelet_elf()), ("t1", b"not an ELF file")]))
    report = memreport.read(path, skip_bad_members=True)
    found = read_symbols(report, [0, 1])
    assert found[0] == codelet_expected()
    assert found[1].has_symbol_table is None
    assert found[1].notes[0].startswith("member skipped as damaged: not an ELF file")


def test_a_bare_elf_file_is_tile_0(tmp_path):
    path = tmp_path / "tile_0.elf"
    path.write_bytes(codelet_elf())
    report = memreport.read(path)
    assert read_symbols(report, [0]) == {0: codelet_expected()}


def nm_sizes(path) -> list[tuple[str, int]]:
    """(name, size) of every sized symbol ``nm -S --size-sort`` lists for one object."""
    out = subprocess.run(["nm", "-S", "--size-sort", str(path)], check=True, capture_output=True, text=True).stdout
    rows = (line.split() for line in out.splitlines())
    return [(fields[3], int(fields[1], 16)) for fields in rows if len(fields) == 4]


def pyelftools_sized(blob: bytes) -> list[tuple[str, int]]:
    """(name, size) of every sized symbol in an allocated section, as pyelftools reads the table."""
    elf = ELFFile(io.BytesIO(blob))
    allocated = {i for i, s in enumerate(elf.iter_sections()) if s["sh_flags"] & SHF_ALLOC}
    table = next(s for s in elf.iter_sections() if isinstance(s, SymbolTableSection))
    return [(s.name, s["st_size"]) for s in table.iter_symbols()
            if s["st_size"] and s["st_info"]["type"] not in ("STT_SECTION", "STT_FILE") and s["st_shndx"] in allocated]


@needs_gcc
@needs_nm
@pytest.mark.parametrize("thin", [False, True])
def test_gcc_objects_match_nm_and_pyelftools(tmp_path, thin):
    objects = compile_objects(tmp_path)
    subprocess.run(["ar", "rcsT" if thin else "rcs", "lib.a", *objects], cwd=tmp_path, check=True)
    report = memreport.read(tmp_path / "lib.a")
    found = read_symbols(report, [0, 1])
    for tile, obj in enumerate(objects):
        table = found[tile]
        ours = sorted((s.name, s.size) for s in table.symbols)
        assert ours == sorted(nm_sizes(tmp_path / obj)) == sorted(pyelftools_sized((tmp_path / obj).read_bytes()))
        assert [s.size for s in table.symbols] == sorted((s.size for s in table.symbols), reverse=True)
        assert table.section_bytes == int(report.excluding_gaps[tile])
    weights = next(s for s in found[0].symbols if s.name == "weights")
    assert (weights.section, weights.size, weights.kind, weights.binding) == (".data", 4000, "object", "global")
    unique = next(s for s in found[0].symbols if s.name == "_ZN6poplin12OuterProductIfE3bufE")
    assert (unique.binding, unique.demangled, unique.size) == ("unique", "poplin::OuterProduct<float>::buf", 1200)
    activations = next(s for s in found[1].symbols if s.name == "activations")
    assert (activations.section, activations.size) == (".bss", 68)
    # Every byte of .bss and .data of b.o is some variable's: nothing unattributed there.
    assert found[1].unattributed.get(".bss", 0) == 0


@needs_gcc
@needs_nm
def test_demangled_names_match_nm_demangle(tmp_path):
    objects = compile_objects(tmp_path)
    subprocess.run(["ar", "rcs", "lib.a", *objects], cwd=tmp_path, check=True)
    table = read_symbols(memreport.read(tmp_path / "lib.a"), [0])[0]
    out = subprocess.run(["nm", "-S", "--size-sort", "-C", str(tmp_path / "a.o")], check=True, capture_output=True,
                         text=True).stdout
    by_size = {int(line.split()[1], 16): line.split(None, 3)[3] for line in out.splitlines()}
    for symbol in table.symbols:
        assert symbol.display_name == by_size[symbol.size]


def test_a_table_listing_fewer_symbols_keeps_its_counts():
    table = codelet_expected()
    cut = table.largest(2)
    assert len(cut.symbols) == 2 and cut.num_symbols == 8 and cut.symbol_bytes == 15_478 and cut.omitted == 6
    assert table.largest(None) is table and table.largest(20) is table
    assert replace(cut, symbols=()).omitted == 8
    with pytest.raises(ValueError, match="num_symbols is below"):
        TileSymbols(0, None, {}, {}, symbols=table.symbols, num_symbols=1)
    with pytest.raises(ValueError, match="attributed bytes of '.bss' outside"):
        TileSymbols(0, None, {".bss": 10}, {".bss": 11})


# ---------------------------------------------------------------- reading again, safely (issue #16 with #13)

def test_the_member_table_and_the_walk_find_the_same_members(tmp_path):
    """Symbols right after a read use the member table the report carries (issue #22: no module global); without
    it (a saved report, another file since), the reference walk finds the same members."""
    path = archive_with_symbols(tmp_path)
    report = memreport.read(path)
    table = report.members
    assert table is not None and table.names == ("tile_0.elf", "t1")
    assert table.starts.tolist() == [table.headers[0] + 60, table.headers[1] + 60]
    assert table.sizes.tolist() == [len(codelet_elf()), len(tile_elf(1, 64, 8, 1000))]
    remembered = read_symbols(report, [0, 1])
    assert read_symbols(report.evolve(members=None), [0, 1]) == remembered
    assert remembered[0] == codelet_expected()
    other = memreport.read(archive_with_symbols(tmp_path, "other.a"))  # each report keeps its own table
    assert read_symbols(report, [0]) == read_symbols(other, [0]) == {0: codelet_expected()}


def test_a_member_table_of_another_file_is_not_trusted(tmp_path):
    """The table answers only for the very file it was read from (device, inode, size, modification time):
    the archive rewritten with other members is walked again and found changed."""
    path = archive_with_symbols(tmp_path)
    report = memreport.read(path)
    path.write_bytes(ar_archive([("t1", tile_elf(1, 64, 8, 1000)), ("tile_0.elf", codelet_elf())]))
    with pytest.raises(ReadError, match="tile 0 is member 't1', but the report read 'tile_0.elf' there: the file "
                                        "changed since it was read"):
        read_symbols(report, [0])


def test_an_archive_truncated_after_its_read_is_a_read_error(tmp_path):
    """The symbols are read with pread: a shorter file is a ReadError naming the file, never a SIGBUS."""
    path = archive_with_symbols(tmp_path)
    report = memreport.read(path)
    with open(path, "r+b") as f:
        f.truncate(200)
    for table in (report.members, None):
        with pytest.raises(ReadError) as caught:
            read_symbols(report.evolve(members=table), [1])
        assert str(caught.value).startswith(f"{path}: ")


def test_a_thin_archives_symbols_stay_inside_its_directory_or_the_thin_root(tmp_path):
    (tmp_path / "build").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "t0.elf").write_bytes(codelet_elf())
    table = b"../elsewhere/t0.elf/\n"
    path = tmp_path / "build" / "thin.a"
    header = b"%-16s%-12d%-6d%-6d%-8s%-10d`\n"
    path.write_bytes(b"!<thin>\n" + header % (b"//", 0, 0, 0, b"", len(table)) + table + b"\n" * (len(table) % 2)
                     + header % (b"/0", 0, 0, 0, b"644", len(codelet_elf())))
    report = memreport.read(path, thin_root=tmp_path)
    expected = replace(codelet_expected(), member="../elsewhere/t0.elf")
    assert read_symbols(report, [0], thin_root=str(tmp_path))[0] == expected
    with pytest.raises(ReadError, match=r"thin archive member is a path outside the archive's directory"):
        read_symbols(report, [0])


# ---------------------------------------------------------------- section header entry 0 (issue 26 item 10)

def _entry_zero_allocated(blob: bytes) -> bytes:
    """``blob`` (a 32-bit little-endian ELF) with section header entry 0 marked an allocated PROGBITS of 4 KiB."""
    out = bytearray(blob)
    shoff = int.from_bytes(out[32:36], "little")
    out[shoff + 4:shoff + 8] = SHT_PROGBITS.to_bytes(4, "little")   # sh_type
    out[shoff + 8:shoff + 12] = SHF_ALLOC.to_bytes(4, "little")     # sh_flags
    out[shoff + 20:shoff + 24] = (4096).to_bytes(4, "little")       # sh_size
    return bytes(out)


@needs_size
def test_section_entry_zero_is_never_a_section_even_marked_allocated(tmp_path):
    """Entry 0 is no section (BFD, so ``size -A``, never makes one of it): the scans skip it and so does the
    symbol reader, so reading a tile's symbols again does not call the file changed."""
    path = tmp_path / "zero.a"
    path.write_bytes(ar_archive([("tile_0.elf", _entry_zero_allocated(codelet_elf())), ("t1", tile_elf(1, 64))]))
    report = memreport.read(path)
    assert int(report.excluding_gaps[0]) == 10_532  # the codelet's allocated sections, entry 0 not among them
    out = subprocess.run(["size", "-A", str(path)], check=True, capture_output=True, text=True).stdout
    first = out.split("\n\n")[0]
    assert "4096" not in first and f"{CONV}" in first  # size -A lists no entry 0
    assert read_symbols(report, [0])[0] == codelet_expected()


def test_a_demangling_bomb_keeps_its_mangled_name_with_a_note(tmp_path):
    """Issue #33 item 11: an archive of 4 tiles (5 KB) whose largest symbols demangle to 12 MB each, and cost
    200 MB to read. Each stays mangled, the note says why; the tile's other C++ name is demangled as before."""
    from tests.synth.archive import bomb_archive, demangling_bomb
    path = tmp_path / "bomb.a"
    path.write_bytes(bomb_archive(20, tiles=4))
    found = read_symbols(memreport.read(path), [0, 3])
    for tile in (0, 3):
        bomb = demangling_bomb(20, f"step{tile}")
        assert [(s.name, s.demangled) for s in found[tile].symbols] == [
            ("activations", None), (bomb, None),
            ("_ZN6popops9BroadcastIfE7computeEv", "popops::Broadcast<float>::compute()")]
        assert found[tile].notes == (
            f"1 C++ name kept mangled, past the 4,096 characters a name may have: {bomb[:77]}...: its C++ name "
            "could run to 50,331,651 characters (substitutions that repeat each other)",)
