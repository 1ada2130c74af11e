"""``memreport trend`` as CI runs it: saved exports or any inputs in order, labels, every output, gates on the last
build (the budget file's too), and what cannot be a trend."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from memreport.cli import main
from tests import SAMPLES
from tests.builds import NEW, OLD, write_build

MIDDLE = [300_000, 310_000, 630_000, 200_000, 638_976, 100_000, 250_000, 700_000]  # tile 2 back under, 7 over


@pytest.fixture(autouse=True)
def builds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_build(tmp_path / "old.a", OLD)
    write_build(tmp_path / "middle.a", MIDDLE)
    write_build(tmp_path / "new.a", NEW)
    assert run("export", "old.a", "-o", "old.json").exit_code == 0  # a saved report, as CI keeps one


def run(*args: str, **kwargs):
    return CliRunner().invoke(main, list(args), **kwargs)


def test_builds_in_order_the_answer_first():
    result = run("trend", "old.json", "middle.a", "new.a")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout == """\
Verdict: Tile 3 first went over in new.a
         2 of 8 tiles out of memory in new.a; tile 7 was already out of memory in old.json (the
           first build)
         Worst tile in new.a: 7, 700,000 B, 109.6% of 638,976 B: 61,024 B over

Builds (3), in the order given:
  Build       Worst tile  % of tile  OOM tiles   Headroom        Total                Change
  old.json  7: 700,000 B     109.6%          2  -61,024 B  3,138,976 B
  middle.a  7: 700,000 B     109.6%          1  -61,024 B  3,128,976 B    -10,000 B (-0.32%)
  new.a     7: 700,000 B     109.6%          2  -61,024 B  3,584,336 B  +455,360 B (+14.55%)

Tiles out of memory in new.a (2), the latest to go over first:
  Tile  IPU      Bytes  First over  Over since  Stayed over
     3    0  643,072 B  new.a       new.a       yes
     7    0  700,000 B  old.json    old.json    yes

Verdict: Tile 3 first went over in new.a
"""


def test_labels_name_the_builds_one_each_in_order():
    result = run("trend", "old.json", "new.a", "--label", "main", "--label", "pr-17", "--format", "csv")
    assert [line.split(",")[0] for line in result.stdout.splitlines()] == ["label", "main", "pr-17"]
    wrong = run("trend", "old.json", "new.a", "--label", "main")
    assert wrong.exit_code == 2
    assert "--label given 1 time(s) for 2 build(s): give one per FILE, in order, or none" in wrong.stderr


def test_files_of_one_name_are_named_by_their_paths(tmp_path):
    for week in ("week1", "week2"):
        os.mkdir(week)
        shutil.copy("old.a" if week == "week1" else "new.a", f"{week}/archive.a")
    doc = json.loads(run("trend", "week1/archive.a", "week2/archive.a", "--format", "json").stdout)
    assert [b["label"] for b in doc["builds"]] == ["week1/archive.a", "week2/archive.a"]
    assert doc["tiles"][0] == {"tile": 3, "ipu": 0, "bytes": 643_072, "first_over": "week2/archive.a",
                               "first_build": 1, "first_certain": True, "went_over_in_first": True,
                               "over_since": "week2/archive.a", "since_build": 1, "stayed_over": True}


def test_gates_judge_the_last_build_only():
    passed = run("trend", "new.a", "middle.a", "--max-tile", "700000")  # middle.a's worst tile holds 700,000 B
    assert passed.exit_code == 0, passed.output
    failed = run("trend", "old.a", "new.a", "--fail-on-oom", "-o", "trend.txt")
    assert failed.exit_code == 3
    assert failed.stderr == ("memreport: gate failed: 2 tile(s) out of memory in new.a: tile 7 by 61,024 B, "
                             "tile 3 by 4,096 B\n")
    written = Path("trend.txt").read_text()  # written whole before the gate's exit
    assert "Gates:   --fail-on-oom (from the command line)\n" in written


def test_the_budget_file_gates_the_last_build_and_says_where(tmp_path):
    (tmp_path / ".memreport.toml").write_text('[gates]\nmax-tile = "640000"\n\n[[gates.files]]\nmatch = "old.a"\n'
                                              "max-tile = false\n")
    result = run("trend", "middle.a", "new.a", "--format", "json")
    assert result.exit_code == 3
    assert result.stderr == ("memreport: gate failed: 2 tile(s) above --max-tile 640,000 B in new.a: tile 7 by "
                             "60,000 B, tile 3 by 3,072 B (--max-tile from .memreport.toml, line 2, gates.max-tile)\n")
    assert json.loads(result.stdout)["gates"] == [
        {"gate": "max-tile", "value": 640_000, "origin": {"file": ".memreport.toml", "line": 2,
                                                           "key": "gates.max-tile"}}]
    assert run("trend", "new.a", "old.a").exit_code == 0  # the last build's own gates: off for old.a
    assert run("trend", "middle.a", "new.a", "--max-tile", "1MiB").exit_code == 0  # the command line wins


def test_every_output_and_the_page(tmp_path):
    result = run("trend", "old.json", "new.a", "--format", "markdown", "--html", "trend.html")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("## memreport trend: 2 builds, `old.json` → `new.a`\n\n"
                                    "**Tile 3 first went over in new.a**  \n")
    page = (tmp_path / "trend.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<canvas class=trend id=t0-worst>" in page
    assert run("trend", "old.a", "new.a", "-o", "new.a").exit_code == 2  # never over an input


def test_a_build_from_standard_input(tmp_path):
    result = run("trend", "old.a", "-", input=(tmp_path / "new.a").read_bytes())
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Verdict: Tile 3 first went over in <stdin>\n")


def test_a_file_of_several_reports_is_its_largest_with_a_note(tmp_path):
    shutil.copy(SAMPLES / "sweep.log", "sweep.log")
    shutil.copy(SAMPLES / "mk1_summary.txt", "summary.txt")
    result = run("trend", "sweep.log", "summary.txt")
    assert result.exit_code == 0, result.output
    assert "Note: sweep.log: sweep.log holds 3 reports; the largest (#1, line 10) is the build\n" in result.stdout
    assert "Verdict: No tile out of memory in summary.txt\n" in result.stdout


def test_what_cannot_be_a_trend(tmp_path):
    shutil.copy(SAMPLES / "tensor_map.json", "map.json")
    refused = run("trend", "old.a", "map.json")
    assert refused.exit_code == 2 and "trend: map.json: a tensor map counts elements, not bytes" in refused.stderr
    (tmp_path / "notes.txt").write_text("shopping list\n")
    unreadable = run("trend", "old.a", "notes.txt", "new.a")
    assert unreadable.exit_code == 1 and unreadable.stdout == ""
    assert unreadable.stderr.startswith("memreport: notes.txt: ")
