"""The ``memreport`` command: a thin click shell over the public API.

Exit codes: 0 success; 1 an input could not be read; 2 bad usage (click's
own); 3 a gate failed. Library errors become exit codes here and only here.
"""
from __future__ import annotations

import sys
from typing import Sequence

import click

from . import __version__
from .errors import MemreportError, UnsupportedOperation
from .model import ARCHES, MemoryReport
from .output import write_output
from .readers import ReadOptions, read_path
from .units import parse_size

EXIT_READ, EXIT_GATE = 1, 3


class SizeType(click.ParamType):
    """A byte size: ``638976``, ``624KiB``, ``1MiB``."""

    name = "SIZE"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        try:
            return parse_size(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


SIZE = SizeType()


class DefaultGroup(click.Group):
    """``memreport FILE...`` runs the report command; ``memreport diff ...`` the others."""

    default_command = "report"

    def parse_args(self, ctx, args):
        if not args or args[0] not in self.commands:
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


class ReportCommand(click.Command):
    """The default command, shown to users as plain ``memreport``."""

    def make_context(self, info_name, args, parent=None, **extra):
        # Detached from the group so usage lines and hints read "memreport", not "memreport report".
        return super().make_context("memreport", args, None, **extra)


def fail(message: str, code: int = EXIT_READ) -> None:
    """One line on stderr, then exit with ``code``."""
    click.echo(f"memreport: {message}", err=True)
    sys.exit(code)


def load(paths: Sequence[str], options: ReadOptions) -> list[MemoryReport]:
    """Read every file, in order; the first unreadable one ends the run with exit 1."""
    reports: list[MemoryReport] = []
    for path in paths:
        try:
            reports.extend(read_path(path, options))
        except MemreportError as exc:
            fail(str(exc))
    return reports


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """memreport: per-tile memory of Graphcore IPU programs."""


@main.command("report", cls=ReportCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv"]), default="text", show_default=True,
              help="Output format: Poplar-style text, JSON (schema memreport/1) or CSV (one row per tile).")
@click.option("-o", "--output", default="-", metavar="PATH", show_default=True,
              help="Write the report here ('-' is stdout); a file is written whole or not at all.")
@click.option("--top", default=5, show_default=True, type=click.IntRange(min=0), metavar="N",
              help="How many of the most memory-subscribed tiles to detail.")
@click.option("--tile-memory", type=SIZE, metavar="SIZE",
              help="Bytes per tile, overriding the source (638976, 624KiB, 1MiB).")
@click.option("--arch", type=click.Choice(sorted(ARCHES)),
              help="IPU architecture when the source does not say (ipu1: 1,216 x 256 KiB; "
                   "ipu2/ipu21: 1,472 x 624 KiB).")
@click.option("--bin-kib", type=click.IntRange(min=1), metavar="N",
              help="Histogram bin width in KiB (default: the smallest power of two giving at most 128 bins).")
@click.version_option(__version__, "--version", prog_name="memreport")
def report(files: tuple[str, ...], fmt: str, output: str, top: int, tile_memory: int | None,
           arch: str | None, bin_kib: int | None) -> None:
    """Show the memory of every tile of a compiled IPU program.

    FILE is any report Poplar writes, recognised by its content: an ELF
    archive (target.saveArchive) or a single tile ELF, a text summary
    (printProfileSummary) or a TensorFlow .rep trace, a JSON or CBOR graph
    profile, or a tensor map. Several files give one report each, in order.

    \b
    Examples:
      memreport archive.a                      By Tile histogram, top 5 tiles, OOM count
      memreport profile.json --top 10          ten most memory-subscribed tiles
      memreport archive.a --format csv -o tiles.csv
      memreport archive.a --format json | jq '.reports[0].tiles_out_of_memory'
      memreport diff old.a new.a               what a change did to every tile

    Exit status: 0 success, 1 an input could not be read, 2 bad usage,
    3 a gate failed.
    """
    from .render import table, text
    options = ReadOptions(tile_memory=tile_memory, arch=arch)
    reports = load(files, options)
    try:
        if fmt == "json":
            rendered = table.render_json(reports, top=top, bin_kib=bin_kib)
        elif fmt == "csv":
            rendered = table.render_csv(reports)
        else:
            rendered = text.render(reports, top=top, bin_kib=bin_kib)
    except UnsupportedOperation as exc:
        raise click.UsageError(str(exc)) from None
    try:
        write_output(output, rendered)
    except MemreportError as exc:
        fail(str(exc))


if __name__ == "__main__":  # pragma: no cover
    main()
