"""``memreport trend FILE...``: builds in order, and when each tile out of memory in the last went over."""
from __future__ import annotations

import click

from .. import run
from ..output import output_width
from ..progress import reading
from . import shared
from .group import main


@main.command("trend", short_help="Builds in order, and when each tile out of memory went over.")
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@shared.output_options("trend", "trend")
@click.option("--label", "labels", multiple=True, metavar="NAME",
              help="Name the builds: one --label per FILE, in order (default: each file's name, or its path when two "
                   "files share a name).")
@shared.read_options
@shared.gate_options
@shared.config_option
@shared.html_option
@shared.module_option
def trend_command(files: tuple[str, ...], fmt: str, output: str, labels: tuple[str, ...], options: shared.ReadOptions,
                  gates: shared.GatesPerInput, html_path: str | None = None, module: str | None = None) -> None:
    """Builds in order: their figures, and when each tile out of memory went over.

    FILE is a build: a saved report (memreport export, memreport/1 JSON)
    or anything memreport reads, oldest first; of a file holding several
    reports the largest is the build (with a note), or the one --module
    names. Per build: the worst tile and its bytes, its share of tile
    memory, tiles out of memory, headroom, the total and its change; then,
    for each tile out of memory in the last build, the build it first went
    over in (from builds with every tile's bytes: unknown otherwise). Gates
    judge the last build.

    \b
    Examples:
      memreport trend week1.json week2.json week3.json
      memreport trend main.json pr.a --label main --label pr
      memreport trend builds/*.json --format csv -o trend.csv
      memreport trend builds/*.json --html trend.html --fail-on-oom

    Exit status: 0 success, 1 a build could not be read, 2 bad usage,
    3 a gate failed on the last build, 4 the output could not be written,
    128+N ended by signal N.
    """
    files = tuple(shared.prepare(files, output, gates, html_path))
    with shared.exit_codes():
        done = run.trend(files, options, fmt=fmt, output=output, html=html_path, labels=labels, module=module,
                         gates=gates, width=output_width(output, fmt), names=shared.STDIN.labels,
                         around=reading, check=shared.checked)
    shared.finish(done)
