"""``memreport FILE...``: the report of every file."""
from __future__ import annotations

import click

from .. import __version__, run
from ..output import terminal_options
from . import shared
from .group import ReportCommand, main


@main.command("report", short_help="Show the memory of every tile of a compiled IPU program.",
              cls=ReportCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@shared.output_options("report", "report")
@click.option("--top", default=5, show_default=True, type=click.IntRange(min=0), metavar="N",
              help="How many of the most memory-subscribed tiles to detail.")
@shared.drill_options
@shared.read_options
@click.option("--bin-kib", type=click.IntRange(min=1, max=2 ** 53 - 1), metavar="N",
              help="Histogram bin width in KiB (default: the smallest power of two giving at most 128 bins); at "
                   "most 16,384 bins (exit 2 beyond).")
@click.option("--png", metavar="PATH", type=shared.PATH,
              help="Also draw each report as a PNG: memory per tile, the By Tile histogram, a per-IPU heat "
                   "map. Several reports number the files before the extension, in input order (--png m.png writes "
                   "m-1.png, m-2.png, ...); a PATH without an extension gets .png.")
@shared.html_option
@click.option("--tensor-map", "tensor_map_path", metavar="PATH", type=shared.PATH,
              help="A tensor map (tensor_map.json): list the tensors on the top tiles, with elements and "
                   "estimated bytes of tensor data (CSV: three per-tile tensor columns).")
@shared.gate_options
@shared.config_option
@click.option("-q", "--brief", is_flag=True,
              help="Text: the verdict and the top tiles only (no By Tile block, symbols or notes); of several "
                   "programs or files, the answer over them all and a line per failing program.")
@shared.module_option
@shared.color_option
@click.version_option(__version__, "--version", prog_name="memreport")
def report(files: tuple[str, ...], fmt: str, output: str, top: int, options: shared.ReadOptions,
           gates: shared.GatesPerInput, bin_kib: int | None, tensor_map_path: str | None = None, png: str | None = None,
           tiles_asked: tuple[int, ...] = (), symbols: int | None = None, module: str | None = None,
           color: str = "auto", html_path: str | None = None, brief: bool = False) -> None:
    """Show the memory of every tile of a compiled IPU program.

    FILE is any report Poplar writes, recognised by its content: an ELF
    archive (target.saveArchive) or a single tile ELF, a text summary
    (printProfileSummary) or a TensorFlow .rep trace, a JSON or CBOR graph
    profile, or a tensor map; or a run log or document of any size, whose
    summaries (anywhere in it) and out-of-memory errors are read. Several
    files give one report each, in order, and a closing table of them all;
    a file may hold several. A file that cannot be read is named on stderr
    and the others are reported.

    \b
    Examples:
      memreport archive.a                  # histogram, top 5 tiles, OOM count
      memreport run.log                    # every summary and OOM error in it
      memreport trace.rep --module m       # one module ('#2': a log's 2nd)
      memreport profile.json --top 10      # ten most subscribed tiles
      memreport profile.json --tensor-map tensor_map.json
      memreport archive.a --tile 17 --symbols 20
      memreport archive.a --format csv -o tiles.csv
      memreport archive.a --png memory.png # also a picture
      memreport archive.a --html page.html # also a page to share
      memreport archive.a --format json | jq '.reports[0].tiles_out_of_memory'
      memreport diff old.a new.a           # what a change did to every tile
      memreport export profile.pop -o memory.json   # readable anywhere
      memreport archive.a --fail-on-oom --max-tile 90%   # CI gate: exit 3
      memreport compiles run.log           # compilations and cache hits

    Exit status: 0 success, 1 an input could not be read (the others are
    reported; it outranks a failed gate), 2 bad usage, 3 a gate failed,
    4 an output could not be written (none was), 128+N ended by signal N.
    """
    files = tuple(shared.prepare(files, output, gates, html_path, png,
                                 also=[tensor_map_path] if tensor_map_path else []))
    reads, failures = shared.read(files, options, module)
    width, colored = terminal_options(output, color) if fmt == "text" else (None, False)
    with shared.exit_codes():
        done = run.report(reads, fmt=fmt, output=output, top=top, tiles_asked=tiles_asked, symbols=symbols,
                          bin_kib=bin_kib, png=png, html=html_path, tensor_map=tensor_map_path, gates=gates,
                          width=width, color=colored, brief=brief, thin_root=options.thin_root, failures=failures,
                          labels=shared.STDIN.labels, check=shared.checked)
    shared.finish(done)
