"""The batched archive scan (ar.py fast walk + elf_bulk) against the member-by-member reference.

The reference here is the straightforward reader the batched one replaced:
``iter_members`` + ``scan_elf`` per member and a per-section Python loop
building the columns. Every layout, batch boundaries, and thousands of
corrupted archives must give the same report or the same error.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from memreport.errors import ReadError
from memreport.model import ARCH_BY_EFLAGS, Column, MemoryReport, Target, TileReport
from memreport.readers import ReadOptions
from memreport.readers.elf import ar
from memreport.readers.elf.file import TileSections, scan_elf
from memreport.readers.elf.format import EM_GRAPHCORE_IPU, SHF_ALLOC
from memreport.readers.elf.members import long_names_at
from tests.synth.archive import ArchiveWriter, Section, ar_archive, bss, data, elf_file, note, text, tile_elf


def ipu_arch(tiles: list[TileSections], names: list[str]) -> str | None:
    """The architecture all tiles agree on, tile by tile (the oracle for elf_bulk.arch_of)."""
    arch = None
    for i, tile in enumerate(tiles):
        this = ARCH_BY_EFLAGS.get(tile.e_flags & 0xFF) if tile.machine == EM_GRAPHCORE_IPU else None
        this_name = this.name if this else None
        if i == 0:
            arch = this_name
        elif this_name != arch:
            raise ReadError(f"member {names[i]!r} is {this_name or 'not IPU code'} "
                            f"but member {names[0]!r} is {arch or 'not IPU code'}")
    return arch


def reference_report(path, options: ReadOptions = ReadOptions()) -> MemoryReport:
    """The archive reader as it was before batching: one member, one section at a time."""
    with open(path, "rb") as f:
        blob = f.read()
    names, tiles = [], []
    for member in ar.iter_members(blob):
        try:
            tile = scan_elf(blob, member.data_offset, member.size)
        except ReadError as exc:
            raise exc.located(member=member.name, path=str(path)) from None
        names.append(member.name)
        tiles.append(tile)
    if not tiles:
        raise ReadError("archive holds no members (an empty archive is not a report)", path=str(path))
    n = len(tiles)
    arch = ipu_arch(tiles, names)
    notes = ["an ELF archive holds no gap information: including gaps is unknown"]
    if options.arch and options.arch != arch:
        if arch:
            notes.append(f"--arch {options.arch} overrides the {arch} named by the ELF flags")
        arch = options.arch
    target = Target.for_arch(arch, n, options.tile_memory)
    if target.bytes_per_tile is None:
        notes.append("bytes per tile unknown (not IPU ELF): give --tile-memory or --arch to count "
                     "out-of-memory tiles")
    excluding = np.zeros(n, dtype=np.int64)
    # (name, allocated) -> tiles and sizes: a name both allocated and not somewhere takes two columns
    columns: dict[tuple[str, bool], tuple[list[int], list[int]]] = {}
    for i, tile in enumerate(tiles):
        seen: dict[tuple[str, bool], int] = {}
        for name, _, flags, size in tile.sections:
            key = (name, bool(flags & SHF_ALLOC))
            seen[key] = seen.get(key, 0) + size
            if flags & SHF_ALLOC:
                excluding[i] += size
        for key, size in seen.items():
            where, sizes = columns.setdefault(key, ([], []))
            where.append(i)
            sizes.append(size)
    labels = {(name, allocated): name if allocated or (name, True) not in columns else f"{name} (not allocated)"
              for name, allocated in columns}
    breakdown = {}
    for name, allocated in sorted(columns, key=lambda key: (not key[1], labels[key])):
        where, sizes = columns[name, allocated]
        values = np.zeros(n, dtype=np.int64)
        values[where] = sizes
        present = None
        if len(where) != n:
            present = np.zeros(n, dtype=bool)
            present[where] = True
        breakdown[labels[name, allocated]] = Column(values, present, counted=allocated)
    return TileReport(source=str(path), format="archive", target=target, excluding_gaps=excluding,
                        breakdown=breakdown, breakdown_kind="section", tile_names=names, notes=tuple(notes),
                        info={"members": n})


def outcome(read, path):
    """A comparable summary of a read: the report's every figure, or the error's type and text."""
    try:
        report = read(path)
    except ReadError as exc:
        return ("error", type(exc).__name__, str(exc))
    columns = [(name, col.values.tolist(), None if col.present is None else col.present.tolist(), col.counted)
               for name, col in report.breakdown.items()]
    return ("report", report.target, report.excluding_gaps.tolist(), columns, list(report.tile_names),
            report.notes, dict(report.info), report.format)


def batched(path):
    with open(path, "rb") as f:
        prefix = f.read(4096)
    return ar.read_archive(str(path), prefix, ReadOptions())[0]


@pytest.fixture(params=[(4096, 32 << 20, "map"), (3, 1 << 20, "map"), (1, 1, "map"), (2, 700, "map"),
                        (3, 1 << 20, "copy"), (2, 700, "copy"), (1, 1, "copy")],
                ids=["one-batch", "3-members", "1-member", "700-bytes", "3-members-copied", "700-bytes-copied",
                     "1-member-copied"])
def batches(request, monkeypatch):
    """Batch sizes, over the mapped archive (under a read lease) or over windows copied with pread."""
    monkeypatch.setattr(ar, "BATCH_MEMBERS", request.param[0])
    monkeypatch.setattr(ar, "BATCH_BYTES", request.param[1])
    monkeypatch.setattr(ar, "MAPPED_BYTES", request.param[1])
    if request.param[2] == "copy":
        monkeypatch.setattr(ar.LeasedMapping, "open", classmethod(lambda cls, fd, size: None))
    return request.param


def varied_members(rng: random.Random, count: int, long_names: bool = False,
                   mixed: bool = False) -> list[tuple[str, bytes]]:
    """Tiles of several shapes: different section sets, duplicates, ELF classes and byte orders
    (``mixed``: also names allocated on some tiles and not on others)."""
    members = []
    for i in range(count):
        shape = 6 if mixed and i == 0 else rng.randrange(7 if mixed else 6)
        if shape == 0:
            sections = [text(rng.randrange(1, 3000)), data(rng.randrange(0, 90)), bss(rng.randrange(10**6))]
        elif shape == 1:
            sections = [text(rng.randrange(1, 900)), note(rng.randrange(1, 50), ".debug_info"), note(9, ".rela.text")]
        elif shape == 2:
            sections = [text(17), text(33), data(5, ".rodata")]  # a duplicate name
        elif shape == 3:
            sections = [bss(4096)]
        elif shape == 4:
            sections = [Section(".text", 40, flags=0x6), Section(".data", 8, type=1, flags=0x3)]
        elif shape == 5:
            sections = [text(rng.randrange(1, 200)), bss(rng.randrange(1, 200), ".bss.big"),
                        note(3, "é.comment")]
        else:  # names allocated here and not elsewhere (.data), or both here (.foo)
            sections = [text(rng.randrange(1, 99)), note(rng.randrange(1, 9000), ".data"),
                        data(rng.randrange(1, 40), ".foo"), note(rng.randrange(1, 40), ".foo")]
        blob = elf_file(sections, elfclass=rng.choice([32, 32, 32, 64]), little=rng.random() < 0.8,
                        e_flags=0x2)
        if rng.random() < 0.3:
            blob += b"\0"  # odd sizes exercise the padding
        name = f"tile_{i:04d}_with_a_long_member_name.elf" if long_names and i % 2 else f"t{i}.elf"
        members.append((name, blob))
    return members


@pytest.mark.parametrize("bsd", [False, True])
@pytest.mark.parametrize("symbol_index", [False, True])
@pytest.mark.parametrize("long_names", [False, True])
def test_layouts_agree_with_the_reference(tmp_path, batches, bsd, symbol_index, long_names):
    rng = random.Random(hash((bsd, symbol_index, long_names)) & 0xFFFF)
    path = tmp_path / "a.a"
    path.write_bytes(ar_archive(varied_members(rng, 23, long_names, mixed=True), bsd=bsd,
                                symbol_index=symbol_index))
    expected = outcome(reference_report, path)
    assert expected[0] == "report"
    assert any(name.endswith(" (not allocated)") for name, *_ in expected[3])
    assert outcome(batched, path) == expected


def test_uniform_pod_like_archive_agrees(tmp_path, batches):
    path = tmp_path / "pod.a"
    with open(path, "wb") as f:
        writer = ArchiveWriter(f)
        for i in range(40):
            writer.add(f"tile_{i:05d}.elf", tile_elf(i, 1000 + 37 * i, 24, 5000 + i))
    assert outcome(batched, path) == outcome(reference_report, path)


# Trials per window kind: each mapped scan runs in a forked child (readers/elf/isolated.py), so the mapped
# windows cost about three times the copied ones. `scripts/fuzz.py --formats archive` fuzzes archives for longer.
TRIALS = {"map": 400, "copy": 800}


@pytest.mark.parametrize("windows", ["map", "copy"])
def test_corrupted_archives_fail_or_read_exactly_like_the_reference(tmp_path, monkeypatch, windows):
    """Random byte damage anywhere (headers, ELF headers, section tables): the same report or error."""
    monkeypatch.setattr(ar, "BATCH_MEMBERS", 4)
    monkeypatch.setattr(ar, "BATCH_BYTES", 3000)
    monkeypatch.setattr(ar, "MAPPED_BYTES", 3000)
    if windows == "copy":
        monkeypatch.setattr(ar.LeasedMapping, "open", classmethod(lambda cls, fd, size: None))
    rng = random.Random(7)
    base = bytearray(ar_archive(varied_members(rng, 9, long_names=True), symbol_index=True))
    path = tmp_path / "bad.a"
    differ = 0
    for trial in range(TRIALS[windows]):
        blob = bytearray(base)
        for _ in range(rng.choice([1, 1, 2, 4])):
            at = rng.randrange(8, len(blob))
            blob[at] = rng.choice([0, 0x20, 0x2F, 0x30 + rng.randrange(10), 0x0A, 0xFF, rng.randrange(256)])
        if rng.random() < 0.1:
            blob = blob[:rng.randrange(8, len(blob))]
        path.write_bytes(bytes(blob))
        expected = outcome(reference_report, path)
        differ += expected[0] == "error"
        assert outcome(batched, path) == expected, trial
    assert differ > TRIALS[windows] // 6  # the damage does reach the checks


def test_a_nobits_section_name_table_fails_both_scans_alike(tmp_path, batches):
    """The batched scan leaves it to scan_elf, which refuses it instead of reading past the member."""
    from tests.synth.archive import nobits_name_table
    path = tmp_path / "nobits.a"
    members = [(f"t{i}.elf", tile_elf(i, 100 + i)) for i in range(5)]
    members[3] = ("t3.elf", nobits_name_table(members[3][1]))
    path.write_bytes(ar_archive(members))
    expected = outcome(reference_report, path)
    assert expected[:2] == ("error", "ReadError")
    assert "member 't3.elf': section-name table (section 3) is NOBITS: it holds no names" in expected[2]
    assert outcome(batched, path) == expected


def test_progress_is_reported_every_batch_of_members(tmp_path, monkeypatch):
    monkeypatch.setattr(ar, "BATCH_MEMBERS", 4)
    path = tmp_path / "p.a"
    path.write_bytes(ar_archive([(f"t{i}", tile_elf(i, 100 + i)) for i in range(10)]))
    calls = []
    ar.read_archive(str(path), path.read_bytes()[:4096], ReadOptions(progress=lambda d, t: calls.append((d, t))))
    headers = [m.header_offset for m in ar.iter_members(path.read_bytes())]
    size = path.stat().st_size
    assert calls == [(headers[3], size), (headers[7], size), (size, size)]


def reference_long_names(table: bytes, starts: list[int]) -> tuple[list[str], int]:
    """member_at's resolution of ``/N``, one offset at a time, up to the first it rejects."""
    names = []
    for start in starts:
        end = table.find(b"\n", start)
        if start >= len(table) or end < 0:
            break
        names.append(table[start:end].rstrip(b"/").decode("utf-8", "replace"))
    return names, len(names)


