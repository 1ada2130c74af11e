"""scripts/bench_png.py's quick mode on a tiny archive, so the benchmark cannot rot."""
from __future__ import annotations

import json
import os
import subprocess
import sys

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "bench_png.py")


def test_quick_mode_on_a_tiny_archive(tmp_path):
    figures, picture = tmp_path / "figures.json", tmp_path / "pod.png"
    result = subprocess.run([sys.executable, BENCH, "--quick", "--tiles", "48", "--data-dir", str(tmp_path),
                             "--png-out", str(picture), "--json", str(figures)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "--png beyond the read" in result.stdout
    data = json.loads(figures.read_text())
    assert [run["label"] for run in data["runs"]] == ["memreport ARCHIVE -o /dev/null",
                                                      "memreport ARCHIVE -o /dev/null --png X.png"]
    for run in data["runs"]:
        assert len(run["wall"]) == len(run["cpu"]) == 1 and run["wall"][0] > 0 and run["cpu"][0] > 0
    assert set(data["beyond_the_read"]) == {"wall_median_s", "wall_min_s", "cpu_median_s", "cpu_min_s"}
    # The generated archive is kept for the next run; the picture is where it was asked for, whole.
    assert data["archive"] == str(tmp_path / "ipu2_48_tiles.v1.a") and os.path.isfile(data["archive"])
    assert picture.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and data["png_bytes"] == picture.stat().st_size


def test_a_missing_archive_is_a_usage_error(tmp_path):
    result = subprocess.run([sys.executable, BENCH, "--archive", str(tmp_path / "none.a")], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2 and "no such file" in result.stderr
