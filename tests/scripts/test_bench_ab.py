"""scripts/bench_ab.py on the bundled sample against this tree's own HEAD, so the script cannot rot."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "bench_ab.py")


@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, ".git")), reason="not a git checkout")
def test_before_and_after_on_the_sample():
    sample = os.path.join(ROOT, "sample_reports", "mk2_1472_tiles.a")
    result = subprocess.run([sys.executable, SCRIPT, "--before", "HEAD", "--repeat", "1", "--", sample, "--format",
                             "json", "-o", os.devnull], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"memreport {sample} --format json -o {os.devnull}: 1 alternating round(s)"
    assert lines[1].split() == ["wall", "median", "min", "CPU", "median", "min", "peak", "MB"]
    assert [line.split("  ")[0].strip() for line in lines[2:]] == ["before (HEAD)", "after (this tree)"]
    for line in lines[2:]:
        figures = line.rsplit(")", 1)[1].split()
        assert len(figures) == 5 and all(float(f) > 0 for f in figures if f != "-")


def test_a_memreport_failure_is_reported():
    result = subprocess.run([sys.executable, SCRIPT, "--before", "HEAD", "--repeat", "1", "--", "/nonexistent.a"],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 1 and "exited 1" in result.stderr and "/nonexistent.a: no such file" in result.stderr
