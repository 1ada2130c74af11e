"""``memreport diff OLD NEW``: two builds compared tile by tile."""
from __future__ import annotations

import click

from .. import render, session
from ..errors import UnsupportedOperation
from ..session import Read
from ..units import Percent
from .group import main
from .shared import (
    BUDGET,
    PERCENT_ROUNDING,
    SIZE,
    exit_on_gates,
    fail,
    html_option,
    load,
    module_option,
    output_options,
    output_width,
    pages,
    read_options,
    refuse_overwriting,
    stdin_paths,
    with_symbols,
    write_all,
)


@main.command("diff", short_help="Compare two builds tile by tile (excluding-gaps bytes).",
              context_settings={"help_option_names": ["-h", "--help"]})
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
@click.option("--fail-on-growth", type=BUDGET, metavar="SIZE|P%",
              help="Gate: exit 3 if any tile grows by more than SIZE, or when growth x 100 > P x bytes per tile "
                   "(NEW's). " + PERCENT_ROUNDING)
@click.option("--fail-on-oom", is_flag=True, help="Gate: exit 3 if any tile of NEW is out of memory.")
@html_option
@module_option
def diff_command(old_path: str, new_path: str, fmt: str, output: str, top: int, tile_memory: int | None,
                 arch: str | None, fail_on_growth: int | Percent | None, fail_on_oom: bool,
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
      memreport diff main.a pr.a           # totals, OOM changes, top 20 changes
      memreport diff main.a pr.a --format csv -o changes.csv
      memreport diff main.a pr.a --fail-on-growth 4KiB   # CI gate: exit 3
      memreport diff baseline.json build/archive.a --min-change 1KiB

    Exit status: 0 success, 1 an input could not be read or the tile counts
    differ, 2 bad usage, 3 a gate failed, 4 the output could not be written,
    128+N ended by signal N.
    """
    from ..analysis import diff as diffing
    from ..analysis import gates, summarize
    options = session.read_options(tile_memory=tile_memory, arch=arch, skip_bad_members=skip_bad_members,
                                   thin_root=thin_root)
    old_path, new_path = stdin_paths([old_path, new_path])
    refuse_overwriting([old_path, new_path], [("-o", output), *pages(html_path)])
    old, old_note = diffing.choose_report(load([old_path], options, module))
    new, new_note = diffing.choose_report(load([new_path], options, module))
    # Every file read is an input, a thin archive's members too.
    refuse_overwriting([old_path, new_path, *old.files_read, *new.files_read], [("-o", output), *pages(html_path)])
    try:
        summaries = (summarize(old), summarize(new))
        changes = diffing.diff_reports(old, new, notes=[n for n in (old_note, new_note) if n], summaries=summaries,
                                       min_change=min_change)
    except UnsupportedOperation as exc:  # a tensor map: nothing to compare, whatever the file holds
        raise click.UsageError(str(exc)) from None
    except diffing.TileCountMismatch as exc:
        fail(f"diff: {exc}")
    below = [c.tile for c in changes.changes(top)]
    old, new = (with_symbols([Read(path, report)], 0, below, thin_root)[0]
                for path, report in ((old_path, old), (new_path, new)))
    changes = diffing.with_items(changes, old, new, top, sort=sort)
    try:
        results = [gates.check_growth(changes, fail_on_growth)] if fail_on_growth is not None else []
        if fail_on_oom:
            results.append(gates.check_out_of_memory(summaries[1]))
    except UnsupportedOperation as exc:
        raise click.UsageError(str(exc)) from None
    page = [(html_path, render.render("diff", "html", changes))] if html_path else []
    rendered = render.render("diff", fmt, changes, render.RenderOptions(top=top, width=output_width(output, fmt)))
    write_all([(output, rendered), *page])
    exit_on_gates(results)

