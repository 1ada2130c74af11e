"""scripts/bench_compiles.py's quick mode on a tiny log, so the benchmark cannot rot."""
from __future__ import annotations

import json
import os
import subprocess
import sys

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "bench_compiles.py")


def test_quick_mode_on_a_tiny_log(tmp_path):
    figures = tmp_path / "figures.json"
    result = subprocess.run([sys.executable, BENCH, "--quick", "--size-mb", "0.5", "--data-dir", str(tmp_path),
                             "--json", str(figures)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "memreport compiles --format json" in result.stdout and "grep -c 'Starting phase'" in result.stdout
    rows = json.loads(figures.read_text())["rows"]
    assert [r["command"] for r in rows] == ["memreport compiles --format json", "grep -c 'Starting phase'"]
    assert all(r["runs"] == 1 and r["median_s"] > 0 for r in rows)
    log, = tmp_path.glob("run_*.log")
    out = subprocess.run([sys.executable, "-m", "memreport", "compiles", str(log), "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    assert len(doc["compilations"]) >= 1 and all(c["result"] == "compiled" for c in doc["compilations"])


def test_many_compilations_mode(tmp_path):
    """``--many N``: N and 4 N compilations back to back (issue #26 item 4), each log read whole."""
    figures = tmp_path / "figures.json"
    result = subprocess.run([sys.executable, BENCH, "--many", "3", "--repeat", "1", "--data-dir", str(tmp_path),
                             "--json", str(figures)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "CPU of 12 compilations over 3: " in result.stdout
    rows = json.loads(figures.read_text())["rows"]
    assert [(r["input"], r["command"]) for r in rows] == [
        ("3 compilations", "memreport compiles --format json"), ("3 compilations", "grep -c 'Begin XLA'"),
        ("12 compilations", "memreport compiles --format json"), ("12 compilations", "grep -c 'Begin XLA'")]
    out = subprocess.run([sys.executable, "-m", "memreport", "compiles", str(tmp_path / "many_12.v2.log"),
                          "--format", "json"], capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    assert [c["result"] for c in doc["compilations"]] == ["compiled", "loaded"] * 6
    assert doc["totals"]["unfinished"] == 0
