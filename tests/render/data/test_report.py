"""JSON (memreport/1) and CSV renderers: exact fields, nulls and blanks where unknown."""
from __future__ import annotations

import csv
import io
import json

import numpy as np

from memreport.analysis import summarize_all
from memreport.model import (
    Bin,
    Column,
    Histogram,
    PrintedSummary,
    SkippedMember,
    SummaryReport,
    Target,
    TileBytes,
    TileDetail,
    TileReport,
)
from memreport.render.data.csv import render_csv
from memreport.render.data.report import render_json


def archive_report(source="a.a"):
    return TileReport(
        source=source, format="archive", target=Target.for_arch("ipu2", 3),
        excluding_gaps=np.array([1000, 640_000, 5000], dtype=np.int64),
        breakdown={".text": Column(np.array([1000, 40_000, 5000])),
                   ".bss": Column(np.array([0, 600_000, 0]), np.array([False, True, False])),
                   ".comment": Column(np.array([3, 4, 5]), counted=False)},
        breakdown_kind="section", tile_names=["t0", "t1", "t2"])


def text_report():
    return SummaryReport(
        source="r.txt", format="poplar-text", module="main", target=Target(num_tiles=1216, tiles_per_ipu=1216,
                                                                           num_ipus=1, bytes_per_tile=262_144),
        printed=PrintedSummary(histogram=Histogram(1, (Bin(4, 5, 1215), Bin(5, 6, 1))),
                               max_including_gaps=TileBytes(0, 49_184), max_excluding_gaps=TileBytes(0, 5780),
                               tiles_out_of_memory=0, including_gaps=23_878_396, excluding_gaps=5_355_604),
        detailed_tiles=(TileDetail(0, 49_184, 5780, {"Stack": 3000, "Variables": 2780},
                                   {"non_interleaved": 5780, "interleaved": 0, "overflowed": 0}),))


def test_json_for_an_archive():
    doc = json.loads(render_json(summarize_all([archive_report()], top=2)))
    assert doc["schema"] == "memreport/1"
    (r,) = doc["reports"]
    assert {k: r[k] for k in ("source", "module", "format", "per_tile", "tiles_out_of_memory")} == {
        "source": "a.a", "module": None, "format": "archive", "per_tile": "complete", "tiles_out_of_memory": 1}
    assert r["target"] == {"arch": "ipu2", "num_ipus": 1, "tiles_per_ipu": 1472, "num_tiles": 3,
                           "bytes_per_tile": 638_976, "clock_hz": None, "type": None}
    assert r["totals"] == {"including_gaps": None, "excluding_gaps": 646_000}
    assert r["max_including_gaps"] is None
    assert r["max_excluding_gaps"] == {"tile": 1, "bytes": 640_000}
    assert r["histogram"]["bin_kib"] == 8 and r["histogram"]["bins"][0] == {"low_kib": 0, "high_kib": 8, "count": 2}
    assert sum(b["count"] for b in r["histogram"]["bins"]) == 3
    assert r["top_tiles"] == [
        {"tile": 1, "ipu": 0, "including_gaps": None, "excluding_gaps": 640_000, "out_of_memory": True,
         "breakdown": {".bss": 600_000, ".text": 40_000}, "member": "t1", "regions": None, "liveness": None,
         "stated_by": "per-tile", "stated_bytes_used": None, "symbols": None, "variables": None},
        {"tile": 2, "ipu": 0, "including_gaps": None, "excluding_gaps": 5000, "out_of_memory": False,
         "breakdown": {".text": 5000}, "member": "t2", "regions": None, "liveness": None,
         "stated_by": "per-tile", "stated_bytes_used": None, "symbols": None, "variables": None}]
    # No symbol table read for tile 1: its plan is by section (the fewest, then the smallest, closing 1,024 B).
    assert r["fit_plan"] == [{
        "tile": 1, "ipu": 0, "over_by": 1024,
        "items": [{"name": ".text", "kind": "section", "class": "always live", "bytes": 40_000, "frees": 40_000,
                   "exact": True}],
        "closes_gap": True, "exact": True, "budget": "limit", "frees": 40_000, "bytes_moved": 40_000,
        "optimal": True, "at_least": 1, "search": "exact", "source": "sections", "candidates": 2,
        "description": "To fit tile 1: free the 1,024 B over from .text (40,000 B, section, always live) (no symbol "
                       "of tile 1 was read: --tile 1 --symbols 20 lists them)."}]
    assert r["fit_plan_needs"] is None and r["fit_plan_headroom"] is None


