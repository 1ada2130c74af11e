"""scripts/bench_lowered.py's quick mode on tiny inputs, so the benchmark cannot rot."""
from __future__ import annotations

import json
import os
import subprocess
import sys

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "bench_lowered.py")


def test_quick_mode_on_tiny_inputs(tmp_path):
    figures = tmp_path / "figures.json"
    result = subprocess.run([sys.executable, BENCH, "--quick", "--vars", "300", "--tiles", "8", "--over", "3",
                             "--data-dir", str(tmp_path), "--json", str(figures)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    data = json.loads(figures.read_text())
    commands = {(row["input"], row["command"]) for row in data["rows"]}
    for shape in ("300 variables", "300 variables, indented"):
        assert {(shape, "memreport: read_path"), (shape, "python: orjson.loads"),
                (shape, "memreport --format text")} <= commands
    assert all(row["runs"] == 1 and row["median_s"] > 0 and row["peak_rss_mb"] > 0 for row in data["rows"])
    assert [t[0] for t in data["targets"]] == [
        "300 variables: within 1.5x orjson.loads", "300 variables: peak under 3x the file (0 MB)",
        "300 variables, indented: within 1.5x orjson.loads", "300 variables, indented: peak under 3x the file (0 MB)",
        "fit plan at 94,208 tiles, 3 over: at most 0.2 s"]
    plans = data["plans"]
    assert (plans["tiles_over"], plans["pod_optimal"], plans["lowered_tiles_over"]) == (3, 3, 3)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("lowered_")) == [
        "lowered_300_8.v1.json", "lowered_300_8_spaced.v1.json"]
