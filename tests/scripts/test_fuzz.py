"""scripts/fuzz.py in a few seconds, so the long fuzz run cannot rot."""
from __future__ import annotations

import os
import re
import subprocess
import sys

FUZZ = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "fuzz.py")


def test_a_short_run_counts_inputs_and_failures(tmp_path):
    result = subprocess.run([sys.executable, FUZZ, "--examples", "20", "--formats", "elf32", "text_summary",
                             "--seed", "1", "--save", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"^seed 1; \d+ s; 40 inputs tried \(elf32 20, text_summary 20\)$", result.stdout, re.M)
    assert re.search(r"^readings: \d+ read, \d+ refused with ReadError, 0 failures \(0 distinct\)$", result.stdout,
                     re.M)
    assert list(tmp_path.iterdir()) == []  # failing inputs only are saved