def test_json_for_a_text_report_keeps_what_was_printed():
    (r,) = json.loads(render_json(summarize_all([text_report()])))["reports"]
    assert r["per_tile"] == "partial" and r["module"] == "main"
    assert r["totals"] == {"including_gaps": 23_878_396, "excluding_gaps": 5_355_604}
    assert r["max_including_gaps"] == {"tile": 0, "bytes": 49_184}
    assert r["histogram"] == {"bin_kib": 1, "bins": [{"low_kib": 4, "high_kib": 5, "count": 1215},
                                                     {"low_kib": 5, "high_kib": 6, "count": 1}]}
    assert r["top_tiles"][0]["breakdown"] == {"Stack": 3000, "Variables": 2780}
    assert r["detailed_tiles"][0]["regions"] == {"non_interleaved": 5780, "interleaved": 0, "overflowed": 0}


def test_csv_for_an_archive():
    rows = list(csv.reader(io.StringIO(render_csv(summarize_all([archive_report()])))))
    assert rows == [
        ["tile", "ipu", "member", "excluding_gaps", "including_gaps", "out_of_memory", ".text", ".bss", "not_counted",
         ".comment"],
        ["0", "0", "t0", "1000", "", "false", "1000", "", "3", "3"],
        ["1", "0", "t1", "640000", "", "true", "40000", "600000", "4", "4"],
        ["2", "0", "t2", "5000", "", "false", "5000", "", "5", "5"],
    ]


def test_an_archives_counted_sections_come_before_not_counted_and_the_not_counted_bytes():
    # Not-counted sections listed first, one named like the marker, one absent on a tile, a skipped member.
    report = TileReport(
        source="a.a", format="archive", target=Target.for_arch("ipu2", 3),
        excluding_gaps=np.array([1000, 0, 5000], dtype=np.int64), skipped=(SkippedMember(1, "t1", "damaged"),),
        breakdown={".symtab": Column(np.array([16, 0, 32]), counted=False),
                   ".text": Column(np.array([1000, 0, 5000])),
                   "not_counted": Column(np.array([0, 0, 7]), np.array([False, False, True]), counted=False)},
        breakdown_kind="section", tile_names=["t0", "t1", "t2"])
    rows = list(csv.reader(io.StringIO(render_csv(summarize_all([report])))))
    assert rows == [
        ["tile", "ipu", "member", "excluding_gaps", "including_gaps", "out_of_memory", ".text", "not_counted",
         ".symtab", "not_counted (section)"],
        ["0", "0", "t0", "1000", "", "false", "1000", "16", "16", ""],
        ["1", "0", "t1", "", "", "", "0", "", "0", ""],
        ["2", "0", "t2", "5000", "", "false", "5000", "39", "32", "7"],
    ]
    every_counted = TileReport(source="b.a", format="archive", target=Target.for_arch("ipu2", 1),
                               excluding_gaps=np.array([8], dtype=np.int64), breakdown={".text": Column(np.array([8]))},
                               breakdown_kind="section", tile_names=["t0"])
    assert render_csv(summarize_all([every_counted])).splitlines()[0].endswith(",out_of_memory,.text")


def test_csv_for_a_text_report_has_the_detailed_tiles():
    rows = list(csv.reader(io.StringIO(render_csv(summarize_all([text_report()])))))
    assert rows == [
        ["tile", "ipu", "member", "excluding_gaps", "including_gaps", "out_of_memory", "Stack", "Variables",
         "region.non_interleaved", "region.interleaved", "region.overflowed", "stated_by"],
        ["0", "0", "", "5780", "49184", "false", "3000", "2780", "5780", "0", "0", "detailed"],
    ]


def test_csv_of_several_reports_unions_columns_and_names_the_source():
    rows = list(csv.reader(io.StringIO(render_csv(summarize_all([archive_report("x.a"), text_report()])))))
    assert rows[0][-2:] == ["source", "module"]
    assert rows[0][6:10] == [".text", ".bss", "not_counted", ".comment"]
    assert rows[1][-2:] == ["x.a", ""] and rows[4][-2:] == ["r.txt", "main"]
    assert rows[1][6:10] == ["1000", "", "3", "3"]
    assert rows[4][6:10] == ["", "", "", ""] and len(rows) == 5


# ---------------------------------------------------------------- column names never collide (issue #16)

def colliding_archive():
    """Sections named like the CSV's own columns: tile, excluding_gaps, source, region.overflowed..."""
    n = 2
    return TileReport(
        source="c.a", format="archive", target=Target.for_arch("ipu2", n),
        excluding_gaps=np.array([60, 70], dtype=np.int64),
        breakdown={"tile": Column(np.array([10, 20])), "excluding_gaps": Column(np.array([30, 40])),
                   "source": Column(np.array([5, 6])), "tile (section)": Column(np.array([15, 4])),
                   "tensor_elements": Column(np.array([0, 0]), counted=False),
                   "region.overflowed": Column(np.array([1, 2]), counted=False)},
        breakdown_kind="section", regions={"overflowed": np.array([0, 9])}, tile_names=["m0", "m1"])


