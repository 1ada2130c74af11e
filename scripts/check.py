"""Everything CI checks, in order: ruff, mypy, then the whole test suite (the README's test command).

    python scripts/check.py [pytest arguments...]

Stops at the first step that fails and exits with its status. `.ci/run`
runs exactly this after installing the test extras.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    steps = [
        ("ruff", [sys.executable, "-m", "ruff", "check", "memreport", "tests", "scripts"]),
        ("mypy", [sys.executable, "-m", "mypy"]),
        # Two workers on CI's two cores halve the suite's wall time (pytest-xdist, in the test extra); worksteal
        # keeps both busy when a slow test lands late. Give `-n 0` to run in one process.
        ("pytest", [sys.executable, "-m", "pytest", "-n", "auto", "--dist", "worksteal", *argv]),
    ]
    for name, command in steps:
        print(f"== {name}: {' '.join(command[2:])}", flush=True)
        status = subprocess.run(command, cwd=ROOT).returncode
        if status:
            print(f"== {name} failed (exit {status})", flush=True)
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
