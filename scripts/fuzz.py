#!/usr/bin/env python3
"""Fuzz every reader: mutate a valid seed of each format and check the reading property.

The property (tests/fuzzing.py): a reading gives valid reports that render
as text, JSON and CSV, or raises ReadError naming the file. Any other
exception, an UnexpectedError (a stray exception the last-resort guard
caught), an allocation out of proportion to the input (MemoryError under
the address-space cap) or an input that takes longer than --timeout seconds
is a failure. Failures are printed with their format, their exception and
the input (hex, first bytes), saved under --save, and counted; the exit status
is 1 when any was found.

    python scripts/fuzz.py --minutes 5          # round-robin over the formats until time is up
    python scripts/fuzz.py --examples 2000      # that many inputs per format
    python scripts/fuzz.py --formats archive elf32 --examples 500
"""
from __future__ import annotations

import argparse
import os
import resource
import signal
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
from tests.fuzzing import FORMATS, check_reading, mutated, write_case

BATCH = 200  # inputs per format before moving to the next (--minutes)


class Hang(Exception):
    """An input took longer than --timeout seconds."""


def _alarm(signum, frame):
    raise Hang()


class Fuzzer:
    def __init__(self, workdir: str, save: str | None, timeout: float) -> None:
        self.workdir, self.save, self.timeout = workdir, save, timeout
        self.tried: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.failures: dict[tuple[str, str], bytes] = {}  # (format, signature) -> first input

    def one(self, name: str, data: bytes) -> None:
        self.tried[name] += 1
        path = write_case(self.workdir, name, data)
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            for skip in ((False, True) if name.startswith("archive") else (False,)):
                self.outcomes[check_reading(path, skip_bad_members=skip)] += 1
        except Hang:
            self.fail(name, data, f"Hang: over {self.timeout} s")
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
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

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
            out = os.path.join(self.save, f"{name}-{len(self.failures)}.bin")
            with open(out, "wb") as f:
                f.write(data)
            print(f"  saved as {out}", flush=True)

    def run(self, name: str, examples: int, seed: int) -> None:
        @hypothesis_seed(seed)
        @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
                  suppress_health_check=list(HealthCheck), phases=["generate"])
        @given(mutated(name))
        def batch(data: bytes) -> None:
            self.one(name, data)

        batch()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, help="run round-robin over the formats for this long")
    parser.add_argument("--examples", type=int, default=500, help="inputs per format (without --minutes)")
    parser.add_argument("--formats", nargs="*", choices=FORMATS, default=FORMATS)
    parser.add_argument("--timeout", type=float, default=5.0,
                        help="seconds one input may take (the seeds read in milliseconds; a mutation adds at most "
                             "a few hundred KB)")
    parser.add_argument("--memory-gib", type=float, default=4.0,
                        help="address-space cap: an allocation beyond it is a failure, not a killed machine")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--save", help="directory to save failing inputs in")
    args = parser.parse_args()

    warnings.simplefilter("ignore")  # readers warn about odd but readable inputs: not findings
    cap = int(args.memory_gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    signal.signal(signal.SIGALRM, _alarm)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="memreport-fuzz-") as workdir:
        fuzzer = Fuzzer(workdir, args.save, args.timeout)
        round_no = 0
        while True:
            for name in args.formats:
                examples = BATCH if args.minutes else args.examples
                fuzzer.run(name, examples, args.seed + round_no * 1000 + FORMATS.index(name))
                if args.minutes and time.monotonic() - started > args.minutes * 60:
                    break
            round_no += 1
            if not args.minutes or time.monotonic() - started > args.minutes * 60:
                break
    elapsed = time.monotonic() - started
    total = sum(fuzzer.tried.values())
    print(f"\nseed {args.seed}; {elapsed:.0f} s; {total:,} inputs tried "
          f"({', '.join(f'{k} {v:,}' for k, v in sorted(fuzzer.tried.items()))})")
    print(f"readings: {fuzzer.outcomes['ok']:,} read, {fuzzer.outcomes['error']:,} refused with ReadError, "
          f"{fuzzer.outcomes['failure']:,} failures ({len(fuzzer.failures)} distinct)")
    return 1 if fuzzer.failures else 0


if __name__ == "__main__":
    sys.exit(main())
