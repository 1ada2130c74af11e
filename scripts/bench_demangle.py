#!/usr/bin/env python3
"""Peak memory and CPU of reporting an archive whose symbols are demangling bombs (issue #33 item 11).

Each tile ELF of the archive (``tests/synth/archive.py``'s ``bomb_archive``)
has a C++ symbol whose substitutions double its C++ name at each level: at
20 levels 167 bytes demangle to 12 MB. ``memreport ARCHIVE --tile N`` (every
tile asked for, so every symbol table is read and demangled) runs in a fresh
child process, after a warm-up run on the archive of one level (imports,
the C++ runtime, caches: not counted); the figures are the
child's peak RSS growth over the warm-up's (ru_maxrss) and its CPU time, then
the growth over the archive's size (the promise: within 20x).

    python scripts/bench_demangle.py                  # 8, 12, 16 and 20 levels, 4 tiles
    python scripts/bench_demangle.py --levels 20 24 --tiles 16
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench import machine

from tests.synth.archive import bomb_archive

_CHILD = """
import os, resource, sys, time
from memreport.cli import main

def report(path, tiles):
    args = [path, "-o", os.devnull, *[a for t in range(tiles) for a in ("--tile", str(t))]]
    try:
        main(args, standalone_mode=False)
    except SystemExit:
        pass

tiles = int(sys.argv[3])
report(sys.argv[1], tiles)  # the plain archive: imports and the C++ runtime loaded, not counted
before = resource.getrusage(resource.RUSAGE_SELF)
report(sys.argv[2], tiles)
after = resource.getrusage(resource.RUSAGE_SELF)
cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
print((after.ru_maxrss - before.ru_maxrss) * 1024, cpu)
"""


def measure(levels: int, tiles: int, directory: str) -> dict:
    data = bomb_archive(levels, tiles)
    bomb, control = os.path.join(directory, f"bomb{levels}.a"), os.path.join(directory, f"plain{levels}.a")
    with open(bomb, "wb") as f:
        f.write(data)
    with open(control, "wb") as f:
        f.write(bomb_archive(1, tiles))  # the same tiles, each C++ name a Pair<int, int>
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _CHILD, control, bomb, str(tiles)], capture_output=True, text=True,
                          check=True, env=env)
    growth, cpu = done.stdout.split()
    return {"levels": levels, "tiles": tiles, "archive_bytes": len(data), "rss_growth_bytes": int(growth),
            "cpu_seconds": float(cpu), "growth_over_input": int(growth) / len(data)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[8, 12, 16, 20], help="levels of each bomb")
    parser.add_argument("--tiles", type=int, default=4, help="tile ELFs in the archive, a bomb each (default 4)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="memreport-bench-demangle-") as directory:
        for levels in args.levels:
            rows.append(measure(levels, args.tiles, directory))
    print(f"{'levels':>6} {'tiles':>5} {'archive B':>9} {'RSS growth':>12} {'x input':>8} {'CPU s':>6}")
    for r in rows:
        print(f"{r['levels']:>6} {r['tiles']:>5} {r['archive_bytes']:>9,} {r['rss_growth_bytes']:>12,} "
              f"{r['growth_over_input']:>8.1f} {r['cpu_seconds']:>6.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
