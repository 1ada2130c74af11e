"""What the commands share: standard input, option types and decorators, reading through the session, exit codes.

Exit codes: 0 success; 1 an input could not be read; 2 bad usage (click's
own); 3 a gate failed; 4 an output could not be written (nothing was);
128 + N ended by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129, a closed
pipe 141), its temporary files removed. Library errors become exit codes
here and only here (and in :mod:`.group`, the last resort).
"""
from __future__ import annotations

import os
import stat
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import click

from .. import render, session
from ..errors import MemreportError, UnsupportedOperation, WriteError
from ..model import ARCHES
from ..output import check_outputs, write_outputs
from ..readers import ReadOptions
from ..run import EXIT_READ, Run, gate_messages
from ..session import Read, ReadFailure
from ..units import Percent, check_size, parse_budget, parse_size

EXIT_WRITE = 4

STDIN = "-"                # an input read from standard input
STDIN_LABEL = "<stdin>"    # its name in reports and messages
_spooled: dict[str, str] = {}  # spool file -> STDIN_LABEL, for this run's messages and reports
_behind_stdin: dict[str, tuple[int, int]] = {}  # spool file -> device and inode of the file stdin came from


def stdin_paths(paths: Sequence[str]) -> list[str]:
    """``paths`` with ``-`` replaced by a temporary file holding standard input (read in bounded chunks, removed
    when the command ends), so it is read like any file; a named FIFO or device is still refused."""
    if STDIN not in paths:
        return list(paths)
    if list(paths).count(STDIN) > 1:
        raise click.UsageError("- (standard input) can be given once")
    import shutil
    import tempfile
    ctx = click.get_current_context()
    directory = ctx.with_resource(tempfile.TemporaryDirectory(prefix="memreport-stdin-"))
    spool = os.path.join(directory, "stdin")
    behind = _regular_file(sys.stdin)  # `< run.log`: outputs are checked against run.log itself
    with open(spool, "wb") as f:
        shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
    _spooled[spool] = STDIN_LABEL
    if behind is not None:
        _behind_stdin[spool] = behind
    ctx.call_on_close(lambda: (_spooled.pop(spool, None), _behind_stdin.pop(spool, None)))
    return [spool if p == STDIN else p for p in paths]


def _regular_file(stream) -> tuple[int, int] | None:
    """The device and inode of the regular file behind ``stream``'s descriptor, if it has one."""
    try:
        st = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):  # closed, or no descriptor (a test's input)
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def shown_path(path: str) -> str:
    """How an input is named to the user: ``<stdin>`` for standard input's spool file."""
    return _spooled.get(path, path)


def _unspooled(message: str) -> str:
    """``message`` as stderr shows it: standard input's spool file named ``<stdin>``, and the names it quotes (a
    file's, a member's, a module's) with their control characters escaped (issue 33 item 8)."""
    from ..render.layout import visible  # numpy-backed analysis loads with it: --help stays quick
    for spool, label in _spooled.items():
        message = message.replace(spool, label)
    return visible(message)


def say(message: str) -> None:
    """One line on stderr, ``memreport: MESSAGE`` (:func:`_unspooled`)."""
    click.echo(f"memreport: {_unspooled(message)}", err=True)


class SizeType(click.ParamType):
    """A byte size: ``638976``, ``624KiB``, ``1MiB``; at least ``minimum`` and below 2**63, checked at parse time."""

    name = "SIZE"

    def __init__(self, minimum: int = 0, what: str = "a size") -> None:
        self.minimum, self.what = minimum, what

    def convert(self, value, param, ctx):
        try:
            size = value if isinstance(value, int) else parse_size(value)
            return check_size(size, minimum=self.minimum, what=self.what)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class BudgetType(SizeType):
    """A gate's budget: a byte size (as :class:`SizeType`) or a percent of tile memory: ``90%``, ``92.5%``."""

    name = "SIZE|P%"

    def convert(self, value, param, ctx):
        if isinstance(value, Percent):
            return value
        try:
            budget = value if isinstance(value, int) else parse_budget(value)
            return budget if isinstance(budget, Percent) else check_size(budget, minimum=self.minimum, what=self.what)
        except ValueError as exc:
            self.fail(str(exc).replace("(try 638976, 624KiB or 1MiB)", "(try 638976, 624KiB, 1MiB or 90%)"),
                      param, ctx)


