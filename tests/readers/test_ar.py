"""The ar reader: every layout, checked against pyelftools and GNU/LLVM ``size -A``."""
from __future__ import annotations

import shutil
import subprocess

import pytest

import memreport
from memreport.errors import ReadError, Truncated
from memreport.readers.ar import iter_members
from tests.conftest import archive_members, needs_gcc, needs_size, pyelftools_sections, size_a
from tests.synth.archive import ar_archive, tile_elf

NAMES = ["t0", "tile_00001.elf", "exactly_16_chars", "a_much_longer_member_name_for_tile_3.elf", "t4"]


def members(e_flags: int = 0x2, over: int = 0) -> list[tuple[str, bytes]]:
    limit = 262_144 if e_flags == 0x1 else 638_976
    sizes = [(1000, 24, 5000), (2001, 0, 100), (333, 7, 0), (4, 0, limit - 4 + over), (17, 3, 9)]
    return [(name, tile_elf(i, *sz, e_flags=e_flags)) for i, (name, sz) in enumerate(zip(NAMES, sizes))]


def check_against_pyelftools(report, blob: bytes) -> None:
    """Every section of every member, as pyelftools reads it, is in the report's columns."""
    pairs = archive_members(blob)
    assert report.tile_names == [name for name, _ in pairs]
    for tile, (_, member) in enumerate(pairs):
        reference = pyelftools_sections(member)
        sums: dict[str, int] = {}
        for name, size, _ in reference:
            sums[name] = sums.get(name, 0) + size
        ours = {name: col.get(tile) for name, col in report.breakdown.items() if col.get(tile) is not None}
        assert ours == sums
        assert report.excluding_gaps[tile] == sum(size for _, size, flags in reference if flags & 0x2)


@pytest.mark.parametrize("e_flags,arch,limit,tpi", [(0x1, "ipu1", 262_144, 1216), (0x2, "ipu2", 638_976, 1472),
                                                    (0x21, "ipu21", 638_976, 1472)])
@pytest.mark.parametrize("symbol_index", [False, True])
def test_gnu_archive(tmp_path, e_flags, arch, limit, tpi, symbol_index):
    blob = ar_archive(members(e_flags, over=1), symbol_index=symbol_index)
    path = tmp_path / "archive.a"
    path.write_bytes(blob)
    report = memreport.read(path)
    assert report.format == "archive"
    assert (report.target.arch, report.target.bytes_per_tile, report.target.tiles_per_ipu) == (arch, limit, tpi)
    assert report.target.num_tiles == 5 and report.per_tile == "complete"
    assert report.excluding_gaps.tolist() == [6024, 2101, 340, limit + 1, 29]
    assert report.including_gaps is None
    assert report.tiles_out_of_memory == 1
    assert report.top_tiles(1)[0].tile == 3
    check_against_pyelftools(report, blob)


def test_bsd_names(tmp_path):
    blob = ar_archive(members(), bsd=True, symbol_index=True)
    assert b"#1/40" in blob and b"__.SYMDEF" in blob
    path = tmp_path / "bsd.a"
    path.write_bytes(blob)
    report = memreport.read(path)
    assert report.tile_names == NAMES
    check_against_pyelftools(report, blob)


def test_odd_sized_members_are_padded(tmp_path):
    odd = [(name, blob + b"\x00") for name, blob in members()]
    assert all(len(b) % 2 for _, b in odd)
    blob = ar_archive(odd)
    path = tmp_path / "odd.a"
    path.write_bytes(blob)
    report = memreport.read(path)
    assert report.excluding_gaps.tolist() == [6024, 2101, 340, 638_976 - 4 + 4, 29]
    check_against_pyelftools(report, blob)


def test_member_walk_skips_index_and_name_table():
    blob = ar_archive(members(), symbol_index=True)
    walked = list(iter_members(blob))
    assert [m.name for m in walked] == NAMES
    assert blob[walked[0].data_offset:walked[0].data_offset + 4] == b"\x7fELF"


def test_empty_archive_is_an_error(tmp_path):
    path = tmp_path / "empty.a"
    path.write_bytes(b"!<arch>\n")
    with pytest.raises(ReadError, match=r"empty\.a: archive holds no members"):
        memreport.read(path)


def test_non_elf_member_is_named(tmp_path):
    pairs = members()
    pairs.insert(2, ("README.txt", b"not an elf at all\n"))
    path = tmp_path / "mixed.a"
    path.write_bytes(ar_archive(pairs))
    with pytest.raises(ReadError, match=r"mixed\.a: member 'README\.txt': not an ELF file"):
        memreport.read(path)


