#!/usr/bin/env python3
"""Fuzz every reader and everything after it: mutate a valid seed of each format and check the property.

The property (tests/fuzzing.py): a reading gives valid reports, which go
through every renderer (text, JSON, CSV and, for a sample, the PNG), the
gates, a diff with itself and the writing of every output; or it raises
ReadError naming the file. Any other exception, an UnexpectedError (a stray
exception the last-resort guard caught), an allocation out of proportion to
the input (MemoryError under the address-space cap) or an input that takes
longer than --timeout seconds of its own CPU time (or --wall-timeout seconds
of wall time, a backstop for waits) is a failure: a loaded machine slows
the wall clock, not the CPU a reading needs. Failures are printed with their
format, their exception and the input (hex, first bytes), saved under
--save, and counted; the exit status is 1 when any was found.

    python scripts/fuzz.py --minutes 5                  # round-robin over the formats until time is up
    python scripts/fuzz.py --examples 2000              # that many inputs per format
    python scripts/fuzz.py --inputs 1000000 --processes 2 --seed 7   # the long run, on two cores
    python scripts/fuzz.py --formats archive elf32 --examples 500
    python scripts/fuzz.py --formats run_log_variants --minutes 2  # logs with NULs, BOMs, compressed, cut
    python scripts/fuzz.py --formats run_log_ranks --minutes 2     # many poprun ranks' summaries in one log
    python scripts/fuzz.py --formats archive_cxx archive_cxx_names --minutes 2   # C++ symbols, demangling bombs
    python scripts/fuzz.py --formats run_log_programs notebook --minutes 2  # PopTorch programs, poprun ranks
                                                                             # failing at once, notebooks
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed

from memreport.errors import ReadError, UnexpectedError
from tests.fuzzing import FUZZ_FORMATS, LOG_PROGRAMS, LOG_RANKS, LOG_VARIANTS, check_reading, hostile_input, write_case

BATCH = 200  # inputs per format before moving to the next (--minutes, --inputs)


WALL_FACTOR = 20  # the wall-time backstop, in multiples of the CPU-time limit, unless --wall-timeout says


class Hang(Exception):
    """An input took more than its CPU time (or the wall-time backstop)."""


@contextlib.contextmanager
def time_limit(cpu_seconds: float, wall_seconds: float):
    """Raise :class:`Hang` in the block after ``cpu_seconds`` of this process's CPU or ``wall_seconds`` of wall time.

    CPU time (ITIMER_PROF: user and system time of the process) is what a
    reading costs, whatever else the machine runs; the wall-time timer is a
    far larger backstop for a block that waits without spending CPU.
    """
    def cpu(signum, frame):
        raise Hang(f"over {cpu_seconds:g} s of CPU")

    def wall(signum, frame):
        raise Hang(f"over {wall_seconds:g} s of wall time")

    previous = signal.signal(signal.SIGPROF, cpu), signal.signal(signal.SIGALRM, wall)
    signal.setitimer(signal.ITIMER_PROF, cpu_seconds)
    signal.setitimer(signal.ITIMER_REAL, wall_seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, previous[0])
        signal.signal(signal.SIGALRM, previous[1])


class Fuzzer:
    def __init__(self, workdir: str, save: str | None, timeout: float, png_every: int,
                 wall_timeout: float | None = None) -> None:
        self.workdir, self.save, self.timeout, self.png_every = workdir, save, timeout, png_every
        self.wall_timeout = wall_timeout or timeout * WALL_FACTOR
        self.tried: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.failures: dict[tuple[str, str], bytes] = {}  # (format, signature) -> first input

    def one(self, name: str, data: bytes) -> None:
        self.tried[name] += 1
        path = write_case(self.workdir, name, data)
        try:
            with time_limit(self.timeout, self.wall_timeout):
                self._read(path, archive=name.startswith("archive"))
        except Hang as exc:
            self.fail(name, data, f"Hang: {exc}")
        except UnexpectedError as exc:
            cause = exc.__cause__
            where = traceback.extract_tb(cause.__traceback__)[-1] if cause and cause.__traceback__ else None
            self.fail(name, data, f"{type(cause).__name__} at {where.filename}:{where.lineno}" if where else str(exc),
                      detail=str(exc))
        except ReadError as exc:  # check_reading returns on ReadError; here only an allocation escaped
            self.fail(name, data, f"ReadError {exc}")
        except Exception as exc:  # noqa: BLE001 - every other exception is a finding
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self.fail(name, data, f"{type(exc).__name__} at {where.filename}:{where.lineno}",
                      detail=f"{type(exc).__name__}: {exc}")

    def _read(self, path: str, *, archive: bool) -> None:
        for skip in ((False, True) if archive else (False,)):
            png = self.png_every > 0 and self.outcomes["ok"] % self.png_every == 0
            outcome = check_reading(path, skip_bad_members=skip, png=png)
            self.outcomes[outcome] += 1
            self.outcomes["drawn"] += png and outcome == "ok"

    def fail(self, name: str, data: bytes, signature: str, detail: str = "") -> None:
        self.outcomes["failure"] += 1
        key = (name, signature)
        if key in self.failures:
            return
        self.failures[key] = data
        print(f"FAILURE [{name}] {signature}\n  {detail[:300]}\n  input ({len(data)} bytes): "
              f"{data[:96].hex()}{'...' if len(data) > 96 else ''}", flush=True)
        if self.save:
            os.makedirs(self.save, exist_ok=True)
            out = os.path.join(self.save, f"{name}-{os.getpid()}-{len(self.failures)}.bin")
            with open(out, "wb") as f:
                f.write(data)
            print(f"  saved as {out}", flush=True)

    def run(self, name: str, examples: int, seed: int) -> None:
        @hypothesis_seed(seed)
        @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
                  suppress_health_check=list(HealthCheck), phases=["generate"])
        @given(hostile_input(name))  # a seed's mutations, or a hostile shape (saved reports)
        def batch(data: bytes) -> None:
            self.one("run_log" if name in (LOG_VARIANTS, LOG_RANKS, LOG_PROGRAMS) else name, data)

        batch()


def fuzz(args: argparse.Namespace, seed: int, inputs: int | None) -> Fuzzer:
    """One process's share: round-robin over the formats until the time, the input count or the examples end."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="memreport-fuzz-") as workdir:
        fuzzer = Fuzzer(workdir, args.save, args.timeout, args.png_every, args.wall_timeout)
        round_no = 0
        endless = args.minutes or inputs
        batch = min(BATCH, max(1, inputs // len(args.formats))) if inputs else BATCH  # every format, even in short runs
        while True:
            for name in args.formats:
                fuzzer.run(name, batch if endless else args.examples, seed + round_no * 1000 + FUZZ_FORMATS.index(name))
                if args.minutes and time.monotonic() - started > args.minutes * 60:
                    return fuzzer
                if inputs and sum(fuzzer.tried.values()) >= inputs:
                    return fuzzer
            round_no += 1
            if not endless:
                return fuzzer


def run_workers(args: argparse.Namespace) -> tuple[Counter, Counter, int]:
    """--processes N: N copies of this script, each with its own seed and share of --inputs; their counts summed."""
    share = -(-args.inputs // args.processes) if args.inputs else None
    command = [sys.executable, os.path.abspath(__file__), "--timeout", str(args.timeout),
               "--wall-timeout", str(args.wall_timeout or args.timeout * WALL_FACTOR), "--memory-gib",
               str(args.memory_gib), "--png-every", str(args.png_every), "--formats", *args.formats]
    if args.minutes:
        command += ["--minutes", str(args.minutes)]
    elif not share:
        command += ["--examples", str(args.examples)]
    if args.save:
        command += ["--save", args.save]
    workers = [subprocess.Popen(command + ["--seed", str(args.seed + i * 1_000_003), "--worker"]
                                + (["--inputs", str(share)] if share else []), stdout=subprocess.PIPE, text=True)
               for i in range(args.processes)]
    tried: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    distinct = 0
    for i, worker in enumerate(workers):
        assert worker.stdout is not None
        reported = False
        for line in worker.stdout:
            if line.startswith("RESULT "):
                result = json.loads(line[len("RESULT "):])
                tried.update(result["tried"])
                outcomes.update(result["outcomes"])
                distinct += result["distinct"]
                reported = True
            else:
                print(line, end="", flush=True)
        if worker.wait() not in (0, 1) or not reported:  # killed, or crashed outright: a finding too
            print(f"FAILURE worker {i} ended with status {worker.returncode} and no result", flush=True)
            outcomes["failure"] += 1
            distinct += 1
    return tried, outcomes, distinct


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, help="run round-robin over the formats for this long")
    parser.add_argument("--inputs", type=int, help="run round-robin over the formats for this many inputs in all")
    parser.add_argument("--examples", type=int, default=500, help="inputs per format (without --minutes/--inputs)")
    parser.add_argument("--formats", nargs="*", choices=FUZZ_FORMATS, default=FUZZ_FORMATS)
    parser.add_argument("--processes", type=int, default=1, help="fuzz in this many processes (one per core)")
    parser.add_argument("--png-every", type=int, default=100, metavar="N",
                        help="also draw the PNG of every Nth input that reads (0: never); a picture takes tenths "
                             "of a second, a reading milliseconds")
    parser.add_argument("--timeout", type=float, default=5.0,
                        help="seconds of CPU one input may take (the seeds read in milliseconds; a mutation adds at "
                             "most a few hundred KB)")
    parser.add_argument("--wall-timeout", type=float,
                        help=f"seconds of wall time one input may take, a backstop for waits (default: {WALL_FACTOR} "
                             "times --timeout, so a loaded machine never reads as a hang)")
    parser.add_argument("--memory-gib", type=float, default=4.0,
                        help="address-space cap: an allocation beyond it is a failure, not a killed machine")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--save", help="directory to save failing inputs in")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    started = time.monotonic()
    if args.processes > 1:
        tried, outcomes, distinct = run_workers(args)
    else:
        warnings.simplefilter("ignore")  # readers warn about odd but readable inputs: not findings
        cap = int(args.memory_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        fuzzer = fuzz(args, args.seed, args.inputs)
        tried, outcomes, distinct = fuzzer.tried, fuzzer.outcomes, len(fuzzer.failures)
        if args.worker:
            print("RESULT " + json.dumps({"tried": tried, "outcomes": outcomes, "distinct": distinct}), flush=True)
            return 1 if distinct else 0
    elapsed = time.monotonic() - started
    total = sum(tried.values())
    print(f"\nseed {args.seed}; {elapsed:.0f} s; {total:,} inputs tried "
          f"({', '.join(f'{k} {v:,}' for k, v in sorted(tried.items()))})")
    print(f"readings: {outcomes['ok']:,} read, {outcomes['error']:,} refused with ReadError, "
          f"{outcomes['failure']:,} failures ({distinct} distinct)")
    print(f"of those read, {outcomes['drawn']:,} also through the PNG renderer; every one rendered as text, JSON "
          "and CSV, gated, diffed with itself and written")
    return 1 if distinct else 0


if __name__ == "__main__":
    sys.exit(main())
