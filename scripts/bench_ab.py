"""Before and after: memreport at another commit against this tree, on the same command line, alternately.

    python scripts/bench_ab.py --before 5b8e182 --repeat 7 -- ARCHIVE --format json -o /dev/null

The ``memreport`` package of ``--before`` is taken out of git (``git archive``)
into a temporary directory; both trees are byte-compiled as an installed
package is; then each round runs the command once with each, as its console
script does (``memreport.cli:run``, or ``main`` before there was a ``run``), in
the same interpreter and environment, stdout to /dev/null. Prints the medians and
minima of wall-clock and CPU time (user + system of the process tree) and the
peak resident memory (GNU time's, when /usr/bin/time is GNU time), so a change
can quote its effect measured side by side on a shared machine.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench import GNU_TIME, _gnu_time  # a sibling script


def extract(rev: str, into: str) -> None:
    """The ``memreport`` package as it was at ``rev``."""
    archive = subprocess.run(["git", "-C", ROOT, "archive", "--format=tar", rev, "memreport"],
                             check=True, capture_output=True).stdout
    with tempfile.TemporaryFile() as f:
        f.write(archive)
        f.seek(0)
        with tarfile.open(fileobj=f) as tar:
            if hasattr(tarfile, "data_filter"):  # our own tree, but no member may leave the directory
                tar.extractall(into, filter="data")
            else:  # Python before the extraction filters
                tar.extractall(into)


def run_once(tree: str, args: list[str], timed: bool) -> tuple[float, float, float | None]:
    """(wall s, CPU s, peak MB or None) of memreport from ``tree`` on ``args``."""
    code = (f"import sys; sys.path.insert(0, {tree!r}); sys.argv[0] = 'memreport'\n"
            "try:\n    from memreport.cli import run as command\n"  # the console script's entry point
            "except ImportError:\n    from memreport.cli import main as command\n"  # before it had its own
            "command()")
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        argv = [sys.executable, "-c", code, *args]
        if timed:
            argv = [GNU_TIME, "-f", "%M", "-o", rss.name, *argv]
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
        exit_code = os.waitstatus_to_exitcode(status)
        if exit_code not in (0, 3):  # a gate failing (3) is still a measured run
            raise SystemExit(f"bench_ab: memreport from {tree} exited {exit_code}:\n{stderr[-2000:]}")
        fields = rss.read().split() if timed else []
        peak = int(fields[-1]) / 1024 if fields and fields[-1].isdigit() else None
    return wall, usage.ru_utime + usage.ru_stime, peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, metavar="REV", help="the commit to compare with (git rev)")
    parser.add_argument("--repeat", type=int, default=5, metavar="N", help="rounds (default 5)")
    parser.add_argument("args", nargs="+", help="memreport's arguments (after --)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    timed = _gnu_time()
    with tempfile.TemporaryDirectory(prefix="memreport-before-") as before:
        extract(args.before, before)
        trees = {f"before ({args.before})": before, "after (this tree)": ROOT}
        for tree in trees.values():
            subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(tree, "memreport")],
                           check=False, stdout=subprocess.DEVNULL)
        results: dict[str, list[tuple[float, float, float | None]]] = {name: [] for name in trees}
        for tree in trees.values():  # one untimed warm-up each: the page cache holds the inputs
            run_once(tree, args.args, timed)
        for _ in range(args.repeat):
            for name, tree in trees.items():
                results[name].append(run_once(tree, args.args, timed))
    print(f"memreport {' '.join(args.args)}: {args.repeat} alternating round(s)")
    print(f"{'':<{max(map(len, trees))}}  wall median    min   CPU median    min   peak MB")
    for name, runs in results.items():
        wall, cpu = [r[0] for r in runs], [r[1] for r in runs]
        peaks = [r[2] for r in runs if r[2] is not None]
        peak = f"{max(peaks):9.1f}" if peaks else "        -"
        print(f"{name:<{max(map(len, trees))}}  {statistics.median(wall):11.3f} {min(wall):6.3f} "
              f"{statistics.median(cpu):12.3f} {min(cpu):6.3f} {peak}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
