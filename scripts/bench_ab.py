"""Before and after: memreport at another commit against this tree, on the same command line, alternately.

    python scripts/bench_ab.py --before 5b8e182 --repeat 7 -- ARCHIVE --format json -o /dev/null

The ``memreport`` package of ``--before`` is taken out of git (``git archive``)
into a temporary directory; both trees are byte-compiled as an installed
package is; then each round runs the command once with each, as its console
script does (``memreport.cli:run``, or ``main`` before there was a ``run``), in
the same interpreter and environment, stdout to /dev/null. Prints the medians and
minima of wall-clock and CPU time (user + system of the process tree) and the
peak resident memory, measured as ``scripts/bench.py`` measures (its
``run_once``), so a change can quote its effect side by side on a shared machine.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench import Command, _gnu_time, bench  # a sibling script


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


def command(name: str, tree: str, args: list[str]) -> Command:
    """memreport from ``tree`` on ``args``, started as its console script starts it."""
    code = (f"import sys; sys.path.insert(0, {tree!r}); sys.argv[0] = 'memreport'\n"
            "try:\n    from memreport.cli import run as command\n"  # the console script's entry point
            "except ImportError:\n    from memreport.cli import main as command\n"  # before it had its own
            "command()")
    return Command(name, [sys.executable, "-c", code, *args], ok_exits=(0, 3))  # a gate failing is a run too


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, metavar="REV", help="the commit to compare with (git rev)")
    parser.add_argument("--repeat", type=int, default=5, metavar="N", help="rounds (default 5)")
    parser.add_argument("args", nargs="+", help="memreport's arguments (after --)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    with tempfile.TemporaryDirectory(prefix="memreport-before-") as before:
        extract(args.before, before)
        trees = {f"before ({args.before})": before, "after (this tree)": ROOT}
        for tree in trees.values():
            subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(tree, "memreport")],
                           check=False, stdout=subprocess.DEVNULL)
        cmds = [command(name, tree, args.args) for name, tree in trees.items()]
        bench(cmds, args.repeat, _gnu_time())  # one untimed warm-up each, then the rounds in turn
    width = max(len(c.label) for c in cmds)
    print(f"memreport {' '.join(args.args)}: {args.repeat} alternating round(s)")
    print(f"{'':<{width}}  wall median    min   CPU median    min   peak MB")
    for c in cmds:
        print(f"{c.label:<{width}}  {c.median:11.3f} {min(c.times):6.3f} {c.cpu_median:12.3f} {min(c.cpu):6.3f} "
              f"{c.peak_mb:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
