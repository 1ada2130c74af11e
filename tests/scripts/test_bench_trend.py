"""scripts/bench_trend.py on a few small builds, so the benchmark cannot rot: exports memreport reads back, and
the trend's answer over them."""
from __future__ import annotations

import subprocess
import sys

import memreport
from tests.scripts import script_module


def test_a_few_small_builds(tmp_path):
    bench = script_module("bench_trend")
    result = subprocess.run([sys.executable, bench.__file__, "--builds", "3", "--tiles", "2944", "--repeat", "1",
                             "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "3 exports of 2,944 tiles" in result.stderr
    lines = result.stdout.splitlines()
    assert lines[2].split()[:5] == ["format", "wall", "median", "s", "wall"]
    assert lines[3].startswith("text ") and "Verdict: " in lines[3] and lines[4].startswith("json ")
    exports = sorted(tmp_path.glob("build*_2944.v1.json"))
    assert len(exports) == 3
    report = memreport.read(exports[2])
    assert report.num_tiles == 2944 and report.target.bytes_per_tile == 638_976
    assert int(report.excluding_gaps.min()) == 0  # idle tiles
    assert sorted(report.breakdown) == [".bss", ".data", ".text"] and report.tile_names[7] == "tile_00007.elf"
    t = memreport.trend(*exports)
    assert [b.label for b in t.builds] == [p.name for p in exports] and t.num_tiles >= 1
