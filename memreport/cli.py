"""The ``memreport`` command: a thin click shell over the public API.

Exit codes: 0 success; 1 an input could not be read; 2 bad usage (click's
own); 3 a gate failed; 4 an output could not be written (nothing was);
128 + N ended by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129, a closed
pipe 141), its temporary files removed. Library errors become exit codes
here and only here.
"""
from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, cast

import click

from . import __version__, render
from .errors import MemreportError, UnsupportedOperation, WriteError
from .model import ARCHES, MemoryReport, TileReport
from .output import check_outputs, write_outputs
from .readers import ReadOptions, read_path
from .signals import SIGPIPE, Terminated, signals_end_the_run
from .units import check_size, parse_size

if TYPE_CHECKING:  # numpy-backed modules load with the commands: --version and --help stay quick
    from .analysis.gates import GateResult
    from .model.tensor_map import TensorMap

EXIT_READ, EXIT_GATE, EXIT_WRITE = 1, 3, 4
STDIN = "-"                # an input read from standard input
STDIN_LABEL = "<stdin>"    # its name in reports and messages
_spooled: dict[str, str] = {}  # spool file -> STDIN_LABEL, for this run's messages and reports


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
    with open(spool, "wb") as f:
        shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
    _spooled[spool] = STDIN_LABEL
    ctx.call_on_close(lambda: _spooled.pop(spool, None))
    return [spool if p == STDIN else p for p in paths]


def shown_path(path: str) -> str:
    """How an input is named to the user: ``<stdin>`` for standard input's spool file."""
    return _spooled.get(path, path)


def _unspooled(message: str) -> str:
    for spool, label in _spooled.items():
        message = message.replace(spool, label)
    return message


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


class PathType(click.ParamType):
    """A file name: not empty (``-o ''`` used to be ignored or to name the working directory)."""

    name = "PATH"

    def convert(self, value, param, ctx):
        if not value:
            self.fail("an empty path names no file", param, ctx)
        return value


PATH = PathType()
SIZE = SizeType()
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


class DefaultGroup(click.Group):
    """``memreport FILE...`` runs the report command; ``memreport diff ...`` the others."""

    default_command = "report"

    def parse_args(self, ctx, args):
        if not args or args[0] not in self.commands:
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        """Run the command; a signal or a closed pipe ends it with 128 + N, temporary files removed."""
        with signals_end_the_run():
            try:
                return super().invoke(ctx)
            except Terminated as exc:  # the stack has unwound: every temporary file is gone
                sys.exit(128 + exc.signum)
            except KeyboardInterrupt:
                sys.exit(128 + signal.SIGINT)
            except BrokenPipeError:  # the reader of stdout has gone (| head): end quietly, as SIGPIPE would
                with contextlib.suppress(OSError, ValueError, AttributeError):
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
                sys.exit(128 + SIGPIPE)
            except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
                raise
            except MemoryError:  # outside the readers, which say so themselves: rendering a pod, say
                fail("out of memory (MemoryError): the run needs more memory than this process may use")
            except Exception as exc:  # noqa: BLE001 - the last resort: one line, never a traceback
                fail(unexpected(exc))


class ReportCommand(click.Command):
    """The default command, shown to users as plain ``memreport``; its help lists the other commands."""

    def make_context(self, info_name, args, parent=None, **extra):
        # Detached from the group so usage lines and hints read "memreport", not "memreport report".
        return super().make_context("memreport", args, None, **extra)

    def format_help(self, ctx, formatter):
        super().format_help(ctx, formatter)
        rows = [(name, command.get_short_help_str(limit=70)) for name, command in main.commands.items()
                if name != self.name]
        with formatter.section("Commands (memreport COMMAND --help for each)"):
            formatter.write_dl(rows)
        formatter.write_paragraph()
        formatter.write_text("A file whose name is a command's is reported with a path: memreport ./diff")


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
    click.echo(f"memreport: {_unspooled(message)}", err=True)
    sys.exit(code)


@contextmanager
def exit_codes() -> Iterator[None]:
    """Inside: a request the input cannot answer is bad usage (exit 2), any other memreport error exit 1."""
    try:
        yield
    except UnsupportedOperation as exc:
        raise click.UsageError(_unspooled(str(exc))) from None
    except MemreportError as exc:
        fail(str(exc))