def test_long_names_at_agrees_with_the_reference_on_odd_tables():
    """Names with '/' inside and runs of trailing slashes, empty names, a table without its final newline,
    offsets into the middle of a name, at its newline, at and past the table's end, broken UTF-8."""
    rng = random.Random(15)
    pieces = [b"a", b"tile", b"/", b"//", b"\n", b"/\n", b"\xc3", b"\xa9", b"\xff", b"\xe2\x82", b" ", b"\0"]
    for trial in range(3000):
        table = b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 30)))
        starts = [rng.randrange(0, len(table) + 3) for _ in range(rng.randrange(0, 12))]
        if rng.random() < 0.5:  # mostly in range, the way real headers point
            starts = [s % max(len(table), 1) for s in starts]
        got = long_names_at(table, np.array(starts, dtype=np.int64))
        assert got == reference_long_names(table, starts), (trial, table, starts)


def raw_archive(members: list[tuple[bytes, bytes]]) -> bytes:
    """An archive of (header name field, data) exactly as given: odd tables a writer would never make."""
    out = bytearray(b"!<arch>\n")
    for name, payload in members:
        out += b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name, 0, 0, 0, b"100644", len(payload)) + payload
        out += b"\n" * (len(out) % 2)
    return bytes(out)


ODD_TABLES = {
    "slash inside a name": [(b"//", b"dir/sub/tile_0_long_name.elf/\nx/y//\n"), (b"/0", "t"), (b"/30", "t")],
    "no final newline": [(b"//", b"tile_0_long_name.elf/\ntile_1_long_name.elf/"), (b"/0", "t"), (b"/22", "t")],
    "offset past the table": [(b"//", b"tile_0_long_name.elf/\n"), (b"/0", "t"), (b"/999", "t")],
    "offset mid-name": [(b"//", b"tile_0_long_name.elf/\n"), (b"/5", "t"), (b"/21", "t"), (b"/0", "t")],
    "leading zeros": [(b"//", b"tile_0_long_name.elf/\n"), (b"/000", "t"), (b"/00000000000000", "t")],
    "no table": [(b"/0", "t")],
    "a second table": [(b"//", b"first_long_member.elf/\n"), (b"/0", "t"), (b"//", b"xx\nsecond_long_member/\n"),
                       (b"/3", "t"), (b"/0", "t")],
    "index and plain names": [(b"/", b"\0\0\0\0"), (b"//", b"tile_0_long_name.elf/\n"), (b"plain.elf", "t"),
                              (b"/0", "t"), (b"short.elf/", "t"), (b"__.SYMDEF", b"\0\0\0\0"), (b"x y/", "t")],
    "BSD names": [(b"__.SYMDEF SORTED", b"\0\0\0\0"), (b"#1/24", "bsd_tile_0_long_name.elf"),
                  (b"#1/19", "__.SYMDEF_64 SORTED"), (b"#1/3", "abc"), (b"plain", "t")],
    "broken UTF-8": [(b"//", b"tile_\xff_long_name.elf/\ntile_\xc3/\n"), (b"/0", "t"), (b"/24", "t"),
                     (b"\xc3\xa9t\xe2/", "t")],
    "a space and a digit": [(b"//", b"tile_0_long_name.elf/\n"), (b"/0 1", "t"), (b"/0", "t")],
}