def test_truncated_archive(tmp_path):
    blob = ar_archive(members())
    path = tmp_path / "cut.a"
    path.write_bytes(blob[:-100])
    with pytest.raises(Truncated, match=r"cut\.a: ar member at \d+ declares \d+ bytes but only \d+ remain"):
        memreport.read(path)


def test_non_numeric_size(tmp_path):
    blob = bytearray(ar_archive(members()))
    blob[8 + 48:8 + 58] = b"12x4      "
    path = tmp_path / "bad.a"
    path.write_bytes(bytes(blob))
    with pytest.raises(ReadError, match=r"size '12x4' is not a number \(at byte offset 56\)"):
        memreport.read(path)


def test_mixed_architectures_are_refused(tmp_path):
    pairs = [("a", tile_elf(0, 10, e_flags=0x1)), ("b", tile_elf(1, 10, e_flags=0x2))]
    path = tmp_path / "mixed.a"
    path.write_bytes(ar_archive(pairs))
    with pytest.raises(ReadError, match="member 'b' is ipu2 but member 'a' is ipu1"):
        memreport.read(path)


@needs_size
def test_size_dash_a_agrees_on_every_section(tmp_path):
    blob = ar_archive(members(over=5), symbol_index=True)
    path = tmp_path / "archive.a"
    path.write_bytes(blob)
    report = memreport.read(path)
    reference = size_a(path)
    assert [name for name, _ in reference] == NAMES
    for tile, (_, sections) in enumerate(reference):
        assert sections[".text"] == report.breakdown[".text"].get(tile)
        for name, size in sections.items():
            assert report.breakdown[name].get(tile) == size


@pytest.mark.skipif(shutil.which("llvm-size") is None, reason="llvm-size is not installed")
def test_llvm_size_agrees_on_text(tmp_path):
    path = tmp_path / "archive.a"
    path.write_bytes(ar_archive(members(), bsd=True))
    report = memreport.read(path)
    reference = size_a(path, "llvm-size")
    assert [s[".text"] for _, s in reference] == report.breakdown[".text"].values.tolist()


C_SOURCES = {
    "small.c": "int f(int x) { return x + 1; }\n",
    "arrays.c": "static char buf[4096]; int table[100] = {1}; const char msg[] = \"hello\";\n"
                "char *g(int i) { buf[i] = msg[i % 5]; return buf + table[i]; }\n",
    "a_file_with_a_long_name_for_the_long_name_table.c":
        "double big[3000]; double h(int i) { return big[i] * 2.0; }\n",
}


@needs_gcc
@needs_size
@pytest.mark.parametrize("thin", [False, True])
def test_gcc_objects(tmp_path, thin):
    objects = []
    for name, source in C_SOURCES.items():
        (tmp_path / name).write_text(source)
        obj = name[:-2] + ".o"
        subprocess.run(["gcc", "-c", "-O1", "-o", obj, name], cwd=tmp_path, check=True)
        objects.append(obj)
    archive = tmp_path / "lib.a"
    subprocess.run(["ar", "rcsT" if thin else "rcs", "lib.a", *objects], cwd=tmp_path, check=True)
    report = memreport.read(archive)
    assert report.format == ("thin-archive" if thin else "archive")
    assert report.tile_names == objects
    assert report.target.arch is None and report.target.bytes_per_tile is None
    for tile, obj in enumerate(objects):
        reference = pyelftools_sections((tmp_path / obj).read_bytes())
        sums: dict[str, int] = {}
        for name, size, _ in reference:
            sums[name] = sums.get(name, 0) + size
        assert {n: c.get(tile) for n, c in report.breakdown.items() if c.get(tile) is not None} == sums
        assert report.excluding_gaps[tile] == sum(s for _, s, f in reference if f & 0x2)
    for tile, (name, sections) in enumerate(size_a(archive)):
        assert name.rsplit("/", 1)[-1] == objects[tile]  # size -A prints a thin member's path
        assert sections[".text"] == report.breakdown[".text"].get(tile)
    assert report.breakdown[".bss"].get(2) == 3000 * 8


@needs_gcc
def test_thin_archive_with_missing_member(tmp_path):
    (tmp_path / "x.c").write_text("int x(void) { return 1; }\n")
    subprocess.run(["gcc", "-c", "x.c"], cwd=tmp_path, check=True)
    subprocess.run(["ar", "rcT", "thin.a", "x.o"], cwd=tmp_path, check=True)
    (tmp_path / "x.o").unlink()
    with pytest.raises(ReadError, match=r"thin\.a: member 'x\.o': thin archive member 'x\.o' cannot be read"):
        memreport.read(tmp_path / "thin.a")