def write_all(outputs: Sequence[tuple[str, str | bytes]]) -> None:
    """Write every output or none; a failure is one line and exit 4."""
    try:
        write_outputs(outputs)
    except WriteError as exc:
        fail(str(exc), EXIT_WRITE)


def refuse_overwriting(inputs: Sequence[str], outputs: Sequence[tuple[str, str]]) -> None:
    """Bad usage (exit 2) when an output would write over an input or another output."""
    try:
        check_outputs(inputs, outputs)
    except MemreportError as exc:
        raise click.UsageError(str(exc)) from None


def exit_on_gates(results: Sequence[GateResult]) -> None:
    """Name every failed gate on stderr and exit 3; the output is already written."""
    failed = [r for r in results if r.failed]
    for result in failed:
        click.echo(f"memreport: gate failed: {result.message}", err=True)
    if failed:
        sys.exit(EXIT_GATE)


def terminal_options(output: str, color: str) -> tuple[int | None, bool]:
    """The text's width and colour: the terminal's width and colour when stdout is a terminal and the text goes
    there; 100 columns and no colour otherwise. ``--color always`` colours files too; ``never``, or ``NO_COLOR``
    set to anything but empty with ``auto``, turns it off."""
    import shutil
    try:
        to_terminal = output == "-" and sys.stdout.isatty()
    except (ValueError, OSError, AttributeError):  # a closed stdout (None): the write says so (exit 4)
        to_terminal = False
    width = max(60, shutil.get_terminal_size((100, 24)).columns) if to_terminal else None
    on = color == "always" or (color == "auto" and to_terminal and not os.environ.get("NO_COLOR"))
    return width, on


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
        help="How many of the largest symbols to list per tile of an archive or ELF file (default 10 in text, "
             "all in JSON).")(command)
    return click.option(
        "--tile", "tiles_asked", type=click.IntRange(min=0), multiple=True, metavar="N",
        help="Also detail tile N (repeatable): its bytes, breakdown, regions, liveness and symbols.")(command)


def load(paths: Sequence[str], options: ReadOptions, module: str | None = None) -> list[MemoryReport]:
    """Read every file, in order; the first unreadable one ends the run with exit 1."""
    return [report for _, report in load_from(paths, options, module)]


def module_option(command):
    """``--module``, shared by the report, diff and export commands."""
    return click.option(
        "--module", metavar="NAME",
        help="Of a file holding several reports (a .rep trace's modules, a log's summaries), take only the "
             "module NAME, or #N for its Nth report (run.log#2); an unknown name lists the file's reports "
             "(exit 2). It applies to every file.")(command)


def with_symbols(read: Sequence[tuple[str, MemoryReport]], top: int, tiles_asked: Sequence[int],
                 thin_root: str | None = None) -> list[MemoryReport]:
    """The reports, those read from an archive or ELF file holding the symbol tables of their top tiles and of
    ``tiles_asked`` (tiles outside a report are left for the summary to refuse); exit 1 when one cannot be read."""
    from .analysis import top_tile_ids
    from .readers.elf.symbols import has_symbols
    from .readers.elf.symbols import with_symbols as read_symbols
    reports = []
    for path, report in read:
        shown = shown_path(path)
        if has_symbols(report) and report.source == shown:  # a saved report holds the symbols it saved, no more
            assert isinstance(report, TileReport)
            wanted = top_tile_ids(report, top).tolist() + [t for t in tiles_asked if t < report.num_tiles]
            try:
                spooled = report if path == shown else cast(TileReport, report.evolve(source=path))
                report = read_symbols(spooled, wanted, thin_root).evolve(source=shown)
            except MemreportError as exc:
                fail(str(exc))
        reports.append(report)
    return reports