@pytest.mark.parametrize("case", sorted(ODD_TABLES))
def test_odd_long_name_tables_read_exactly_like_the_reference(tmp_path, batches, case):
    """Every layout of names the bulk resolution meets reads (or fails) as the member-by-member path does."""
    rng = random.Random(case)
    members, tile = [], 0
    for name, payload in ODD_TABLES[case]:
        if payload == "t":  # a tile ELF; a BSD name's bytes sit before it
            payload = tile_elf(tile, rng.randrange(1, 500), rng.randrange(0, 40))
            tile += 1
        elif isinstance(payload, str):
            payload = payload.encode() + tile_elf(tile, rng.randrange(1, 500))
            tile += 1
        members.append((name, payload))
    path = tmp_path / "odd.a"
    path.write_bytes(raw_archive(members))
    expected = outcome(reference_report, path)
    assert outcome(batched, path) == expected


def test_long_names_resolve_alike_from_many_threads_at_once():
    """The walk keeps its ``//`` table's newline index between batches; archives are read from many threads
    at once, so each thread keeps its own: one table's index must never serve another's names."""
    import sys
    import threading

    tables = [b"".join(f"t{k}_{i:04d}.elf/\n".encode() for i in range(200)) for k in range(4)]
    starts = np.arange(0, 200 * 13, 13, dtype=np.int64)
    expected = [[f"t{k}_{i:04d}.elf" for i in range(200)] for k in range(4)]
    wrong: list[int] = []

    def resolve(k: int) -> None:
        for _ in range(100):
            names, count = long_names_at(tables[k], starts)
            if count != 200 or names != expected[k]:
                wrong.append(k)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=resolve, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == []
