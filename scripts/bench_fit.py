#!/usr/bin/env python3
"""What the fit plans add to a report of a POD64 archive (issue #31: at most 0.2 s).

Generates (or reuses) ``scripts/bench.py``'s Mk2 archive of 94,208 tile
ELFs (``bench_data/`` or ``--data-dir``), reads it once per tile memory
asked (``--over``: the bytes per tile set so that that many tiles are over
their limit, as ``--tile-memory`` would; 0 keeps the archive's own four),
then times, alternately, in this process (``--repeat`` rounds after one
warm-up, medians and minima of wall time):

- **without plans**: what ``memreport FILE`` did before the plans: the
  symbol tables of the top tiles read (``session.with_symbols``), the
  report summarized with its plans left out;
- **with plans**: the same with the symbol tables of the tiles over read
  too (the 1,000 worst at most) and every plan searched
  (``analysis.summarize``, as the command runs it).

The difference is what the plans add; rendering is the same either way but
for a few lines of text, and is left out.

    python scripts/bench_fit.py                      # 94,208 tiles; the archive's 4 over, then 300 and 1,000
    python scripts/bench_fit.py --quick              # 1,472 tiles, one timed round
    python scripts/bench_fit.py --over 0 --over 5000 --json out.json
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from unittest import mock

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench import GENERATOR_VERSION, POD_TILES, ensure, machine, write_archive

TOP = 5  # memreport's default --top
TARGET_S = 0.2


def tile_memory_for(path: str, over: int) -> int | None:
    """The bytes per tile that leave ``over`` tiles above it (None: the archive's own)."""
    if over <= 0:
        return None
    from memreport import read
    sizes = np.sort(read(path).excluding_gaps)[::-1]
    return int(sizes[over])  # the (over+1)-th largest: the ``over`` larger ones are over it


def runs(path: str, tile_memory: int | None) -> tuple[int, dict[str, Callable[[], object]]]:
    """The tiles over, and the two runs to compare: each reads its symbols and summarizes, from reports read
    once."""
    from memreport import session
    from memreport.analysis import summarize, summary
    reads = session.read_files([path], session.read_options(tile_memory=tile_memory))

    def without() -> object:
        reports = session.with_symbols(reads, TOP)
        with mock.patch.object(summary, "fit_plans", lambda *a, **k: (None, None, None)):
            return [summarize(r, top=TOP) for r in reports]

    def with_plans() -> object:
        reports = session.with_symbols(reads, TOP, fit=True)
        return [summarize(r, top=TOP) for r in reports]

    report = reads[0].report
    over = int(np.count_nonzero(report.excluding_gaps > report.target.bytes_per_tile))
    return over, {"without plans": without, "with plans": with_plans}


def timed(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, list[float]]:
    """Wall seconds of each call, alternating, after one warm-up round."""
    for call in calls.values():
        call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.path.join(ROOT, "bench_data"))
    parser.add_argument("--tiles", type=int, default=None, help=f"tiles in the archive (default {POD_TILES:,})")
    parser.add_argument("--over", type=int, action="append", help="tiles over their limit (repeatable)")
    parser.add_argument("--repeat", type=int, default=None, help="timed rounds (default 7; --quick 1)")
    parser.add_argument("--quick", action="store_true", help="1,472 tiles, one timed round")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    tiles = args.tiles or (1472 if args.quick else POD_TILES)
    repeat = args.repeat or (1 if args.quick else 7)
    overs = args.over or ([0, 30] if args.quick else [0, 300, 1000])
    os.makedirs(args.data_dir, exist_ok=True)
    path = ensure(os.path.join(args.data_dir, f"ipu2_{tiles}_tiles.v{GENERATOR_VERSION}.a"), write_archive, tiles)
    found = []
    for over in overs:
        memory = tile_memory_for(path, over)
        actual, calls = runs(path, memory)
        times = timed(calls, repeat)
        medians = {name: statistics.median(t) for name, t in times.items()}
        added = medians["with plans"] - medians["without plans"]
        found.append({"tiles": tiles, "tiles_over": actual, "tile_memory": memory, "repeat": repeat,
                      "median_s": medians, "min_s": {n: min(t) for n, t in times.items()}, "added_s": added,
                      "within_target": added <= TARGET_S})
        print(f"{tiles:,} tiles, {actual:,} over: without plans {medians['without plans']:.3f} s, "
              f"with plans {medians['with plans']:.3f} s (median of {repeat}): the plans add {added:.3f} s "
              f"({'within' if added <= TARGET_S else 'OVER'} {TARGET_S} s)", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "runs": found}, f, indent=2)
    return 0 if all(r["within_target"] for r in found) else 1


if __name__ == "__main__":
    sys.exit(main())
