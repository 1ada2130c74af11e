#!/usr/bin/env python3
"""Benchmark memreport on large run logs against ``grep -c`` (issue #11, issue #16 item 12).

Generates (or reuses) under ``bench_data/`` (or ``--data-dir``) a log of
``--size-mb`` megabytes (1,000 by default) holding one Poplar summary at its
very end, after other output of which 0.5 % of the lines say "memory" in
passing, and the same with 15 % (a log that says "memory" on every
seventh line: the reader's needle then finds many lines it must turn
away). Then it runs ``memreport FILE`` and ``grep -c 'Memory Usage' FILE``
alternately (``--repeat`` timed rounds after one warm-up each, so the page
cache holds the file; grep's count goes to a file, since GNU grep stops at
the first match when its output is ``/dev/null``) and prints medians, minima, memreport's time over
grep's, and each process's peak RSS (GNU time); then each command's CPU
time (user + system) in the same runs, which other jobs on a shared machine
disturb less than wall time. The timing helpers are ``scripts/bench.py``'s.

    python scripts/bench_logs.py                  # the full run (writes ~2 GB once)
    python scripts/bench_logs.py --quick          # a smoke run on 8 MB logs
    python scripts/bench_logs.py --sample run.log # write the README's 100 MB log (two compiles) and stop
    python scripts/bench_logs.py --sample run.log --size-mb 2   # the same log in 2 MB
    python scripts/bench_logs.py --gzip           # the 0.5 % log gzip'd (gzip -6): memreport FILE.gz against
                                                  # zcat FILE.gz | grep -c 'Memory Usage' (issue #23)
    python scripts/bench_logs.py --shapes         # the costly shapes' CPU and memory per byte next to a plain log's
    python scripts/bench_logs.py --notebook       # a 50 MB Jupyter notebook (or --size-mb): memreport NB.ipynb
                                                  # and memreport compiles NB.ipynb, time and peak RSS (issue #30)

``--shapes`` reads, in this process (start-up left out), logs of shapes that
once cost far more than their size (issue #26 items 5, 6; issue #33 items 1,
4, 12, 14): poprun ranks printing a summary one after another or interleaved
line by line (64 and 240 of them), lines that look like part of a summary but
never make one, a UTF-16 log appended to a plain one, a gzip log after an
empty member, out-of-memory messages with 20-digit numbers, poprun ranks that
abort or raise 30-line tracebacks at once, lines that each open a traceback,
and PopTorch programs (bars, errors logged twice); next to a plain
log (other output, one summary at its end) and a log of the same summaries
printed by one process. Memory per byte: each log read in a fresh child
process (after a read of its first 64 KiB, so lazy imports are not
counted), its peak RSS over what it held before (ru_maxrss: the mapped
file's pages count here), then its peak of traced Python allocations in a
second read (tracemalloc: the heap, numpy's arrays included, not the
mapped file), each over the log's size.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench import Command, Row, _gnu_time, bench, ensure, machine, memreport_argv, precompile, print_table, rows_for

from tests.synth import logs, programs
from tests.synth import text as synth

GENERATOR_VERSION = 1  # bump when the generated content changes, so stale files are rebuilt
MB = 1_000_000
SAMPLE_MB = 100


def _text_samples():
    """scripts/make_text_samples.py: its seeded per-tile sizes of a variable initialiser and a training step."""
    spec = importlib.util.spec_from_file_location("make_text_samples", os.path.join(ROOT, "scripts",
                                                                                  "make_text_samples.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def summaries() -> tuple[str, str]:
    """Two printed summaries of one Mk2 IPU: a variable initialiser (fits) and a training step (two tiles
    out of memory, five detailed)."""
    samples = _text_samples()
    tiles = samples.module_tiles()
    init_ex, init_in = tiles[samples.INIT_MODULE]
    main_ex, main_in = tiles[samples.MAIN_MODULE]
    common = {"num_ipus": 1, "tiles_per_ipu": 1472, "bytes_per_tile": samples.MK2_BYTES_PER_TILE,
              "clock_hz": 1.33e9, "replicas": 1}
    init = synth.summary_from_tiles(init_ex, init_in, graph={"Number of vertices": 1_474, "Number of edges": 1_480,
                                                             "Number of variables": 2_950,
                                                             "Number of compute sets": 3}, detailed=0, **common)
    main = synth.summary_from_tiles(main_ex, main_in, graph={"Number of vertices": 96_120,
                                                             "Number of edges": 251_337,
                                                             "Number of variables": 181_402,
                                                             "Number of compute sets": 412}, detailed=5, **common)
    return synth.summary_text(init), synth.summary_text(main)


def write_big_log(path: str, size_mb: int, memory_share: float) -> None:
    """``size_mb`` MB of other output, then one summary (the training step)."""
    logs.write_log(path, [logs.Filler(size_mb * MB, 7, memory_share), summaries()[1]])


def write_sample(path: str, size_mb: int = SAMPLE_MB) -> None:
    """The README's log: two compiles in ``size_mb`` MB of output; the second fails, PopART logs the error,
    Python prints the traceback, and the script prints ``getSummaryReport()``."""
    init, main = summaries()
    message = logs.tile_memory_message(5, 700_000, 624 * 1024)
    logs.write_log(path, [logs.Filler(size_mb * MB * 6 // 10, 1), init, logs.Filler(size_mb * MB * 4 // 10, 2),
                          logs.popart_error(message), logs.python_traceback(message), main])


def write_gzip(path: str, source: str) -> None:
    """``source`` compressed as CI systems keep logs (``gzip -6``, the default level)."""
    with open(path + ".part", "wb") as out:
        subprocess.run(["gzip", "-6", "-c", source], stdout=out, check=True)
    os.replace(path + ".part", path)


def small_summary(seed: int) -> str:
    """A summary of a 16-tile ipu1 program, as each rank of a small poprun job prints it."""
    import numpy as np
    rng = np.random.default_rng(seed)
    excluding = rng.integers(60_000, 250_000, 16)
    return synth.summary_text(synth.summary_from_tiles(
        excluding, excluding + 2_048, num_ipus=1, tiles_per_ipu=16, bytes_per_tile=262_144, clock_hz=1.6e9,
        graph={"Number of vertices": 1_200, "Number of edges": 2_400}, detailed=2))


INTERLEAVED_RANKS = (64, 240)  # ranks whose lines alternate: the log is this many summaries, whatever --size-mb


def _interleaved(texts: list[str]) -> str:
    """poprun: every rank prints its summary at once, their tagged lines alternating one by one."""
    ranks = [logs.tagged(text, rank).splitlines(True) for rank, text in enumerate(texts)]
    return "".join(lines[k] for k in range(max(map(len, ranks))) for lines in ranks if k < len(lines))


def shapes(size_mb: float) -> dict[str, Callable[[str], None]]:
    """Writers of each shape's log (about ``size_mb`` MB each), by name."""
    count = max(1, int(size_mb * MB / len(small_summary(0).encode())))
    texts = [small_summary(k) for k in range(min(count, 64))]
    ranks = [texts[k % len(texts)] for k in range(count)]

    def text(make: Callable[[], str]) -> Callable[[str], None]:
        return lambda path: logs.write_log(path, [make()])
    return {
        "plain log (one summary at its end)": lambda path: logs.write_log(path, [logs.Filler(int(size_mb * MB), 7),
                                                                                  texts[0]]),
        "summaries of one process": text(lambda: "".join(t + "step done\n" for t in ranks)),
        "poprun ranks one after another": text(lambda: logs.ranks_one_after_another(ranks)),
        f"poprun ranks interleaved ({INTERLEAVED_RANKS[0]})": text(
            lambda: _interleaved([texts[k % len(texts)] for k in range(INTERLEAVED_RANKS[0])])),
        "lookalike lines alone": text(lambda: logs.lookalike_lines(int(size_mb * MB) // 24)),
        "lookalike lines between output": text(lambda: logs.lookalike_lines(int(size_mb * MB) // 32, "step {k}\n")),
        f"poprun ranks interleaved ({INTERLEAVED_RANKS[1]})": text(
            lambda: _interleaved([texts[k % len(texts)] for k in range(INTERLEAVED_RANKS[1])])),
        "UTF-16 log appended to a plain one": lambda path: write_appended_utf16(path, size_mb, texts[0]),
        "gzip log after an empty member": lambda path: write_gzip_after_empty(path, size_mb, texts[0]),
        "out-of-memory messages, 20 digits": text(lambda: huge_messages(int(size_mb * MB), texts[0])),
        "poprun ranks aborting at once (16)": text(lambda: _repeated(lambda: programs.ranks_abort_together(16),
                                                                     size_mb)),
        "poprun ranks raising at once (16)": text(lambda: _repeated(lambda: programs.ranks_raise_together(16),
                                                                    size_mb)),
        "lines that each open a traceback": text(lambda: programs.traceback_openers(int(size_mb * MB) // 35)),
        "PopTorch programs (bars, errors)": text(lambda: _repeated(_poptorch_kernel, size_mb)),
    }


def write_gzip_after_empty(path: str, size_mb: float, summary: str) -> None:
    """``: | gzip >> job.log.gz`` of a step that printed nothing, then the run's output (a plain log of ``size_mb``)
    gzip'd after it (issue #33 item 4); its figures are per byte of the compressed file."""
    import gzip
    with open(path, "wb") as out:
        out.write(gzip.compress(b"", mtime=0))
        with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as packed:
            logs.write_log(packed, [logs.Filler(int(size_mb * MB), 7), summary])


def huge_messages(size: int, summary: str) -> str:
    """Out-of-memory messages whose bytes used have 20 digits, each tile once, among other output, then a summary:
    each message is refused with a note, the rest read (issue #33 item 14)."""
    line = logs.tile_memory_message(0, 1, 638_976).replace(" 1 bytes", " 12345678901234567890 bytes")
    count = size // (2 * len(line))
    return "".join(logs.popart_error(line.replace("tile 0:", f"tile {k}:")) + f"step {k}\n"
                   for k in range(count)) + summary


def _repeated(make: Callable[[], str], size_mb: float, blocks: int = 40) -> str:
    """``blocks`` times: other output, then ``make()``'s text, to about ``size_mb`` MB (few enough reports that
    the log stays under MAX_REPORTS whatever its size)."""
    one = make()
    other = logs.Filler(max(0, int(size_mb * MB) // blocks - len(one.encode())), 9).text()
    return (other + one) * blocks


def _poptorch_kernel() -> str:
    """A PopTorch process: train() (two models) then a model that does not fit (issue #30)."""
    run = programs.Run()
    run.train_call()
    run.compile_model(107)
    run.out_of_memory()
    return run.log()


def write_notebook(path: str, size_mb: float) -> None:
    """A notebook of about ``size_mb`` MB as a course leaves it: each cell trains (two models, their bars as
    JupyterLab saves them, epochs), plots a picture (a fifth of the bytes), and every tenth does not fit."""
    import base64
    import random
    rng = random.Random(7)
    picture = dict(programs.PNG, data={"image/png": base64.b64encode(rng.randbytes(60_000)).decode(),
                                       "text/plain": ["<Figure size 640x480 with 1 Axes>"]})
    cells: list[dict] = []
    size = 0
    while size < size_mb * MB:
        run = programs.Run(second=len(cells))
        run.train_call(epochs=200)
        if len(cells) % 10 == 9:
            run.compile_model(107)
            run.out_of_memory()
        cells.append(programs.code_cell(len(cells) + 1, run, extra=[picture]))
        size += len(json.dumps(cells[-1]))
    with open(path, "wb") as out:
        out.write(programs.notebook(cells))


def run_notebook(data_dir: str, size_mb: float, repeat: int, fresh: bool, out: str | None) -> int:
    """memreport NB.ipynb and memreport compiles NB.ipynb on a notebook of ``size_mb`` MB: time, CPU, peak RSS."""
    path = ensure(os.path.join(data_dir, f"notebook_{size_mb:g}mb.v{GENERATOR_VERSION}.ipynb"), write_notebook,
                  size_mb, fresh=fresh)
    precompile()
    cmds = [Command("memreport NB.ipynb", memreport_command() + [path, "--brief"], ok_exits=(0, 3)),
            Command("memreport compiles NB.ipynb", memreport_command() + ["compiles", path], ok_exits=(0, 3))]
    bench(cmds, repeat, _gnu_time())
    rows = rows_for("notebook", path, cmds)
    print_table(rows)
    for c in cmds:
        print(f"{c.label:<30} peak RSS {c.peak_mb:,.1f} MB = {c.peak_mb * 1e6 / os.path.getsize(path):.2f} x the file")
    if out:
        with open(out, "w") as f:
            json.dump({"machine": machine(), "repeat": repeat, "rows": [asdict(r) for r in rows]}, f, indent=2)
    return 0


def write_appended_utf16(path: str, size_mb: float, summary: str) -> None:
    """A plain log (half of ``size_mb``) to which a PowerShell log was appended: UTF-16 with its BOM, CRLF line
    ends, the other half of the output and a summary at its end (issue #26)."""
    half = int(size_mb * MB) // 2
    with open(path, "wb") as out:
        logs.write_log(out, [logs.Filler(half, 7)])
        out.write(logs.log_text([logs.Filler(half // 2, 8), summary]).replace("\n", "\r\n").encode("utf-16"))


def cpu_per_byte(path: str, repeat: int) -> tuple[float, int]:
    """The least CPU seconds per byte of ``repeat`` reads of ``path`` in this process, and its report count
    (0: no memory information)."""
    import time

    from memreport.errors import ReadError
    from memreport.readers import read_path
    best, found = float("inf"), 0
    for _ in range(repeat):
        start = time.process_time()
        try:
            found = len(read_path(path))
        except ReadError:
            found = 0
        best = min(best, time.process_time() - start)
    return best / os.path.getsize(path), found


_MEMORY_CHILD = """
import json, os, resource, sys, tempfile, tracemalloc
from memreport.errors import ReadError
from memreport.readers import read_path

def read(path):
    try:
        read_path(path)
    except ReadError:
        pass

with open(sys.argv[1], "rb") as f, tempfile.TemporaryDirectory() as directory:
    warm = os.path.join(directory, "warm.log")  # the log's first 64 KiB: lazy imports and caches, not counted
    with open(warm, "wb") as out:
        out.write(f.read(65536))
    read(warm)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
read(sys.argv[1])
rss = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
tracemalloc.start()
read(sys.argv[1])
print(json.dumps({"traced": tracemalloc.get_traced_memory()[1], "rss": rss}))
"""


def memory_per_byte(path: str) -> tuple[float, float]:
    """Bytes of peak traced allocations and of peak RSS growth per byte of ``path``, read in a fresh child."""
    done = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, path], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])})
    peaks = json.loads(done.stdout)
    size = os.path.getsize(path)
    return peaks["traced"] / size, peaks["rss"] / size


def run_shapes(data_dir: str, size_mb: float, repeat: int, fresh: bool, out: str | None) -> int:
    figures = {}
    for name, make in shapes(size_mb).items():
        slug = "".join(c if c.isalnum() else "-" for c in name.lower())  # by name: a shape added never reuses another's
        path = ensure(os.path.join(data_dir, f"shape-{slug}_{size_mb:g}mb.v{GENERATOR_VERSION}.log"), make, fresh=fresh)
        per_byte, found = cpu_per_byte(path, repeat)
        traced, rss = memory_per_byte(path)
        figures[name] = {"bytes": os.path.getsize(path), "reports": found, "cpu_us_per_byte": per_byte * 1e6,
                         "traced_bytes_per_byte": traced, "rss_bytes_per_byte": rss}
    plain = next(iter(figures.values()))
    print(f"{'shape':<34} {'MB':>6} {'reports':>7} {'CPU us/B':>9} {'x plain':>8} {'heap B/B':>9} {'x plain':>8} "
          f"{'RSS B/B':>8}")
    for name, f in figures.items():
        print(f"{name:<34} {f['bytes'] / MB:>6.2f} {f['reports']:>7} {f['cpu_us_per_byte']:>9.4f} "
              f"{f['cpu_us_per_byte'] / plain['cpu_us_per_byte']:>8.1f} {f['traced_bytes_per_byte']:>9.3f} "
              f"{f['traced_bytes_per_byte'] / max(plain['traced_bytes_per_byte'], 1e-9):>8.1f} "
              f"{f['rss_bytes_per_byte']:>8.3f}")
    if out:
        with open(out, "w") as f:
            json.dump({"machine": machine(), "repeat": repeat, "shapes": figures}, f, indent=2)
    return 0


def memreport_command() -> list[str]:
    """The ``memreport`` installed beside this interpreter (a venv's), else bench.py's choice: bench.py asks
    pyenv first, which finds pyenv's own install even when a venv is first on the PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "memreport")
    return [beside] if os.access(beside, os.X_OK) else memreport_argv()


def cpu_seconds(cmds: list[Command]) -> dict[str, list[float]]:
    """CPU time (user + system, the whole process tree) of each command's timed runs, by label.

    On a machine shared with other jobs a command's wall time depends on
    what else runs; the CPU time it spends does much less.
    """
    return {c.label: list(c.cpu) for c in cmds}


def print_cpu(name: str, spent: dict[str, list[float]]) -> None:
    """Median and least CPU seconds of each command, and the first's median over each other's."""
    labels = list(spent)
    ours = statistics.median(spent[labels[0]])
    for label in labels:
        mid = statistics.median(spent[label])
        ratio = "" if label == labels[0] else f"  ours/this {ours / mid:.2f}"
        print(f"{name:<26} CPU s  {label:<32} median {mid:.3f}  min {min(spent[label]):.3f}{ratio}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.path.join(ROOT, "bench_data"),
                        help="where generated logs are kept and reused (default: bench_data/)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 8 MB logs, one timed run each")
    parser.add_argument("--size-mb", type=int, default=None, metavar="N", help="log size (default 1,000; 8 quick)")
    parser.add_argument("--repeat", type=int, default=None, metavar="N",
                        help="timed runs per command (default 5, 1 with --quick)")
    parser.add_argument("--regenerate", action="store_true", help="rebuild the logs even if present")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--sample", metavar="PATH",
                        help=f"only write the README's log to PATH ({SAMPLE_MB} MB, or --size-mb)")
    parser.add_argument("--gzip", action="store_true",
                        help="only the 0.5 %% log, gzip'd: memreport against zcat | grep -c (issue #23)")
    parser.add_argument("--shapes", action="store_true",
                        help="the costly shapes (issue #26 items 5, 6), in process: CPU per byte against a plain log")
    parser.add_argument("--notebook", action="store_true",
                        help="a Jupyter notebook of --size-mb MB (50 by default): memreport and memreport compiles")
    args = parser.parse_args(argv)
    if args.sample:
        if args.size_mb is not None and args.size_mb < 1:
            parser.error("--size-mb must be at least 1")
        write_sample(args.sample, args.size_mb if args.size_mb is not None else SAMPLE_MB)
        print(f"wrote {args.sample} ({os.path.getsize(args.sample) / MB:,.1f} MB)")
        return 0
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 5)
    size_mb = args.size_mb if args.size_mb is not None else (8 if args.quick else 1000)
    if repeat < 1 or size_mb < 1:
        parser.error("--repeat and --size-mb must be at least 1")
    os.makedirs(args.data_dir, exist_ok=True)
    if args.notebook:
        return run_notebook(args.data_dir, args.size_mb if args.size_mb is not None else (2 if args.quick else 50),
                            repeat, args.regenerate, args.json)
    if args.shapes:
        return run_shapes(args.data_dir, args.size_mb if args.size_mb is not None else (0.5 if args.quick else 4),
                          repeat, args.regenerate, args.json)
    precompile()
    gnu_time = _gnu_time()
    rows: list[Row] = []
    cpu: dict[str, dict[str, list[float]]] = {}
    shapes = ((0.005, "0.5 % say memory"),) if args.gzip else ((0.005, "0.5 % say memory"), (0.15, "15 % say memory"))
    for share, what in shapes:
        path = ensure(os.path.join(args.data_dir, f"log_{size_mb}mb_{int(share * 1000)}.v{GENERATOR_VERSION}.log"),
                      write_big_log, size_mb, share, fresh=args.regenerate)
        reader = "grep -c"
        if args.gzip:
            path = ensure(path + ".gz", write_gzip, path, fresh=args.regenerate)
            reader, what = f"zcat {shlex.quote(path)} | grep -c", f"{what}, gzip -6"
        cmds = [Command("memreport", memreport_command() + [path]),
                # grep's output goes to a file: GNU grep stops at the first match when its output is /dev/null.
                Command(f"{reader.split(' ')[0]} ... grep -c 'Memory Usage'" if args.gzip else "grep -c 'Memory Usage'",
                        [f"{reader} 'Memory Usage' {'' if args.gzip else shlex.quote(path)} > "
                         f"{shlex.quote(path + '.grep')}"], shell=True)]
        bench(cmds, repeat, gnu_time)
        rows += rows_for(f"log, {what}", path, cmds)
        cpu[f"log, {what}"] = cpu_seconds(cmds)
    print_table(rows)
    for name, spent in cpu.items():
        print_cpu(name, spent)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "repeat": repeat, "rows": [asdict(r) for r in rows], "cpu_s": cpu}, f,
                      indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