class PathType(click.ParamType):
    """A file name: not empty (``-o ''`` used to be ignored or to name the working directory)."""

    name = "PATH"

    def convert(self, value, param, ctx):
        if not value:
            self.fail("an empty path names no file", param, ctx)
        return value


PATH = PathType()
SIZE = SizeType()
BUDGET = BudgetType()
# How a percent budget is rounded, for the gates' --help (docs/CI.md says the same).
PERCENT_ROUNDING = ("P% (92.5% too) is of each report's own bytes per tile, exact, no float; exit 2 when they are "
                    "unknown (give --tile-memory or --arch).")
TILE_MEMORY = SizeType(minimum=1, what="bytes per tile")  # 0 B per tile is no IPU: a usage error, not the file's


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
    ``--thin-root``."""
    command = click.option(
        "--thin-root", metavar="DIR", type=click.Path(file_okay=False),
        help="A thin archive's members may lie anywhere under DIR (default: only under the archive's own "
             "directory; an absolute or '..' member path leaving it is an error).")(command)
    command = click.option(
        "--skip-bad-members", is_flag=True,
        help="Read an archive whose members are partly damaged: each damaged member's tile keeps its id but its "
             "bytes are unknown and counted in no figure; the output lists every one skipped.")(command)
    command = click.option(
        "--arch", type=click.Choice(sorted(ARCHES)),
        help="IPU architecture (ipu1: 1,216 tiles x 256 KiB; ipu2/ipu21: 1,472 x 624 KiB). It overrides an "
             "archive's ELF flags (with a note); other sources take from it only what they do not say.")(command)
    return click.option("--tile-memory", type=TILE_MEMORY, metavar="SIZE",
                        help="Bytes per tile, overriding every source (638976, 624KiB, 1MiB).")(command)




def unexpected(exc: Exception) -> str:
    """A bug's one line: the exception, its message and where it was raised, so it can be reported."""
    import traceback
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    detail = " ".join(str(exc).split())
    detail = detail if len(detail) <= 200 else detail[:197] + "..."
    return (f"unexpected {type(exc).__name__}{where} ({detail}); this is a memreport bug: please report it with "
            "the command and its inputs")


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
            raise click.UsageError(_unspooled(str(exc))) from None
        except MemreportError as exc:
            fail(str(exc))
    echo_warnings(caught)


WIDTH_FLOOR = 40  # no text is laid out narrower: a COLUMNS of 10 gets 40 columns
DEFAULT_WIDTH = 100  # text not going to a terminal, without COLUMNS (render/poplar.py WIDTH)


def text_width(to_terminal: bool) -> int:
    """The columns text fits: ``COLUMNS`` when set to a positive whole number, the terminal's width when
    writing to one, 100 otherwise; never below :data:`WIDTH_FLOOR`. A bad ``COLUMNS`` (``abc``, ``0``) is
    ignored."""
    import shutil
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return max(WIDTH_FLOOR, columns)
    if to_terminal:
        return max(WIDTH_FLOOR, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)
    return DEFAULT_WIDTH


def _to_terminal(output: str) -> bool:
    try:
        return output == "-" and sys.stdout.isatty()
    except (ValueError, OSError, AttributeError):  # a closed stdout (None): the write says so (exit 4)
        return False


def output_width(output: str, fmt: str) -> int | None:
    """The width of ``--format text`` written to ``output`` (:func:`text_width`); None for the other formats
    (Markdown, JSON and CSV are not laid out for a terminal)."""
    return text_width(_to_terminal(output)) if fmt == "text" else None


def terminal_options(output: str, color: str) -> tuple[int, bool]:
    """The text's width (:func:`text_width`) and colour: colour when stdout is a terminal and the text goes
    there. ``--color always`` colours files too; ``never``, or ``NO_COLOR`` set to anything but empty with
    ``auto``, turns it off."""
    to_terminal = _to_terminal(output)
    on = color == "always" or (color == "auto" and to_terminal and not os.environ.get("NO_COLOR"))
    return text_width(to_terminal), on