def load_from(paths: Sequence[str], options: ReadOptions, module: str | None = None
              ) -> list[tuple[str, MemoryReport]]:
    """(path, report) of every report of every file, in order (of each file only ``module``, when given: a name or
    ``#N``); the first unreadable file ends the run with exit 1, a module a file does not hold with exit 2."""
    from .analysis.tiles import pick_module
    from .progress import with_progress
    reports: list[tuple[str, MemoryReport]] = []
    for path in paths:
        file_options, bar = with_progress(options, path)  # a bar on stderr for slow reads, terminals only
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                found = read_path(path, file_options)
                if path in _spooled:  # standard input: named as such, not by its spool file
                    found = [r.evolve(source=_spooled[path]) for r in found]
                if module is not None:
                    with exit_codes():
                        found = [pick_module(found, module)]
                reports.extend((path, report) for report in found)
        except MemreportError as exc:
            if bar is not None:
                bar.close()
            fail(str(exc))
        if bar is not None:
            bar.close()
        echo_warnings(caught)
    return reports


def echo_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    """One line each, like errors (Python's format adds a source line), and each message once."""
    for message in dict.fromkeys(str(w.message) for w in caught):
        click.echo(f"memreport: warning: {message}", err=True)


def load_tensor_map(path: str, reports: Sequence[MemoryReport]) -> TensorMap:
    """Read ``--tensor-map`` and check it fits every report; a failure ends the run with exit 1."""
    from .analysis.tensors import check_matches
    from .readers.documents.tensor_map import read_tensor_map
    try:
        tensor_map = read_tensor_map(path)
        for report in reports:
            check_matches(report, tensor_map)
    except MemreportError as exc:
        fail(str(exc))
    return tensor_map


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """memreport: per-tile memory of Graphcore IPU programs."""


