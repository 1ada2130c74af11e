"""``memreport compiles LOG...``: every compilation and cache hit in a run's logs."""
from __future__ import annotations

import click

from .. import run
from ..progress import ReadProgress, file_progress
from .group import main
from .shared import checked, exit_codes, finish, html_option, output_options, output_width, shown_path, stdin_paths


@main.command("compiles", short_help="Every compilation, cache hit and recompilation in a run's logs.",
              context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("logs", metavar="LOG...", nargs=-1, required=True)
@output_options("compiles", "compilations")
@click.option("--fail-on-recompile", is_flag=True,
              help="Gate: exit 3 if one process compiles a module (or, unnamed, a hash) more than once, across "
                   "all the LOGs.")
@html_option
def compiles_command(logs: tuple[str, ...], fmt: str, output: str, fail_on_recompile: bool = False,
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
    logs = tuple(stdin_paths(logs))
    checked(list(logs), [("-o", output), *([("--html", html_path)] if html_path else [])])
    bars: list[ReadProgress] = []

    def progress(path: str) -> ReadProgress | None:
        while bars:  # the previous log's bar is done
            bars.pop().close()
        bar = file_progress(path)
        if bar is not None:
            bars.append(bar)
        return bar

    with exit_codes():
        try:
            summary = run.compiles_of(logs, progress=progress, names=[shown_path(p) for p in logs])
        finally:
            while bars:
                bars.pop().close()
        done = run.compiles(summary, fmt=fmt, output=output, html=html_path,
                            gates=run.Gates(fail_on_recompile=fail_on_recompile), width=output_width(output, fmt))
    finish(done)
