"""A trend for tools: memreport-trend/1 JSON key by key, a tile to a line, and CSV a row per build; what a build does
not say is null (blank in CSV)."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

from memreport.analysis.gates import REPORT_GATES, in_force
from memreport.analysis.trend import trend
from memreport.config import Gates, Origin, Setting
from memreport.render.data.trend import CSV_COLUMNS, render_csv, render_json, trend_dict
from memreport.units import parse_budget
from tests.synth.trend import build, summary_report, tiles


def three_builds():
    """a: tile 1 over; summary: a text summary; b: tiles 0 and 1 over, gated."""
    t = trend([build(tiles([50, 150, 50, 50]), "a"), build(summary_report(), "summary"),
               build(tiles([150, 150, 60, 40]), "b")])
    gates = Gates(max_tile=Setting(parse_budget("90%"), Origin("pyproject.toml", "tool.memreport.gates.max-tile", 7)))
    return replace(t, gates=in_force(gates.merged(fail_on_oom=True), REPORT_GATES))


def test_every_key_of_the_json():
    doc = json.loads(render_json(three_builds()))
    common = {"module": None, "format": "archive", "per_tile": "complete", "of_reports": 1, "num_tiles": 4,
              "bytes_per_tile": 100, "tile_status": True}
    assert doc == {
        "schema": "memreport-trend/1",
        "verdict": "Tile 0 went over in b or earlier (summary cannot say)",
        "builds": [
            {"label": "a", "source": "t", "report": "t", **common, "worst_tile": {"tile": 1, "bytes": 150},
             "percent_of_tile": 150.0, "tiles_out_of_memory": 1, "out_of_memory_at_least": None, "headroom": -50,
             "total_excluding_gaps": 300, "change_bytes": None, "change_percent": None},
            {"label": "summary", "source": "summary.txt", "report": "summary.txt", **common, "format": "poplar-text",
             "per_tile": "partial", "tile_status": False, "worst_tile": {"tile": 0, "bytes": 150},
             "percent_of_tile": 150.0, "tiles_out_of_memory": 1, "out_of_memory_at_least": None, "headroom": -50,
             "total_excluding_gaps": 400, "change_bytes": 100, "change_percent": 100 * (100 / 300)},
            {"label": "b", "source": "t", "report": "t", **common, "worst_tile": {"tile": 0, "bytes": 150},
             "percent_of_tile": 150.0, "tiles_out_of_memory": 2, "out_of_memory_at_least": None, "headroom": -50,
             "total_excluding_gaps": 400, "change_bytes": 0, "change_percent": 0.0},
        ],
        "tiles": [
            {"tile": 0, "ipu": 0, "bytes": 150, "first_over": "b", "first_build": 2, "first_certain": False,
             "went_over_in_first": False, "over_since": "b", "since_build": 2, "stayed_over": True},
            {"tile": 1, "ipu": 0, "bytes": 150, "first_over": "a", "first_build": 0, "first_certain": True,
             "went_over_in_first": False, "over_since": "b", "since_build": 2, "stayed_over": None},
        ],
        "notes": ["summary holds no per-tile status (a text summary does not list every tile): which tiles were out "
                  "of memory in it is unknown"],
        "gates": [{"gate": "fail-on-oom", "value": True, "origin": None},
                  {"gate": "max-tile", "value": "90%",
                   "origin": {"file": "pyproject.toml", "line": 7, "key": "tool.memreport.gates.max-tile"}}],
    }


def test_the_json_is_the_record_a_tile_to_a_line():
    t = three_builds()
    text = render_json(t)
    assert json.loads(text) == trend_dict(t)
    assert ('\n    {"tile": 1, "ipu": 0, "bytes": 150, "first_over": "a", "first_build": 0, "first_certain": true, '
            '"went_over_in_first": false, "over_since": "b", "since_build": 2, "stayed_over": null}\n  ],\n') in text


def test_no_per_tile_status_in_the_last_build_is_null_tiles():
    doc = json.loads(render_json(trend([build(tiles([150, 50, 50, 50]), "a"), build(summary_report(), "s")])))
    assert doc["tiles"] is None and doc["builds"][1]["tile_status"] is False and doc["gates"] == []


def test_csv_a_row_per_build_unknown_blank():
    rows = list(csv.reader(io.StringIO(render_csv(three_builds()))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert rows[1:] == [
        ["a", "t", "", "archive", "complete", "4", "100", "1", "150", "150.0", "1", "", "-50", "300", "", ""],
        ["summary", "summary.txt", "", "poplar-text", "partial", "4", "100", "0", "150", "150.0", "1", "", "-50",
         "400", "100", str(100 * (100 / 300))],
        ["b", "t", "", "archive", "complete", "4", "100", "0", "150", "150.0", "2", "", "-50", "400", "0", "0.0"]]
