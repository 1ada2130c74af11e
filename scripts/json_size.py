#!/usr/bin/env python3
"""How large a saved report (memreport/1 JSON) is at pod scale, and whether it reads back exactly.

    python scripts/json_size.py [--tiles 94208] [--data-dir bench_data]

Uses scripts/bench.py's inputs (an ipu2 archive and a JSON graph profile of
``--tiles`` tiles, generated once under ``bench_data/``), then for each:
``memreport FILE --format json -o a.json`` (the default JSON, which is the
saved form), ``memreport a.json --format json -o b.json`` (read back and
written again) and compares the two byte for byte. Prints sizes (raw and
gzipped) and wall-clock times; figures go into BENCHMARKS.md by hand.
"""
from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from scripts.bench import GENERATOR_VERSION, POD_TILES, ensure, write_archive, write_profile


def memreport(*args: str) -> float:
    """Run memreport as a user would; the wall-clock seconds it took."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "memreport", *args], check=True, cwd=ROOT)
    return time.perf_counter() - start


def measure(path: str, work: str) -> dict:
    first, second = os.path.join(work, "a.json"), os.path.join(work, "b.json")
    write = memreport(path, "--format", "json", "-o", first)
    read = memreport(first, "--format", "json", "-o", second)
    with open(first, "rb") as f:
        data = f.read()
    with open(second, "rb") as f:
        exact = f.read() == data
    return {"input": os.path.basename(path), "input_mb": os.path.getsize(path) / 1e6, "json_mb": len(data) / 1e6,
            "gzip_mb": len(gzip.compress(data, 6)) / 1e6, "write_s": write, "read_back_s": read, "exact": exact}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiles", type=int, default=POD_TILES)
    parser.add_argument("--data-dir", default=os.path.join(ROOT, "bench_data"))
    args = parser.parse_args(argv)
    os.makedirs(args.data_dir, exist_ok=True)
    inputs = [
        ensure(os.path.join(args.data_dir, f"ipu2_{args.tiles}_tiles.v{GENERATOR_VERSION}.a"), write_archive,
               args.tiles),
        ensure(os.path.join(args.data_dir, f"profile_{args.tiles}_tiles.v{GENERATOR_VERSION}.json"), write_profile,
               args.tiles, "json"),
    ]
    print(f"{'input':<34} {'input MB':>9} {'JSON MB':>8} {'gzip MB':>8} {'write s':>8} {'read s':>7}  exact")
    ok = True
    with tempfile.TemporaryDirectory() as work:
        for path in inputs:
            m = measure(path, work)
            ok &= m["exact"]
            print(f"{m['input']:<34} {m['input_mb']:>9,.1f} {m['json_mb']:>8,.2f} {m['gzip_mb']:>8,.2f} "
                  f"{m['write_s']:>8.2f} {m['read_back_s']:>7.2f}  {'yes' if m['exact'] else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
