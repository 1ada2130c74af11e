"""scripts/bench_fit.py on a small archive, so the benchmark cannot rot: the tiles over as asked, both runs
timed, and the plans the timed run makes are those memreport makes."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.scripts import script_module


def test_a_small_archive(tmp_path):
    bench = script_module("bench_fit")
    out = tmp_path / "out.json"
    result = subprocess.run([sys.executable, bench.__file__, "--tiles", "1472", "--over", "0", "--over", "40",
                             "--repeat", "1", "--data-dir", str(tmp_path), "--json", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    runs = json.loads(out.read_text())["runs"]
    assert [(r["tiles"], r["tiles_over"]) for r in runs] == [(1472, 1), (1472, 40)]  # the archive's own one, 40
    assert runs[0]["tile_memory"] is None and runs[1]["tile_memory"] > 0
    assert all(set(r["median_s"]) == {"without plans", "with plans"} for r in runs)
    assert result.stdout.splitlines()[1].startswith("1,472 tiles, 40 over: without plans ")
    _, calls = bench.runs(str(tmp_path / "ipu2_1472_tiles.v1.a"), runs[1]["tile_memory"])
    planned, unplanned = calls["with plans"](), calls["without plans"]()
    assert len(planned[0].fit_plans) == 40 and all(p.items for p in planned[0].fit_plans)  # symbols named
    assert unplanned[0].fit_plans is None
