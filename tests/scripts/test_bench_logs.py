"""scripts/bench_logs.py on a tiny log, so the benchmark cannot rot."""
from __future__ import annotations

import json
import os
import subprocess
import sys

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