@main.command("report", cls=ReportCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@output_options("report", "report")
@click.option("--top", default=5, show_default=True, type=click.IntRange(min=0), metavar="N",
              help="How many of the most memory-subscribed tiles to detail.")
@drill_options
@read_options
@click.option("--bin-kib", type=click.IntRange(min=1, max=2 ** 53 - 1), metavar="N",
              help="Histogram bin width in KiB (default: the smallest power of two giving at most 128 bins); at "
                   "most 16,384 bins (exit 2 beyond).")
@click.option("--png", metavar="PATH", type=PATH,
              help="Also draw each report as a PNG: memory per tile, the By Tile histogram, a per-IPU heat "
                   "map. Several reports number the files before the extension, in input order (--png m.png writes "
                   "m-1.png, m-2.png, ...).")
@click.option("--html", "html_path", metavar="PATH", type=PATH,  # issue 25: the shareable page
              help="Also write one self-contained HTML page (opens from disk, makes no network request).")
@click.option("--tensor-map", "tensor_map_path", metavar="PATH", type=PATH,
              help="A tensor map (tensor_map.json): list the tensors on the top tiles, with elements and "
                   "estimated bytes of tensor data (CSV: three per-tile tensor columns).")
@click.option("--fail-on-oom", is_flag=True,
              help="Gate: exit 3 if any tile is out of memory (a text summary: its printed count, or what its "
                   "maximum, histogram and detailed tiles show when that count is for other bytes per tile).")
@click.option("--max-tile", type=SIZE, metavar="SIZE",
              help="Gate: exit 3 if any tile uses more than SIZE, excluding gaps "
                   "(a text summary: its printed maximum).")
@click.option("--min-headroom", type=SIZE, metavar="SIZE",
              help="Gate: exit 3 if any tile has less than SIZE free below bytes per tile.")
@module_option
@color_option
@click.version_option(__version__, "--version", prog_name="memreport")
def report(files: tuple[str, ...], fmt: str, output: str, top: int, tile_memory: int | None,
           arch: str | None, bin_kib: int | None, fail_on_oom: bool = False, max_tile: int | None = None,
           min_headroom: int | None = None, tensor_map_path: str | None = None,
           png: str | None = None, skip_bad_members: bool = False, tiles_asked: tuple[int, ...] = (),
           symbols: int | None = None, thin_root: str | None = None, module: str | None = None,
           color: str = "auto", html_path: str | None = None) -> None:
    """Show the memory of every tile of a compiled IPU program.

    FILE is any report Poplar writes, recognised by its content: an ELF
    archive (target.saveArchive) or a single tile ELF, a text summary
    (printProfileSummary) or a TensorFlow .rep trace, a JSON or CBOR graph
    profile, or a tensor map; or a run log or document of any size, whose
    summaries (anywhere in it) and out-of-memory errors are read. Several
    files give one report each, in order; a file may hold several.

    \b
    Examples:
      memreport archive.a                      By Tile histogram, top 5 tiles, OOM count
      memreport run.log                        every summary and out-of-memory error in a log
      memreport trace.rep --module cluster_1   one module of a .rep (or --module '#2': a log's 2nd)
      memreport profile.json --top 10          ten most memory-subscribed tiles
      memreport profile.json --tensor-map tensor_map.json   tensors on the top tiles
      memreport archive.a --tile 17 --symbols 20   tile 17 too, 20 symbols a tile
      memreport archive.a --format csv -o tiles.csv
      memreport archive.a --png memory.png     also a picture: per tile, histogram, heat map
      memreport archive.a --format json | jq '.reports[0].tiles_out_of_memory'
      memreport diff old.a new.a               what a change did to every tile
      memreport export profile.pop -o memory.json   a saved report, readable anywhere
      memreport archive.a --fail-on-oom --max-tile 600KiB   CI gate: exit 3 on failure
      memreport compiles run.log               every compilation and cache hit in a run's log

    Exit status: 0 success, 1 an input could not be read, 2 bad usage,
    3 a gate failed, 4 an output could not be written (none was), 128+N
    ended by signal N.
    """
    from .analysis import gates, summarize_all
    options = ReadOptions(tile_memory=tile_memory, arch=arch, skip_bad_members=skip_bad_members,
                          thin_root=thin_root)
    files = tuple(stdin_paths(files))
    inputs = [*files, *([tensor_map_path] if tensor_map_path else [])]
    refuse_overwriting(inputs, [("-o", output), *([("--png", png)] if png is not None else []),
                                *([("--html", html_path)] if html_path else [])])  # issue 25
    shown = fmt != "csv"  # the CSV has no place for symbols: read none
    reports = with_symbols(load_from(files, options, module), top if shown else 0, tiles_asked if shown else (),
                           thin_root)
    tensor_map = load_tensor_map(tensor_map_path, reports) if tensor_map_path else None
    if png == "-" and (output == "-" or len(reports) > 1):
        raise click.UsageError("--png - needs one report and --output elsewhere: stdout takes one output")
    picture = render.get("report", "png")
    png_paths = numbered_paths(png, len(reports), picture.extension) if png is not None else []
    if len(png_paths) > 1:  # memory-1.png, memory-2.png...: none may be an input or -o either
        refuse_overwriting(inputs, [("-o", output), *(("--png", path) for path in png_paths)])
    with warnings.catch_warnings(record=True) as caught:  # matplotlib's, say: one line each
        warnings.simplefilter("always")
        with exit_codes():
            summaries = summarize_all(reports, top=top, bin_kib=bin_kib, tensor_map=tensor_map,
                                      tiles_asked=tiles_asked)
            width, colored = terminal_options(output, color) if fmt == "text" else (None, False)
            rendered = render.render("report", fmt, summaries,
                                     render.RenderOptions(symbols=symbols, width=width, color=colored))
            gate_results = gates.evaluate(summaries, fail_on_oom=fail_on_oom, max_tile=max_tile,
                                          min_headroom=min_headroom)
            pngs: list[tuple[str, str | bytes]] = []
            if png_paths:  # drawn before anything is written
                pngs = list(zip(png_paths, render.render_each(picture, summaries, render.RenderOptions())))
            if html_path:  # issue 25: the page, beside the other outputs
                pngs.append((html_path, render.render("report", "html", summaries)))
    echo_warnings(caught)
    write_all([(output, rendered), *pngs])  # every output or none
    if len(png_paths) > 1:
        click.echo(f"memreport: wrote {', '.join(png_paths)} (one PNG per report)", err=True)
    exit_on_gates(gate_results)


def numbered_paths(path: str, count: int, extension: str) -> list[str]:
    """``path`` itself for one output; ``STEM-N.SUFFIX`` (N from 1) for several.

    One figure per report keeps every figure legible; a shared figure of
    several programs would shrink each to a thumbnail.
    """
    if count == 1:
        return [path]
    stem, suffix = os.path.splitext(path)
    return [f"{stem}-{i}{suffix or extension}" for i in range(1, count + 1)]


@main.command("diff", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("old_path", metavar="OLD")
@click.argument("new_path", metavar="NEW")
@output_options("diff", "diff")
@click.option("--top", default=20, show_default=True, type=click.IntRange(min=0), metavar="N",
              help="How many of the largest changes the text lists (JSON and CSV list all) and shows below the tile "
                   "(what changed inside them: sections, categories, regions, liveness, symbols).")
@click.option("--min-change", type=SIZE, default=0, metavar="SIZE",
              help="Hide changes smaller than SIZE: tiles from the lists, items from below the tile (the counts "
                   "still cover every change).")
@click.option("--sort", "sort", type=click.Choice(["delta", "growth", "new"]), default="delta", show_default=True,
              help="Order of the items below the tile: delta (largest change either way), growth (largest growth "
                   "first), new (new items, then removed, then the rest).")
@read_options
@click.option("--fail-on-growth", type=SIZE, metavar="SIZE",
              help="Gate: exit 3 if any tile grows by more than SIZE.")
@click.option("--fail-on-oom", is_flag=True, help="Gate: exit 3 if any tile of NEW is out of memory.")
@click.option("--html", "html_path", metavar="PATH", type=PATH,  # issue 25: the shareable page
              help="Also write one self-contained HTML page (opens from disk, makes no network request).")
@module_option
def diff_command(old_path: str, new_path: str, fmt: str, output: str, top: int, tile_memory: int | None,
                 arch: str | None, fail_on_growth: int | None, fail_on_oom: bool,
                 skip_bad_members: bool = False, min_change: int = 0, sort: str = "delta",
                 thin_root: str | None = None, module: str | None = None, html_path: str | None = None) -> None:
    """Compare two builds tile by tile (excluding-gaps bytes).

    OLD and NEW are any two readable reports of programs with the same tile
    count, in any formats but a tensor map (it holds no bytes). A text
    summary is compared only where it knows a tile's bytes (its detailed
    tiles and Maximum lines), plus its printed totals and maxima. Of a file
    holding several reports the largest is compared (with a note), or the
    one --module names.

    \b
    Examples:
      memreport diff main.a pr.a                        totals, OOM changes, top 20 changes
      memreport diff main.a pr.a --format csv -o changes.csv
      memreport diff main.a pr.a --fail-on-growth 4KiB  CI gate: exit 3 on failure
      memreport diff baseline.json build/archive.a --min-change 1KiB   against a saved report

    Exit status: 0 success, 1 an input could not be read or the tile counts
    differ, 2 bad usage, 3 a gate failed, 4 the output could not be written,
    128+N ended by signal N.
    """
    from .analysis import diff as diffing
    from .analysis import gates, summarize
    options = ReadOptions(tile_memory=tile_memory, arch=arch, skip_bad_members=skip_bad_members,
                          thin_root=thin_root)
    old_path, new_path = stdin_paths([old_path, new_path])
    refuse_overwriting([old_path, new_path], [("-o", output), *([("--html", html_path)] if html_path else [])])
    old, old_note = diffing.choose_report(load([old_path], options, module))
    new, new_note = diffing.choose_report(load([new_path], options, module))
    try:
        summaries = (summarize(old), summarize(new))
        changes = diffing.diff_reports(old, new, notes=[n for n in (old_note, new_note) if n], summaries=summaries,
                                       min_change=min_change)
    except UnsupportedOperation as exc:  # a tensor map: nothing to compare, whatever the file holds
        raise click.UsageError(str(exc)) from None
    except diffing.TileCountMismatch as exc:
        fail(f"diff: {exc}")
    below = [c.tile for c in changes.changes(top)]
    old, new = (with_symbols([(path, report)], 0, below, thin_root)[0]
                for path, report in ((old_path, old), (new_path, new)))
    changes = diffing.with_items(changes, old, new, top, sort=sort)
    try:
        results = [gates.check_growth(changes, fail_on_growth)] if fail_on_growth is not None else []
        if fail_on_oom:
            results.append(gates.check_out_of_memory(summaries[1]))
    except UnsupportedOperation as exc:
        raise click.UsageError(str(exc)) from None
    page = [(html_path, render.render("diff", "html", changes))] if html_path else []  # issue 25
    write_all([(output, render.render("diff", fmt, changes, render.RenderOptions(top=top))), *page])
    exit_on_gates(results)


@main.command("compiles", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("logs", metavar="LOG...", nargs=-1, required=True)
@output_options("compiles", "compilations")
@click.option("--fail-on-recompile", is_flag=True,
              help="Gate: exit 3 if one process compiles a module (or, unnamed, a hash) more than once, across "
                   "all the LOGs.")
@click.option("--html", "html_path", metavar="PATH", type=PATH,  # issue 25: the shareable page
              help="Also write one self-contained HTML page (opens from disk, makes no network request).")
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
      memreport compiles run.log                      one row per compilation, then findings
      memreport compiles cold.log warm.log            did the warm run load from the cache?
      memreport compiles run.log --format json -o compiles.json
      memreport compiles run.log --fail-on-recompile  CI gate: exit 3 on a recompilation

    Exit status: 0 success, 1 a log could not be read or holds no
    compilation lines, 2 bad usage, 3 a gate failed, 4 the output could
    not be written, 128+N ended by signal N.
    """
    from .analysis.compiles import check_recompile, summarize_compiles
    from .progress import ReadProgress, file_progress
    from .readers.text.compile_log import read_compile_logs
    refuse_overwriting(list(logs), [("-o", output), *([("--html", html_path)] if html_path else [])])
    bars: list[ReadProgress] = []

    def progress(path: str) -> ReadProgress | None:
        while bars:  # the previous log's bar is done
            bars.pop().close()
        bar = file_progress(path)
        if bar is not None:
            bars.append(bar)
        return bar

    try:
        history = read_compile_logs(logs, progress=progress)
    except MemreportError as exc:
        fail(str(exc))
    finally:
        while bars:
            bars.pop().close()
    summary = summarize_compiles(history)
    try:
        rendered = render.render("compiles", fmt, summary)
        page = [(html_path, render.render("compiles", "html", summary))] if html_path else []  # issue 25
    except MemreportError as exc:
        fail(str(exc))
    write_all([(output, rendered), *page])
    exit_on_gates(check_recompile(summary) if fail_on_recompile else [])
@main.command("export", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@output_options("report", "memreport/1 JSON", formats=False)
@click.option("--top", default=5, show_default=True, type=click.IntRange(min=0), metavar="N",
              help="How many of the most memory-subscribed tiles to detail (with their symbols).")
@drill_options
@read_options
@module_option
def export_command(files: tuple[str, ...], output: str, top: int, tile_memory: int | None, arch: str | None,
                   skip_bad_members: bool = False, tiles_asked: tuple[int, ...] = (),
                   symbols: int | None = None, thin_root: str | None = None, module: str | None = None) -> None:
    """Save reports as memreport/1 JSON that memreport reads back as the same reports.

    FILE is anything memreport reads. The JSON holds every tile's values,
    the target as the source stated it and the overrides applied, and the
    symbols of the top tiles, so every command works on it later, on a
    machine without the input (a profile.pop needs Graphcore's libpva to
    read; its export does not).

    \b
    Examples:
      memreport export profile.pop -o memory.json       where the Poplar SDK is installed
      memreport export build/archive.a -o baseline.json
      memreport diff baseline.json build/archive.a      later, against a new build

    Exit status: 0 success, 1 an input could not be read, 2 bad usage,
    4 the output could not be written, 128+N ended by signal N.
    """
    from .analysis import summarize_all
    options = ReadOptions(tile_memory=tile_memory, arch=arch, skip_bad_members=skip_bad_members,
                          thin_root=thin_root)
    files = tuple(stdin_paths(files))
    refuse_overwriting(list(files), [("-o", output)])
    reports = with_symbols(load_from(files, options, module), top, tiles_asked, thin_root)
    with exit_codes():
        summaries = summarize_all(reports, top=top, tiles_asked=tiles_asked)
        rendered = render.render("report", "json", summaries, render.RenderOptions(symbols=symbols))
    write_all([(output, rendered)])


if __name__ == "__main__":  # pragma: no cover
    main()


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
