"""``memreport compiles LOG...``: every compilation and cache hit in a run's logs."""
from __future__ import annotations

import click

from .. import run
from ..output import output_width
from ..progress import file_bars
from . import shared
from .group import main


@main.command("compiles", short_help="Every compilation, cache hit and recompilation in a run's logs.")
@click.argument("logs", metavar="LOG...", nargs=-1, required=True)
@shared.output_options("compiles", "compilations")
@click.option("--fail-on-recompile", is_flag=True, default=None,
              help="Gate: exit 3 if one process compiles a module (or, unnamed, a hash) more than once, across "
                   "all the LOGs.")
@shared.config_option
@shared.html_option
def compiles_command(logs: tuple[str, ...], fmt: str, output: str, gates: shared.GatesPerInput,
                     html_path: str | None = None) -> None:
    """Every compilation, cache hit and recompilation in a run's logs.

    LOG is a run's log as TensorFlow, Poplar, PopART, PopXL or PopTorch
    wrote it (with launcher tags, colours and progress bars), of any size.
    Several LOGs are read as one sequence in the order given: a cold run
    then a warm run shows whether the second loaded what the first compiled.
    It needs the loggers' compile lines: TF_CPP_VMODULE=poplar_compiler=1,
    POPLAR_LOG_LEVEL=INFO, POPART_LOG_LEVEL=INFO.

    \b
    Examples:
      memreport compiles run.log           # a row per compilation, then findings
      memreport compiles cold.log warm.log # did the warm run hit the cache?
      memreport compiles run.log --format json -o compiles.json
      memreport compiles run.log --fail-on-recompile   # CI gate: exit 3

    Exit status: 0 success, 1 a log could not be read or holds no
    compilation lines, 2 bad usage, 3 a gate failed, 4 the output could
    not be written, 128+N ended by signal N.
    """
    logs = tuple(shared.prepare(logs, output, gates, html_path))
    with shared.exit_codes():
        with file_bars() as progress:
            summary = run.compiles_of(logs, progress=progress, names=[shared.STDIN.named(p) for p in logs])
        done = run.compiles(summary, fmt=fmt, output=output, html=html_path, gates=gates,
                            width=output_width(output, fmt))
    shared.finish(done)
