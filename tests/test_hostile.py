"""Hostile and broken inputs: one clear line, exit 1, and no output file (issue #8).

Every case is a file generated here from the valid seeds in
:mod:`tests.synth.seeds`, damaged one way. Each is run through the CLI
with ``-o`` and ``--png`` and must give exit status 1, exactly one line
``memreport: FILE: message`` on stderr (the message checked word for word),
and leave neither output nor a temporary file behind. A few run in a real
subprocess, to prove there is no traceback and no crash.
"""
from __future__ import annotations

import json
import os
import stat
import struct
import subprocess
import sys
import time
import tracemalloc

import cbor2
import pytest
from click.testing import CliRunner

import memreport
from memreport.cli import main
from memreport.errors import MemreportError, ReadError, Truncated, UnexpectedError
from memreport.readers import ReadOptions, read_path
from tests.conftest import flat
from tests.synth.archive import ar_archive, bss, elf_file, text, tile_elf
from tests.synth.seeds import seeds

SEEDS = seeds()
ELF = tile_elf(0, 100, 10, 300)  # ELF32 LE: section table at 220, 6 entries of 40 bytes, 460 bytes in all
SHOFF = struct.unpack_from("<I", ELF, 32)[0]
TEXT = SEEDS["text_summary"]
REP = SEEDS["rep_trace"]
UNRECOGNISED = ("unrecognised format (expected ar archive of tile ELF files, ELF file, Jupyter notebook, memreport "
                "CSV, memreport JSON, lowered-variables report, JSON graph profile or tensor map, CBOR graph profile, "
                "PopVision profile.pop, text: a Poplar summary, a TensorFlow .rep trace or a log)")


def patch(blob: bytes, at: int, fmt: str, value: int) -> bytes:
    out = bytearray(blob)
    struct.pack_into(fmt, out, at, value)
    return bytes(out)


def members(*extra: tuple[str, bytes]) -> list[tuple[str, bytes]]:
    return [("t0.elf", ELF), ("t1.elf", tile_elf(1, 200))] + list(extra)


AR = ar_archive(members())  # members at 8 and 528, 460 bytes each; 1,048 bytes in all


def ar_size(blob: bytes, header_at: int, field: bytes) -> bytes:
    """``blob`` with the size field of the member header at ``header_at`` replaced."""
    return blob[:header_at + 48] + field.ljust(10) + blob[header_at + 58:]


def header(name: bytes, size: int) -> bytes:
    return b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name, 0, 0, 0, b"644", size)


def profile(**change) -> bytes:
    """The JSON seed with ``graphProfile`` keys replaced (``a__b`` is ``a.b``)."""
    doc = json.loads(SEEDS["json_profile"])
    for path, value in change.items():
        node, keys = doc["graphProfile"], path.split("__")
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    return json.dumps(doc).encode()


def tensor_map(pairs: str) -> bytes:
    return b'{"mappings": {"main": [["w", 0, [4], "float", 0, 0, 4, %s]]}}' % pairs.encode()


CBOR_TAG = b"\xd9\xd9\xf7"
MEMORY_KEY = b"\xa1\x66memory"  # a one-entry map, key "memory"

