"""Everything CI checks, in order: ruff, mypy, the whole test suite (the README's test command), then the page
script's unit tests (``node --test``).

    python scripts/check.py [pytest arguments...]

Stops at the first step that fails and exits with its status. `.ci/run`
runs exactly this after installing the test extras, chromium and Node.js.
Without ``node`` on PATH the last step is skipped, saying so, except in CI
(``CI`` set), where a missing node fails it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def node_tests() -> list[str]:
    """The page script's tests (``tests/**/*.test.mjs``), named for ``node --test`` (Node 18 and 20 take files,
    not globs)."""
    return sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("tests/**/*.test.mjs"))


def main(argv: list[str]) -> int:
    steps = [
        ("ruff", [sys.executable, "-m", "ruff", "check", "memreport", "tests", "scripts"]),
        ("mypy", [sys.executable, "-m", "mypy"]),
        # Two workers on CI's two cores halve the suite's wall time (pytest-xdist, in the test extra); worksteal
        # keeps both busy when a slow test lands late. Give `-n 0` to run in one process.
        ("pytest", [sys.executable, "-m", "pytest", "-n", "auto", "--dist", "worksteal", *argv]),
        ("node", ["node", "--test", *node_tests()]),
    ]
    for name, command in steps:
        if name == "node" and shutil.which("node") is None:
            if os.environ.get("CI"):
                print("== node failed: node is not installed (CI needs Node.js 18 or later for the page's tests)",
                      flush=True)
                return 1
            print("== node: skipped: node is not installed here (apt-get install nodejs: Node.js 18 or later runs "
                  "the page script's tests)", flush=True)
            continue
        print(f"== {name}: {' '.join(command[2:] if command[0] == sys.executable else command)}", flush=True)
        status = subprocess.run(command, cwd=ROOT).returncode
        if status:
            print(f"== {name} failed (exit {status})", flush=True)
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
