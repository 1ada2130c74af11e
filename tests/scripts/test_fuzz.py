"""scripts/fuzz.py in a few seconds, so the long fuzz run cannot rot."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from tests.scripts import script_module

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


def fuzz_module():
    """scripts/fuzz.py, imported as a module."""
    return script_module("fuzz")


def test_a_hang_is_judged_by_cpu_time_not_by_a_busy_machine():
    """Waiting (a loaded machine, a sleep) spends no CPU: only the far larger wall-time backstop ends it."""
    fuzz = fuzz_module()
    started = time.monotonic()
    with fuzz.time_limit(0.05, 30):
        time.sleep(0.3)  # six times the CPU limit in wall time, no CPU
    assert time.monotonic() - started >= 0.3
    with pytest.raises(fuzz.Hang, match=r"^over 0\.05 s of CPU$"), fuzz.time_limit(0.05, 30):
        while True:  # a real infinite loop
            pass
    with pytest.raises(fuzz.Hang, match=r"^over 0\.2 s of wall time$"), fuzz.time_limit(30, 0.2):
        time.sleep(5)
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)  # both timers off after the block
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGPROF) == signal.SIG_DFL


def test_a_slow_reading_is_reported_as_a_hang(tmp_path, monkeypatch):
    fuzz = fuzz_module()
    fuzzer = fuzz.Fuzzer(str(tmp_path), None, 0.05, 0)

    def spin(path, *, archive):
        while True:
            pass

    monkeypatch.setattr(fuzzer, "_read", spin)
    fuzzer.one("elf32", b"\x7fELF")
    assert fuzzer.failures == {("elf32", "Hang: over 0.05 s of CPU"): b"\x7fELF"}
    assert fuzzer.wall_timeout == 0.05 * fuzz.WALL_FACTOR
