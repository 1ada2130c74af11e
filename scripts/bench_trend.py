#!/usr/bin/env python3
"""Benchmark ``memreport trend`` over saved exports of pod-sized builds (issue 32: fifty Pod64 exports in under 5 s).

Generates (or reuses) ``--builds`` memreport/1 JSON exports of ``--tiles`` tiles
each under ``bench_data/trend/`` (or ``--data-dir``), as ``memreport export``
writes them for an archive: every tile's .text, .data and .bss (values of
mixed widths, from 0 to past tile memory), member names, a few idle tiles at
0 on some IPUs; from build to build some tiles grow, so tiles go over tile
memory at different builds and a few come back under. Then runs
``memreport trend`` on them all as a subprocess, ``--repeat`` times, in each
output format asked for, and prints the median and minimum wall time, the
CPU time (user and system: what other work on a loaded machine does not
inflate), the children's peak RSS and the answer's first line.

    python scripts/bench_trend.py                       # 50 builds of 94,208 tiles (about 200 MB, once)
    python scripts/bench_trend.py --builds 5 --tiles 1472 --data-dir /tmp/bt   # a smoke run
    python scripts/bench_trend.py --formats text json --repeat 5
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from memreport.analysis import summarize_all
from memreport.model import Column, StatedTarget, TileReport, resolve_target
from memreport.render import render
from scripts.bench import BYTES_PER_TILE, POD_TILES, TILES_PER_IPU, machine, tile_layout

GENERATOR_VERSION = 1  # bump when the generated content changes, so stale files are rebuilt


def build_report(num_tiles: int, k: int) -> TileReport:
    """Build ``k`` of a project: the bench archive's layout, with growth on some tiles from build to build."""
    layout = tile_layout(num_tiles)  # (text, data, bss) per tile, a few tiles past tile memory
    rng = np.random.default_rng(1000 + k)
    growing = np.random.default_rng(11).choice(num_tiles, size=max(1, num_tiles // 500), replace=False)
    bss = layout[:, 2].copy()
    bss[growing] += (k * np.random.default_rng(12).integers(500, 4_000, growing.size)).astype(np.int64)
    bss += rng.integers(-64, 64, num_tiles) * 4  # every build moves a little
    bss = np.maximum(bss, 0)
    idle = np.zeros(num_tiles, dtype=bool)
    for ipu in range(0, num_tiles // TILES_PER_IPU, 16):  # the last tiles of every 16th IPU hold nothing
        idle[ipu * TILES_PER_IPU + TILES_PER_IPU - 96:(ipu + 1) * TILES_PER_IPU] = True
    text, data = layout[:, 0].copy(), layout[:, 1].copy()
    for column in (text, data, bss):
        column[idle] = 0
    stated = StatedTarget(num_tiles=num_tiles, arch="ipu2", source_kind="archive")
    target = resolve_target(stated)[0]
    assert target.bytes_per_tile == BYTES_PER_TILE
    return TileReport(f"builds/{k:03d}/archive.a", "archive", target, (text + data + bss).astype(np.int64),
                      breakdown={".text": Column(text.astype(np.int64)), ".data": Column(data.astype(np.int64)),
                                 ".bss": Column(bss.astype(np.int64))},
                      breakdown_kind="section", tile_names=[f"tile_{t:05d}.elf" for t in range(num_tiles)],
                      stated=stated)


def write_export(path: str, num_tiles: int, k: int) -> None:
    """What ``memreport export`` writes for the build (the report's memreport/1 JSON)."""
    text = render("report", "json", summarize_all([build_report(num_tiles, k)]))
    with open(path + ".part", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".part", path)


def exports(directory: str, builds: int, num_tiles: int) -> list[str]:
    os.makedirs(directory, exist_ok=True)
    paths = []
    for k in range(builds):
        path = os.path.join(directory, f"build{k:03d}_{num_tiles}.v{GENERATOR_VERSION}.json")
        if not os.path.exists(path):
            write_export(path, num_tiles, k)
        paths.append(path)
    size = sum(os.path.getsize(p) for p in paths)
    print(f"{builds} exports of {num_tiles:,} tiles: {size / 1e6:,.1f} MB", file=sys.stderr, flush=True)
    return paths


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(paths: list[str], fmt: str) -> tuple[float, float, str]:
    """One ``memreport trend`` run: its wall time, its CPU time (user + system: what a loaded machine's other
    work does not inflate) and its first line."""
    start, cpu = time.perf_counter(), _cpu()
    done = subprocess.run([sys.executable, "-m", "memreport", "trend", *paths, "--format", fmt],
                          capture_output=True, text=True, cwd=ROOT)
    took = time.perf_counter() - start
    if done.returncode not in (0, 3):
        raise SystemExit(f"memreport trend failed ({done.returncode}): {done.stderr}")
    return took, _cpu() - cpu, done.stdout.splitlines()[0] if done.stdout else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builds", type=int, default=50)
    parser.add_argument("--tiles", type=int, default=POD_TILES)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formats", nargs="+", default=["text", "json"])
    parser.add_argument("--data-dir", default=os.path.join(ROOT, "bench_data", "trend"))
    args = parser.parse_args(argv)
    paths = exports(args.data_dir, args.builds, args.tiles)
    info = machine()
    print(f"python {info['python']}, {info.get('cpu', platform.machine())}, {info['nproc']} CPUs, "
          f"{platform.platform()}")
    print(f"load average before: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'format':<8} {'wall median s':>14} {'wall min s':>11} {'CPU median s':>13}  first line")
    for fmt in args.formats:
        runs = [run_once(paths, fmt) for _ in range(args.repeat)]
        wall, cpu = [t for t, _, _ in runs], [c for _, c, _ in runs]
        print(f"{fmt:<8} {statistics.median(wall):>14.2f} {min(wall):>11.2f} {statistics.median(cpu):>13.2f}  "
              f"{runs[0][2][:70]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of a run: {peak:,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
