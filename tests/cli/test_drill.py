"""The command line below the tile: --tile, --symbols, export, and reading a saved report back."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memreport.cli import main

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = str(ROOT / "sample_reports" / "mk2_1472_tiles.a")
PROFILE = str(ROOT / "sample_reports" / "mk1_profile.json")
SUMMARY = str(ROOT / "sample_reports" / "mk1_summary.txt")


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_a_tile_asked_for_and_its_symbols():
    result = run(ARCHIVE, "--top", "1", "--tile", "5", "--tile", "1402", "--symbols", "2")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Tiles asked for:\n" in out and "\n         5     0         295,237 B      46.2%  tile_0005.elf\n" \
        "            largest sections: .bss 293,717 B" in out
    assert out.count("Symbols on tile 1402 (tile_1402.elf), largest 2 of 8 sized symbol(s):") == 1
    assert "Symbols on tile 5 (tile_0005.elf), largest 2 of 8 sized symbol(s):\n" in out
    assert "  +6 more sized symbol(s), 159,101 B (--symbols N to list more)\n" in out  # tile 1402: momentum and code


def test_json_lists_every_symbol_unless_told():
    doc = json.loads(run(ARCHIVE, "--format", "json", "--top", "1").stdout)["reports"][0]
    assert len(doc["top_tiles"][0]["symbols"]["symbols"]) == 8
    doc = json.loads(run(ARCHIVE, "--format", "json", "--top", "1", "--symbols", "3").stdout)["reports"][0]
    assert len(doc["top_tiles"][0]["symbols"]["symbols"]) == 3


def test_tiles_a_report_does_not_have_are_bad_usage():
    result = run(ARCHIVE, "--tile", "1472")
    assert result.exit_code == 2
    assert "has no tile 1472 (its tiles are 0..1471)" in result.stderr
    assert run(ARCHIVE, "--tile", "-1").exit_code == 2


def test_a_text_summary_details_only_what_it_printed():
    result = run(SUMMARY, "--tile", "3")
    assert result.exit_code == 0
    assert "Note:     tile(s) 3 asked for: a text summary holds only the tiles it detailed\n" in result.stdout


@pytest.mark.parametrize("source", [ARCHIVE, PROFILE, SUMMARY])
def test_export_then_report_prints_the_same(source, tmp_path):
    saved = tmp_path / "memory.json"
    result = run("export", source, "-o", str(saved), "--tile", "0")
    assert result.exit_code == 0 and result.stdout == "" and result.stderr == ""
    assert json.loads(saved.read_text())["schema"] == "memreport/1"
    for args in ((), ("--format", "csv"), ("--format", "json"), ("--tile-memory", "300KiB")):
        assert run(str(saved), "--tile", "0", *args).stdout == run(source, "--tile", "0", *args).stdout, args


def test_export_of_an_unreadable_file_writes_nothing(tmp_path):
    bad = tmp_path / "bad.a"
    bad.write_bytes(b"!<arch>\n")
    out = tmp_path / "out.json"
    result = run("export", str(bad), "-o", str(out))
    assert result.exit_code == 1 and not out.exists()
    assert result.stderr == f"memreport: {bad}: archive holds no members (an empty archive is not a report)\n"


def test_diff_rejects_an_unknown_sort():
    result = run("diff", ARCHIVE, ARCHIVE, "--sort", "size")
    assert result.exit_code == 2 and "Invalid value for '--sort'" in result.stderr


def test_a_tile_the_source_states_is_there_whatever_the_tile_count(tmp_path):
    # A lone detailed block, cut from a log: no Target section, so no tile count (issue 24).
    lone = tmp_path / "tile7.txt"
    lone.write_text("Tile # 7 memory usage:\n  Memory Usage:\n    Total:\n      Including Gaps: 1,234 B\n"
                    "      Excluding Gaps: 1,000 B\n")
    result = run(str(lone), "--tile", "7")
    assert result.exit_code == 0, result.output
    assert "Tile asked for:\n      Tile   IPU    Excluding gaps    Including gaps  % of tile  From" in result.stdout
    assert "\n         7     ?           1,000 B           1,234 B          ?  detailed  ?\n" in result.stdout
    result = run(str(lone), "--tile", "3")
    assert result.exit_code == 2
    assert "Error: " + str(lone) + ": has no tile 3 (it states only tile(s) 7)\n" in result.stderr


def test_a_tile_one_report_of_a_log_lacks_says_how_to_take_the_report_that_has_it():
    sweep = str(ROOT / "sample_reports" / "sweep.log")
    result = run(sweep, "--tile", "1300")
    assert result.exit_code == 2
    assert result.stderr.endswith(f"Error: {sweep}#1 (line 10): has no tile 1300 (it states only tile(s) 0); "
                                  "--module '#N' takes the file's Nth report alone\n")
    result = run(sweep, "--module", "#3", "--tile", "1300")
    assert result.exit_code == 0 and "Tile asked for:" in result.stdout
