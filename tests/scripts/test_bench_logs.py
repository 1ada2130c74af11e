"""scripts/bench_logs.py on a tiny log, so the benchmark cannot rot."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from memreport.readers import read_path
from tests.scripts import script_module

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "bench_logs.py")


def test_quick_mode_on_a_tiny_log(tmp_path):
    figures = tmp_path / "figures.json"
    result = subprocess.run([sys.executable, BENCH, "--quick", "--size-mb", "1", "--data-dir", str(tmp_path),
                             "--json", str(figures)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    rows = json.loads(figures.read_text())["rows"]
    assert [(r["input"], r["command"]) for r in rows] == [
        ("log, 0.5 % say memory", "memreport"), ("log, 0.5 % say memory", "grep -c 'Memory Usage'"),
        ("log, 15 % say memory", "memreport"), ("log, 15 % say memory", "grep -c 'Memory Usage'")]
    assert all(r["runs"] == 1 and r["median_s"] > 0 for r in rows)
    assert sorted(p.name for p in tmp_path.glob("*.log")) == ["log_1mb_150.v1.log", "log_1mb_5.v1.log"]


def test_the_sample_log_takes_its_size_from_size_mb(tmp_path):
    result = subprocess.run([sys.executable, BENCH, "--sample", "run.log", "--size-mb", "1"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    size = (tmp_path / "run.log").stat().st_size
    assert 1_000_000 <= size < 1_100_000, size  # the filler, then two summaries and an error
    assert result.stdout == f"wrote run.log ({size / 1_000_000:,.1f} MB)\n"



def bench_logs_module():
    """scripts/bench_logs.py, imported as a module."""
    return script_module("bench_logs")


def test_interleaved_ranks_alternate_line_by_line():
    bench_logs = bench_logs_module()
    assert bench_logs._interleaved(["a\nb\nc\n", "x\n", "y\nz\n"]) == (
        "[1,0]<stdout>:a\n[1,1]<stdout>:x\n[1,2]<stdout>:y\n[1,0]<stdout>:b\n[1,2]<stdout>:z\n[1,0]<stdout>:c\n")


def test_memory_per_byte_is_read_in_a_child(tmp_path):
    """--shapes' memory figures: a log's peak traced heap and RSS growth per byte, in a fresh process."""
    bench_logs = bench_logs_module()
    path = tmp_path / "ranks.log"
    path.write_text(bench_logs.logs.ranks_one_after_another([bench_logs.small_summary(k) for k in range(40)]))
    traced, rss = bench_logs.memory_per_byte(str(path))
    assert 0.1 < traced < 100 and rss >= 0  # the reports and their lines are held: more than nothing, far less
    # than 100 times the log


def test_the_appended_utf16_shape_is_a_plain_log_then_a_powershell_one(tmp_path):
    """--shapes' appended UTF-16 log: UTF-8 output, then UTF-16 (its BOM after a line end, CRLF) ending in the
    summary, which is read at its line."""
    bench_logs = bench_logs_module()
    path = tmp_path / "appended.log"
    bench_logs.write_appended_utf16(str(path), 0.02, bench_logs.small_summary(0))
    data = path.read_bytes()
    at = data.index(b"\n\xff\xfe") + 1
    assert at >= 10_000 and data[:at].decode("utf-8").count("\n") == data[:at].count(b"\n")
    text = data[:at].decode("utf-8") + data[at:].decode("utf-16").replace("\r\n", "\n")
    report, = read_path(path)
    assert report.position.line == text.splitlines().index("Target:") + 1
