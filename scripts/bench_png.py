#!/usr/bin/env python3
"""Benchmark what ``--png`` costs beyond the read, on a pod-scale archive (issue #15).

Runs ``memreport ARCHIVE -o /dev/null`` and ``memreport ARCHIVE -o /dev/null
--png OUT.png`` alternately, ``--repeat`` times after one untimed warm-up
each (so the page cache holds the archive), and prints for each command the
median and least wall time and CPU time (user + system of the process and
its children) and the peak RSS, measured as ``scripts/bench.py`` measures;
then what the picture costs beyond the read: the median of each round's
difference and the difference of the minima, in wall and in CPU time.

The archive is ``--archive PATH``, else the 94,208-tile (64 x Mk2 IPU) one
``scripts/bench.py`` writes under ``bench_data/`` (or ``--data-dir``),
generated there first if it is missing (generation is never timed).

    python scripts/bench_png.py                          # 94,208 tiles, 9 rounds
    python scripts/bench_png.py --archive pod.a --repeat 15
    python scripts/bench_png.py --quick                  # a smoke run: 1,472 tiles, one round
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench import (
    GENERATOR_VERSION,
    POD_TILES,
    Command,
    _gnu_time,
    bench,
    ensure,
    machine,
    precompile,
    write_archive,
)
from bench_logs import memreport_command

QUICK_TILES = 1472
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def beyond(read: Command, png: Command) -> dict[str, float]:
    """What the picture adds: the median of the rounds' differences, and the difference of the minima."""
    return {"wall_median_s": statistics.median(b - a for a, b in zip(read.times, png.times)),
            "wall_min_s": min(png.times) - min(read.times),
            "cpu_median_s": statistics.median(b - a for a, b in zip(read.cpu, png.cpu)),
            "cpu_min_s": min(png.cpu) - min(read.cpu)}


def report(archive: str, cmds: list[Command], extra: dict[str, float], png_bytes: int, out=sys.stdout) -> None:
    size_mb = os.path.getsize(archive) / 1e6
    print(f"{archive} ({size_mb:,.1f} MB): {len(cmds[0].times)} alternating round(s) after one warm-up each",
          file=out)
    head = f"{'command':<44} {'wall med':>9} {'wall min':>9} {'CPU med':>9} {'CPU min':>9} {'peak MB':>8}"
    print(head, file=out)
    print("-" * len(head), file=out)
    for c in cmds:
        print(f"{c.label:<44} {c.median:>9.3f} {min(c.times):>9.3f} {c.cpu_median:>9.3f} "
              f"{min(c.cpu):>9.3f} {c.peak_mb:>8.1f}", file=out)
    print(f"{'--png beyond the read':<44} {extra['wall_median_s']:>9.3f} {extra['wall_min_s']:>9.3f} "
          f"{extra['cpu_median_s']:>9.3f} {extra['cpu_min_s']:>9.3f}", file=out)
    print("(beyond the read: the median of each round's difference, and the difference of the minima; "
          f"the PNG is {png_bytes:,} bytes)", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", metavar="PATH", help="the archive to draw (default: the generated one)")
    parser.add_argument("--data-dir", default=os.path.join(ROOT, "bench_data"),
                        help="where the generated archive is kept and reused (default: bench_data/)")
    parser.add_argument("--tiles", type=int, default=None, metavar="N",
                        help=f"tiles of the generated archive (default {POD_TILES:,}; {QUICK_TILES:,} with --quick)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: a small archive, one round")
    parser.add_argument("--repeat", type=int, default=None, metavar="N",
                        help="timed rounds (default 9, 1 with --quick)")
    parser.add_argument("--png-out", metavar="PATH", help="where the PNG goes (default: a temporary directory)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 9)
    tiles = args.tiles if args.tiles is not None else (QUICK_TILES if args.quick else POD_TILES)
    if repeat < 1 or tiles < 1:
        parser.error("--repeat and --tiles must be at least 1")
    archive = args.archive
    if archive is None:
        os.makedirs(args.data_dir, exist_ok=True)
        archive = ensure(os.path.join(args.data_dir, f"ipu2_{tiles}_tiles.v{GENERATOR_VERSION}.a"), write_archive,
                         tiles)
    elif not os.path.isfile(archive):
        parser.error(f"--archive {archive}: no such file")
    precompile()
    memreport = memreport_command()
    with tempfile.TemporaryDirectory(prefix="bench_png-") as tmp:
        png = args.png_out or os.path.join(tmp, "x.png")
        cmds = [Command("memreport ARCHIVE -o /dev/null", memreport + [archive, "-o", os.devnull]),
                Command("memreport ARCHIVE -o /dev/null --png X.png", memreport + [archive, "-o", os.devnull,
                                                                                 "--png", png])]
        bench(cmds, repeat, _gnu_time())
        with open(png, "rb") as f:
            picture = f.read()
    if not picture.startswith(PNG_MAGIC):
        raise SystemExit(f"bench_png: {png} is not a PNG")
    extra = beyond(*cmds)
    report(archive, cmds, extra, len(picture))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "archive": archive, "size_mb": os.path.getsize(archive) / 1e6,
                       "repeat": repeat, "png_bytes": len(picture),
                       "runs": [{"label": c.label, "argv": c.argv, "wall": c.times, "cpu": c.cpu, "peak_kib": c.rss_kib}
                                for c in cmds],
                       "beyond_the_read": extra}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
