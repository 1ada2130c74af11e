"""The ``memreport`` command: click over :mod:`memreport.run`, one module per command (``*_command``), what they
share in :mod:`.shared`, the group that runs ``report`` by default in :mod:`.group`."""
from __future__ import annotations

from ..signals import command_line
from .compiles_command import compiles_command
from .diff_command import diff_command
from .export_command import export_command
from .group import main
from .report_command import report
from .trend_command import trend_command

__all__ = ["compiles_command", "diff_command", "export_command", "main", "report", "run", "trend_command"]


def run() -> None:
    """The ``memreport`` command, its console script and ``python -m memreport``: :func:`main` as a process runs it
    (:func:`memreport.signals.command_line`)."""
    command_line(main)
