#!/usr/bin/env python3
"""Make the README's bundled inputs: a second build of the sample archive, failing runs' logs, compile logs, a
budget file.

Every file is written into sample_reports/ deterministically (no clock, no
randomness but seeded generators), so running the script again reproduces
each byte for byte; ``--check`` compares with the files on disk and writes
nothing. The layouts come from the test synthesisers in tests/synth (the
loggers' format strings, launcher tags, progress bars and exception wrappers
of docs/FORMATS.md §8); sample_reports/README.md says what each file holds.

    python scripts/make_samples.py            # (re)write them
    python scripts/make_samples.py --check    # exit 1 naming any file out of date
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from types import ModuleType

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
from tests.synth import logs
from tests.synth.compile_logs import Clock, LogBuilder

# The second build: the sample with four tiles changed (tile -> .bss variable -> change in bytes).
PR_CHANGES = {1024: {"attention_4/scores": 150_000}, 100: {"relu_3/activations": 12_288},
              731: {"relu_3/activations": -6_144}, 5: {"conv2d_7/momentum": -2_048}}
PROFILE = "./reports/training/profile.pop"   # where the failing run's profile was saved (not bundled)
CACHE = "/tmp/exe_cache"
IR_HASH = "4961678486983961202"


def script(name: str) -> ModuleType:
    """Another script of scripts/, imported by path (scripts/ is no package)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "scripts", f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pr_archive() -> bytes:
    """mk2_1472_tiles_pr.a: the sample archive with PR_CHANGES applied (scripts/make_sample_archive.py)."""
    return script("make_sample_archive").build(changes=PR_CHANGES)


def run_log() -> bytes:
    """A PopART training script under poprun (SDK 3.3) whose compilation runs out of memory.

    poprun's own lines; the rank's tagged stderr: PopART's and Poplar's INFO
    lines with PopTorch-style progress bars glued to them, then PopART's
    error line for the out-of-memory exception (``debug.allowOutOfMemory`` on,
    so the profile is saved), the traceback of the exception the script
    re-raises; the rank's stdout: the script's ``print(e.getSummaryReport())``
    in its ``except`` block, flushed at exit; poprun's exit line.
    """
    message = logs.variables_message(PROFILE)
    log = LogBuilder(rank=0)
    log.poprun("V-IPU server address picked up from 'vipu': 10.1.3.101:8090")
    log.poprun("Running command: /opt/poplar/bin/mpirun '--tag-output' '--bind-to' 'none' '-np' '1' "
               "'python3' 'train.py' '--batch-size' '16'")
    log.popart_compile(ir_hash=None, cache_dir=None, construction_ms=28_661, compile_ms=46_592, peak_rss=12_008.5,
                       bar=True, load=False)
    # The compilation fails in the graph compilation: its lines stop before Poplar's "Graph compilation
    # finished" (whose wording for tiles that overflowed is not published, docs/FORMATS.md §8.8).
    log.lines = log.lines[:next(k for k, line in enumerate(log.lines) if "Graph compilation finished" in line)]
    log.clock.tick(2_150)
    log.popart("devicex", f"Memory allocation error : {message}", level="E")
    lines = list(log.lines)
    lines += logs.tagged(logs.python_traceback(message, "popart.session.OutOfMemoryException"), rank=0,
                         stream="stderr").splitlines()
    # stdout is a pipe to mpirun, so block-buffered: the summary the except block printed comes out when
    # Python exits, after the traceback it wrote to stderr.
    lines += logs.tagged(script("bench_logs").summaries()[1], rank=0, stream="stdout").splitlines()
    local = log.clock.now + timedelta(hours=2, seconds=3)
    lines.append(f"{local:%H:%M:%S}.{local.microsecond // 1000:03d} 3555537 POPRUN [I] "
                 "mpirun (PID 3556098) terminated with exit code 1")
    return ("\n".join(lines) + "\n").encode("utf-8")


def cold() -> LogBuilder:
    """A PopTorch program under poprun, its executable cache empty: compiled, saved to the cache, loaded."""
    log = LogBuilder(rank=0)
    log.poptorch(f"POPTORCH_CACHE_DIR is set: setting cache path to {CACHE}")
    log.noise(2)
    log.popart_compile(ir_hash=IR_HASH, cache_dir=CACHE, construction_ms=28_661, compile_ms=46_592,
                       peak_rss=12_008.5, bar=True)
    log.noise(3)
    log.poprun("Waiting for mpirun (PID 3556098)", "D")
    log.poprun("mpirun (PID 3556098) terminated with exit code 0")
    return log


def compile_cold() -> bytes:
    return cold().text().encode("utf-8")


def compile_warm() -> bytes:
    """The same program an hour later: the cache holds its executable (and another program's), loaded."""
    log = LogBuilder(clock=Clock(cold().clock.now + timedelta(hours=1)), rank=0)
    log.poptorch(f"POPTORCH_CACHE_DIR is set: setting cache path to {CACHE}")
    log.popart_hit(ir_hash=IR_HASH, cache_dir=CACHE, others=["1180392781727713004"])
    log.noise(3)
    return log.text().encode("utf-8")


