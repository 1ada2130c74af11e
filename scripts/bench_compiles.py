#!/usr/bin/env python3
"""Benchmark ``memreport compiles`` against ``grep -c 'Starting phase'`` on the same large log (issue #12).

Generates (or reuses) a run log of ``--size-mb`` megabytes under
``bench_data/`` (or ``--data-dir``) with tests/synth/compile_logs.py: a
long training run under poprun (tagged lines, epoch bars, PopLibs warnings,
TensorFlow and PopART chatter) with a compilation every ``--compile-every-mb``
(PopTorch with its glued bar, or TensorFlow with VLOG and Poplar's phases)
and an executable load every few megabytes. Then it runs both commands as
subprocesses, alternating them ``--repeat`` times after one untimed warm-up
each, and prints medians, the ratio and each command's peak RSS; then the CPU
times (user + system) of the same runs (``bench_logs.cpu_seconds``).

    python scripts/bench_compiles.py                   # the full run: a 1 GB log (generated once)
    python scripts/bench_compiles.py --quick           # a smoke run on a 4 MB log
    python scripts/bench_compiles.py --many 2000       # N and 4N compilations back to back: CPU should grow 4x

``--many N`` (issue #26 item 4) writes two logs of nothing but compilations,
``N`` and ``4 N`` of them (TensorFlow VLOG compilations of a few modules,
each with its cache miss, and PopART cache hits, in turn), and times
``memreport compiles`` on each: in linear time the second costs about four
times the first.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import statistics
import sys
import time
from dataclasses import asdict
from datetime import timedelta

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench import Command, Row, _gnu_time, bench, machine, precompile, print_table, rows_for
from bench_logs import cpu_seconds, memreport_command, print_cpu

from tests.synth.compile_logs import Clock, LogBuilder

GENERATOR_VERSION = 2
# Lines of a training run between compilations, as the public logs show them (FORMATS.md §8.3-§8.5).
BACKGROUND = (
    "[1,{r}]<stdout>:[INFO] loss: {f:.4f}, accuracy: {p:.2f} %, throughput: {t:.1f} samples/sec",
    "[1,{r}]<stderr>:Epoch {e}:  45%|████▌     | {n}/1000 [01:12<01:29, 6.15it/s, loss={f:.3f}]",
    "[1,{r}]<stderr>:2023-08-22T23:35:09.469066Z PL:POPOPS    3545299.3545299 W: createOutputForElementWiseOp "
    "'while/sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/fusion.{n}/Op/Equal/Out' "
    "({{32,10}}): No suitable input found, creating new variable with linear tile mapping",
    "[1,{r}]<stderr>:2023-08-22 23:35:07.087287: I tensorflow/compiler/mlir/mlir_graph_optimization_pass.cc:185] "
    "None of the MLIR Optimization Passes are enabled (registered 2)",
    "[1,{r}]<stderr>:2023-06-29T16:15:26.865392Z popart:devicex 79.79 D: [StepIOSplitter] "
    "[Gradient___input@out:0/{n} - 0/1:1,0,0,0] Not yet able to call 'outComplete' on IStepIO",
    "[1,{r}]<stdout>:{{'loss': {f:.4f}, 'learning_rate': 9.5e-05, 'epoch': {p:.2f}}}",
    "23:48:29.163 3555537 POPRUN [D] Target options from environment: {{}}",
)


def write_log(path: str, size_mb: float, compile_every_mb: float = 64, load_every_mb: float = 4,
              seed: int = 12) -> dict:
    """A log of about ``size_mb`` MB; returns what it holds (compilations, loads, phase starts)."""
    rng = random.Random(seed)
    target = int(size_mb * 1e6)
    written = since_compile = since_load = 0
    counts = {"compilations": 0, "loads": 0}
    clock = Clock()
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8", buffering=1 << 20) as f:
        while written < target:
            block = []
            for _ in range(256):
                block.append(rng.choice(BACKGROUND).format(r=rng.randrange(4), f=rng.random() * 7,
                                                           p=rng.random() * 100, t=7000 + rng.random() * 1000,
                                                           e=rng.randrange(10), n=rng.randrange(1000)))
            text = "\n".join(block) + "\n"
            if since_compile >= compile_every_mb * 1e6 or written == 0:
                log = LogBuilder(clock=clock, rank=counts["compilations"] % 4)
                if counts["compilations"] % 2:
                    log.tf_compile(f"cluster_{counts['compilations'] % 3}", f"{rng.getrandbits(60):x}",
                                   exe_hash=f"{rng.getrandbits(60):x}", cache_dir="/data/tf_cache", ms=40_000,
                                   poplar=True)
                    log.load_phases()
                else:
                    log.popart_compile(ir_hash=str(rng.getrandbits(63)), cache_dir="/tmp/exe_cache",
                                       construction_ms=28_000, compile_ms=46_000, peak_rss=12008.5, bar=True)
                text += log.text()
                counts["compilations"] += 1
                counts["loads"] += 1
                since_compile = 0
            elif since_load >= load_every_mb * 1e6:
                log = LogBuilder(clock=clock, rank=rng.randrange(4))
                log.load_phases()
                text += log.text()
                counts["loads"] += 1
                since_load = 0
            clock.now += timedelta(seconds=1)
            data = text.encode("utf-8")
            f.write(text)
            written += len(data)
            since_compile += len(data)
            since_load += len(data)
    os.replace(tmp, path)
    return counts


def write_many(path: str, compilations: int, seed: int = 26) -> dict:
    """A log of ``compilations`` compilations back to back and nothing else (the ``--many`` shape)."""
    rng = random.Random(seed)
    log = LogBuilder()
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8", buffering=1 << 20) as f:
        for i in range(compilations):
            if i % 2:
                log.popart_hit(ir_hash=str(rng.getrandbits(63)), cache_dir="/tmp/exe_cache", load=False)
            else:
                exe = f"{rng.getrandbits(60):x}"
                log.tf_compile(f"cluster_{i % 7}", f"{rng.getrandbits(60):x}", exe_hash=exe,
                               cache_dir="/data/tf_cache", ms=2_000)
            if len(log.lines) > 4096:
                f.write(log.text())
                log.lines.clear()
        f.write(log.text())
    os.replace(tmp, path)
    return {"compilations": compilations}


def bench_many(args, n: int, repeat: int) -> int:
    """``memreport compiles`` on N and 4 N compilations: the CPU it takes should grow about 4x, not 16x."""
    precompile()
    gnu_time = _gnu_time()
    rows: list[Row] = []
    cpu: dict[str, dict[str, list[float]]] = {}
    for count in (n, 4 * n):
        path = os.path.join(args.data_dir, f"many_{count}.v{GENERATOR_VERSION}.log")
        if args.regenerate or not os.path.exists(path):
            write_many(path, count)
        cmds = [Command("memreport compiles --format json",
                        memreport_command() + ["compiles", path, "--format", "json"]),
                Command("grep -c 'Begin XLA'", [f"grep -c 'Begin XLA' {shlex.quote(path)} > "
                                                f"{shlex.quote(path + '.grep')}"], shell=True)]
        bench(cmds, repeat, gnu_time)
        name = f"{count:,} compilations"
        rows += rows_for(name, path, cmds)
        cpu[name] = cpu_seconds(cmds)
    print(f"memreport compiles, many compilations: {repeat} timed run(s) per command, alternating; medians")
    print_table(rows)
    for name, spent in cpu.items():
        print_cpu(name, spent)
    small, large = (statistics.median(c["memreport compiles --format json"]) for c in cpu.values())
    print(f"\nCPU of {4 * n:,} compilations over {n:,}: {large / small:.2f}x (linear: about 4x)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "repeat": repeat, "argv": sys.argv[1:],
                       "rows": [asdict(r) for r in rows], "cpu_s": cpu}, f, indent=2)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.path.join(ROOT, "bench_data"))
    parser.add_argument("--size-mb", type=float, default=None, help="log size (default 1,000; 4 with --quick)")
    parser.add_argument("--compile-every-mb", type=float, default=64)
    parser.add_argument("--quick", action="store_true", help="a smoke run: a small log, one timed run")
    parser.add_argument("--repeat", type=int, default=None, metavar="N", help="timed runs (default 5, 1 --quick)")
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--many", type=int, default=None, metavar="N",
                        help="time N and 4N compilations back to back instead (issue #26 item 4)")
    args = parser.parse_args(argv)
    if args.many is not None:
        if args.many < 1:
            parser.error("--many must be at least 1")
        os.makedirs(args.data_dir, exist_ok=True)
        return bench_many(args, args.many, args.repeat if args.repeat is not None else (1 if args.quick else 5))
    size = args.size_mb if args.size_mb is not None else (4 if args.quick else 1000)
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 5)
    os.makedirs(args.data_dir, exist_ok=True)
    path = os.path.join(args.data_dir, f"run_{size:g}MB.v{GENERATOR_VERSION}.log")
    if args.regenerate or not os.path.exists(path):
        start = time.perf_counter()
        every = args.compile_every_mb if not args.quick else 1
        counts = write_log(path, size, compile_every_mb=every, load_every_mb=every / 16)
        print(f"generated {os.path.basename(path)}: {os.path.getsize(path) / 1e6:,.1f} MB, {counts} "
              f"in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    precompile()
    gnu_time = _gnu_time()
    cmds = [Command("memreport compiles --format json", memreport_command() + ["compiles", path, "--format", "json"]),
            # grep's output goes to a file: GNU grep stops at the first match when its output is /dev/null.
            Command("grep -c 'Starting phase'", [f"grep -c 'Starting phase' {shlex.quote(path)} > "
                                                 f"{shlex.quote(path + '.grep')}"], shell=True)]
    bench(cmds, repeat, gnu_time)
    name = f"log, {os.path.getsize(path) / 1e6:,.0f} MB"
    rows: list[Row] = rows_for(name, path, cmds)
    cpu = cpu_seconds(cmds)
    print(f"memreport compiles benchmark: {repeat} timed run(s) per command, alternating; medians; "
          "ours/this = memreport's median / grep's")
    print_table(rows)
    print_cpu(name, cpu)
    ours, grep = cmds[0].median, cmds[1].median
    size_mb = os.path.getsize(path) / 1e6
    print(f"\nmemreport compiles: {size_mb / ours:,.0f} MB/s; grep -c: {size_mb / grep:,.0f} MB/s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "repeat": repeat, "argv": sys.argv[1:] if argv is None else argv,
                       "rows": [asdict(r) for r in rows], "cpu_s": cpu}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