def test_csv_column_names_are_unique_and_keep_their_values():
    report = colliding_archive()
    text = render_csv(summarize_all([report]))
    header = text.splitlines()[0].split(",")
    assert len(header) == len(set(header))
    assert header == ["tile", "ipu", "member", "excluding_gaps", "including_gaps", "out_of_memory",
                      "tile (section) (section)", "excluding_gaps (section)", "source (section)", "tile (section)",
                      "not_counted", "tensor_elements (section)", "region.overflowed (section)", "region.overflowed"]
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["tile"], r["excluding_gaps"], r["tile (section) (section)"], r["tile (section)"],
             r["region.overflowed (section)"], r["region.overflowed"], r["not_counted"]) for r in rows] == [
        ("0", "60", "10", "15", "1", "0", "1"), ("1", "70", "20", "4", "2", "9", "2")]


def test_several_reports_share_a_renamed_column_and_rows_stay_rectangular():
    text = render_csv(summarize_all([colliding_archive(), archive_report(), colliding_archive()]))
    lines = list(csv.reader(io.StringIO(text)))
    assert len({len(row) for row in lines}) == 1
    header = lines[0]
    # c.a twice, of one source and module: report_line (blank: an archive has no lines) tells them apart
    assert len(header) == len(set(header)) and header[-3:] == ["source", "module", "report_line"]
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["source"] for r in rows] == ["c.a", "c.a", "a.a", "a.a", "a.a", "c.a", "c.a"]
    assert {r["report_line"] for r in rows} == {""}
    assert [r["source (section)"] for r in rows] == ["5", "6", "", "", "", "5", "6"]


def test_a_summary_data_type_named_like_a_region_column():
    report = SummaryReport(
        source="r.txt", format="poplar-text", target=Target(num_tiles=4, bytes_per_tile=1000),
        printed=PrintedSummary(tiles_out_of_memory=0),
        detailed_tiles=(TileDetail(2, 900, 800, breakdown={"region.interleaved": 11, "ipu": 3},
                                   regions={"interleaved": 22}),),
        breakdown_kind="data type")
    rows = list(csv.DictReader(io.StringIO(render_csv(summarize_all([report])))))
    assert rows == [{"tile": "2", "ipu": "", "member": "", "excluding_gaps": "800", "including_gaps": "900",
                     "out_of_memory": "false", "region.interleaved (data type)": "11", "ipu (data type)": "3",
                     "region.interleaved": "22", "stated_by": "detailed"}]


def test_a_carriage_return_in_a_name_is_quoted_so_the_csv_reads_back():
    """csv.writer leaves "\\r" bare with "\\n" line ends, and csv.reader then refuses the file (found by fuzzing)."""
    report = archive_report()
    report = TileReport(source="a.a", format="archive", target=report.target, excluding_gaps=report.excluding_gaps,
                        breakdown={".te\rxt": report.breakdown[".text"]}, breakdown_kind="section",
                        tile_names=["t\r0", "t1", "t2"])
    rows = list(csv.reader(io.StringIO(render_csv(summarize_all([report])))))
    assert rows[0][-1] == ".te\rxt" and [r[2] for r in rows[1:]] == ["t\r0", "t1", "t2"]


def test_json_lists_the_first_ipus_and_every_ipu_in_brief():
    """Issue 33 item 15: 100,000 IPUs of one tile each made a row each (41 MB of JSON); the first 4,096 are listed,
    with how many are left out and every IPU in brief (additive keys: per_ipu keeps its meaning)."""
    from tests.builds import one_tile_per_ipu
    text = render_json(summarize_all([one_tile_per_ipu(np.arange(100_000) % 500, over_at=(7,))]))
    report = json.loads(text)["reports"][0]
    assert len(report["per_ipu"]) == 4_096 and report["per_ipu"][-1]["ipu"] == 4_095
    assert report["per_ipu_left_out"] == 95_904
    spread = report["ipu_spread"]
    assert (spread["ipus"], spread["listed"], spread["with_out_of_memory"]) == (100_000, 4_096, 1)
    assert [s["ipu"] for s in spread["largest"]] == [7, 499, 999, 1_499, 1_999, 2_499, 2_999, 3_499, 3_999, 4_499]
    assert spread["largest"][0] == report["per_ipu"][7]
    assert len(text) < 2_000_000  # every tile's bytes (tile_values) and 4,096 rows
    small = json.loads(render_json(summarize_all([one_tile_per_ipu([1, 2, 3])])))["reports"][0]
    assert (len(small["per_ipu"]), small["per_ipu_left_out"], small["ipu_spread"]) == (3, 0, None)
