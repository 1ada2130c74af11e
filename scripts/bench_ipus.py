#!/usr/bin/env python3
"""Memory and output size of a report declaring one tile per IPU over 376,832 tiles (issue 33 item 15).

Writes (or reuses) under ``bench_data/`` (or ``--data-dir``) a memreport/1
JSON of ``--tiles`` tiles (376,832 by default, a Bow Pod256's) whose target
says one tile per IPU, each tile's excluding-gaps bytes only, about 3 MB, as
``memreport export`` writes one (its per-IPU rows left out: they are not read
back). Then it runs ``memreport FILE --format F -o OUT`` for each output
(json, text, csv, markdown, html, png) under ``/usr/bin/time -v``, with this
tree and, given ``--before REV``, with the ``memreport`` package as it was at
that commit (``scripts/bench_ab.py``'s extraction), and prints each run's wall
time, peak resident memory, the same for a file of 1,472 tiles (one IPU's
worth: the interpreter, numpy and memreport loaded, the floor any run
stands on), the peak over that floor as a multiple of the input's size, and
the size of what it wrote.

    python scripts/bench_ipus.py                      # this tree
    python scripts/bench_ipus.py --before HEAD~5      # and a commit before the fix, side by side
    python scripts/bench_ipus.py --formats json text  # some outputs only
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench import machine  # sibling scripts
from bench_ab import command, extract

FORMATS = ("json", "text", "csv", "markdown", "html", "png")
POD256_TILES = 376_832
GENERATOR_VERSION = 1  # bump when the generated content changes, so stale files are rebuilt


def write_input(path: str, tiles: int) -> None:
    """A memreport/1 JSON of ``tiles`` tiles, one a tile per IPU, 638,976 B per tile, bytes 100,000 to 699,999."""
    import numpy as np

    from memreport.analysis import summarize_all
    from memreport.model import Target, TileReport
    from memreport.render.data.report import render_json
    values = np.random.default_rng(33).integers(100_000, 700_000, tiles)
    report = TileReport(source="pod256.json", format="json-profile", target=Target(tiles, None, tiles, 1, 638_976),
                        excluding_gaps=values)
    doc = json.loads(render_json(summarize_all([report], top=5)))
    for saved in doc["reports"]:  # what memreport reads back; its per-IPU rows are output only
        saved["per_ipu"] = []
        saved.pop("ipu_spread", None)
        saved.pop("per_ipu_left_out", None)
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of ``argv`` under GNU time."""
    result = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True)
    if result.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(argv[:3])}... failed ({result.returncode}): {result.stderr[-2000:]}")
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)[1])
    clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)",
                      result.stderr)
    wall = int(clock[1] or 0) * 3600 + int(clock[2]) * 60 + float(clock[3])
    return wall, peak / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.path.join(ROOT, "bench_data"), metavar="DIR")
    parser.add_argument("--tiles", type=int, default=POD256_TILES, metavar="N")
    parser.add_argument("--before", metavar="REV", help="also run memreport as it was at this commit")
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS))
    args = parser.parse_args(argv)
    os.makedirs(args.data_dir, exist_ok=True)
    path, floor_path = (os.path.join(args.data_dir, f"one_tile_per_ipu_{tiles}_v{GENERATOR_VERSION}.json")
                        for tiles in (args.tiles, 1472))
    for file, tiles in ((path, args.tiles), (floor_path, 1472)):
        if not os.path.exists(file):
            write_input(file, tiles)
    size = os.path.getsize(path)
    print(f"input: {path}: {size / 1e6:.1f} MB, {args.tiles:,} tiles, one tile per IPU")
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="memreport-ipus-") as scratch:
        trees = {"after (this tree)": ROOT}
        if args.before:
            before = os.path.join(scratch, "before")
            extract(args.before, before)
            trees = {f"before ({args.before})": before, **trees}
        print(f"{'output':<9} {'memreport':<24} {'wall s':>7} {'peak MiB':>9} {'floor MiB':>10} "
              f"{'over floor / input':>19} {'wrote MB':>9}")
        for fmt in args.formats:
            for name, tree in trees.items():
                out = os.path.join(scratch, f"out-{fmt}.{'txt' if fmt == 'text' else fmt}")
                options = ["--png", out, "-o", os.devnull] if fmt == "png" else ["--format", fmt, "-o", out]
                _, floor = timed(command(name, tree, [floor_path, *options]).argv)
                wall, peak = timed(command(name, tree, [path, *options]).argv)
                wrote = os.path.getsize(out)
                print(f"{fmt:<9} {name:<24} {wall:7.2f} {peak:9.1f} {floor:10.1f} "
                      f"{(peak - floor) * 1024 * 1024 / size:19.1f} {wrote / 1e6:9.2f}")
                os.unlink(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
