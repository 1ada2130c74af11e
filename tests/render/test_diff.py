"""The diff renderers: golden text, the exact ``memreport-diff/1`` JSON, CSV rows."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from memreport.analysis.diff import diff_reports
from memreport.model import PrintedSummary, SummaryReport, Target, TileBytes, TileDetail, TileReport
from memreport.render import RenderOptions, render
from memreport.render import diff as render_diff

from ..builds import LIMIT

GOLDEN_TEXT = """\
Verdict: 1 tile newly out of memory; 6 tiles changed (4 grew, 2 shrank)
         Out of memory: 2 tiles -> 2 tiles
         Worst growth: tile 3, 200,000 B -> 643,072 B (+443,072 B)

Old: old.a (ELF archive, per tile: complete)
New: new.a (ELF archive, per tile: complete)
Tiles:  8, 638,976 B per tile

                                        Old                 New       Delta
Total, excluding gaps           3,138,976 B         3,584,336 B  +445,360 B
Maximum, excluding gaps  700,000 B (tile 7)  700,000 B (tile 7)        +0 B
Tiles out of memory                       2                   2          +0

Newly out of memory (1): tile 3
No longer out of memory (1): tile 2

Changed tiles: 6 of 8 (4 grew, 2 shrank)
  Tile  IPU        Old        New       Delta
     3    0  200,000 B  643,072 B  +443,072 B  newly out of memory
     2    0  640,000 B  630,000 B   -10,000 B  no longer out of memory
     1    0  310,000 B  318,192 B    +8,192 B
     6    0  250,000 B  254,096 B    +4,096 B
  2 more changed tiles (--top to show more; --format json or csv lists all)

Verdict: 1 tile newly out of memory; 6 tiles changed (4 grew, 2 shrank)
"""


def test_text_is_golden(builds):
    assert render_diff.render_text(diff_reports(*builds), RenderOptions(top=4)) == GOLDEN_TEXT


def test_text_lists_every_change_within_top(builds):
    text = render_diff.render_text(diff_reports(*builds))
    assert "more changed tile" not in text
    assert text.endswith("     5    0  100,000 B   96,000 B    -4,000 B\n\n"
                         "Verdict: 1 tile newly out of memory; 6 tiles changed (4 grew, 2 shrank)\n")


def test_text_of_identical_builds(builds):
    old, _ = builds
    text = render_diff.render_text(diff_reports(old, old))
    assert "Newly out of memory" not in text
    assert text.endswith("Tiles out of memory                       2                   2     +0\n\n"
                         "No tile changed.\n\n"
                         "Verdict: No tile newly out of memory; 0 tiles changed (0 grew, 0 shrank)\n")


def test_text_of_a_partial_diff_says_so(builds):
    old, _ = builds
    new = SummaryReport(
        source="new.txt", format="poplar-text", target=Target(8, None, 1, 1472, LIMIT),
        printed=PrintedSummary(max_excluding_gaps=TileBytes(7, 700_000), tiles_out_of_memory=1,
                               excluding_gaps=3_000_000, including_gaps=3_100_000),
        detailed_tiles=(TileDetail(7, None, 700_000), TileDetail(4, None, 600_000)))
    text = render_diff.render_text(diff_reports(old, new))  # the last line one line: without the aside
    assert text == """\
