"""``memreport diff OLD NEW``: two builds compared tile by tile."""
from __future__ import annotations

import click

from .. import run
from ..output import output_width
from . import shared
from .group import main


@main.command("diff", short_help="Compare two builds tile by tile (excluding-gaps bytes).")
@click.argument("old_path", metavar="OLD")
@click.argument("new_path", metavar="NEW")
@shared.output_options("diff", "diff")
@click.option("--top", default=20, show_default=True, type=click.IntRange(min=0), metavar="N",
              help="How many of the largest changes the text lists (JSON and CSV list all) and shows below the tile "
                   "(what changed inside them: sections, categories, regions, liveness, symbols).")
@click.option("--min-change", type=shared.SIZE, default=0, metavar="SIZE",
              help="Hide changes smaller than SIZE: tiles from the lists, items from below the tile (the counts "
                   "still cover every change).")
@click.option("--sort", "sort", type=click.Choice(["delta", "growth", "new"]), default="delta", show_default=True,
              help="Order of the items below the tile: delta (largest change either way), growth (largest growth "
                   "first), new (new items, then removed, then the rest).")
@shared.read_options
@click.option("--fail-on-growth", type=shared.BUDGET, metavar="SIZE|P%",
              help="Gate: exit 3 if any tile grows by more than SIZE, or when growth x 100 > P x bytes per tile "
                   "(NEW's). " + shared.PERCENT_ROUNDING)
@click.option("--fail-on-oom", is_flag=True, default=None, help="Gate: exit 3 if any tile of NEW is out of memory.")
@shared.config_option
@shared.html_option
@shared.module_option
def diff_command(old_path: str, new_path: str, fmt: str, output: str, top: int, options: shared.ReadOptions,
                 gates: shared.GatesPerInput, min_change: int = 0, sort: str = "delta", module: str | None = None,
                 html_path: str | None = None) -> None:
    """Compare two builds tile by tile (excluding-gaps bytes).

    OLD and NEW are any two readable reports of programs with the same tile
    count, in any formats but a tensor map (it holds no bytes). A text
    summary is compared only where it knows a tile's bytes (its detailed
    tiles and Maximum lines), plus its printed totals and maxima. Of a file
    holding several reports the largest is compared (with a note), or the
    one --module names.

    \b
    Examples:
      memreport diff main.a pr.a           # totals, OOM changes, top 20 changes
      memreport diff main.a pr.a --format csv -o changes.csv
      memreport diff main.a pr.a --fail-on-growth 4KiB   # CI gate: exit 3
      memreport diff baseline.json build/archive.a --min-change 1KiB

    Exit status: 0 success, 1 an input could not be read or the tile counts
    differ, 2 bad usage, 3 a gate failed, 4 the output could not be written,
    128+N ended by signal N.
    """
    old_path, new_path = shared.prepare([old_path, new_path], output, gates, html_path)
    old, _ = shared.read([old_path], options, module)
    new, _ = shared.read([new_path], options, module)
    with shared.exit_codes():
        done = run.diff(old, new, fmt=fmt, output=output, top=top, min_change=min_change, sort=sort, html=html_path,
                        gates=gates, width=output_width(output, fmt), thin_root=options.thin_root,
                        labels=shared.STDIN.labels, check=shared.checked)
    shared.finish(done)
