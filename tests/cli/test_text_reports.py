"""End to end: ``memreport`` on Poplar text summaries and .rep traces gives back what Poplar printed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memreport.cli import main
from tests.conftest import flat

SAMPLES = Path(__file__).resolve().parents[2] / "sample_reports"


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


def test_overriding_bytes_per_tile_never_prints_the_summarys_count_as_the_answer():
    result = run(SAMPLES / "trace_two_modules.rep", "--tile-memory", "500000")
    assert result.exit_code == 0, result.output
    step = result.output.split("=" * 78)[2]  # after the answer over both modules and the first
    assert "    2 tile(s) out of memory\n" not in step  # the count Poplar printed for 638,976 B per tile
    assert ("    5 tile(s) out of memory (from its printed detailed tiles and histogram, for 500,000 B per tile)\n"
            in step)
    assert flat("Note:     out-of-memory count judged from what the summary printed: its printed count, 2, is for "
                "the 638,976 B per tile it printed, not 500,000 B\n") in flat(step)
    assert step.count(" OUT OF MEMORY by ") == 5

    doc = json.loads(run(SAMPLES / "trace_two_modules.rep", "--tile-memory", "200000", "--format", "json").output)
    step = doc["reports"][1]
    assert step["tiles_out_of_memory"] is None
    assert step["notes"][-1] == (
        "out-of-memory count: at least 722 tile(s) out of memory (from its printed histogram; its printed count, 2, "
        "is for the 638,976 B per tile it printed, not 200,000 B)")
    same = json.loads(run(SAMPLES / "trace_two_modules.rep", "--tile-memory", "624KiB", "--format", "json").output)
    assert same["reports"][1]["tiles_out_of_memory"] == 2  # the printed figure: an override that agrees


def without_by_tile_block(tmp_path) -> Path:
    """The Mk1 sample cut before its By Tile block: no histogram, maximum or out-of-memory line."""
    text = (SAMPLES / "mk1_summary.txt").read_text()
    path = tmp_path / "no_by_tile.txt"
    path.write_text(text[:text.index("  By Tile (Excluding Gaps):")])
    return path


def test_a_summary_without_an_out_of_memory_line_gives_the_real_reason(tmp_path):
    path = without_by_tile_block(tmp_path)
    out = run(path).output
    assert "    out-of-memory tiles unknown (the summary printed no out-of-memory line, and nothing else it\n" \
           "      printed settles it for 262,144 B per tile)\n" in out  # memreport's words, wrapped to 100
    assert "give --tile-memory" not in out  # it printed its Memory Per-Tile: that is not what is missing
    result = run(path, "--fail-on-oom", "--tile-memory", "256KiB")
    assert result.exit_code == 2
    assert "Error: --fail-on-oom: " in result.stderr
    assert "the summary printed no out-of-memory line" in result.stderr and "give --tile-memory" not in result.stderr


def test_module_picks_one_report_of_a_file_by_name_or_number():
    Runner, cli, trace = CliRunner, main, str(SAMPLES / "trace_two_modules.rep")
    by_name = Runner().invoke(cli, [trace, "--module", "cluster_vars_init.3"])
    assert by_name.exit_code == 0
    assert by_name.stdout.count("Source:   ") == 1
    assert f"Source:   {trace} (module cluster_vars_init.3)\n" in by_name.stdout
    by_number = Runner().invoke(cli, [trace, "--module", "#2", "--format", "json"])
    assert [r["module"] for r in json.loads(by_number.stdout)["reports"]] == ["cluster_training_step.17"]
    unknown = Runner().invoke(cli, [trace, "--module", "nope"])
    assert unknown.exit_code == 2
    assert unknown.stderr.endswith(f"Error: --module nope: {trace} holds no such report; it holds 2: "
                                   "#1 (cluster_vars_init.3), #2 (cluster_training_step.17)\n")
    assert Runner().invoke(cli, [trace, "--module", "#3"]).exit_code == 2


def test_diff_compares_the_module_asked_for():
    Runner, cli, trace = CliRunner, main, str(SAMPLES / "trace_two_modules.rep")
    chosen = Runner().invoke(cli, ["diff", trace, trace, "--module", "cluster_vars_init.3"])
    assert chosen.exit_code == 0
    assert " ".join(chosen.stdout.split("\n\n", 1)[1].split()).startswith(  # wrapped where the path is long
        f"Old: {trace} (module cluster_vars_init.3; Poplar text summary")
    assert "comparing the largest" not in chosen.stdout
    largest = Runner().invoke(cli, ["diff", trace, trace])
    assert "holds 2 reports; comparing the largest (module cluster_training_step.17)" in flat(largest.stdout)