def color_option(command):
    """``--color auto|always|never``."""
    return click.option(
        "--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
        help="Colour the text: out-of-memory tiles red, tiles within 5% of the limit yellow. auto: on a terminal "
             "only, and not when NO_COLOR is set; always: files too.")(command)


def drill_options(command):
    """What to show below the tile, shared by the report and export commands: ``--tile``, ``--symbols``."""
    command = click.option(
        "--symbols", "symbols", type=click.IntRange(min=0), metavar="N",
        help="How many of the largest symbols to list per tile of an archive or ELF file (default: 10 in "
             "text for the out-of-memory tiles and those asked for; given, for every top tile too; all in "
             "JSON).")(command)
    return click.option(
        "--tile", "tiles_asked", type=click.IntRange(min=0), multiple=True, metavar="N",
        help="Also detail tile N (repeatable): its bytes, breakdown, regions, liveness and symbols.")(command)




def html_option(command):
    """``--html PATH``, shared by the report, diff and compiles commands: the shareable page (issue #25)."""
    return click.option(
        "--html", "html_path", metavar="PATH", type=PATH,
        help="Also write one self-contained HTML page (opens from disk, makes no network request).")(command)


def module_option(command):
    """``--module``, shared by the report, diff and export commands."""
    return click.option(
        "--module", metavar="NAME",
        help="Of a file holding several reports (a .rep trace's modules, a log's summaries), take only the "
             "module NAME, or #N for its Nth report (run.log#2); an unknown name lists the file's reports "
             "(exit 2). It applies to every file.")(command)




@contextmanager
def _reading(path: str, options: ReadOptions) -> Iterator[ReadOptions]:
    """Around one file's reading: a bar on stderr for slow reads (terminals only), its warnings one line each."""
    from ..progress import with_progress
    file_options, bar = with_progress(options, path)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield file_options
    finally:
        if bar is not None:
            bar.close()
    echo_warnings(caught)


def echo_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    """One line each, like errors (Python's format adds a source line), and each message once."""
    for message in dict.fromkeys(str(w.message) for w in caught):
        say(f"warning: {message}")


def read(paths: Sequence[str], options: ReadOptions, module: str | None = None) -> tuple[list[Read], list[ReadFailure]]:
    """Every report of every file, in order, with the file it was read from (of each only ``module``: a name or
    ``#N``). Every readable file is read: each unreadable one is one line on stderr, as it is met (the command
    exits 1 after writing its outputs), and when none could be read the run ends there with exit 1; a module a
    file does not hold is bad usage (exit 2)."""
    failures: list[ReadFailure] = []
    with exit_codes():
        reads = session.read_files(paths, options, module, labels=_spooled, around=_reading, errors=failures)
    for failure in failures:
        say(failure.message)
    if failures and not reads:
        sys.exit(EXIT_READ)
    return reads, failures


def checked(inputs: Sequence[str], outputs: Sequence[tuple[str, str]]) -> None:
    """Bad usage (exit 2) when an output would write over an input or another output (standard input's spool
    file stands for the file behind it)."""
    stdin_file = next((_behind_stdin[path] for path in inputs if path in _behind_stdin), None)
    try:
        check_outputs(inputs, outputs, stdin_file)
    except MemreportError as exc:
        raise click.UsageError(_unspooled(str(exc))) from None


def finish(run: Run) -> None:
    """Write every output of ``run`` or none (exit 4 on failure), say what it has to say on stderr, and exit
    with its code: 1 when an input could not be read (each was named as it was read), 3 when a gate failed
    (each named), else 0."""
    try:
        write_outputs(run.outputs)
    except WriteError as exc:
        fail(str(exc), EXIT_WRITE)
    for notice in run.notices:
        say(notice)
    for message in gate_messages(run.gates):
        say(f"gate failed: {message}")
    if run.exit_code:
        sys.exit(run.exit_code)