# id -> (file contents, suffix, the message after "memreport: FILE: ")
CASES: dict[str, tuple[bytes, str, str]] = {
    # any file
    "empty": (b"", ".a", "empty file"),
    "unknown_format": (bytes(range(256)) * 4, ".bin", UNRECOGNISED),
    "png_not_a_report": (b"\x89PNG\r\n\x1a\n" + bytes(64), ".png", UNRECOGNISED),
    # ar containers
    "ar_truncated_member": (AR[:-40], ".a",
                            "ar member at 528 declares 460 bytes but only 420 remain (at byte offset 576)"),
    "ar_truncated_header": (AR + b"t2.elf/  0", ".a",
                            "ar member header cut short (10 of 60 bytes) (at byte offset 1048)"),
    "ar_size_not_numeric": (ar_size(AR, 8, b"12x4"), ".a",
                            "ar member header: size '12x4' is not a number (at byte offset 56)"),
    "ar_size_negative": (ar_size(AR, 8, b"-5"), ".a",
                         "ar member header: size '-5' is not a number (at byte offset 56)"),
    "ar_size_impossible": (ar_size(AR, 8, b"9999999999"), ".a",
                           "ar member at 8 declares 9999999999 bytes but only 980 remain (at byte offset 56)"),
    "ar_header_end_marker": (AR[:66] + b"XX" + AR[68:], ".a",
                             "ar member header lacks its end marker (found b'XX') (at byte offset 66)"),
    "ar_member_not_elf": (ar_archive(members(("t2.elf", b"hello, I am not an ELF file"))), ".a",
                          "member 't2.elf': not an ELF file (starts with b'hello, I') (at byte offset 1108)"),
    "ar_zero_size_members": (b"!<arch>\n" + header(b"t0.elf/", 0) * 3, ".a",
                             "member 't0.elf': not an ELF file (starts with b'') (at byte offset 68)"),
    "ar_long_name_outside_table": (b"!<arch>\n" + header(b"/9999", len(ELF)) + ELF, ".a",
                                   "long member name /9999 outside the name table (at byte offset 8)"),
    "ar_bsd_name_length": (b"!<arch>\n" + header(b"#1/xy", len(ELF)) + ELF, ".a",
                           "ar member header: BSD name length 'xy' is not a number (at byte offset 11)"),
    "ar_bsd_name_longer_than_member": (b"!<arch>\n" + header(b"#1/99999", len(ELF)) + ELF, ".a",
                                       "BSD member name of 99999 bytes exceeds the member's 460 (at byte offset 8)"),
    "ar_no_members": (b"!<arch>\n", ".a", "archive holds no members (an empty archive is not a report)"),
    "ar_member_section_table_past_end": (
        ar_archive(members(("t2.elf", patch(ELF, 32, "<I", 1 << 20))))[:-1] + b"\n", ".a",
        "member 't2.elf': section header table at 1048576 lies past the end of the file (460 bytes) "
        "(at byte offset 1568)"),
    "ar_member_absurd_section_count": (
        ar_archive(members(("t2.elf", patch(ELF, 48, "<H", 65535)))), ".a",
        "member 't2.elf': section header table (65535 entries at 220) runs past the end of the file (460 bytes) "
        "(at byte offset 1568)"),
    "ar_member_bad_name_index": (ar_archive(members(("t2.elf", patch(ELF, 50, "<H", 99)))), ".a",
                                 "member 't2.elf': section-name table index 99 outside 1..5 (at byte offset 1158)"),
    # bare ELF files
    "elf_header_cut": (ELF[:30], ".elf", "ELF header cut short (at byte offset 30)"),
    "elf_bad_class": (ELF[:4] + b"\x07" + ELF[5:], ".elf", "bad ELF class 7 or byte order 1 (at byte offset 4)"),
    "elf_section_table_past_end": (patch(ELF, 32, "<I", 1 << 20), ".elf",
                                   "section header table at 1048576 lies past the end of the file (460 bytes) "
                                   "(at byte offset 460)"),
    "elf_absurd_section_count": (patch(ELF, 48, "<H", 65535), ".elf",
                                 "section header table (65535 entries at 220) runs past the end of the file "
                                 "(460 bytes) (at byte offset 460)"),
    "elf_bad_name_index": (patch(ELF, 50, "<H", 99), ".elf",
                           "section-name table index 99 outside 1..5 (at byte offset 50)"),
    # Extended numbering: e_shnum 0 takes the count from section 0's sh_size, e_shstrndx 0xffff the
    # name-table index from its sh_link (here pointing back at section 0 itself).
    "elf_extended_count_absurd": (patch(patch(ELF, 48, "<H", 0), SHOFF + 20, "<I", 0xFFFFFFFF), ".elf",
                                  "section header table (4294967295 entries at 220) runs past the end of the file "
                                  "(460 bytes) (at byte offset 460)"),
    "elf_extended_index_self": (patch(patch(ELF, 50, "<H", 0xFFFF), SHOFF + 24, "<I", 0), ".elf",
                                "section-name table index 0 outside 1..5 (at byte offset 50)"),
    "elf_name_offset_outside_table": (patch(ELF, SHOFF + 40, "<I", 1 << 30), ".elf",
                                      "section 1 name offset 1073741824 outside the section-name table "
                                      "(at byte offset 260)"),
    "elf_nobits_size_absurd": (elf_file([text(64), bss(1 << 50)], elfclass=64), ".elf",
                               "section '.bss' declares 1,125,899,906,842,624 bytes: no memory is that large "
                               "(at byte offset 280)"),
    # JSON profiles
    "json_truncated": (SEEDS["json_profile"][:400], ".json",
                       "JSON ends early: unexpected end of data (at byte offset 400)"),
    "json_string_for_list": (profile(memory__byTile__total="1200, 3400"), ".json",
                             "graphProfile.memory.byTile.total must be a list of integers, not a string"),
    "json_negative_bytes": (profile(memory__byTile__total=[1200, -3400, 5, 6]), ".json",
                            "graphProfile.memory.byTile.total holds a negative size (-3,400 for tile 1)"),
    "json_list_length_not_tile_count": (profile(memory__byTile__total=[1200, 3400, 5]), ".json",
                                        "graphProfile.memory.byTile.total has 3 values for 4 tiles (target.numTiles)"),
    "json_fraction_in_list": (profile(memory__byTile__total=[1200, 3400.5, 5, 6]), ".json",
                              "graphProfile.memory.byTile.total[1] must be an integer, not a number 3400.5"),
    "json_value_too_large": (profile(memory__byTile__total=[1200, 1e30, 5, 6]), ".json",
                             "graphProfile.memory.byTile.total[1] = 1e+30 is too large for 64 bits"),
    "json_nested_lists": (b'{"memory": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", ".json",
                          "JSON nested more than 256 levels deep (a profile or tensor map nests fewer than 10)"),
    "json_nested_objects": (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, ".json",
                            "JSON nested more than 256 levels deep (a profile or tensor map nests fewer than 10)"),
    "json_tile_count_absurd": (b'{"target": {"numTiles": 1000000000000}, "memory": {"byCategory": {"a": {}}}}',
                               ".json",
                               "target: 1,000,000,000,000 tiles is beyond any IPU system (at most 2,097,152)"),
    "json_tile_product_absurd": (b'{"target": {"numIPUs": 100000000000, "tilesPerIPU": 100000000000}, "memory": {}}',
                                 ".json", "target: 10,000,000,000,000,000,000,000 tiles is beyond any IPU system "
                                 "(at most 2,097,152)"),
    "json_categories_without_lists": (
        b'{"target": {"numTiles": 2000000}, "memory": {"byCategory": {"a": {}, "b": {}}}}', ".json",
        "memory.byTile.total is missing and no byCategory list gives per-tile bytes"),
    "json_not_utf8": (b'{"memory": "\xff\xfe"}', ".json",
                      "invalid JSON: str is not valid UTF-8: surrogates not allowed (at byte offset 12)"),
    "json_unrecognised_document": (b'{"hello": "world"}', ".json",
                                   "unrecognised JSON document (expected a graph profile or a tensor map; "
                                   "top-level keys: 'hello')"),
    # CBOR profiles
    "cbor_truncated": (SEEDS["cbor_profile"][:300], ".cbor",
                       "CBOR ends early: premature end of stream (expected to read at least 2 bytes, got 0 instead) "
                       "(at byte offset 300)"),
    "cbor_string_of_2_60_bytes": (CBOR_TAG + MEMORY_KEY + b"\x5b" + (1 << 60).to_bytes(8, "big"), ".cbor",
                                  "CBOR ends early: premature end of stream (expected to read at least 65536 bytes, "
                                  "got 0 instead) (at byte offset 20)"),
    "cbor_array_of_2_60_items": (CBOR_TAG + MEMORY_KEY + b"\x9b" + (1 << 60).to_bytes(8, "big"), ".cbor",
                                 "CBOR ends early: premature end of stream (expected to read at least 1 bytes, "
                                 "got 0 instead) (at byte offset 20)"),
    "cbor_map_of_2_60_pairs": (CBOR_TAG + MEMORY_KEY + b"\xbb" + (1 << 60).to_bytes(8, "big"), ".cbor",
                               "CBOR ends early: premature end of stream (expected to read at least 1 bytes, "
                               "got 0 instead) (at byte offset 20)"),
    "cbor_nested": (CBOR_TAG + MEMORY_KEY + b"\x81" * 100_000 + b"\x00", ".cbor",
                    "invalid CBOR: maximum container nesting depth (256) exceeded (at byte offset 4099)"),
    "cbor_value_sharing": (
        CBOR_TAG + cbor2.dumps({"memory": {"byTile": {"total": cbor2.CBORTag(28, [1, 2])},
                                           "byCategory": {"a": {"nonInterleaved": cbor2.CBORTag(29, 0)}}}}),
        ".cbor", "CBOR value sharing (tags 28 and 29) refused: Poplar does not write it, and one shared list named "
                 "many times would multiply the memory a reading takes (at byte offset 64)"),
    "cbor_trailing_bytes": (SEEDS["cbor_profile"] + b"\x00", ".cbor",
                            "1 bytes follow the CBOR document (at byte offset 789)"),
    "cbor_bignum_tile_count": (CBOR_TAG + cbor2.dumps({"target": {"numTiles": 2 ** 80}, "memory": {}}), ".cbor",
                               "target.numTiles must be a whole number below 2**63, not a 81-bit one"),
    "cbor_string_for_list": (CBOR_TAG + cbor2.dumps({"target": {"numTiles": 2}, "memory": {"byTile": {"total": "12"}}}),
                             ".cbor", "memory.byTile.total must be a list of integers, not a string"),
    # tensor maps
    "tensor_map_tile_absurd": (tensor_map("[[1000000000000, 4]]"), ".json",
                               "mappings['main'] tensor 'w' tiles[0][0] (tile) is 1,000,000,000,000: beyond any IPU "
                               "system (at most 2,097,152 tiles)"),
    "tensor_map_not_a_pair": (tensor_map("[[1, 2, 3]]"), ".json",
                              "mappings['main'] tensor 'w' tiles[0] must be a [tile, elements] pair"),
    "tensor_map_negative_tile": (tensor_map("[[-1, 4]]"), ".json",
                                 "mappings['main'] tensor 'w' tiles[0][0] (tile) must be non-negative, not -1"),
    # text summaries and .rep traces
    "text_row_does_not_parse": (TEXT.replace(b"   3 - 4 *", b"   3 - x *", 1), ".txt",
                                "line 53: histogram row does not parse: "
                                "'3 - x ****************************************      8'"),
    "text_number_does_not_parse": (TEXT.replace(b"Tiles per IPU:          4", b"Tiles per IPU:          4x", 1),
                                   ".txt", "line 3: Tiles per IPU: '4x' is not a number"),
    "text_number_of_5000_digits": (TEXT.replace(b"per IPU:          4", b"per IPU:          " + b"4" * 5000, 1), ".txt",
                                   "line 3: Tiles per IPU: a number of 5,000 digits is too large"),
    "text_tile_count_absurd": (TEXT.replace(b"Total Tiles:            8", b"Total Tiles:            99,000,000,000", 1),
                               ".txt",
                               "line 1: Target: 99,000,000,000 tiles is beyond any IPU system (at most 2,097,152)"),
    "text_not_utf8": (TEXT[:100] + b"\xe9" + TEXT[100:], ".txt", "line 5: not UTF-8 text (at byte offset 100)"),
    "text_binary_after_the_prefix": (TEXT[:4643] + b"\x00" + TEXT[4644:], ".txt",
                                     "line 112: binary data (a NUL byte) in a text report (at byte offset 4643)"),
    "text_cut_mid_line": (TEXT[:TEXT.index(b"Maximum (Excluding") + 20], ".txt",
                          "line 56: the file ends mid-line (cut short?): cannot read the Maximum line "
                          "'Maximum (Excluding G'"),
    "text_cut_at_a_line_end": (TEXT[:TEXT.index(b"    Maximum (Including")], ".txt",
                               "line 53: the file ends in the By Tile block before its Maximum lines"),
    "text_without_memory_information": (b"Epoch 1 (99%), accuracy 76%\n" * 100, ".log",
                                        "no memory information found: looked for a Poplar memory summary (Target, "
                                        "Memory Usage or By Tile sections), a 'Tile # N memory usage:' block or an "
                                        "out-of-memory message"),
    "git_lfs_pointer": (b"version https://git-lfs.github.com/spec/v1\n"
                        b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n",
                        ".pop", "a Git LFS pointer, not the file itself (the real file: 12,345 bytes, oid "
                                "sha256:4d7a2146...): fetch it with `git lfs pull`"),
    "rep_cut_mid_line": (REP[:len(REP) * 2 // 3], ".rep",
                         "line 124: the file ends mid-line (cut short?): cannot read 'Shared Da' under 'By Data Type' "
                         "(expected 'name: N B')"),
}


def run_cli(*args) -> CliRunner.invoke:
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_one_line(result, path, message: str) -> None:
    assert result.exit_code == 1, (result.exit_code, result.output, result.exception)
    assert result.stderr == f"memreport: {path}: {message}\n"
    assert result.stdout == ""


def assert_nothing_written(directory) -> None:
    left = sorted(p.name for p in directory.iterdir())
    assert left == [], f"output left behind: {left}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_input_gives_one_line_and_no_output(tmp_path, case):
    data, suffix, message = CASES[case]
    source = tmp_path / "in"
    source.mkdir()
    path = source / f"input{suffix}"
    path.write_bytes(data)
    out = tmp_path / "out"
    out.mkdir()
    started = time.monotonic()
    result = run_cli(path, "--format", "json", "-o", out / "report.json", "--png", out / "report.png")
    assert time.monotonic() - started < 10, "a hostile input must fail fast"
    assert_one_line(result, path, message)
    assert_nothing_written(out)


def test_the_library_raises_one_base_class(tmp_path):
    for case, (data, suffix, message) in sorted(CASES.items()):
        path = tmp_path / f"{case}{suffix}"
        path.write_bytes(data)
        with pytest.raises(ReadError) as raised:
            memreport.read(path)
        assert isinstance(raised.value, MemreportError)
        assert not isinstance(raised.value, UnexpectedError), case
        assert raised.value.path == str(path)
        assert str(raised.value) == f"{path}: {message}"


@pytest.mark.parametrize("case,cls", [("ar_truncated_member", Truncated), ("elf_header_cut", Truncated),
                                      ("json_truncated", Truncated), ("cbor_string_of_2_60_bytes", Truncated),
                                      ("text_cut_mid_line", Truncated), ("ar_member_not_elf", ReadError)])
def test_truncation_is_its_own_class(tmp_path, case, cls):
    data, suffix, _ = CASES[case]
    path = tmp_path / f"x{suffix}"
    path.write_bytes(data)
    with pytest.raises(cls) as raised:
        memreport.read(path)
    assert (type(raised.value) is Truncated) == (cls is Truncated)


def test_located_errors_carry_member_and_offset(tmp_path):
    data, suffix, _ = CASES["ar_member_not_elf"]
    path = tmp_path / f"x{suffix}"
    path.write_bytes(data)
    with pytest.raises(ReadError) as raised:
        memreport.read(path)
    assert (raised.value.path, raised.value.member, raised.value.offset) == (str(path), "t2.elf", 1108)
    data, suffix, _ = CASES["text_not_utf8"]
    path.write_bytes(data)
    with pytest.raises(ReadError) as raised:
        read_path(str(path))
    assert (raised.value.line, raised.value.offset) == (5, 100)


# ---------------------------------------------------------------- paths that are not readable files

def test_missing_path_and_directory(tmp_path):
    for path, message in ((tmp_path / "missing.a", "no such file"), (tmp_path, "is a directory")):
        assert_one_line(run_cli(path, "-o", tmp_path / "never.txt"), path, message)
    assert not (tmp_path / "never.txt").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.a"
    os.mkfifo(fifo)
    started = time.monotonic()
    result = run_cli(fifo)  # opening a FIFO with no writer would block forever
    assert time.monotonic() - started < 5
    assert_one_line(result, fifo, "not a regular file (a pipe, socket or device): save it to a file first")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="running as root: permission bits do not stop root from reading a file")
