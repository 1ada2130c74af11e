"""What the commands share: standard input, option types and decorators, reading through the session, exit codes
(0 success; 1 an input could not be read; 2 bad usage; 3 a gate failed; 4 an output could not be written; 128 + N
ended by signal N). Library errors become exit codes here and only here (and in :mod:`.group`, the last resort)."""
from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click

from .. import render, session
from ..config import load_config
from ..errors import ConfigError, MemreportError, UnsupportedOperation, WriteError
from ..model import ARCHES
from ..output import check_outputs, write_outputs
from ..progress import echo_warnings, reading, shown
from ..readers import ReadOptions
from ..run import EXIT_READ, EXIT_USAGE, EXIT_WRITE, GatesPerInput, Run, gate_messages
from ..session import Read, ReadFailure
from ..units import budget_value, size_value

STDIN = session.StandardInput()  # this run's standard input, when an input is "-"


class Parsed(click.ParamType):
    """An option's value as ``parse`` reads it; its ValueError is bad usage (exit 2) naming the option."""

    def __init__(self, name: str, parse: Callable[[Any], Any]) -> None:
        self.name, self.parse = name, parse

    def convert(self, value, param, ctx):
        try:
            return self.parse(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def _path(value: str) -> str:
    if not value:  # -o '' used to be ignored or to name the working directory
        raise ValueError("an empty path names no file")
    return value


PATH, SIZE, BUDGET = Parsed("PATH", _path), Parsed("SIZE", size_value), Parsed("SIZE|P%", budget_value)
TILE_MEMORY = Parsed("SIZE", lambda v: size_value(v, minimum=1, what="bytes per tile"))  # 0 B per tile: no IPU
# How a percent budget is rounded, for the gates' --help (docs/CI.md says the same).
PERCENT_ROUNDING = ("P% (92.5% too) is of each report's own bytes per tile, exact, no float; exit 2 when they are "
                    "unknown (give --tile-memory or --arch).")


def output_options(subject: str, what: str, formats: bool = True):
    """``--format`` and ``-o``, shared by the commands (sqlite-utils' habit): the formats are the registered
    text renderers of ``subject`` (``formats=False``: ``-o`` alone, for a command with one output format)."""
    text_renderers = render.renderers(subject, binary=False)
    described = "; ".join(f"{r.name}: {r.description}" for r in text_renderers)

    def decorator(command):
        command = click.option("-o", "--output", default="-", metavar="PATH", show_default=True, type=PATH,
                               help=f"Write the {what} here ('-' is stdout); a file is written whole or not at "
                                    "all.")(command)
        if not formats:
            return command
        return click.option("--format", "fmt", type=click.Choice([r.name for r in text_renderers]),
                            default=text_renderers[0].name, show_default=True,
                            help=f"Output format ({described}).")(command)
    return decorator


def read_options(command):
    """How inputs are read, shared by the commands: ``--tile-memory``, ``--arch``, ``--skip-bad-members``,
    ``--thin-root``, handed to the command as one ``options`` (a ReadOptions)."""
    @functools.wraps(command)
    def with_options(*args, tile_memory=None, arch=None, skip_bad_members=False, thin_root=None, **kwargs):
        return command(*args, options=session.read_options(tile_memory=tile_memory, arch=arch, thin_root=thin_root,
                                                           skip_bad_members=skip_bad_members), **kwargs)
    return options(
        click.option("--tile-memory", type=TILE_MEMORY, metavar="SIZE",
                     help="Bytes per tile, overriding every source (638976, 624KiB, 1MiB)."),
        click.option("--arch", type=click.Choice(sorted(ARCHES)),
                     help="IPU architecture (ipu1: 1,216 tiles x 256 KiB; ipu2/ipu21: 1,472 x 624 KiB). It overrides "
                          "an archive's ELF flags (with a note); other sources take from it only what they do not "
                          "say."),
        click.option("--skip-bad-members", is_flag=True,
                     help="Read an archive whose members are partly damaged: each damaged member's tile keeps its id "
                          "but its bytes are unknown and counted in no figure; the output lists every one skipped."),
        click.option("--thin-root", metavar="DIR", type=click.Path(file_okay=False),
                     help="A thin archive's members may lie anywhere under DIR (default: only under the archive's "
                          "own directory; an absolute or '..' member path leaving it is an error)."))(with_options)


def say(message: str) -> None:
    """One line on stderr, ``memreport: MESSAGE``, standard input's spool file named ``<stdin>`` (:func:`shown`)."""
    click.echo(f"memreport: {shown(STDIN.named(message))}", err=True)


def fail(message: str, code: int = EXIT_READ) -> None:
    """One line on stderr, then exit with ``code``."""
    say(message)
    sys.exit(code)


@contextmanager
def exit_codes() -> Iterator[None]:
    """Inside: a request the input cannot answer is bad usage (exit 2), any other memreport error exit 1; the
    warnings raised (matplotlib's, say) are one line each on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        except UnsupportedOperation as exc:
            raise click.UsageError(shown(STDIN.named(str(exc)))) from None
        except ConfigError as exc:  # bad usage too, in one line naming the file, the line and the key
            fail(str(exc), EXIT_USAGE)
        except MemreportError as exc:
            fail(str(exc))
    echo_warnings(caught)


def options(*given: Callable) -> Callable:
    """Several options as one decorator, listed in --help in the order given."""
    def decorator(command):
        for option in reversed(given):
            command = option(command)
        return command
    return decorator


color_option = click.option(
    "--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
    help="Colour the text: out-of-memory tiles red, tiles within 5% of the limit yellow. auto: on a terminal only, "
         "and not when NO_COLOR is set; always: files too.")
# What to show below the tile (report, export).
drill_options = options(
    click.option("--tile", "tiles_asked", type=click.IntRange(min=0), multiple=True, metavar="N",
                 help="Also detail tile N (repeatable): its bytes, breakdown, regions, liveness and symbols."),
    click.option("--symbols", "symbols", type=click.IntRange(min=0), metavar="N",
                 help="How many of the largest symbols to list per tile of an archive or ELF file (default: 10 in "
                      "text for the out-of-memory tiles and those asked for; given, for every top tile too; all in "
                      "JSON)."))
# The shareable page (issue #25).
html_option = click.option("--html", "html_path", metavar="PATH", type=PATH,
                           help="Also write one self-contained HTML page (opens from disk, makes no network request).")
# The report's gates (report, trend): None when not given, so a budget file's gate stays on unless the command line
# says otherwise.
gate_options = options(
    click.option("--fail-on-oom", is_flag=True, default=None,
                 help="Gate: exit 3 if any tile is out of memory (a text summary: its printed count, or what its "
                      "maximum, histogram and detailed tiles show when that count is for other bytes per tile)."),
    click.option("--max-tile", type=BUDGET, metavar="SIZE|P%",
                 help="Gate: exit 3 if any tile uses more than SIZE, excluding gaps (a text summary: its printed "
                      "maximum), or when bytes x 100 > P x bytes per tile. " + PERCENT_ROUNDING),
    click.option("--min-headroom", type=BUDGET, metavar="SIZE|P%",
                 help="Gate: exit 3 if any tile has less than SIZE free below bytes per tile, or when free bytes x "
                      "100 < P x bytes per tile. " + PERCENT_ROUNDING))
module_option = click.option(
    "--module", metavar="NAME",
    help="Of a file holding several reports (a .rep trace's modules, a log's summaries), take only the module NAME, "
         "or #N for its Nth report (run.log#2); an unknown name lists the file's reports (exit 2). It applies to "
         "every file.")


GATES = ("fail_on_oom", "max_tile", "min_headroom", "fail_on_growth", "fail_on_recompile")  # the gates' options


def config_option(command):
    """``--config PATH``, shared by the commands that judge gates: the budget file, read, and with the command's
    gate options over it (:data:`GATES`, None when not given), handed to the command as ``gates`` (each input's);
    a bad one is bad usage (exit 2) in one line naming the file, the line and the key."""
    @functools.wraps(command)
    def with_budget(*args, config_path=None, **kwargs):
        with exit_codes():
            config = load_config(config_path)
        for note in config.notes:
            say(note)
        given = {name: kwargs.pop(name) for name in GATES if name in kwargs}
        return command(*args, gates=GatesPerInput(config, given, STDIN.labels), **kwargs)
    return click.option(
        "--config", "config_path", metavar="PATH", type=PATH,
        help="The budget file of gates (default: .memreport.toml in the working directory, else the "
             "[tool.memreport] table of its pyproject.toml); a gate given on the command line wins.")(with_budget)


def read(paths: Sequence[str], options: ReadOptions, module: str | None = None) -> tuple[list[Read], list[ReadFailure]]:
    """Every report of every file (of each only ``module``), in order: each unreadable file one line on stderr as it
    is met (exit 1 after the outputs; at once when none could be read); a module a file lacks is bad usage."""
    failures: list[ReadFailure] = []
    with exit_codes():
        reads = session.read_files(paths, options, module, labels=STDIN.labels, around=reading, errors=failures)
    for failure in failures:
        say(failure.message)
    if failures and not reads:
        sys.exit(EXIT_READ)
    return reads, failures


def prepare(paths: Sequence[str], output: str, gates: GatesPerInput | None = None, html: str | None = None,
            png: str | None = None, also: Sequence[str] = ()) -> list[str]:
    """``paths`` with ``-`` read from standard input (a file removed at the end), once every output (``-o``, and
    ``--png`` and ``--html`` when given) is checked against every input (``also``, the budget file): bad usage
    (exit 2) when one would write over another."""
    written = [("-o", output), *([("--png", png)] if png is not None else []), *([("--html", html)] if html else [])]
    ctx = click.get_current_context()
    with exit_codes():
        files = STDIN.paths(paths, ctx.with_resource, ctx.call_on_close)
    budget = gates.config.path if gates is not None else None
    checked([*files, *also, *([budget] if budget else [])], written)
    return files


def checked(inputs: Sequence[str], outputs: Sequence[tuple[str, str]]) -> None:
    """Bad usage (exit 2) when an output would write over an input or another output (standard input's spool
    file stands for the file behind it)."""
    try:
        check_outputs(inputs, outputs, STDIN.redirected(inputs))
    except MemreportError as exc:
        raise click.UsageError(shown(STDIN.named(str(exc)))) from None


def finish(run: Run) -> None:
    """Write every output of ``run`` or none (exit 4), its notices and failed gates on stderr; exit with its code:
    1 when an input could not be read (each was named as it was read), 3 when a gate failed, else 0."""
    try:
        write_outputs(run.outputs)
    except WriteError as exc:
        fail(str(exc), EXIT_WRITE)
    for notice in run.notices:
        say(notice)
    said = [("gate failed", gate_messages(run.gates)), ("gate not judged", gate_messages(run.gates, None))]
    for what, message in ((what, m) for what, messages in said for m in messages):
        say(f"{what}: {message}")
    if run.exit_code:
        sys.exit(run.exit_code)