def compile_recompiling() -> bytes:
    """TensorFlow training with the executable cache on, whose last batch of an epoch is smaller.

    The smaller batch gives the module another hash: it is compiled a second
    time, and each later epoch reloads one executable, then the other.
    """
    log = LogBuilder()
    log.tf("Poplar version: 3.3.0 (de1f8de2a7) Poplar package: b67b751185",
           file="tensorflow/compiler/plugin/poplar/driver/poplar_platform.cc")
    log.tf("TensorFlow device /device:IPU:0 attached to 1 IPU with Poplar device ID: 0",
           file="tensorflow/compiler/plugin/poplar/driver/poplar_executor.cc")
    hashes = {32: ("5f1e0b9c3a7d2e11", "9c4d2a7b18e0f3", 41_000, 6_120.5),
              16: ("a27c04e9d51b6f3", "3e81f0c2d97a5b4", 39_500, 6_011.25)}
    compiled: set[int] = set()
    for batch in (32, 16, 32, 16):  # two epochs: full batches, then the smaller last one
        if batch not in compiled:
            hlo, exe, ms, rss = hashes[batch]
            log.tf_compile("cluster_train", hlo, exe_hash=exe, cache_dir="/data/tf_cache", ms=ms, poplar=True,
                           vlog2=True, peak_rss=rss, batch=batch)
            compiled.add(batch)
        log.load_phases()
        log.noise(3)
    return log.text().encode("utf-8")


# A benchmark sweep on Mk1 (problem sizes, IPU count): runs 2, 3 and 5 fail, 2 and 3 with the same message, 5 on a
# tile of the second IPU.
SWEEP = [((72, 128, 1), None), ((72, 256, 1), (0, 525_496)), ((144, 256, 1), (0, 525_496)),
         ((36, 64, 1), None), ((288, 512, 2), (1_300, 401_000))]
MK2_BYTES_PER_TILE = 638_976


def sweep() -> bytes:
    """A benchmark script looping over problem sizes on Mk1 (tests/synth/logs.py sweep_log): each run prints its
    parameters, attaches, builds its graph, then its timings or an uncaught out-of-memory error."""
    return logs.sweep_log(SWEEP).encode("utf-8")


def poprun_ranks() -> bytes:
    """Two ranks under poprun, each running out of memory, their tagged lines interleaved as mpirun writes them."""
    ranks = [logs.tagged(logs.cpp_terminate(logs.tile_memory_message(tile, used, MK2_BYTES_PER_TILE)), rank=rank,
                         stream="stderr") for rank, (tile, used) in enumerate(((17, 700_000), (1_490, 655_360)))]
    start = ("18:14:57.810 3555537 POPRUN [I] Running command: /opt/poplar/bin/mpirun '--tag-output' '--bind-to' "
             "'none' '-np' '2' 'python3' 'train.py'\n")
    end = "20:15:01.413 3555537 POPRUN [I] mpirun (PID 3556098) terminated with exit code 1\n"
    return (start + logs.interleave(*ranks) + end).encode("utf-8")


def compile_default() -> bytes:
    """PopTorch at its default log level under poprun: only the compilation bar (tqdm frames after carriage
    returns) and the script's ``Compiled/Loaded model in X secs``, rank 1's glued to the bar's last frame."""
    log = LogBuilder(rank=0)
    log.poprun("Running command: /opt/poplar/bin/mpirun '--tag-output' '-np' '2' 'python3' 'train.py'")
    log.poptorch_bar(611)
    log.script_timing(683.6591004971415)
    rank1 = LogBuilder(rank=1)
    rank1.poptorch_bar(612, glue="[1,1]<stdout>:Compiled/Loaded model in 690.25 secs")
    log.lines += rank1.lines
    log.lines += ["[1,0]<stdout>:Epoch 1/1: loss 6.7462", "[1,1]<stdout>:Epoch 1/1: loss 6.7391"]
    return log.text().encode("utf-8")


def budget() -> bytes:
    """budget.toml: a repository's tile budget, as docs/CI.md's examples read it with --config."""
    return (b"# A repository's tile budget, as memreport reads it from .memreport.toml in the working directory\n"
            b"# (or pyproject.toml's [tool.memreport]); named budget.toml here, it gates only a command given\n"
            b"# --config sample_reports/budget.toml.\n"
            b"[gates]\n"
            b"fail-on-oom = true\n"
            b'max-tile = "95%"\n'
            b"\n"
            b"[[gates.files]]        # the pull request's build: no tile above 90% of tile memory\n"
            b'match = "*_pr.a"\n'
            b'max-tile = "90%"\n')


def course_notebook() -> bytes:
    """course.ipynb: a Jupyter kernel that trains twice (two PopTorch models compiled each time, a picture), then
    a bigger batch that does not fit (PopART's error from its two loggers, PopTorch's error line, the
    traceback with its ANSI colours), then profiling on: a bar stopped at 0% and the variables that do not fit
    (tests/synth/programs.py's course_notebook, the layouts of docs/FORMATS.md §8.15-8.16)."""
    from tests.synth.programs import course_notebook as notebook
    return notebook()[0]


SAMPLES: dict[str, Callable[[], bytes]] = {
    "mk2_1472_tiles_pr.a": pr_archive,
    "run.log": run_log,
    "compile_cold.log": compile_cold,
    "compile_warm.log": compile_warm,
    "compile_recompiling.log": compile_recompiling,
    "sweep.log": sweep,
    "poprun_ranks.log": poprun_ranks,
    "compile_default.log": compile_default,
    "budget.toml": budget,
    "course.ipynb": course_notebook,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-d", "--directory", default=os.path.join(ROOT, "sample_reports"),
                        help="where to write (default: sample_reports/)")
    parser.add_argument("--check", action="store_true", help="compare with the files on disk; write nothing")
    args = parser.parse_args(argv)
    made = {Path(args.directory, name): make() for name, make in SAMPLES.items()}
    if args.check:
        stale = [path.name for path, data in made.items() if not path.is_file() or path.read_bytes() != data]
        if stale:
            print(f"out of date: {', '.join(stale)} (run python scripts/make_samples.py)", file=sys.stderr)
        return 1 if stale else 0
    for path, data in made.items():
        path.write_bytes(data)
        print(f"wrote {os.path.relpath(path)} ({len(data):,} bytes)")
    return 0

if __name__ == "__main__":
    sys.exit(main())
