"""``memreport compiles`` as users run it: formats, -o, the gate and exit codes 0/1/2/3."""
from __future__ import annotations

import csv
import io
import json
from datetime import timedelta

import pytest
from click.testing import CliRunner

from memreport.cli import main
from tests.readers.text.test_compile_log import popart_cold, popart_warm, tf_batch_size_change
from tests.synth.compile_logs import Clock


@pytest.fixture(autouse=True)
def logs(tmp_path, monkeypatch):
    """cold.log and warm.log (a PopTorch run, then the same with the cache), train.log (TensorFlow recompiles)."""
    monkeypatch.chdir(tmp_path)
    cold = popart_cold()
    (tmp_path / "cold.log").write_text(cold.text())
    (tmp_path / "warm.log").write_text(popart_warm(Clock(cold.clock.now + timedelta(hours=1))).text())
    (tmp_path / "train.log").write_text(tf_batch_size_change().text())
    (tmp_path / "quiet.log").write_text("epoch 1\nepoch 2\n")


def run(*args: str):
    return CliRunner().invoke(main, ["compiles", *args], prog_name="memreport")


def test_text_by_default_and_a_clean_exit():
    result = run("cold.log", "warm.log", "--fail-on-recompile")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout.startswith("Logs: cold.log  1 compilation, 1 executable load\n"
                                    "      warm.log  1 compilation, 1 executable load\n\nCompilations (2):\n")
    assert "\nFindings: none\n" in result.stdout


def test_json_and_csv_hold_the_same_rows():
    doc = json.loads(run("cold.log", "warm.log", "--format", "json").stdout)
    assert [(c["result"], c["cache"], c["hash"]) for c in doc["compilations"]] == [
        ("compiled", "miss", "4961678486983961202"), ("loaded", "hit", "4961678486983961202")]
    rows = list(csv.DictReader(io.StringIO(run("cold.log", "warm.log", "--format", "csv").stdout)))
    assert [(r["source"], r["line"], r["result"], r["duration_s"]) for r in rows] == [
        ("cold.log", "8", "compiled", "75.253"), ("warm.log", "6", "loaded", "0.412")]


def test_the_gate_fails_after_writing_the_output(tmp_path):
    result = run("train.log", "--fail-on-recompile", "-o", "compiles.txt")
    assert result.exit_code == 3
    assert result.stdout == ""
    assert result.stderr == ("memreport: gate failed: --fail-on-recompile: module cluster_train compiled twice with "
                             "2 different hashes: train.log:5, train.log:71\n")
    written = (tmp_path / "compiles.txt").read_text()
    assert "  recompiled: module cluster_train compiled twice" in written
    assert "  hash-drift: module cluster_train has 2 different hashes" in written
    assert run("train.log").exit_code == 0  # findings alone do not fail a run


def test_a_log_without_compile_lines_exits_1_with_one_line():
    result = run("cold.log", "quiet.log", "-o", "out.txt")
    assert result.exit_code == 1
    assert result.stderr.startswith("memreport: quiet.log: no compilation, cache or executable-load lines (looked "
                                    "for TensorFlow's 'Begin XLA compilation'")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("args, says", [
    (["missing.log"], "memreport: missing.log: No such file or directory\n"),
    (["."], "memreport: .: not a regular file\n"),
])
def test_unreadable_logs_exit_1(args, says):
    result = run(*args)
    assert (result.exit_code, result.stderr) == (1, says)


@pytest.mark.parametrize("args", [[], ["cold.log", "--format", "png"], ["cold.log", "--top", "3"]])
def test_bad_usage_exits_2(args):
    assert run(*args).exit_code == 2


def test_help_lists_the_command():
    assert "  compiles  Every compilation, cache hit and recompilation in a run's logs." in \
        CliRunner().invoke(main, ["--help"]).stdout
    usage = run("--help").stdout
    assert usage.startswith("Usage: memreport compiles [OPTIONS] LOG...")
    assert "--fail-on-recompile" in usage and "[text|json|csv|markdown|html]" in usage
