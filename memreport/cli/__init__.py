"""The ``memreport`` command: a thin click shell over the session and the renderers, one module per command.

:mod:`.shared` holds what the commands share (options, reading, exit codes),
:mod:`.group` the group that runs ``report`` by default; :mod:`.report_command`,
:mod:`.diff_command`, :mod:`.compiles_command` and :mod:`.export_command` one command each.
"""
from __future__ import annotations

import gc
import os

from ..run import numbered_paths
from .compiles_command import compiles_command
from .diff_command import diff_command
from .export_command import export_command
from .group import main
from .report_command import report
from .shared import terminal_options

__all__ = ["compiles_command", "diff_command", "export_command", "main", "numbered_paths", "report", "run",
           "terminal_options"]


def run() -> None:
    """The ``memreport`` command (its console script, and ``python -m memreport``): :func:`main`, then an exit
    that skips the cyclic collector's last pass over every object the run made. The process's end frees them
    all anyway; after ``--png`` (matplotlib's 80,000 objects) that pass took 0.1 s.

    memreport does no linear algebra, so numpy's OpenBLAS gets one thread unless the environment says
    otherwise: its pool of spinning threads cost 0.1 s of CPU at every start. Only here, never in
    :func:`main`, which tests and other programs (a notebook's numpy) call in their own processes."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported (cli does not import it)
    try:
        main(prog_name="memreport")
    finally:
        gc.freeze()
