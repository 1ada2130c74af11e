"""scripts/bench_ipus.py on a small file past the IPUs listed one by one, so the script cannot rot."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "bench_ipus.py")


@pytest.mark.skipif(not os.path.exists("/usr/bin/time"), reason="no GNU time")
def test_one_tile_per_ipu_measured_for_each_output(tmp_path):
    result = subprocess.run([sys.executable, SCRIPT, "--tiles", "5000", "--data-dir", str(tmp_path), "--formats",
                             "json", "text"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].endswith(" MB, 5,000 tiles, one tile per IPU")
    assert lines[2].split()[:4] == ["output", "memreport", "wall", "s"]
    assert [line.split()[:3] for line in lines[3:]] == [["json", "after", "(this"], ["text", "after", "(this"]]
    for line in lines[3:]:
        assert all(float(f) >= 0 for f in line.split(")", 1)[1].split())
    saved = json.loads((tmp_path / "one_tile_per_ipu_5000_v1.json").read_text())["reports"][0]
    assert (saved["target"]["tiles_per_ipu"], saved["target"]["num_ipus"], saved["per_ipu"]) == (1, 5000, [])
