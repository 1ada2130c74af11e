#!/usr/bin/env python3
"""Benchmark the HTML page (issue 25): its size, what writing it costs beyond the read, and how it runs in
headless Chromium (ready, and pan/zoom frames a second, by the page's own clock).

1. **Size**: the page of the bundled 1,472-tile archive, of the 94,208-tile
   (64 x Mk2) archive ``scripts/bench.py`` generates (``--archive`` for
   another), and of a 376,832-tile (256 IPUs, a Bow Pod256) report made in
   process from that archive's read repeated four times (an archive of that
   size would be 7.6 GB).
2. **Writing it**: ``memreport ARCHIVE -o /dev/null`` and the same with
   ``--html X.html``, alternately, ``--repeat`` times after a warm-up each (as
   ``scripts/bench_png.py`` does), and what the page adds: the median of each
   round's difference and the difference of the minima; also the page alone
   in process (``render_report_page`` on the summaries), the median of
   ``--repeat`` runs.
3. **In the browser**: each page loaded ``--loads`` times in a fresh tab of
   headless Chromium (``--chromium``, default /usr/bin/chromium); ``ready``
   is the page's ``performance.now()`` when it sets ``data-ready`` (from the
   start of navigation). Then :data:`BENCH_JS` (``--frames``) on the
   376,832-tile page: that many frames of zooming from the whole pod to a
   few tiles and back while panning, each drawn in its own animation frame;
   frames a second over the run, and the draw time of a frame. The driver is
   evaluated in the page by Playwright (the DevTools protocol, which the
   page's policy does not govern): shipped pages hold no benchmark.

4. **The compiles page** (``--compiles N``, issue 33 item 13): a log of ``N``
   compilations back to back (``scripts/bench_compiles.py --many``'s log), its
   page's size, the time to write it in process and to be ready in Chromium.

    python scripts/bench_page.py                 # everything (generates the 94,208-tile archive once: 1.9 GB)
    python scripts/bench_page.py --quick         # a smoke run: the bundled archive only, one round
    python scripts/bench_page.py --quick --compiles 100000
    python scripts/bench_page.py --json out.json
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench import GENERATOR_VERSION, POD_TILES, Command, _gnu_time, bench, ensure, machine, precompile, write_archive

SAMPLE = os.path.join(ROOT, "sample_reports", "mk2_1472_tiles.a")
BOW_POD256 = 376_832
MIB = 1024 * 1024
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


# Pan and zoom, timed by the page's clock: ``frames`` animation frames zooming from every tile to a few and back
# while panning, each drawn then (the first tile chart, through the page's read-only handle for tests).
BENCH_JS = """async (frames) => {
  const ch = window.__memreport.charts[0];
  if (!ch) return null;
  const times = [], t0 = performance.now();
  for (let i = 0; i < frames; i++) {
    await new Promise((r) => requestAnimationFrame(r));
    const f = i % 60, span = ch.n * Math.pow(0.85, f < 30 ? f : 60 - f);
    const a = (ch.n - span) * (0.5 + 0.4 * Math.sin(i / 9)), s = performance.now();
    ch.show(Math.max(0, a), Math.max(0, a) + Math.max(1, span));
    times.push(performance.now() - s);
  }
  const total = performance.now() - t0;
  times.sort((x, y) => x - y);
  ch.show(0, ch.n);
  return {frames: frames, fps: 1000 * frames / total, draw_ms_median: times[frames >> 1],
    draw_ms_p95: times[Math.floor(frames * 0.95)], draw_ms_max: times[frames - 1], tiles: ch.n};
}"""


def summaries_of(path: str, repeat_tiles: int = 1) -> list:
    """The summaries the CLI would render (with the top tiles' symbols), the tiles repeated ``repeat_tiles``
    times (a larger pod from a smaller archive's read)."""
    from dataclasses import replace

    import memreport
    from memreport.analysis import summarize_all
    from memreport.model import Column
    from memreport.readers.elf.symbols import with_symbols
    report = memreport.read(path)
    if repeat_tiles > 1:
        target = report.target
        report = replace(
            report, source=f"{report.source} x{repeat_tiles}",
            target=replace(target, num_tiles=target.num_tiles * repeat_tiles,
                           num_ipus=(target.num_ipus or 1) * repeat_tiles),
            excluding_gaps=np.tile(report.excluding_gaps, repeat_tiles),
            breakdown={k: Column(np.tile(c.values, repeat_tiles),
                                 None if c.present is None else np.tile(c.present, repeat_tiles), c.counted)
                       for k, c in report.breakdown.items()},
            regions={k: np.tile(v, repeat_tiles) for k, v in report.regions.items()},
            tile_names=None, stated=None)
        return summarize_all([report])
    return summarize_all([with_symbols(report, [int(t) for t in np.argsort(report.excluding_gaps)[-5:]])])


def render_times(summaries: list, repeat: int) -> tuple[str, list[float]]:
    from memreport.render.page import render_report_page
    times, page = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        page = render_report_page(summaries)
        times.append(time.perf_counter() - start)
    return page, times


def in_browser(pages: dict[str, str], loads: int, frames: int, chromium: str) -> dict[str, dict]:
    from playwright.sync_api import sync_playwright
    out: dict[str, dict] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=ARGS)
        for label, path in pages.items():
            ready, drawing = [], []
            for _ in range(loads):
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                page.goto("file://" + os.path.abspath(path), timeout=600_000)
                page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
                ready.append(page.evaluate("window.__memreport.ready_at_ms"))
                drawing.append(page.evaluate("window.__memreport.ready_ms"))
                if label == str(BOW_POD256) and frames and len(ready) == loads:
                    out["pan_zoom"] = page.evaluate(BENCH_JS, frames)
                context.close()
            out[label] = {"ready_ms": ready, "ready_median_ms": statistics.median(ready),
                          "drawing_median_ms": statistics.median(drawing)}
        browser.close()
    return out


def compiles_page(n: int, tmp: str, repeat: int, chromium: str) -> dict:
    """The compiles page of a log of ``n`` compilations: its size, writing it (median of ``repeat``), and ready in
    Chromium (one load)."""
    from bench_compiles import write_many

    import memreport
    from memreport.render import render
    log = os.path.join(tmp, "many.log")
    write_many(log, n)
    summary = memreport.read_compiles(log)
    took, page = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        page = str(render("compiles", "html", summary))
        took.append(time.perf_counter() - start)
    path = os.path.join(tmp, "compiles.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    ready = in_browser({"compiles": path}, 1, 0, chromium)["compiles"]["ready_median_ms"]
    print(f"{n:>9,} compilations: page {len(page.encode()) / MIB:6.2f} MiB; rendered in process in "
          f"{statistics.median(took):.3f} s (median of {len(took)}); ready in {ready:.0f} ms from navigation")
    return {"compilations": n, "page_bytes": len(page.encode()), "render_s": took, "ready_ms": ready}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", metavar="PATH", help="the pod archive (default: the generated 94,208 tiles)")
    parser.add_argument("--data-dir", default=os.path.join(ROOT, "bench_data"),
                        help="where the generated archive is kept and reused (default: bench_data/)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: the bundled archive only, one round")
    parser.add_argument("--repeat", type=int, default=None, metavar="N", help="timed rounds (default 5)")
    parser.add_argument("--loads", type=int, default=5, metavar="N", help="page loads in the browser (default 5)")
    parser.add_argument("--frames", type=int, default=240, metavar="N", help="pan/zoom frames (default 240)")
    parser.add_argument("--chromium", default="/usr/bin/chromium", metavar="PATH")
    parser.add_argument("--compiles", type=int, default=None, metavar="N",
                        help="also the compiles page of a log of N compilations")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 5)
    results: dict = {"machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    with tempfile.TemporaryDirectory(prefix="bench_page-") as tmp:
        pages: dict[str, str] = {}
        sizes: dict[str, int] = {}
        writes: dict[str, list[float]] = {}
        sources = [("1472", SAMPLE, 1)]
        if not args.quick:
            archive = args.archive
            if archive is None:
                os.makedirs(args.data_dir, exist_ok=True)
                archive = ensure(os.path.join(args.data_dir, f"ipu2_{POD_TILES}_tiles.v{GENERATOR_VERSION}.a"),
                                 write_archive, POD_TILES)
            sources += [(str(POD_TILES), archive, 1), (str(BOW_POD256), archive, BOW_POD256 // POD_TILES)]
        for label, path, times in sources:
            page, took = render_times(summaries_of(path, times), repeat)
            pages[label] = os.path.join(tmp, f"{label}.html")
            with open(pages[label], "w", encoding="utf-8") as f:
                f.write(page)
            sizes[label] = len(page.encode())
            writes[label] = took
            print(f"{int(label):>9,} tiles: page {sizes[label] / MIB:6.2f} MiB; rendered in process in "
                  f"{statistics.median(took):.3f} s (median of {len(took)})")
        results.update(page_bytes=sizes, render_s=writes)
        if not args.quick:
            precompile()
            # This tree's memreport, as a module (an installed entry point may be another checkout's).
            os.environ["PYTHONPATH"] = ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")
            memreport = [sys.executable, "-m", "memreport"]
            html = os.path.join(tmp, "cli.html")
            cmds = [Command("memreport POD -o /dev/null", memreport + [sources[1][1], "-o", os.devnull]),
                    Command("memreport POD -o /dev/null --html X.html",
                            memreport + [sources[1][1], "-o", os.devnull, "--html", html])]
            bench(cmds, repeat, _gnu_time())
            beyond = {"wall_median_s": statistics.median(b - a for a, b in zip(cmds[0].times, cmds[1].times)),
                      "wall_min_s": min(cmds[1].times) - min(cmds[0].times),
                      "cpu_median_s": statistics.median(b - a for a, b in zip(cmds[0].cpu, cmds[1].cpu)),
                      "cpu_min_s": min(cmds[1].cpu) - min(cmds[0].cpu)}
            for c in cmds:
                print(f"{c.label:<44} wall median {c.median:.3f} s, min {min(c.times):.3f} s; CPU median "
                      f"{c.cpu_median:.3f} s, min {min(c.cpu):.3f} s; peak {c.peak_mb:.0f} MB")
            print(f"--html beyond the read: wall {beyond['wall_median_s']:.3f} s (median of the rounds' differences), "
                  f"{beyond['wall_min_s']:.3f} s (difference of the minima); CPU {beyond['cpu_median_s']:.3f} s, "
                  f"{beyond['cpu_min_s']:.3f} s; page {os.path.getsize(html):,} B")
            results.update(cli={c.label: {"wall": c.times, "cpu": c.cpu} for c in cmds}, html_beyond_the_read=beyond)
        browser = in_browser(pages, 1 if args.quick else args.loads, 0 if args.quick else args.frames, args.chromium)
        for label in pages:
            b = browser[label]
            print(f"{int(label):>9,} tiles: ready in {b['ready_median_ms']:.0f} ms from navigation (median of "
                  f"{len(b['ready_ms'])} loads; drawing {b['drawing_median_ms']:.0f} ms of it)")
        if "pan_zoom" in browser:
            z = browser["pan_zoom"]
            print(f"pan/zoom at {z['tiles']:,} tiles: {z['fps']:.1f} frames/s over {z['frames']} frames; draw "
                  f"{z['draw_ms_median']:.1f} ms median, {z['draw_ms_p95']:.1f} ms p95, {z['draw_ms_max']:.1f} ms max")
        results["browser"] = browser
        if args.compiles:
            results["compiles"] = compiles_page(args.compiles, tmp, repeat, args.chromium)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
