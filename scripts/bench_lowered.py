#!/usr/bin/env python3
"""Benchmark the lowered-variables reader against ``orjson.loads``, and the fit plan at pod scale (issue #31).

Generates (or reuses) under ``bench_data/`` (or ``--data-dir``) a
lowered-variables report of ``--vars`` variables (1,000,000 by default) over
1,472 tiles, compact as orjson writes JSON and indented as ``json.dump(indent=2)``
does (``tests/synth/lowered.py``: names repeating across tiles, one variable
in eight sharing its neighbour's offset). Then it runs, alternately
(``--repeat`` timed rounds after one warm-up each; the timing helpers are
``scripts/bench.py``'s), each as its own process reading the file:

- ``memreport: read_path`` (the reader, the report built: every tile's bytes
  and every variable as columns);
- ``python: orjson.loads`` (the bare decoder, the target's yardstick);
- ``memreport --format text`` (the whole command, for the record);

and prints medians, minima, the reader's time over the others', each
process's peak RSS (GNU time) and CPU time. The targets: the reader within
1.5x ``orjson.loads``' time, its peak memory under 3x the file.

The fit plan is timed in this process (CPU seconds, medians): over a
POD64's 94,208 tiles with ``--over`` of them over their limit, each with
50 to 400 symbols of additive bytes (what an archive's symbol tables give),
and over the generated report's tiles with its bytes per tile set so that
``--over`` tiles are over (overlapping variables). Target: the plan adds at
most 0.2 s at pod scale.

    python scripts/bench_lowered.py                  # the full run (writes ~600 MB once)
    python scripts/bench_lowered.py --quick          # a smoke run: 20,000 variables, one timed run each
    python scripts/bench_lowered.py --no-plans --json out.json
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import asdict

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench import Command, Row, _gnu_time, bench, ensure, machine, memreport_argv, precompile, print_table, rows_for

from tests.synth.lowered import write_large

GENERATOR_VERSION = 1  # bump when tests/synth/lowered.write_large changes
POD_TILES = 94_208
READ_CODE = "import sys; from memreport.readers import read_path; read_path(sys.argv[1])"
BARE_CODE = "import orjson, sys; orjson.loads(open(sys.argv[1], 'rb').read())"


def commands(path: str) -> list[Command]:
    return [Command("memreport: read_path", [sys.executable, "-c", READ_CODE, path]),
            Command("python: orjson.loads", [sys.executable, "-c", BARE_CODE, path]),
            Command("memreport --format text", memreport_argv() + [path, "--format", "text"])]


def targets(rows: list[Row]) -> list[tuple[str, str, bool]]:
    found = []
    for ours in (r for r in rows if r.command == "memreport: read_path"):
        bare = next(r for r in rows if r.input == ours.input and r.command == "python: orjson.loads")
        assert bare.ratio is not None
        cpu = "" if bare.cpu_ratio is None else f" ({bare.cpu_ratio:.2f}x its CPU)"
        found.append((f"{ours.input}: within 1.5x orjson.loads", f"{bare.ratio:.2f}x{cpu}", bare.ratio <= 1.5))
        found.append((f"{ours.input}: peak under 3x the file ({ours.size_mb:.0f} MB)",
                      f"{ours.peak_rss_mb:.0f} MB = {ours.peak_rss_mb / ours.size_mb:.2f}x (orjson.loads "
                      f"{bare.peak_rss_mb:.0f} MB)", ours.peak_rss_mb < 3 * ours.size_mb))
    return found


def pod_items(num_over: int, seed: int = 5) -> list[tuple[object, int]]:
    """``num_over`` tiles of 50 to 400 symbols each (sizes long-tailed, as a tile's arrays and code are), each
    with a gap of up to 80,000 bytes: (FitItems, gap)."""
    from memreport.analysis.fit_plan import ALWAYS_LIVE, FitItem, FitItems
    rng = np.random.default_rng(seed)
    tiles = np.sort(rng.choice(POD_TILES, num_over, replace=False))
    found = []
    for tile in tiles.tolist():
        sizes = (rng.pareto(1.2, int(rng.integers(50, 400))) * 800 + 4).astype(np.int64).tolist()
        items = tuple(FitItem(f"sym_{tile}_{i}", (".bss", ".data", ".text")[i % 3], ALWAYS_LIVE, s, s)
                      for i, s in enumerate(sizes))
        found.append((FitItems(tile, items), int(rng.integers(1, min(sum(sizes), 80_000)))))
    return found


def time_plans(path: str, num_over: int, repeat: int) -> dict:
    """CPU seconds (medians) of the fit plan: pod-scale symbols, and the generated report's variables."""
    from memreport.analysis.fit_plan import fit_plan, variable_plans
    from memreport.model import Target
    from memreport.readers import read_path

    def median(call) -> tuple[float, object]:
        spent = []
        for _ in range(repeat):
            start = time.process_time()
            result = call()
            spent.append(time.process_time() - start)
        return statistics.median(spent), result

    tiles = pod_items(num_over)
    pod_s, plans = median(lambda: [fit_plan(items, gap) for items, gap in tiles])
    build_s, _ = median(lambda: pod_items(num_over))
    report = read_path(path)[0]
    ranked = np.sort(report.excluding_gaps)
    limit = int(ranked[-min(num_over, ranked.size)]) - 1
    tight = report.evolve(target=Target(num_tiles=report.num_tiles, bytes_per_tile=limit))
    lowered_s, lowered = median(lambda: variable_plans(tight))
    return {"pod_tiles": POD_TILES, "tiles_over": num_over, "pod_plan_s": pod_s, "pod_items_s": build_s,
            "pod_optimal": sum(p.optimal for p in plans), "pod_most_items": max(len(p.items) for p in plans),
            "lowered_tiles_over": len(lowered), "lowered_plan_s": lowered_s,
            "lowered_greedy": sum(p.search == "greedy" for p in lowered),
            "lowered_fewest_proven": sum(p.at_least == len(p.items) for p in lowered),
            "lowered_variables_per_tile": round(len(report.variables) / report.num_tiles)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.path.join(ROOT, "bench_data"),
                        help="where generated inputs are kept and reused (default: bench_data/)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 20,000 variables, one timed run each")
    parser.add_argument("--vars", type=int, default=None, metavar="N", help="variables (default 1,000,000)")
    parser.add_argument("--tiles", type=int, default=1472, metavar="N", help="tiles of the report (default 1,472)")
    parser.add_argument("--over", type=int, default=300, metavar="N", help="tiles over their limit (default 300)")
    parser.add_argument("--repeat", type=int, default=None, metavar="N",
                        help="timed runs per command (default 5, 1 with --quick)")
    parser.add_argument("--regenerate", action="store_true", help="rebuild the inputs even if present")
    parser.add_argument("--no-plans", action="store_true", help="the reader only")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 5)
    num_vars = args.vars if args.vars is not None else (20_000 if args.quick else 1_000_000)
    if repeat < 1 or num_vars < 2 or args.tiles < 1 or args.over < 1:
        parser.error("--repeat, --tiles and --over must be at least 1, --vars at least 2")
    os.makedirs(args.data_dir, exist_ok=True)
    precompile()
    gnu_time = _gnu_time()
    rows: list[Row] = []
    paths = {}
    for spaced in (False, True):
        name = f"lowered_{num_vars}_{args.tiles}{'_spaced' if spaced else ''}.v{GENERATOR_VERSION}.json"
        path = ensure(os.path.join(args.data_dir, name), lambda p, s=spaced: write_large(p, num_vars, args.tiles,
                                                                                        spaced=s),
                      fresh=args.regenerate)
        paths[spaced] = path
        cmds = commands(path)
        bench(cmds, repeat, gnu_time)
        rows += rows_for(f"{num_vars:,} variables{', indented' if spaced else ''}", path, cmds)
    print_table(rows)
    found = targets(rows)
    plans = None if args.no_plans else time_plans(paths[False], args.over, repeat)
    if plans is not None:
        found.append((f"fit plan at {POD_TILES:,} tiles, {args.over} over: at most 0.2 s",
                      f"{plans['pod_plan_s']:.3f} s ({plans['pod_optimal']} of {args.over} proven optimal)",
                      plans["pod_plan_s"] <= 0.2))
        print(f"\nfit plan: {json.dumps(plans)}")
    width = max(len(t) for t, _, _ in found)
    print(f"\n{'target':<{width}}  measured")
    for target, measured, met in found:
        print(f"{target:<{width}}  {measured}  {'yes' if met else 'NO'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "repeat": repeat, "rows": [asdict(r) for r in rows], "plans": plans,
                       "targets": found}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