Verdict: Newly out of memory: unknown (a side does not state every tile's bytes); 1 tile changed
         (0 grew, 1 shrank)
         Out of memory: 2 tiles -> 1 tile

Old: old.a (ELF archive, per tile: complete)
New: new.txt (Poplar text summary, per tile: partial)
Tiles:  8, 638,976 B per tile
Note:   NEW (new.txt) is partial (a text summary): only the 2 tile(s) whose bytes both sides state
        are compared; totals, maxima and out-of-memory counts are as printed
Note:   out-of-memory changes tile by tile unknown: a text summary does not state every tile's bytes
        (the out-of-memory counts are compared)

                                        Old                 New       Delta
Total, excluding gaps           3,138,976 B         3,000,000 B  -138,976 B
Total, including gaps               unknown         3,100,000 B
Maximum, excluding gaps  700,000 B (tile 7)  700,000 B (tile 7)        +0 B
Tiles out of memory                       2                   1          -1

Changed tiles: 1 of 2 compared (0 grew, 1 shrank)
  Tile  IPU        Old        New      Delta
     4    0  638,976 B  600,000 B  -38,976 B

Verdict: Newly out of memory: unknown; 1 tile changed (0 grew, 1 shrank)
"""


def test_text_cuts_long_out_of_memory_lists():
    target = Target.for_arch("ipu2", 30)
    old = TileReport("a", "archive", target, np.zeros(30, dtype=np.int64))
    new = TileReport("b", "archive", target, np.full(30, LIMIT + 1))
    text = render_diff.render_text(diff_reports(old, new), RenderOptions(top=0))
    assert "Newly out of memory (30): tiles 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,\n" \
           "  19 and 10 more\n" in text  # 100 columns: wrapped under its first word
    assert text.endswith("Changed tiles: 30 of 30 (30 grew, 0 shrank)\n\n"
                         "Verdict: 30 tiles newly out of memory; 30 tiles changed (30 grew, 0 shrank)\n")


def test_json_fields_are_exact(builds):
    doc = json.loads(render_diff.render_json(diff_reports(*builds)))
    side = {"module": None, "format": "archive", "per_tile": "complete", "num_tiles": 8, "bytes_per_tile": LIMIT}
    assert doc == {
        "schema": "memreport-diff/1",
        "old": {"source": "old.a", **side},
        "new": {"source": "new.a", **side},
        "per_tile": "complete",
        "compared_tiles": 8,
        "tiles": [
            {"tile": 3, "ipu": 0, "old": 200_000, "new": 643_072, "delta": 443_072},
            {"tile": 2, "ipu": 0, "old": 640_000, "new": 630_000, "delta": -10_000},
            {"tile": 1, "ipu": 0, "old": 310_000, "new": 318_192, "delta": 8_192},
            {"tile": 6, "ipu": 0, "old": 250_000, "new": 254_096, "delta": 4_096},
            {"tile": 0, "ipu": 0, "old": 300_000, "new": 304_000, "delta": 4_000},
            {"tile": 5, "ipu": 0, "old": 100_000, "new": 96_000, "delta": -4_000},
        ],
        "newly_out_of_memory": [3],
        "no_longer_out_of_memory": [2],
        "totals": {
            "old": {"excluding_gaps": 3_138_976, "including_gaps": None, "tiles_out_of_memory": 2},
            "new": {"excluding_gaps": 3_584_336, "including_gaps": None, "tiles_out_of_memory": 2},
            "delta": {"excluding_gaps": 445_360, "including_gaps": None, "tiles_out_of_memory": 0},
        },
        "max_excluding_gaps": {"old": {"tile": 7, "bytes": 700_000}, "new": {"tile": 7, "bytes": 700_000},
                               "delta": 0},
        "notes": [],
        "min_change": 0, "unlisted_tiles": 0, "sort": "delta", "tile_details": [],
    }


def test_json_matches_the_record_and_writes_a_tile_a_line(builds):
    diff = diff_reports(*builds)
    text = render_diff.render_json(diff)
    assert json.loads(text) == render_diff.diff_dict(diff)
    assert '\n    {"tile": 2, "ipu": 0, "old": 640000, "new": 630000, "delta": -10000},\n' in text


def test_json_of_identical_builds_and_unknown_values(builds):
    old, _ = builds
    doc = json.loads(render_diff.render_json(diff_reports(old, old)))
    assert doc["tiles"] == [] and doc["newly_out_of_memory"] == [] and doc["no_longer_out_of_memory"] == []
    a = TileReport("a.elf", "elf", Target(1), excluding_gaps=np.array([10]))
    doc = json.loads(render_diff.render_json(diff_reports(a, a)))
    assert doc["newly_out_of_memory"] is None and doc["no_longer_out_of_memory"] is None
    b = TileReport("b.elf", "elf", Target(1), excluding_gaps=np.array([12]))
    assert json.loads(render_diff.render_json(diff_reports(a, b)))["tiles"] == [
        {"tile": 0, "ipu": None, "old": 10, "new": 12, "delta": 2}]


def test_csv_has_one_row_per_changed_tile(builds):
    rows = list(csv.reader(io.StringIO(render_diff.render_csv(diff_reports(*builds)))))
    assert rows == [["tile", "ipu", "old", "new", "delta", "kind", "item", "section", "change"],
                    ["3", "0", "200000", "643072", "443072", "tile", "", "", ""],
                    ["2", "0", "640000", "630000", "-10000", "tile", "", "", ""],
                    ["1", "0", "310000", "318192", "8192", "tile", "", "", ""],
                    ["6", "0", "250000", "254096", "4096", "tile", "", "", ""],
                    ["0", "0", "300000", "304000", "4000", "tile", "", "", ""],
                    ["5", "0", "100000", "96000", "-4000", "tile", "", "", ""]]
    a = TileReport("a.elf", "elf", Target(1), excluding_gaps=np.array([10]))
    b = TileReport("b.elf", "elf", Target(1), excluding_gaps=np.array([12]))
    assert render_diff.render_csv(diff_reports(a, b)) == \
        "tile,ipu,old,new,delta,kind,item,section,change\n0,,10,12,2,tile,,,\n"


def test_render_picks_the_format(builds):
    diff = diff_reports(*builds)
    assert render("diff", "csv", diff) == render_diff.render_csv(diff)
    assert render("diff", "json", diff) == render_diff.render_json(diff)
    assert render("diff", "text", diff, RenderOptions(top=4)) == GOLDEN_TEXT
    with pytest.raises(ValueError, match="no diff renderer 'png' \\(choose from text, json, csv, markdown, html\\)"):
        render("diff", "png", diff)


def test_maxima_are_written_by_the_one_json_helper_the_report_uses():
    from memreport.render import diff as render_diff_module
    from memreport.render import table
    assert render_diff_module.tile_bytes_json is table.tile_bytes_json
    assert not hasattr(render_diff_module, "_tile_bytes") and not hasattr(table, "_tile_bytes")
    assert table.tile_bytes_json(TileBytes(3, 9)) == {"tile": 3, "bytes": 9} and table.tile_bytes_json(None) is None
