"""The ``memreport`` command: a thin click shell over the public API.

Exit codes: 0 success; 1 an input could not be read; 2 bad usage (click's
own); 3 a gate failed; 4 an output could not be written (nothing was);
128 + N ended by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129, a closed
pipe 141), its temporary files removed. Library errors become exit codes
here and only here.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from . import __version__, render
from .errors import MemreportError, UnsupportedOperation, WriteError
from .model import ARCHES, MemoryReport
from .output import check_outputs, write_outputs
from .readers import ReadOptions, read_path
from .signals import SIGPIPE, Terminated, signals_end_the_run
from .units import check_size, parse_size

if TYPE_CHECKING:  # numpy-backed modules load with the commands: --version and --help stay quick
    from .analysis.gates import GateResult
    from .model.tensor_map import TensorMap

EXIT_READ, EXIT_GATE, EXIT_WRITE = 1, 3, 4


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


def output_options(subject: str, what: str):
    """``--format`` and ``-o``, shared by the commands (sqlite-utils' habit): the formats are the registered
    text renderers of ``subject``."""
    text_renderers = render.renderers(subject, binary=False)
    formats = "; ".join(f"{r.name}: {r.description}" for r in text_renderers)

    def decorator(command):
        command = click.option("-o", "--output", default="-", metavar="PATH", show_default=True, type=PATH,
                               help=f"Write the {what} here ('-' is stdout); a file is written whole or not at "
                                    "all.")(command)
        return click.option("--format", "fmt", type=click.Choice([r.name for r in text_renderers]),
                            default=text_renderers[0].name, show_default=True,
                            help=f"Output format ({formats}).")(command)
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
    """The default command, shown to users as plain ``memreport``."""

    def make_context(self, info_name, args, parent=None, **extra):
        # Detached from the group so usage lines and hints read "memreport", not "memreport report".
        return super().make_context("memreport", args, None, **extra)


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
    click.echo(f"memreport: {message}", err=True)
    sys.exit(code)


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


def load(paths: Sequence[str], options: ReadOptions) -> list[MemoryReport]:
    """Read every file, in order; the first unreadable one ends the run with exit 1."""
    from .progress import with_progress
    reports: list[MemoryReport] = []
    for path in paths:
        file_options, bar = with_progress(options, path)  # a bar on stderr for slow reads, terminals only
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                reports.extend(read_path(path, file_options))
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
    from .readers.tensor_map import read_tensor_map
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
@read_options
@click.option("--bin-kib", type=click.IntRange(min=1, max=2 ** 53 - 1), metavar="N",
              help="Histogram bin width in KiB (default: the smallest power of two giving at most 128 bins); at "
                   "most 16,384 bins (exit 2 beyond).")
@click.option("--png", metavar="PATH", type=PATH,
              help="Also draw each report as a PNG: memory per tile, the By Tile histogram, a per-IPU heat "
                   "map. Several reports write PATH-1.png, PATH-2.png, ... in input order.")
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
@click.version_option(__version__, "--version", prog_name="memreport")
def report(files: tuple[str, ...], fmt: str, output: str, top: int, tile_memory: int | None,
           arch: str | None, bin_kib: int | None, fail_on_oom: bool = False, max_tile: int | None = None,
           min_headroom: int | None = None, tensor_map_path: str | None = None,
           png: str | None = None, skip_bad_members: bool = False, thin_root: str | None = None) -> None:
    """Show the memory of every tile of a compiled IPU program.

    FILE is any report Poplar writes, recognised by its content: an ELF
    archive (target.saveArchive) or a single tile ELF, a text summary
    (printProfileSummary) or a TensorFlow .rep trace, a JSON or CBOR graph
    profile, or a tensor map. Several files give one report each, in order.

    \b
    Examples:
      memreport archive.a                      By Tile histogram, top 5 tiles, OOM count
      memreport profile.json --top 10          ten most memory-subscribed tiles
      memreport profile.json --tensor-map tensor_map.json   tensors on the top tiles
      memreport archive.a --format csv -o tiles.csv
      memreport archive.a --png memory.png     also a picture: per tile, histogram, heat map
      memreport archive.a --format json | jq '.reports[0].tiles_out_of_memory'
      memreport diff old.a new.a               what a change did to every tile
      memreport archive.a --fail-on-oom --max-tile 600KiB   CI gate: exit 3 on failure

    Exit status: 0 success, 1 an input could not be read, 2 bad usage,
    3 a gate failed, 4 an output could not be written (none was), 128+N
    ended by signal N.
    """
    from .analysis import gates, summarize_all
    options = ReadOptions(tile_memory=tile_memory, arch=arch, skip_bad_members=skip_bad_members,
                          thin_root=thin_root)
    inputs = [*files, *([tensor_map_path] if tensor_map_path else [])]
    refuse_overwriting(inputs, [("-o", output), *([("--png", png)] if png is not None else [])])
    reports = load(files, options)
    tensor_map = load_tensor_map(tensor_map_path, reports) if tensor_map_path else None
    if png == "-" and (output == "-" or len(reports) > 1):
        raise click.UsageError("--png - needs one report and --output elsewhere: stdout takes one output")
    picture = render.get("report", "png")
    png_paths = numbered_paths(png, len(reports), picture.extension) if png is not None else []
    if len(png_paths) > 1:  # PATH-1.png, PATH-2.png...: none may be an input or -o either
        refuse_overwriting(inputs, [("-o", output), *(("--png", path) for path in png_paths)])
    try:
        with warnings.catch_warnings(record=True) as caught:  # matplotlib's, say: one line each
            warnings.simplefilter("always")
            summaries = summarize_all(reports, top=top, bin_kib=bin_kib, tensor_map=tensor_map)
            rendered = render.render("report", fmt, summaries)
            gate_results = gates.evaluate(summaries, fail_on_oom=fail_on_oom, max_tile=max_tile,
                                          min_headroom=min_headroom)
            pngs: list[tuple[str, str | bytes]] = []
            if png_paths:  # drawn before anything is written
                pngs = list(zip(png_paths, render.render_each(picture, summaries, render.RenderOptions())))
    except UnsupportedOperation as exc:
        raise click.UsageError(str(exc)) from None
    except MemreportError as exc:
        fail(str(exc))
    echo_warnings(caught)
    write_all([(output, rendered), *pngs])  # every output or none
    if len(pngs) > 1:
        click.echo(f"memreport: wrote {', '.join(path for path, _ in pngs)} (one PNG per report)", err=True)
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
              help="How many of the largest changes the text lists (JSON and CSV list all).")
@read_options
@click.option("--fail-on-growth", type=SIZE, metavar="SIZE",
              help="Gate: exit 3 if any tile grows by more than SIZE.")
@click.option("--fail-on-oom", is_flag=True, help="Gate: exit 3 if any tile of NEW is out of memory.")
def diff_command(old_path: str, new_path: str, fmt: str, output: str, top: int, tile_memory: int | None,
                 arch: str | None, fail_on_growth: int | None, fail_on_oom: bool,
                 skip_bad_members: bool = False, thin_root: str | None = None) -> None:
    """Compare two builds tile by tile (excluding-gaps bytes).

    OLD and NEW are any two readable reports of programs with the same tile
    count, in any formats but a tensor map (it holds no bytes). A text
    summary is compared only where it knows a tile's bytes (its detailed
    tiles), plus its printed totals and maxima.

    \b
    Examples:
      memreport diff main.a pr.a                        totals, OOM changes, top 20 changes
      memreport diff main.a pr.a --format csv -o changes.csv
      memreport diff main.a pr.a --fail-on-growth 4KiB  CI gate: exit 3 on failure

    Exit status: 0 success, 1 an input could not be read or the tile counts
    differ, 2 bad usage, 3 a gate failed, 4 the output could not be written,
    128+N ended by signal N.
    """
    from .analysis import diff as diffing
    from .analysis import gates, summarize
    options = ReadOptions(tile_memory=tile_memory, arch=arch, skip_bad_members=skip_bad_members,
                          thin_root=thin_root)
    refuse_overwriting([old_path, new_path], [("-o", output)])
    old, old_note = diffing.choose_report(load([old_path], options))
    new, new_note = diffing.choose_report(load([new_path], options))
    try:
        summaries = (summarize(old), summarize(new))
        changes = diffing.diff_reports(old, new, notes=[n for n in (old_note, new_note) if n], summaries=summaries)
    except UnsupportedOperation as exc:  # a tensor map: nothing to compare, whatever the file holds
        raise click.UsageError(str(exc)) from None
    except diffing.TileCountMismatch as exc:
        fail(f"diff: {exc}")
    try:
        results = [gates.check_growth(changes, fail_on_growth)] if fail_on_growth is not None else []
        if fail_on_oom:
            results.append(gates.check_out_of_memory(summaries[1]))
    except UnsupportedOperation as exc:
        raise click.UsageError(str(exc)) from None
    write_all([(output, render.render("diff", fmt, changes, render.RenderOptions(top=top)))])
    exit_on_gates(results)


if __name__ == "__main__":  # pragma: no cover
    main()
