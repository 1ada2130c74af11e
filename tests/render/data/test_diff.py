"""The diff as JSON (memreport-diff/1) and CSV: every changed tile, exact values, null and blank where unknown."""
from __future__ import annotations

import csv
import io
import json

import numpy as np

from memreport.analysis.diff import diff_reports, with_items
from memreport.model import Target, TileBytes, TileReport
from memreport.readers import read_path
from memreport.readers.elf.symbols import with_symbols
from memreport.render.data import diff as render_diff
from tests.synth.archive import ar_archive, bss, data, elf_file, text

from ...builds import LIMIT


def test_json_fields_are_exact(builds):
    doc = json.loads(render_diff.render_json(diff_reports(*builds)))
    plan = {"tile": 7, "ipu": 0, "over_by": 61_024,
            "items": [{"name": ".bss", "kind": "section", "class": "unknown", "bytes": 698_720, "frees": 698_720,
                       "exact": True}],
            "closes_gap": True, "exact": True, "budget": "limit", "frees": 698_720, "bytes_moved": 698_720,
            "optimal": True, "at_least": 1, "search": "exact", "source": "sections", "candidates": 3}
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
        "min_change": 0, "unlisted_tiles": 0, "sort": "delta", "tile_details": [], "gates": [],
        # Tile 7, over in both builds by the same 61,024 B; no symbols read: by section, .bss alone closes it.
        "fit_plans": [{"tile": 7, "ipu": 0, "old": plan, "new": plan, "grew": False}],
        "liveness_peak": {"old": None, "new": None},  # archives hold no program steps
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


def test_maxima_are_written_by_the_one_json_helper_the_report_uses():
    from memreport.render.data import diff as render_diff_module
    from memreport.render.data import report as table
    assert render_diff_module.tile_bytes_json is table.tile_bytes_json
    assert not hasattr(render_diff_module, "_tile_bytes") and not hasattr(table, "_tile_bytes")
    assert table.tile_bytes_json(TileBytes(3, 9)) == {"tile": 3, "bytes": 9} and table.tile_bytes_json(None) is None


def test_csv_names_that_start_like_a_formula_follow_a_quote_and_numbers_stay(tmp_path):
    """Issue 33 item 10: a section named ``-bss`` is text, after a quote; a delta of -600 is a number."""
    for name, size in (("old.a", 900), ("new.a", 300)):
        (tmp_path / name).write_bytes(ar_archive([("=t0.elf", elf_file([
            text(100), bss(size, name="-bss"), data(8, name="@data")]))]))
    old, new = (read_path(str(tmp_path / name))[0] for name in ("old.a", "new.a"))
    changes = with_items(diff_reports(old, new), with_symbols(old, [0]), with_symbols(new, [0]), 1)
    assert render_diff.render_csv(changes).splitlines() == [
        "tile,ipu,old,new,delta,kind,item,section,change", "0,0,1008,408,-600,tile,,,",
        "0,0,900,300,-600,section,'-bss,,shrank"]
