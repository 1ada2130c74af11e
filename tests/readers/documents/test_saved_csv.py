"""memreport's CSV read back: every tile's figures exactly; the target only as far as the CSV says."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import memreport
from memreport.analysis import summarize_all
from memreport.errors import ReadError
from memreport.render.data.csv import render_csv
from tests.readers.documents.conftest import same_model
from tests.synth import hostile
from tests.synth import profile as synth_profile
from tests.synth.profile import profile_with_everything
from tests.synth.symbols import archive_with_damage

ROOT = Path(__file__).resolve().parents[3]


def csv_of(reports, tmp_path: Path, name: str = "t.csv") -> tuple[str, Path]:
    text = render_csv(summarize_all(reports))
    path = tmp_path / name
    path.write_text(text)
    return text, path


def test_an_archive_round_trips_once_its_target_is_given(tmp_path):
    original = memreport.read(ROOT / "sample_reports" / "mk2_1472_tiles.a")
    text, path = csv_of([original], tmp_path)
    again = memreport.read(path, arch="ipu2")
    assert again.format == "csv" and again.format_name == "memreport CSV" and again.breakdown_kind == "section"
    np.testing.assert_array_equal(again.excluding_gaps, original.excluding_gaps)
    assert again.tile_names == original.tile_names and again.including_gaps is None
    # Which columns count is settled by their sums: .comment and the symbol and name tables are not memory.
    assert {n: c.counted for n, c in again.breakdown.items()} == {n: c.counted for n, c in original.breakdown.items()}
    assert csv_of([again], tmp_path, "again.csv")[0] == text
    plain = memreport.read(path)
    assert plain.target.bytes_per_tile is None and plain.target.tiles_per_ipu is None
    assert plain.notes == ("read from memreport's CSV: the source's format and target are not in it",
                           "bytes per tile unknown (a CSV does not hold it): give tile_memory= or arch= to count "
                           "out-of-memory tiles")  # read from Python: Python's spelling


def test_a_profile_keeps_regions_liveness_and_overlaps(tmp_path):
    path = tmp_path / "p.json"
    path.write_bytes(synth_profile.encode_json(profile_with_everything()))
    original = memreport.read(path)
    text, csv_path = csv_of([original], tmp_path)
    again = memreport.read(csv_path, tile_memory=638_976)
    assert again.target.tiles_per_ipu == 2 and again.target.num_ipus == 2  # rows span two IPUs
    assert again.breakdown_kind == "category" and list(again.regions) == list(original.regions)
    assert {n: c.counted for n, c in again.breakdown.items()} == {"variable": True, "vertexCode": True,
                                                                   "variable.overlapped": False,
                                                                   "liveness.alwaysLive": False,
                                                                   "liveness.notAlwaysLiveMax": False}
    np.testing.assert_array_equal(again.including_gaps, original.including_gaps)
    assert csv_of([again], tmp_path, "again.csv")[0] == text


def test_skipped_tiles_and_several_reports(tmp_path):
    damaged = memreport.read(archive_with_damage(tmp_path), skip_bad_members=True)
    other = memreport.read(archive_with_damage(tmp_path), skip_bad_members=True).evolve(source="other.a")
    text, path = csv_of([damaged, other], tmp_path)
    again = memreport.read_all(path, arch="ipu2")
    assert [r.source for r in again] == [str(tmp_path / "d.a"), "other.a"]
    assert [(s.tile, s.member) for s in again[0].skipped] == [(1, "t1")]
    assert again[0].skipped[0].reason == "skipped when the CSV was written (the CSV does not say why)"
    np.testing.assert_array_equal(again[0].excluding_gaps, damaged.excluding_gaps)
    assert csv_of(again, tmp_path, "again.csv")[0] == text


def test_names_written_after_a_quote_read_back_whole(tmp_path):
    """Issue 33 item 10: members, categories, sources and modules that start like a formula (and one that starts
    with the quote) are written after a quote for a spreadsheet, and read back as they were."""
    (tmp_path / "p.json").write_bytes(synth_profile.encode_json(hostile.profile(hostile.SPREADSHEET)))
    (tmp_path / "s.a").write_bytes(hostile.archive(hostile.SPREADSHEET))
    profile = memreport.read(tmp_path / "p.json").evolve(source="=p.json", module="@main")
    archive = memreport.read(tmp_path / "s.a").evolve(source="'s.a")
    text, path = csv_of([profile, archive], tmp_path)
    assert "'=SUM(1,2)" in text.splitlines()[0]
    again = memreport.read_all(path)
    assert [(r.source, r.module) for r in again] == [("=p.json", "@main"), ("'s.a", None)]
    assert list(again[0].breakdown)[:7] == list(hostile.SPREADSHEET)
    assert again[1].tile_names == list(hostile.SPREADSHEET)


def test_the_not_counted_column_states_which_sections_count_and_old_csvs_read_as_before(tmp_path):
    # Two columns that each add up to excluding_gaps: their sums cannot tell which counts.
    old = tmp_path / "old.csv"
    old.write_text("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory,.text,.copy\n0,,t0,10,,,10,10\n"
                   "1,,t1,20,,,20,20\n")
    before = memreport.read(old)
    assert {n: c.counted for n, c in before.breakdown.items()} == {".text": True, ".copy": True}
    assert "no set of breakdown columns adds up to excluding_gaps on every tile: every column is taken as " \
           "counted" in before.notes
    new = tmp_path / "new.csv"
    new.write_text("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory,.text,not_counted,.copy\n"
                   "0,,t0,10,,,10,10,10\n1,,t1,20,,,20,20,20\n")
    after = memreport.read(new)
    assert {n: c.counted for n, c in after.breakdown.items()} == {".text": True, ".copy": False}  # no marker item
    assert not any("adds up" in note for note in after.notes)
    assert render_csv(summarize_all([after])) == new.read_text()


def test_columns_that_add_up_to_no_total_are_all_counted_with_a_note(tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory,a,b\n0,,,10,,,3,4\n1,,,20,,,5,6\n")
    report = memreport.read(path)
    assert all(c.counted for c in report.breakdown.values())
    assert report.notes[0] == ("no set of breakdown columns adds up to excluding_gaps on every tile: every column is "
                               "taken as counted")


@pytest.mark.parametrize("body,message", [
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory\n", "the CSV holds a header and no tile row"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory\n3,0,,100,,\n7,0,,90,,\n",
     "line 2: the rows are not tiles 0, 1, 2... in order: a text summary's CSV holds only its detailed tiles"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory,tensor_elements\n0,0,,,,,5\n",
     "no tile has excluding_gaps: a tensor map's CSV counts elements, not bytes"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory\n0,0,,12x,,\n",
     "line 2: column 'excluding_gaps': '12x' is not a byte count"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory\n0,0,,12,,\n1,0,,12\n",
     "line 3: 4 cells for 6 columns"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory,v" + "x" * 200_000 + "\n",
     "line 1: not a CSV memreport wrote: field larger than field limit (131072)"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory\n0,0,,1,,\n1,1,,1,,\n2,0,,1,,\n",
     "line 3: tile 1 is on IPU 1, not 0 as 2 tiles per IPU would have it"),
])
def test_csvs_that_are_not_every_tile_are_refused(body, message, tmp_path):
    path = tmp_path / "x.csv"
    path.write_text(body)
    with pytest.raises(ReadError) as info:
        memreport.read(path)
    assert str(info.value).startswith(f"{path}: {message}")


def wide_csv(tiles: int, member: str = "t{}.elf") -> str:
    """A CSV as memreport writes one of a profile's reports: many small integer columns, a blank one."""
    from memreport.model import Column, Target, TileReport
    rng = np.random.default_rng(3)
    parts = {f"c{k}": rng.integers(0, 20_000, tiles) * (rng.random(tiles) > 0.3) for k in range(20)}
    report = TileReport("p.json", "json-profile", Target(num_tiles=tiles, tiles_per_ipu=tiles // 2, num_ipus=2),
                        sum(parts.values()), breakdown={k: Column(v) for k, v in parts.items()},
                        breakdown_kind="category", tile_names=[member.format(t) for t in range(tiles)])
    return render_csv(summarize_all([report]))


def same_reports(a, b) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        same_model(x, y)


def test_quoted_and_plain_csvs_and_windows_line_ends_read_the_same(tmp_path):
    """A member name with a comma makes the writer quote it: that CSV goes through csv.reader, the others are split
    by numpy; both give the same reports."""
    plain, quoted = tmp_path / "plain.csv", tmp_path / "quoted.csv"
    plain.write_text(wide_csv(300, "t{}.elf"))
    quoted.write_text(wide_csv(300, "t{},x.elf"))
    assert b'"t0,x.elf"' in quoted.read_bytes()
    a, b = memreport.read(plain), memreport.read(quoted)
    assert b.tile_names[:2] == ["t0,x.elf", "t1,x.elf"]
    same_reports([a], [b.evolve(tile_names=a.tile_names, source=a.source)])
    windows = tmp_path / "windows.csv"
    windows.write_bytes(plain.read_bytes().replace(b"\n", b"\r\n"))
    same_reports([a], [memreport.read(windows).evolve(source=str(plain))])


@pytest.mark.parametrize("quoted", [False, True])
@pytest.mark.parametrize("body,message", [
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory,a,a\n0,0,x,1,,,1,0\n",
     "line 1: column 'a' appears twice in the header"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory\n0,0,x,\u0663,,\n",
     "line 2: column 'excluding_gaps': '\u0663' is not a byte count"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory\n0,0,x,9999999999999999999,,\n",
     "line 2: column 'excluding_gaps': '9999999999999999999' is not a byte count"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory\n0,0,x,1,,\n1,0,x,-1,,\n",
     "line 3: column 'excluding_gaps': '-1' is not a byte count"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory\n0,0,x,1,,\n\n1,0,x,1,,\n",
     "line 3: 0 cells for 6 columns"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory\n0,0,x,1,,,\n", "line 2: 7 cells for 6 columns"),
    ("tile,ipu,member,excluding_gaps,including_gaps,out_of_memory\n0,0,\xff,1,,\n",
     "line 2: cannot read the CSV: not UTF-8 text (invalid start byte)"),
])
def test_cells_refused_alike_by_both_ways_of_reading(body, message, quoted, tmp_path):
    data = body.encode().replace("\xff".encode(), b"\xff")
    if quoted:  # a quoted cell somewhere makes it csv.reader's
        data = re.sub(rb"^(\d+,\d+,)([^,\n]*)", rb'\1"\2"', data, count=1, flags=re.M)
        assert b'"' in data
    path = tmp_path / "x.csv"
    path.write_bytes(data)
    with pytest.raises(ReadError) as info:
        memreport.read(path)
    assert str(info.value) == f"{path}: {message}"


def test_a_large_csv_reads_in_a_few_times_its_size(tmp_path):
    """csv.reader made a string of every cell and a list of every row: 20-35 times the file. Now the integer cells
    go straight to numpy."""
    from memreport.readers import read_path
    from tests.conftest import traced_peak
    path = tmp_path / "wide.csv"
    path.write_text(wide_csv(20_000))
    size = path.stat().st_size
    (report,), peak = traced_peak(lambda: read_path(path))
    assert report.num_tiles == 20_000 and report.breakdown["c3"].counted
    assert peak < 7 * size, (peak, size)  # 18 times before
