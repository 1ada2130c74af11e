"""Many files at once (issue #23): every readable file reported, each unreadable one named, exit 1."""
from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from memreport.cli import main

SAMPLES = Path(__file__).resolve().parent.parent.parent / "sample_reports"
NO_MEMORY = ("no memory information found: looked for a Poplar memory summary (Target, Memory Usage or By Tile "
             "sections), a 'Tile # N memory usage:' block or an out-of-memory message")
# A run's log with no memory text: Poplar's banner, an attach line, the graph's build time (FORMATS.md §8).
QUIET_LOG = ("Poplar version 3.3.0 (d6e2e7b8f2) Poplar package 3.3.0\n"
             "Trying to attach to IPU 0 - attached\n"
             "Building graph took 0.61902s\n")


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, prog_name="memreport")


@pytest.fixture
def files(tmp_path, archive, monkeypatch):
    """a.txt (a printProfileSummary), b.log (no memory text), missing.txt (absent), c.a (an archive)."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLES / "mk1_summary.txt", "a.txt")
    Path("b.log").write_text(QUIET_LOG)
    shutil.copy(archive, "c.a")
    return ["a.txt", "b.log", "missing.txt", "c.a"]


def test_every_readable_file_is_reported_each_unreadable_one_named_exit_1(files):
    result = run(*files)
    assert result.exit_code == 1
    assert result.stderr == f"memreport: b.log: {NO_MEMORY}\nmemreport: missing.txt: no such file\n"
    readable = run("a.txt", "c.a")
    assert readable.exit_code == 0 and readable.stderr == ""
    assert result.stdout == readable.stdout  # the same reports as if only the readable files were named
    assert readable.stdout.endswith(
        "\n==============================================================================\n\n"
        "Reports (2):\n"
        "  Source  Line  Arch  Tiles  Worst tile      Bytes  OOM tiles\n"
        "  a.txt      1  ipu1  1,216           0    5,780 B          0\n"
        "  c.a           ipu2      6           3  641,089 B          1\n\n"
        "Verdict: 1 of 2 reports has tiles out of memory\n")  # the last line: a verdict over them all


def test_each_message_is_todays_single_file_wording(files):
    alone = [run(name) for name in ("b.log", "missing.txt")]
    assert [(r.exit_code, r.stdout) for r in alone] == [(1, ""), (1, "")]
    assert run(*files).stderr == "".join(r.stderr for r in alone)


def test_one_file_ends_without_the_closing_table(files):
    out = run("c.a").stdout
    assert "Reports (" not in out and not out.endswith("OOM tiles\n")
    assert out == run("c.a", "b.log").stdout


def test_nothing_readable_writes_nothing_and_exits_1(files, tmp_path):
    result = run("b.log", "missing.txt", "--format", "json", "-o", "out.json")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"memreport: b.log: {NO_MEMORY}\nmemreport: missing.txt: no such file\n"
    assert not (tmp_path / "out.json").exists()


def test_json_holds_the_reports_read_and_an_errors_list(files):
    result = run(*files, "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert list(doc) == ["schema", "verdict", "reports", "errors"]
    assert doc["schema"] == "memreport/1"
    assert [r["source"] for r in doc["reports"]] == ["a.txt", "c.a"]
    assert doc["errors"] == [{"file": "b.log", "message": f"b.log: {NO_MEMORY}"},
                             {"file": "missing.txt", "message": "missing.txt: no such file"}]
    assert [list(e) for e in doc["errors"]] == [["file", "message"], ["file", "message"]]
    assert json.loads(run("c.a", "--format", "json").stdout)["errors"] == []  # always present


def test_csv_holds_the_rows_of_the_reports_read_errors_on_stderr_only(files):
    result = run(*files, "--format", "csv")
    assert result.exit_code == 1
    assert result.stdout == run("a.txt", "c.a", "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert {row["source"] for row in rows} == {"a.txt", "c.a"}
    assert result.stderr == f"memreport: b.log: {NO_MEMORY}\nmemreport: missing.txt: no such file\n"


def test_a_read_failure_outranks_a_failed_gate(files):
    gated = run("a.txt", "c.a", "--fail-on-oom")
    assert gated.exit_code == 3
    both = run(*files, "--fail-on-oom")
    assert both.exit_code == 1
    assert both.stderr == (f"memreport: b.log: {NO_MEMORY}\nmemreport: missing.txt: no such file\n"
                           + gated.stderr)
    assert gated.stderr.startswith("memreport: gate failed: 1 tile(s) out of memory in c.a")


def test_standard_input_unreadable_is_named_stdin(files):
    result = run("c.a", "-", "--format", "json", input=QUIET_LOG)
    assert result.exit_code == 1
    assert result.stderr == f"memreport: <stdin>: {NO_MEMORY}\n"
    assert json.loads(result.stdout)["errors"] == [{"file": "<stdin>", "message": f"<stdin>: {NO_MEMORY}"}]


def test_export_saves_the_reports_read_and_names_the_others(files, tmp_path):
    result = run("export", *files, "-o", "saved.json")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"memreport: b.log: {NO_MEMORY}\nmemreport: missing.txt: no such file\n"
    doc = json.loads((tmp_path / "saved.json").read_text())
    assert [r["source"] for r in doc["reports"]] == ["a.txt", "c.a"]
    assert [e["file"] for e in doc["errors"]] == ["b.log", "missing.txt"]
    back = run("saved.json", "--format", "json")  # an export with errors reads back
    assert back.exit_code == 0 and [r["source"] for r in json.loads(back.stdout)["reports"]] == ["a.txt", "c.a"]


def test_diff_keeps_its_two_inputs_rule(files):
    result = run("diff", "c.a", "missing.txt")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "memreport: missing.txt: no such file\n"
