"""The budget file at the command line: each input judged by its own gates, the command line over the file, a flag
left off never turning off a gate the file turned on, every output saying which file set a gate, and a bad file
one line of bad usage."""
from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from memreport.cli import main
from tests import SAMPLES
from tests.builds import NEW, OLD, write_build

BUDGET = """\
# the repository's tile budget
[gates]
max-tile = "640000"
fail-on-oom = true

[[gates.files]]
match = "new.a"
fail-on-oom = false
"""
MAX_TILE_OLD = ("memreport: gate failed: 1 tile(s) above --max-tile 640,000 B in old.a: tile 7 by 60,000 B "
                "(--max-tile from .memreport.toml, line 3, gates.max-tile)\n")
OOM_OLD = ("memreport: gate failed: 2 tile(s) out of memory in old.a: tile 7 by 61,024 B, tile 2 by 1,024 B "
           "(--fail-on-oom from .memreport.toml, line 4, gates.fail-on-oom)\n")


@pytest.fixture(autouse=True)
def builds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_build(tmp_path / "old.a", OLD)
    write_build(tmp_path / "new.a", NEW)
    (tmp_path / ".memreport.toml").write_text(BUDGET)


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_each_input_is_judged_by_its_own_gates():
    result = run("old.a", "new.a", "--format", "json")
    assert result.exit_code == 3
    assert result.stderr == OOM_OLD + MAX_TILE_OLD + (
        "memreport: gate failed: 2 tile(s) above --max-tile 640,000 B in new.a: tile 7 by 60,000 B, tile 3 by "
        "3,072 B (--max-tile from .memreport.toml, line 3, gates.max-tile)\n")  # no --fail-on-oom for new.a
    old, new = (r["gates"] for r in json.loads(result.stdout)["reports"])
    max_tile = {"gate": "max-tile", "value": 640_000,
                "origin": {"file": ".memreport.toml", "line": 3, "key": "gates.max-tile"}}
    assert old == [{"gate": "fail-on-oom", "value": True,
                    "origin": {"file": ".memreport.toml", "line": 4, "key": "gates.fail-on-oom"}}, max_tile]
    assert new == [max_tile]


def test_the_text_says_which_file_set_each_gate():
    out = run("old.a", "--max-tile", "90%").stdout
    assert out.split("\n\n")[0].endswith(
        "\nGates:   --fail-on-oom (from .memreport.toml, line 4, gates.fail-on-oom); --max-tile 90% (from the\n"
        "         command line)")
    markdown = run("old.a", "--format", "markdown").stdout
    assert "  \nGates: --fail-on-oom (from .memreport.toml, line 4, gates.fail-on-oom); --max-tile 640,000 B (from " \
           ".memreport.toml, line 3, gates.max-tile)\n" in markdown
    page = run("old.a", "--format", "html").stdout
    assert ("<p class=gates>Gates: --fail-on-oom (from .memreport.toml, line 4, gates.fail-on-oom); --max-tile "
            "640,000 B (from .memreport.toml, line 3, gates.max-tile)</p></div>") in page
    diff_text = run("diff", "old.a", "new.a").stdout  # NEW's gates: none of them judges a diff
    assert "Gates:" not in diff_text


def test_the_command_line_wins_and_a_flag_left_off_turns_nothing_off():
    assert run("old.a", "--max-tile", "1MiB").stderr == OOM_OLD  # the file's --fail-on-oom still judges
    result = run("new.a", "--fail-on-oom", "--max-tile", "1MiB", "--format", "json")
    assert result.exit_code == 3  # the command line turns on what the file turned off for new.a
    assert json.loads(result.stdout)["reports"][0]["gates"] == [
        {"gate": "fail-on-oom", "value": True, "origin": None},
        {"gate": "max-tile", "value": 1_048_576, "origin": None}]


def test_an_explicit_budget_and_pyproject(tmp_path):
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "budget.toml").write_text('[gates]\nmax-tile = "1MiB"\n')
    assert run("old.a", "--config", "ci/budget.toml").exit_code == 0  # not the working directory's
    (tmp_path / ".memreport.toml").unlink()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "model"\n\n[tool.memreport.gates]\n'
                                             "fail-on-oom = true\n")
    result = run("old.a")
    assert result.exit_code == 3 and result.stderr.endswith(
        "(--fail-on-oom from pyproject.toml, line 5, tool.memreport.gates.fail-on-oom)\n")


@pytest.mark.parametrize("budget, message", [
    ('[gates]\nmax-tiles = "90%"\n', ".memreport.toml: line 2: gates.max-tiles: unknown key (did you mean max-tile? "
                                     "known: max-tile, min-headroom, fail-on-oom, fail-on-growth, fail-on-recompile, "
                                     "files)"),
    ('[gates]\nfail-on-oom = "yes"\n', ".memreport.toml: line 2: gates.fail-on-oom: must be true or false, not 'yes'"),
    ("[gates\n", ".memreport.toml: line 1: not TOML: Expected ']' at the end of a table declaration"),
])
def test_a_bad_budget_file_is_one_line_of_bad_usage(tmp_path, budget, message):
    (tmp_path / ".memreport.toml").write_text(budget)
    for command in (["old.a"], ["diff", "old.a", "new.a"], ["trend", "old.a", "new.a"]):
        result = run(*command)
        assert (result.exit_code, result.stderr, result.stdout) == (2, f"memreport: {message}\n", ""), command
    missing = run("old.a", "--config", "nowhere.toml")
    assert missing.exit_code == 2 and missing.stderr.startswith("memreport: nowhere.toml: cannot read it: ")


def test_the_budget_file_is_an_input_never_an_output():
    result = run("old.a", "-o", ".memreport.toml")
    assert result.exit_code == 2 and ".memreport.toml" in result.stderr
    assert run("export", "old.a", "-o", ".memreport.toml").exit_code == 0  # export judges no gate: no budget read


def test_diff_judges_new_by_its_own_gates(tmp_path):
    (tmp_path / ".memreport.toml").write_text('[gates]\nfail-on-growth = "4KiB"\n\n[[gates.files]]\nmatch = "old.a"\n'
                                              "fail-on-growth = false\n")
    result = run("diff", "old.a", "new.a", "--format", "json")
    assert result.exit_code == 3
    assert result.stderr.endswith("(--fail-on-growth from .memreport.toml, line 2, gates.fail-on-growth)\n")
    assert json.loads(result.stdout)["gates"][0]["value"] == 4096
    assert run("diff", "new.a", "old.a").exit_code == 0  # NEW is old.a: its gates turned growth off


def test_compiles_judges_the_logs_by_the_budget(tmp_path):
    shutil.copy(SAMPLES / "compile_recompiling.log", "run.log")
    (tmp_path / ".memreport.toml").write_text("[gates]\nfail-on-recompile = true\n")
    result = run("compiles", "run.log", "--format", "json")
    assert result.exit_code == 3
    assert result.stderr.endswith("(--fail-on-recompile from .memreport.toml, line 2, gates.fail-on-recompile)\n")
    assert json.loads(result.stdout)["gates"] == [
        {"gate": "fail-on-recompile", "value": True,
         "origin": {"file": ".memreport.toml", "line": 2, "key": "gates.fail-on-recompile"}}]
