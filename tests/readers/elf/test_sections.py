"""Section columns (sections.sections_report): what each tile's breakdown counts, and its bounded size."""
from __future__ import annotations

import tracemalloc

import numpy as np

import memreport
from memreport.readers.elf import sections
from tests.synth.archive import ar_archive, data, elf_file, note, text


def counted_sums(report) -> np.ndarray:
    return sum(c.values for c in report.breakdown.values() if c.counted)


def test_a_name_allocated_on_some_tiles_only_counts_where_it_is_allocated(tmp_path):
    path = tmp_path / "mixed.a"
    path.write_bytes(ar_archive([
        ("t0.elf", elf_file([text(100), data(50, ".foo")])),
        ("t1.elf", elf_file([text(100), note(7000, ".foo")])),            # the same name, not SHF_ALLOC
        ("t2.elf", elf_file([text(100), data(5, ".foo"), note(9, ".foo")])),  # both on one tile
    ]))
    report = memreport.read(path)
    assert report.excluding_gaps.tolist() == [150, 100, 105]
    foo, not_allocated = report.breakdown[".foo"], report.breakdown[".foo (not allocated)"]
    assert foo.counted and foo.values.tolist() == [50, 0, 5] and foo.present.tolist() == [True, False, True]
    assert not not_allocated.counted
    assert not_allocated.values.tolist() == [0, 7000, 9] and not_allocated.present.tolist() == [False, True, True]
    assert counted_sums(report).tolist() == report.excluding_gaps.tolist()
    top = {t.tile: t for t in report.top_tiles(3)}
    assert top[1].excluding_gaps == 100 and top[1].breakdown == {".text": 100}
    assert list(report.breakdown)[:2] == [".foo", ".text"]  # allocated columns first, then by name


def test_a_bare_elf_with_both_kinds_of_one_name_takes_two_columns(tmp_path):
    path = tmp_path / "tile.elf"
    path.write_bytes(elf_file([text(10), data(4, ".foo"), note(6, ".foo")]))
    report = memreport.read(path)
    assert report.breakdown[".foo"].values.tolist() == [4] and report.breakdown[".foo"].counted
    assert report.breakdown[".foo (not allocated)"].values.tolist() == [6]
    assert counted_sums(report).tolist() == report.excluding_gaps.tolist() == [14]


def test_a_section_named_like_the_split_column_keeps_its_own_column(tmp_path):
    path = tmp_path / "clash.a"
    path.write_bytes(ar_archive([("a", elf_file([data(4, ".foo"), note(5, ".foo (not allocated)")])),
                                 ("b", elf_file([note(6, ".foo")]))]))
    report = memreport.read(path)
    assert report.breakdown[".foo (not allocated)"].values.tolist() == [5, 0]
    assert report.breakdown[".foo (not allocated) (not allocated)"].values.tolist() == [0, 6]


def test_names_on_few_tiles_fold_into_two_columns_and_the_size_stays_bounded(tmp_path):
    """Every member its own section names: a column per name would be quadratic in the member count."""
    n = 1500
    path = tmp_path / "names.a"
    path.write_bytes(ar_archive([(f"m{i}", elf_file([text(100 + i % 7), data(1 + i % 13, f".d{i}"),
                                                     note(3, f".n{i}"), note(5)])) for i in range(n)]))
    tracemalloc.start()
    try:
        report = memreport.read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    names = 3 + 2 * n  # .text, .comment, .shstrtab, and two of its own per member
    budget = sections.MIN_CELLS  # 16 cells per section read is less, here
    kept = budget // n - 2
    assert len(report.breakdown) == kept + 2
    assert len(report.breakdown) * n <= budget + 2 * n
    assert peak < 2 * 9 * budget + (32 << 20), f"{peak:,} bytes at peak"
    # Kept: the names on every tile, then the allocated ones among the single-tile names.
    assert {".text", ".comment", ".shstrtab"} <= set(report.breakdown) and ".n0" not in report.breakdown
    other_alloc, other = report.breakdown["(other allocated sections)"], report.breakdown["(other sections)"]
    assert other_alloc.counted and not other.counted
    assert other.values.tolist() == [3] * n and other.present is None
    kept_d = [name for name in report.breakdown if name.startswith(".d")]
    assert len(kept_d) == kept - 3 and kept_d == sorted(kept_d)
    expected_other = [0 if f".d{i}" in report.breakdown else 1 + i % 13 for i in range(n)]
    assert other_alloc.values.tolist() == expected_other
    assert other_alloc.present.tolist() == [v > 0 for v in expected_other]
    # Exact: every tile's counted columns add up to its total, and every byte is in some column.
    assert counted_sums(report).tolist() == report.excluding_gaps.tolist()
    assert report.excluding_gaps.tolist() == [100 + i % 7 + 1 + i % 13 for i in range(n)]
    shstrtab = report.breakdown[".shstrtab"].values
    everything = sum(c.values for c in report.breakdown.values())
    assert (everything - shstrtab).tolist() == [100 + i % 7 + 1 + i % 13 + 3 + 5 for i in range(n)]
    folded = names - kept
    assert (f"{folded:,} of {names:,} section names (those on the fewest tiles) are summed per tile into "
            f"'(other allocated sections)' and '(other sections)'") in " ".join(report.notes)


