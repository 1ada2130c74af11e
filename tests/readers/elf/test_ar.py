"""The ar reader: every layout, checked against pyelftools and GNU/LLVM ``size -A``."""
from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys

import pytest
from click.testing import CliRunner

import memreport
from memreport.cli import main
from memreport.errors import ReadError, Truncated, UnexpectedError
from memreport.readers.elf import ar
from memreport.readers.elf.ar import iter_members
from memreport.readers.elf.fileview import FileView, LeasedMapping
from tests.conftest import archive_members, needs_gcc, needs_size, pyelftools_sections, size_a, traced_peak
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
    with pytest.raises(ReadError, match=r"thin\.a: member 'x\.o': thin archive member cannot be read"):
        memreport.read(tmp_path / "thin.a")


# ---------------------------------------------------------------- files that change, large members (issue #16)

def sparse_archive(path, text_bytes: int) -> None:
    """An archive of one tile ELF whose ``.text`` is ``text_bytes`` of zeros, written as a hole: a file of
    hundreds of MB that takes no disk."""
    names = b"\0.text\0.shstrtab\0"
    shstr_at = 52 + text_bytes
    shoff = shstr_at + 20
    total = shoff + 3 * 40
    ident = b"\x7fELF\x01\x01\x01" + bytes(9)
    ehdr = ident + struct.pack("<HHIIIIIHHHHHH", 2, 248, 1, 0, 0, shoff, 0x2, 52, 0, 0, 40, 3, 2)
    table = bytes(40) + struct.pack("<10I", 1, 1, 6, 0, 52, text_bytes, 0, 0, 4, 0) \
        + struct.pack("<10I", 7, 3, 0, 0, shstr_at, len(names), 0, 0, 1, 0)
    with open(path, "wb") as f:
        f.write(b"!<arch>\n" + b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (b"big.elf/", 0, 0, 0, b"644", total) + ehdr)
        f.seek(8 + 60 + shstr_at)
        f.write(names.ljust(20, b"\0") + table)


def test_a_member_larger_than_a_window_is_read_only_where_needed(tmp_path):
    path = tmp_path / "big.a"
    sparse_archive(path, 300 << 20)
    report, peak = traced_peak(lambda: memreport.read(path))
    assert report.excluding_gaps.tolist() == [300 << 20]
    assert peak < 3 * ar.BATCH_BYTES  # a window and the one read ahead, never the member


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_an_address_space_smaller_than_the_archive_reads_it(tmp_path):
    """``ulimit -v`` below the file's size: nothing maps the file, so it reads (it was an 'OSError ... bug')."""
    path = tmp_path / "big.a"
    sparse_archive(path, 1 << 30)
    code = ("import re, resource, memreport\n"
            "size = int(re.search(r'VmSize:\\s+(\\d+)', open('/proc/self/status').read()).group(1)) * 1024\n"
            "limit = size + (200 << 20)\n"
            "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
            f"print(memreport.read({str(path)!r}).excluding_gaps.tolist())\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, f"[{1 << 30}]\n", "")


def test_an_archive_truncated_while_it_is_copied_is_a_read_error_not_a_crash(tmp_path):
    """A CI job rewriting archive.a in place mid-read: one ReadError (the mapped file died of SIGBUS). Where no
    read lease can be had, windows are copied with pread, and a read past the new end says the file shrank."""
    path = tmp_path / "rewritten.a"
    path.write_bytes(ar_archive([(f"t{i}.elf", tile_elf(i, 3000 + i)) for i in range(40)]))
    code = ("import os, memreport\n"
            "from memreport.readers import ReadOptions, read_path\n"
            "from memreport.readers.elf import ar\n"
            "ar.BATCH_MEMBERS, ar.BATCH_BYTES = 4, 7000\n"
            "ar.LeasedMapping.open = classmethod(lambda cls, fd, size: None)  # no lease: copied windows\n"
            f"path = {str(path)!r}\n"
            "def rewrite(done, total):\n"
            "    os.truncate(path, 5000)\n"
            "try:\n"
            "    read_path(path, ReadOptions(progress=rewrite))\n"
            "except memreport.ReadError as exc:\n"
            "    print(type(exc).__name__, exc)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"FileChanged {path}: the file shrank while it was read (")
    assert "bytes when opened, 5,000 bytes now): was it rewritten in place? (at byte offset" in result.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="read leases are Linux's")
def test_a_writer_waits_for_the_mapped_read_and_nothing_crashes(tmp_path):
    """Under a read lease the archive is mapped: another process truncating it waits until the reader lets go
    of the mapping (it sees the lease break between batches) and copies the rest, which then fails or reads
    the old bytes; never SIGBUS."""
    path = tmp_path / "rewritten.a"
    path.write_bytes(ar_archive([(f"t{i}.elf", tile_elf(i, 3000 + i)) for i in range(40)]))
    code = ("import fcntl, os, subprocess, sys, time, memreport\n"
            "from memreport.readers import ReadOptions, read_path\n"
            "from memreport.readers.elf import ar\n"
            "ar.BATCH_MEMBERS, ar.BATCH_BYTES, ar.MAPPED_BYTES = 4, 7000, 7000\n"
            f"path = {str(path)!r}\n"
            "opened = []\n"
            "real = ar.LeasedMapping.open\n"
            "def spy(cls, fd, size):\n"
            "    mapping = real(fd, size)\n"
            "    opened.append(mapping)\n"
            "    return mapping\n"
            "ar.LeasedMapping.open = classmethod(spy)\n"
            "writer = []\n"
            "def rewrite(done, total):\n"
            "    if writer:\n"
            "        return\n"
            "    writer.append(subprocess.Popen([sys.executable, '-c', f'import os; os.truncate({path!r}, 5000)']))\n"
            "    deadline = time.monotonic() + 20\n"
            "    while not opened[0].broken() and time.monotonic() < deadline:  # the writer is waiting\n"
            "        time.sleep(0.01)\n"
            "try:\n"
            "    reports = read_path(path, ReadOptions(progress=rewrite))\n"
            "    print('read', reports[0].num_tiles)\n"
            "except memreport.ReadError as exc:\n"
            "    print(type(exc).__name__)\n"
            "print('mapped', opened[0] is not None, 'writer', writer[0].wait(timeout=20))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    outcome, mapped = result.stdout.splitlines()
    assert outcome in ("read 40", "FileChanged") and mapped == "mapped True writer 0"
    assert path.stat().st_size == 5000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="read leases are Linux's")
@pytest.mark.parametrize("stage", ["scan", "walk"])
def test_a_mapped_archive_truncated_after_its_lease_was_lost_is_exit_1_not_sigbus(tmp_path, stage):
    """Issue #26 item 1, for real: memreport stopped past the lease-break time loses its lease (the kernel takes
    it back: here the mapping is made without one, and nothing says it broke), a writer truncates the file,
    and the mapped scan touches a page past the new end: SIGBUS, in the child that scans, which the command
    line reports as one line and exit 1. ``stage`` is where the fault strikes: the section tables of a batch
    (the bulk scan) or the next member headers (the walk)."""
    path = tmp_path / "stalled.a"
    path.write_bytes(ar_archive([(f"t{i}.elf", tile_elf(i, 3000 + i)) for i in range(40)]))
    size = path.stat().st_size
    code = ("import mmap, os, sys\n"
            "from memreport.cli import main\n"
            "from memreport.readers.elf import ar, fileview, members\n"
            "ar.BATCH_MEMBERS, ar.BATCH_BYTES, ar.MAPPED_BYTES = 4, 7000, 7000\n"
            f"path = {str(path)!r}\n"
            "def unleased(cls, fd, size):  # a lease already lost: the mapping stays, no writer waits any more\n"
            "    return cls(fd, mmap.mmap(fd, size, access=mmap.ACCESS_READ))\n"
            "fileview.LeasedMapping.open = classmethod(unleased)\n"
            "fileview.LeasedMapping.broken = lambda self: False\n"
            "calls = []\n"
            f"real = {'ar.scan_many' if stage == 'scan' else 'members.walk'}\n"
            "def stalled(buf, *args):\n"
            "    calls.append(os.getpid())\n"
            "    if len(calls) == 2:  # the writer went on meanwhile\n"
            "        os.truncate(path, 5000)\n"
            "    return real(buf, *args)\n"
            f"{'ar.scan_many' if stage == 'scan' else 'ar.walk'} = stalled\n"
            "sys.argv = ['memreport', path]\n"
            "main()\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout) == (1, ""), result.stderr
    assert result.stderr == (f"memreport: {path}: the file changed while it was read ({size:,} bytes when opened, "
                             "5,000 bytes now): was it rewritten in place?\n")


def test_the_mapped_scan_runs_in_a_child_and_reads_what_the_copies_read(tmp_path):
    """The mapped scan (in a child process) and the copied windows give the same report, progress included."""
    path = tmp_path / "big.a"
    path.write_bytes(ar_archive([(f"t{i}.elf", tile_elf(i, 3000 + i, 64, 100 + i)) for i in range(40)]))
    code = ("import os, memreport\n"
            "from memreport.readers import ReadOptions, read_path\n"
            "from memreport.readers.elf import ar, isolated\n"
            "ar.BATCH_MEMBERS, ar.BATCH_BYTES, ar.MAPPED_BYTES = 4, 7000, 7000\n"
            "children, seen = [], []\n"
            "real = isolated.run\n"
            "isolated.run = lambda work, progress: children.append(1) or real(work, progress)\n"
            f"mapped = read_path({str(path)!r}, ReadOptions(progress=lambda d, t: seen.append((os.getpid(), d))))[0]\n"
            "mapped_seen = list(seen)\n"
            "ar.LeasedMapping.open = classmethod(lambda cls, fd, size: None)\n"
            "seen.clear()\n"
            f"copied = read_path({str(path)!r}, ReadOptions(progress=lambda d, t: seen.append((os.getpid(), d))))[0]\n"
            "print(len(children), mapped.excluding_gaps.tolist() == copied.excluding_gaps.tolist(), "
            "mapped.tile_names == copied.tile_names, mapped_seen == seen, {p for p, _ in seen} == {os.getpid()}, "
            "mapped.members.starts.tolist() == copied.members.starts.tolist(), len(seen))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "1 True True True True True 11\n"


# ---------------------------------------------------------------- thin archives (issue #16)

def thin_archive(*names: bytes, size: int = 460) -> bytes:
    """A thin archive naming ``names`` (through the ``//`` table, as GNU ar writes long names)."""
    table = b"".join(name + b"/\n" for name in names)
    out = b"!<thin>\n" + b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (b"//", 0, 0, 0, b"", len(table)) + table
    out += b"\n" * (len(out) % 2)
    at = 0
    for name in names:
        out += b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (b"/%d" % at, 0, 0, 0, b"644", size)
        at += len(name) + 2
    return out


@pytest.fixture
def thin_dir(tmp_path):
    """build/ with a thin archive's tile in build/tiles/, and a secret beside build/."""
    (tmp_path / "build" / "tiles").mkdir(parents=True)
    (tmp_path / "build" / "tiles" / "t0.elf").write_bytes(tile_elf(0, 100))
    (tmp_path / "secret.txt").write_text("password=hunter2\n")
    (tmp_path / "build" / "notes.txt").write_text("token=abc123\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "t1.elf").write_bytes(tile_elf(1, 200))
    (tmp_path / "build" / "t1.elf").symlink_to(tmp_path / "elsewhere" / "t1.elf")  # links out of build/
    (tmp_path / "build" / "out").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "build" / "inside.elf").symlink_to(tmp_path / "build" / "tiles" / "t0.elf")  # a link inside
    return tmp_path


@pytest.mark.parametrize("name,kind", [(b"/etc/passwd", "an absolute path"),
                                       (b"../secret.txt", "a path"),
                                       (b"tiles/../../secret.txt", "a path"),
                                       (b"../../../../../../proc/self/environ", "a path"),
                                       (b"t1.elf", "a symbolic link to a path"),
                                       (b"out/t1.elf", "a symbolic link to a path"),
                                       (b"tiles/../out/t1.elf", "a symbolic link to a path")])
def test_thin_members_must_stay_in_the_archive_directory(thin_dir, name, kind):
    """The check is on the resolved path (issue #26 item 15): a symbolic link beside the archive, to a file or a
    directory outside, is refused as the path it leads to would be; links that stay inside are followed."""
    path = thin_dir / "build" / "thin.a"
    path.write_bytes(thin_archive(b"inside.elf", name))
    with pytest.raises(ReadError) as caught:
        memreport.read(path)
    assert str(caught.value) == (
        f"{path}: member {name.decode()!r}: thin archive member is {kind} outside the archive's directory "
        f"({thin_dir / 'build'}): memreport reads thin members only there (--thin-root DIR widens it)")


def test_thin_members_inside_the_directory_are_read(thin_dir):
    path = thin_dir / "build" / "thin.a"
    path.write_bytes(thin_archive(b"tiles/t0.elf", b"./tiles/../tiles/t0.elf", b"../build/tiles/t0.elf"))
    report = memreport.read(path)
    assert report.format == "thin-archive"
    assert report.excluding_gaps.tolist() == [100, 100, 100]


def test_thin_root_widens_where_members_may_lie(thin_dir):
    path = thin_dir / "build" / "thin.a"
    path.write_bytes(thin_archive(b"inside.elf", b"t1.elf", b"out/t1.elf"))  # symbolic links out of build/
    assert memreport.read(path, thin_root=thin_dir).excluding_gaps.tolist() == [100, 200, 200]
    path.write_bytes(thin_archive(b"tiles/t0.elf", b"../elsewhere/t1.elf"))
    assert memreport.read(path, thin_root=thin_dir).excluding_gaps.tolist() == [100, 200]
    with pytest.raises(ReadError, match=r"outside the thin root .*/build/tiles: memreport reads"):
        memreport.read(path, thin_root=thin_dir / "build" / "tiles")
    result = CliRunner().invoke(main, [str(path), "--thin-root", str(thin_dir), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1:] == ["0,0,tiles/t0.elf,100,,false,100,42,16,26",
                                              "1,0,../elsewhere/t1.elf,200,,false,200,43,17,26"]


def test_a_thin_member_is_never_quoted(thin_dir):
    path = thin_dir / "build" / "thin.a"
    path.write_bytes(thin_archive(b"notes.txt"))
    with pytest.raises(ReadError) as caught:
        memreport.read(path)
    assert str(caught.value) == f"{path}: member 'notes.txt': not an ELF file"
    path.write_bytes(thin_archive(b"../secret.txt"))
    with pytest.raises(ReadError) as caught:
        memreport.read(path, thin_root=thin_dir)
    assert str(caught.value) == f"{path}: member '../secret.txt': not an ELF file"


def test_a_nul_in_a_thin_member_name_is_a_read_error(thin_dir):
    path = thin_dir / "build" / "thin.a"
    path.write_bytes(thin_archive(b"tiles/t0\0.elf"))
    with pytest.raises(ReadError) as caught:
        memreport.read(path)
    assert not isinstance(caught.value, UnexpectedError)
    assert str(caught.value) == f"{path}: member 'tiles/t0\\x00.elf': a thin archive member's path cannot hold a " \
                                "NUL byte"


def test_thin_members_are_read_only_as_far_as_the_scan_needs(thin_dir):
    """A 68-byte archive naming a 1 GiB file (three times) costs the headers, not 3 GB."""
    sparse_archive(thin_dir / "build" / "whole.a", 1 << 30)
    with open(thin_dir / "build" / "whole.a", "rb") as f:  # the member alone: an ELF of 1 GiB, mostly hole
        f.seek(68)
        head = f.read(52)
    member = thin_dir / "build" / "huge.elf"
    with open(member, "wb") as out, open(thin_dir / "build" / "whole.a", "rb") as f:
        out.write(head)
        f.seek(68 + 52 + (1 << 30))
        out.seek(52 + (1 << 30))
        out.write(f.read())
    path = thin_dir / "build" / "thin.a"
    path.write_bytes(thin_archive(b"huge.elf", b"huge.elf", b"huge.elf", size=999))  # the header's size is ignored
    report, peak = traced_peak(lambda: memreport.read(path))
    assert report.excluding_gaps.tolist() == [1 << 30] * 3
    assert peak < 2 << 20


def test_a_long_member_name_is_shortened_in_messages(tmp_path):
    name = "tile_" + "x" * 5000 + ".elf"
    path = tmp_path / "long.a"
    path.write_bytes(ar_archive([(name, b"not an ELF file, just text")]))
    with pytest.raises(ReadError) as caught:
        memreport.read(path)
    message = str(caught.value)
    assert len(message) < 400
    assert message.startswith(f"{path}: member 'tile_{'x' * 52}[...]{'x' * 53}.elf': not an ELF file (starts with")


@pytest.mark.parametrize("skip", [False, True])
def test_tile_ids_past_the_narrow_rows_are_refused_not_wrapped(tmp_path, monkeypatch, skip):
    """Section rows keep tile ids as int32; an archive with more members (long past any IPU system) is a
    ReadError before an id could wrap, on the batched path and member by member (a damaged one skipped)."""
    members = [(f"t{i}", tile_elf(i, 8)) for i in range(5)] + ([("bad", b"not an elf")] if skip else [])
    path = tmp_path / "many.a"
    path.write_bytes(ar_archive(members))
    monkeypatch.setattr(ar, "MAX_ROW_TILE", 4)
    with pytest.raises(ReadError, match=r"^.*more than 4 members: beyond any IPU system \(at most 2,097,152 tiles\)$"):
        memreport.read(path, skip_bad_members=skip)
    monkeypatch.setattr(ar, "MAX_ROW_TILE", 6)
    assert memreport.read(path, skip_bad_members=skip).num_tiles == len(members)




def mapped_kib(path) -> int:
    """How much of the file at ``path`` this process has mapped in memory (its mapping's Rss), in KiB."""
    with open("/proc/self/smaps") as maps:
        lines = maps.read().splitlines()
    at = next(i for i, line in enumerate(lines) if line.endswith(str(path)))
    return int(next(line for line in lines[at + 1:] if line.startswith("Rss:")).split()[1])


def test_the_mapped_scan_leaves_no_page_of_the_archive_mapped(tmp_path, monkeypatch):
    """The kernel maps pages around each fault (fault-around, large folios): pages of windows already released
    come back mapped while the next are scanned; the scan's end releases all it went over before its tiles are
    sent (a pod's run kept 6 MB of its archive mapped with windows of 32 MiB, 49 MB with windows of 4 MiB)."""
    if not os.path.exists("/proc/self/smaps"):
        pytest.skip("no /proc/self/smaps to count mapped pages by")
    path = tmp_path / "pages.a"
    path.write_bytes(ar_archive([(f"t{i}.elf", tile_elf(i, 9000 + i, 64, 100)) for i in range(300)]))
    monkeypatch.setattr(ar, "MAPPED_BYTES", 300_000)  # 10 windows, their ends mid-way through the kernel's blocks
    with open(path, "rb") as f:
        view = FileView(f.fileno())
        mapping = LeasedMapping.open(f.fileno(), len(view))
        if mapping is None:
            pytest.skip("no read lease on this file system")
        try:
            found = ar._mapped_windows(view, mapping, ar._Tiles(str(path)), None)
            assert mapped_kib(path) == 0
        finally:
            mapping.close()
    assert found == (len(view), b"", False)
