"""End to end: ``memreport`` on Poplar text summaries and .rep traces gives back what Poplar printed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memreport.cli import main

SAMPLES = Path(__file__).resolve().parent.parent / "sample_reports"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def by_tile_block(text: str) -> list[str]:
    """The By Tile block from its heading to the out-of-memory line, each line stripped on the left."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "By Tile (Excluding Gaps):")
    end = next(i for i in range(start, len(lines)) if lines[i].strip().endswith("tile(s) out of memory"))
    return [line.strip() for line in lines[start:end + 1]]


def test_json_gives_the_printed_values():
    result = run(SAMPLES / "mk1_summary.txt", "--format", "json")
    assert result.exit_code == 0, result.output
    report, = json.loads(result.output)["reports"]
    assert report["format"] == "poplar-text" and report["per_tile"] == "partial"
    assert report["target"]["num_tiles"] == 1216 and report["target"]["bytes_per_tile"] == 262_144
    assert report["totals"] == {"including_gaps": 23_878_396, "excluding_gaps": 5_355_604}
    assert report["max_including_gaps"] == {"tile": 0, "bytes": 49_184}
    assert report["max_excluding_gaps"] == {"tile": 0, "bytes": 5_780}
    assert report["tiles_out_of_memory"] == 0
    assert report["histogram"] == {"bin_kib": 1, "bins": [{"low_kib": 4, "high_kib": 5, "count": 1215},
                                                          {"low_kib": 5, "high_kib": 6, "count": 1}]}
    assert report["detailed_tiles"] == []
    assert report["info"]["graph"]["num_vertices"] == 1219


def test_json_of_a_trace_has_one_report_per_compile():
    result = run(SAMPLES / "trace_two_modules.rep", "--format", "json")
    assert result.exit_code == 0, result.output
    first, second = json.loads(result.output)["reports"]
    assert (first["module"], second["module"]) == ("cluster_vars_init.3", "cluster_training_step.17")
    assert second["tiles_out_of_memory"] == 2
    assert second["max_excluding_gaps"] == {"tile": 5, "bytes": 700_000}
    assert [d["tile"] for d in second["detailed_tiles"]] == [5, 902, 17, 230, 641]
    assert [t["tile"] for t in second["top_tiles"]] == [5, 902, 17, 230, 641]
    assert second["detailed_tiles"][0]["regions"]["overflowed"] == 61_024


@pytest.mark.parametrize("name", ["mk1_summary.txt", "trace_two_modules.rep"])
def test_text_reproduces_the_by_tile_blocks(name):
    result = run(SAMPLES / name)
    assert result.exit_code == 0, result.output
    source = (SAMPLES / name).read_text(encoding="utf-8")
    blocks_in = source.split("By Tile (Excluding Gaps):")[1:]
    blocks_out = result.output.split("By Tile (Excluding Gaps):")[1:]
    assert len(blocks_out) == len(blocks_in) > 0
    for got, want in zip(blocks_out, blocks_in):
        assert by_tile_block("By Tile (Excluding Gaps):" + got) == by_tile_block("By Tile (Excluding Gaps):" + want)


def test_unreadable_summary_is_a_one_line_error(tmp_path):
    text = (SAMPLES / "mk1_summary.txt").read_text(encoding="utf-8").replace("5,355,604 B", "5,35x,604 B")
    path = tmp_path / "broken.txt"
    path.write_text(text, encoding="utf-8")
    result = run(path)
    assert result.exit_code == 1
    assert "line 20" in result.output and "not a byte count" in result.output