def test_the_cell_budget_follows_the_input_between_its_bounds(tmp_path, monkeypatch):
    monkeypatch.setattr(sections, "MIN_CELLS", 10)
    path = tmp_path / "few.a"
    path.write_bytes(ar_archive([(f"m{i}", elf_file([text(10), data(i + 1, f".d{i}")])) for i in range(8)]))
    # 8 tiles x 10 names = 80 cells, under 16 per section read (24 rows): nothing folds.
    assert not any(name.startswith("(other") for name in memreport.read(path).breakdown)
    monkeypatch.setattr(sections, "CELLS_PER_ROW", 2)  # 48 cells: room for 6 columns, 4 named
    report = memreport.read(path)
    assert list(report.breakdown) == [".d0", ".d1", ".text", "(other allocated sections)", ".shstrtab"]
    assert report.breakdown["(other allocated sections)"].values.tolist() == [0, 0, 3, 4, 5, 6, 7, 8]
    assert counted_sums(report).tolist() == report.excluding_gaps.tolist()


def test_a_lone_part_of_rows_is_the_rows_never_a_copy():
    """A pod's mapped scan hands over one part of 750,000 rows (13 MB): joining it must not copy it."""
    part = sections.SectionRows.from_sections(0, [], sections.SectionNames())
    assert sections.SectionRows.concat([part]) is part


def test_the_columns_are_made_with_temporaries_narrower_than_the_rows():
    """400,000 rows (6.8 MB, 17 bytes each): what the report holds at its peak beyond its own columns stays
    within 0.9x the rows (0.67x; 1.13x when a row's column and slot were int64)."""
    n, per = 50_000, 8
    name = np.tile(np.arange(per, dtype=sections.NAME_ID), n)
    rows = sections.SectionRows(np.repeat(np.arange(n, dtype=sections.TILE_ID), per), name, name < 3,
                                np.arange(n * per, dtype=np.int64) % 97 + 1)
    rows_bytes = sum(a.nbytes for a in (rows.tile, rows.name, rows.alloc, rows.size))
    tile_names = [f"t{i}" for i in range(n)]
    tracemalloc.start()
    try:
        report = sections.sections_report("x.a", "archive", tile_names, np.full(n, 0xC3, np.int64),
                                          np.zeros(n, np.int64), rows, [f".s{i}" for i in range(per)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    columns = sum(c.values.nbytes + (0 if c.present is None else c.present.nbytes) for c in report.breakdown.values())
    beyond = peak - columns - report.excluding_gaps.nbytes
    assert beyond < 0.9 * rows_bytes, f"{beyond / rows_bytes:.3f}x the rows"
    assert list(report.breakdown) == [".s0", ".s1", ".s2", ".s3", ".s4", ".s5", ".s6", ".s7"]
    assert [c.counted for c in report.breakdown.values()] == [True] * 3 + [False] * 5
    assert report.excluding_gaps[:3].tolist() == [1 + 2 + 3, 9 + 10 + 11, 17 + 18 + 19]
