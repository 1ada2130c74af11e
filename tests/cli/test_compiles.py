"""``memreport compiles`` as users run it: formats, -o, the gate and exit codes 0/1/2/3."""
from __future__ import annotations

import csv
import io
import json
import os
from datetime import timedelta

import pytest
from click.testing import CliRunner

from memreport.cli import main
from tests.synth.compile_logs import Clock, popart_cold, popart_warm, tf_batch_size_change


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
    assert result.stdout.split("\n\n", 1)[1].startswith("Logs: cold.log  1 compilation, 1 executable load\n"
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


@pytest.mark.parametrize("name, make, says", [
    ("missing.log", lambda p: None, "memreport: missing.log: no such file\n"),
    (".", lambda p: None, "memreport: .: is a directory\n"),
    ("empty.log", lambda p: p.write_bytes(b""), "memreport: empty.log: empty file\n"),
    ("fifo", lambda p: os.mkfifo(p), "memreport: fifo: not a regular file (a pipe, socket or device): save it to a "
                                     "file first\n"),
])
def test_unreadable_logs_exit_1_worded_as_the_report_words_them(tmp_path, name, make, says):
    make(tmp_path / name)
    result = run(name)
    assert (result.exit_code, result.stderr) == (1, says)
    report = CliRunner().invoke(main, [name], prog_name="memreport")
    assert (report.exit_code, report.stderr) == (1, says)


def test_standard_input(tmp_path):
    """``-`` reads standard input, named <stdin> like the report names it."""
    text = (tmp_path / "cold.log").read_text()
    result = CliRunner().invoke(main, ["compiles", "-", "--format", "json"], input=text, prog_name="memreport")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["logs"][0]["source"] == "<stdin>"
    assert doc["logs"][0]["size_bytes"] == len(text.encode())
    assert {c["source"] for c in doc["compilations"]} == {"<stdin>"}
    plain = json.loads(run("cold.log", "--format", "json").stdout)
    assert [{**c, "source": "cold.log"} for c in doc["compilations"]] == plain["compilations"]
    empty = CliRunner().invoke(main, ["compiles", "-"], input="", prog_name="memreport")
    assert (empty.exit_code, empty.stderr) == (1, "memreport: <stdin>: empty file\n")


def test_the_same_log_given_twice_is_read_once(tmp_path):
    os.link(tmp_path / "train.log", tmp_path / "again.log")
    once = run("train.log", "--format", "json")
    result = run("train.log", "train.log", "again.log", "--format", "json")
    assert result.exit_code == 0, result.output
    doc, single = json.loads(result.stdout), json.loads(once.stdout)
    assert doc["compilations"] == single["compilations"] and doc["findings"] == single["findings"]
    assert doc["notes"] == single["notes"] + ["train.log is given 3 times (as train.log, train.log, again.log): one "
                                              "file, read once"]
    text = run("train.log", "train.log").stdout
    assert "train.log:5, train.log:71" in text and ":5, train.log:5" not in text


@pytest.mark.parametrize("args", [[], ["cold.log", "--format", "png"], ["cold.log", "--top", "3"]])
def test_bad_usage_exits_2(args):
    assert run(*args).exit_code == 2


def test_help_lists_the_command():
    assert "  compiles  Every compilation, cache hit and recompilation in a run's logs." in \
        CliRunner().invoke(main, ["--help"]).stdout
    usage = run("--help").stdout
    assert usage.startswith("Usage: memreport compiles [OPTIONS] LOG...")
    assert "--fail-on-recompile" in usage and "[text|json|csv|markdown|html]" in usage
