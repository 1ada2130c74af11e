"""``memreport export FILE...``: reports saved as memreport/1 JSON."""
from __future__ import annotations

import click

from .. import run
from . import shared
from .group import main


@main.command("export", short_help="Save reports as memreport/1 JSON that memreport reads back.")
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@shared.output_options("report", "memreport/1 JSON", formats=False)
@click.option("--top", default=5, show_default=True, type=click.IntRange(min=0), metavar="N",
              help="How many of the most memory-subscribed tiles to detail (with their symbols).")
@shared.drill_options
@shared.read_options
@shared.module_option
def export_command(files: tuple[str, ...], output: str, top: int, options: shared.ReadOptions,
                   tiles_asked: tuple[int, ...] = (), symbols: int | None = None, module: str | None = None) -> None:
    """Save reports as memreport/1 JSON that memreport reads back as the same reports.

    FILE is anything memreport reads. The JSON holds every tile's values,
    the target as the source stated it and the overrides applied, and the
    symbols of the top tiles, so every command works on it later, on a
    machine without the input (a profile.pop needs Graphcore's libpva to
    read; its export does not).

    \b
    Examples:
      memreport export profile.pop -o memory.json   # where the SDK is installed
      memreport export build/archive.a -o baseline.json
      memreport diff baseline.json build/archive.a  # later, against a new build

    Exit status: 0 success, 1 an input could not be read (the others are
    saved, and named in its errors), 2 bad usage,
    4 the output could not be written, 128+N ended by signal N.
    """
    files = tuple(shared.prepare(files, output))
    reads, failures = shared.read(files, options, module)
    with shared.exit_codes():
        done = run.export(reads, output=output, top=top, tiles_asked=tiles_asked, symbols=symbols, failures=failures,
                          thin_root=options.thin_root, labels=shared.STDIN.labels, check=shared.checked)
    shared.finish(done)
