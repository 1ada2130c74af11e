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


def test_processes_share_the_inputs_and_add_up(tmp_path):
    """--inputs N --processes 2: how the 1,000,000-input run is done on two cores."""
    result = subprocess.run([sys.executable, FUZZ, "--inputs", "24", "--processes", "2", "--formats", "elf32",
                             "tensor_map", "--png-every", "1", "--seed", "3", "--save", str(tmp_path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"^seed 3; \d+ s; 24 inputs tried \(elf32 12, tensor_map 12\)$", result.stdout, re.M)
    drawn = re.search(r"^of those read, (\d+) also through the PNG renderer;", result.stdout, re.M)
    read = re.search(r"^readings: (\d+) read,", result.stdout, re.M)
    assert drawn and read and 0 < int(drawn.group(1)) <= int(read.group(1))