def test_unreadable_file(tmp_path):
    path = tmp_path / "secret.a"
    path.write_bytes(AR)
    path.chmod(0)
    try:
        assert_one_line(run_cli(path, "-o", tmp_path / "out.txt"), path, "Permission denied")
    finally:
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert not (tmp_path / "out.txt").exists()


def test_thin_archive_members_that_cannot_be_read(tmp_path):
    def thin(name: str, size: int) -> bytes:
        return b"!<thin>\n" + header(name.encode() + b"/", size)

    path = tmp_path / "thin.a"
    path.write_bytes(thin("gone.elf", 460))
    assert_one_line(run_cli(path), path, "member 'gone.elf': thin archive member cannot be read: "
                                         "No such file or directory")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.elf")
        path.write_bytes(thin("pipe.elf", 460))
        started = time.monotonic()
        result = run_cli(path)
        assert time.monotonic() - started < 5
        assert_one_line(result, path, "member 'pipe.elf': thin archive member is not a regular file")


# ---------------------------------------------------------------- no traceback, no crash: real processes

@pytest.mark.parametrize("case", ["json_nested_objects", "cbor_string_of_2_60_bytes", "ar_truncated_member",
                                  "text_not_utf8", "elf_extended_index_self"])
def test_no_traceback_in_a_real_process(tmp_path, case):
    data, suffix, message = CASES[case]
    path = tmp_path / f"input{suffix}"
    path.write_bytes(data)
    out = tmp_path / "report.csv"
    proc = subprocess.run([sys.executable, "-m", "memreport", str(path), "--format", "csv", "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr  # json_nested_objects: orjson 3.8 would crash (SIGSEGV, -11)
    assert proc.stderr == f"memreport: {path}: {message}\n"
    assert proc.stdout == "" and not out.exists()


# ---------------------------------------------------------------- the other commands and options

def test_a_broken_tensor_map_writes_nothing(tmp_path):
    good = tmp_path / "good.a"
    good.write_bytes(AR)
    broken = tmp_path / "tensor_map.json"
    broken.write_bytes(CASES["tensor_map_tile_absurd"][0])
    out = tmp_path / "out.txt"
    result = run_cli(good, "--tensor-map", broken, "-o", out)
    assert_one_line(result, broken, CASES["tensor_map_tile_absurd"][2])
    assert not out.exists()
    broken.write_bytes(b"")
    assert_one_line(run_cli(good, "--tensor-map", broken), broken, "empty file")


def test_diff_with_a_broken_side_writes_nothing(tmp_path):
    good = tmp_path / "old.a"
    good.write_bytes(AR)
    data, suffix, message = CASES["ar_member_not_elf"]
    bad = tmp_path / f"new{suffix}"
    bad.write_bytes(data)
    out = tmp_path / "diff.json"
    assert_one_line(run_cli("diff", good, bad, "--format", "json", "-o", out), bad, message)
    assert_one_line(run_cli("diff", bad, good, "-o", out), bad, message)
    assert not out.exists()


def test_diff_of_different_tile_counts_writes_nothing(tmp_path):
    old, new = tmp_path / "old.a", tmp_path / "new.a"
    old.write_bytes(AR)
    new.write_bytes(ar_archive(members(("t2.elf", tile_elf(2, 300)))))
    out = tmp_path / "diff.txt"
    result = run_cli("diff", old, new, "-o", out)
    assert result.exit_code == 1
    assert result.stderr == f"memreport: diff: {old} has 2 tiles but {new} has 3\n"
    assert not out.exists()


def test_an_unwritable_output_is_one_line(tmp_path):
    good = tmp_path / "good.a"
    good.write_bytes(AR)
    result = run_cli(good, "-o", tmp_path / "no" / "such" / "dir.txt")
    assert result.exit_code == 4  # an output, not an input: its own code (issue #16)
    target = tmp_path / "no" / "such" / "dir.txt"
    assert result.stderr == f"memreport: {target}: cannot write: No such file or directory\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.a"]


def test_an_unexpected_exception_becomes_a_read_error_that_names_its_type(tmp_path, monkeypatch):
    """The last-resort guard: a stray exception is one line naming the file and the exception type."""
    from memreport.readers.elf import file as elf

    def broken(*args, **kwargs):
        return [][1]

    monkeypatch.setattr(elf, "scan_elf", broken)
    path = tmp_path / "tile.elf"
    path.write_bytes(ELF)
    with pytest.raises(UnexpectedError) as raised:
        read_path(str(path))
    assert isinstance(raised.value.__cause__, IndexError)  # the bug stays findable
    message = (f"{path}: ELF file: unexpected IndexError while reading (list index out of range); this is a "
               "memreport bug: please report it with the file")
    assert str(raised.value) == message
    result = run_cli(path, "-o", tmp_path / "out.txt")
    assert result.exit_code == 1 and result.stderr == f"memreport: {message}\n"
    assert not (tmp_path / "out.txt").exists()


def test_reader_warnings_are_one_line(tmp_path):
    path = tmp_path / "summary.txt"
    path.write_bytes(TEXT.replace(b"Total Tiles:            8", b"Total Tiles:            9", 1))
    result = run_cli(path)
    assert result.exit_code == 0
    assert result.stderr == (f"memreport: warning: {path}: the By Tile histogram (line 51) counts 8 tiles but "
                             "the Target has 9\n")


def test_a_tile_elf_with_no_sections_is_read_as_such(tmp_path):
    """e_shnum 0 with section 0's size 0 is the ELF way of saying "no sections": a tile of 0 bytes, not an error."""
    path = tmp_path / "tile.elf"
    path.write_bytes(patch(ELF, 48, "<H", 0))
    report = memreport.read(path)
    assert report.excluding_gaps.tolist() == [0] and report.breakdown == {}


# ---------------------------------------------------------------- bounded resources

def test_declared_sizes_allocate_nothing(tmp_path):
    """Tile counts and lengths a small file declares must not become allocations."""
    for case in ("json_categories_without_lists", "cbor_array_of_2_60_items", "cbor_string_of_2_60_bytes",
                 "json_tile_count_absurd", "tensor_map_tile_absurd", "text_tile_count_absurd"):
        data, suffix, _ = CASES[case]
        path = tmp_path / f"{case}{suffix}"
        path.write_bytes(data)
        tracemalloc.start()
        try:
            with pytest.raises(ReadError):
                read_path(str(path))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 16 << 20, f"{case}: {peak:,} bytes at peak"


def test_many_brackets_inside_a_string_read_in_linear_time(tmp_path):
    """The bulk JSON decoder once rescanned to the next ']' for every '[': quadratic on this file."""
    path = tmp_path / "profile.json"
    path.write_bytes(b'{"memory": {"note": "' + b"[" * 99_000 + b'"}, "list": [' + b"1," * 500_000 + b"1]}")
    started = time.monotonic()
    with pytest.raises(ReadError, match="no per-tile list gives the tile count"):
        read_path(str(path))
    assert time.monotonic() - started < 5


def test_a_megabyte_line_reads_in_linear_time(tmp_path):
    """Two line patterns of the text reader once backtracked quadratically over long runs of spaces."""
    path = tmp_path / "summary.txt"
    vertex_line = b"popops::ScaledAddSupervisor<float,float,true>             814 B\n"
    assert vertex_line in TEXT
    path.write_bytes(TEXT.replace(vertex_line, vertex_line[:45] + b" " * 1_000_000 + b"814 Bx\n", 1))
    started = time.monotonic()
    with pytest.raises(ReadError) as raised:
        read_path(str(path))
    assert time.monotonic() - started < 5
    assert len(str(raised.value)) < 500 and "[...]" in str(raised.value)  # the quoted line is shortened


def test_distinct_section_names_do_not_multiply_memory(tmp_path):
    """One column per section name, each as long as the tile count: unique names per member were quadratic
    (a 5 MB archive of 20,000 members took 3.5 GB); names on the fewest tiles now fold into two columns."""
    from tests.synth.archive import Section
    path = tmp_path / "names.a"
    path.write_bytes(ar_archive([(f"m{i}", elf_file([Section(f".s{i}", 4)])) for i in range(5000)]))
    started = time.monotonic()
    tracemalloc.start()
    try:
        report = memreport.read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 10
    assert peak < 64 << 20, f"{peak:,} bytes at peak"
    assert report.excluding_gaps.tolist() == [4] * 5000  # folding loses no byte
    assert any("section names (those on the fewest tiles) are summed per tile" in note for note in report.notes)


# ---------------------------------------------------------------- --skip-bad-members

def damaged_archive(tmp_path):
    limit = 638_976
    parts = [(f"tile_{i}.elf", tile_elf(i, 1000 + 100 * i, 10, 5000 * i + (limit if i == 5 else 0)))
             for i in range(6)]
    parts[2] = ("tile_2.elf", b"garbage, not an ELF at all")
    parts[4] = ("tile_4.elf", parts[4][1][:100])
    path = tmp_path / "damaged.a"
    path.write_bytes(ar_archive(parts, symbol_index=True))
    return path


def test_a_damaged_member_fails_the_archive_by_default(tmp_path):
    path = damaged_archive(tmp_path)
    result = run_cli(path, "-o", tmp_path / "out.txt")
    assert_one_line(result, path, "member 'tile_2.elf': not an ELF file (starts with b'garbage,') "
                                  "(at byte offset 3102)")
    assert not (tmp_path / "out.txt").exists()


def test_skip_bad_members_keeps_tile_ids_and_invents_nothing(tmp_path):
    path = damaged_archive(tmp_path)
    report = memreport.read(path, skip_bad_members=True)
    assert [(s.tile, s.member) for s in report.skipped] == [(2, "tile_2.elf"), (4, "tile_4.elf")]
    assert report.skipped[1].reason == ("section header table at 1524 lies past the end of the file (100 bytes) "
                                        "(at byte offset 5016)")
    assert report.per_tile == "partial" and report.num_tiles == 6
    assert report.known.tolist() == [True, True, False, True, False, True]
    assert report.excluding_gaps[[3, 5]].tolist() == [16_310, 665_486]  # later tiles keep their ids
    assert report.tiles_out_of_memory == 1
    assert sorted(t.tile for t in report.top_tiles(10)) == [0, 1, 3, 5]  # unknown tiles are never ranked
    assert report.histogram().total == 4
    assert all(col.get(2) is None and col.get(4) is None for col in report.breakdown.values())

    doc = json.loads(run_cli(path, "--skip-bad-members", "--format", "json").stdout)["reports"][0]
    assert doc["per_tile"] == "partial"
    assert [(s["tile"], s["member"]) for s in doc["skipped_members"]] == [(2, "tile_2.elf"), (4, "tile_4.elf")]
    assert sum(b["count"] for b in doc["histogram"]["bins"]) == 4  # the unknown tiles are in no bin
    assert any(note.startswith("2 damaged member(s) skipped (--skip-bad-members): their tiles' bytes are unknown")
               for note in doc["notes"])

    rows = run_cli(path, "--skip-bad-members", "--format", "csv").stdout.splitlines()
    assert rows[3].startswith("2,0,tile_2.elf,,,,")  # tile 2: its member, no figures
    assert rows[4].startswith("3,0,tile_3.elf,16310,,false,")

    text_out = run_cli(path, "--skip-bad-members").stdout
    assert "tile 2 ('tile_2.elf': not an ELF file (starts with b'garbage,') (at byte offset 3102))" in flat(text_out)


def test_skip_bad_members_in_diff_compares_known_tiles_only(tmp_path):
    path = damaged_archive(tmp_path)
    result = run_cli("diff", path, path, "--skip-bad-members", "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["compared_tiles"] == 4
    assert any("2 tile(s) of unknown bytes (damaged members skipped)" in note for note in doc["notes"])


def test_skip_bad_members_never_hides_a_truncated_archive(tmp_path):
    data, suffix, message = CASES["ar_truncated_member"]
    path = tmp_path / f"cut{suffix}"
    path.write_bytes(data)
    assert_one_line(run_cli(path, "--skip-bad-members"), path, message)


def test_skip_bad_members_with_every_member_damaged(tmp_path):
    path = tmp_path / "all_bad.a"
    path.write_bytes(ar_archive([("a.elf", b"junk"), ("b.elf", b"more junk")]))
    assert_one_line(run_cli(path, "--skip-bad-members"), path,
                    "no member could be read (member 'a.elf': not an ELF file (starts with b'junk') "
                    "(at byte offset 68))")


def test_read_options_default_fails_on_damage():
    assert ReadOptions().skip_bad_members is False
