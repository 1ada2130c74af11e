"""One function per command run, for the command line and ``import memreport`` alike.

Each command (:func:`report`, :func:`diff`, :func:`compiles`, :func:`export`)
reads through the session, computes through analysis, renders through the
registry and judges its gates, and returns a :class:`Run`: the outputs to
write (path, content), the gates' results, the inputs that could not be
read and the warnings raised. Nothing is written and nothing exits here:
the click commands (``memreport/cli/``) declare options, write the outputs
(every one or none) and turn a :class:`Run` into an exit code; the Python
API (:func:`memreport.diff`, :func:`memreport.read_compiles`) takes the data
a run is built from (:func:`diff_of`). A request the inputs cannot answer
raises :class:`~memreport.errors.UnsupportedOperation` (bad usage); an
unreadable input a :class:`~memreport.errors.MemreportError`.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import render, session
from .errors import UnsupportedOperation
from .session import Read, ReadFailure
from .units import Percent

if TYPE_CHECKING:  # numpy-backed analysis loads with the runs: --help stays quick
    from .analysis import CompileSummary, Diff, GateResult, Summary

EXIT_OK, EXIT_READ, EXIT_USAGE, EXIT_GATE = 0, 1, 2, 3


@dataclass(frozen=True)
class Gates:
    """The gates asked for (None or False: not asked)."""

    fail_on_oom: bool = False
    max_tile: int | Percent | None = None
    min_headroom: int | Percent | None = None
    fail_on_growth: int | Percent | None = None
    fail_on_recompile: bool = False


@dataclass
class Run:
    """What a command produced: ``outputs`` to write in order (``-`` is stdout), the ``gates`` judged, the
    ``failures`` (inputs that could not be read: each already a one-line message), ``notices`` for stderr
    (a list of files written), and the ``data`` the outputs were rendered from (summaries, a diff...)."""

    outputs: list[tuple[str, str | bytes]] = field(default_factory=list)
    gates: list[GateResult] = field(default_factory=list)
    failures: list[ReadFailure] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    data: object = None

    @property
    def failed_gates(self) -> list[GateResult]:
        return [g for g in self.gates if g.failed]

    @property
    def exit_code(self) -> int:
        """1 when an input could not be read (it outranks a gate), 3 when a gate failed, else 0."""
        if self.failures:
            return EXIT_READ
        return EXIT_GATE if self.failed_gates else EXIT_OK


def gate_messages(results: Sequence[GateResult]) -> list[str]:
    """The message of every failed gate, for stderr."""
    from .render.words import gate_message
    return [gate_message(r) for r in results if r.failed]


def _judge(results: Sequence[GateResult]) -> list[GateResult]:
    """The results, or bad usage (UnsupportedOperation) naming the first gate that cannot judge."""
    from .render.words import gate_message
    for r in results:
        if r.failed is None:
            raise UnsupportedOperation(gate_message(r))
    return list(results)


def numbered_paths(path: str, count: int, extension: str) -> list[str]:
    """``path`` for one output, ``STEM-N.SUFFIX`` (N from 1) for several; a path without an extension gets
    ``extension`` either way, but ``-`` (stdout) and an existing file that is not a regular one
    (``/dev/stdout``, a pipe) stay as given.

    One figure per report keeps every figure legible; a shared figure of
    several programs would shrink each to a thumbnail.
    """
    stem, suffix = os.path.splitext(path)
    if count == 1:
        special = path == "-" or (os.path.exists(path) and not os.path.isfile(path))
        return [path if suffix or special else path + extension]
    return [f"{stem}-{i}{suffix or extension}" for i in range(1, count + 1)]


Checked = Callable[[Sequence[str], Sequence[tuple[str, str]]], None]  # refuses an output over an input


def report(reads: Sequence[Read], *, fmt: str = "text", output: str = "-", top: int = 5,
           tiles_asked: Sequence[int] = (), symbols: int | None = None, bin_kib: int | None = None,
           png: str | None = None, html: str | None = None, tensor_map: str | None = None, gates: Gates = Gates(),
           width: int | None = None, color: bool = False, brief: bool = False, thin_root: str | None = None,
           failures: Sequence[ReadFailure] = (), labels: Mapping[str, str] | None = None,
           check: Checked | None = None) -> Run:
    """``memreport FILE...``: every report of ``reads`` in ``fmt``, and the picture and page asked for."""
    from .analysis import gates as judging
    from .analysis import summarize_all
    shown = fmt != "csv"  # the CSV has no place for symbols: read none
    reports = session.with_symbols(reads, top if shown else 0, tiles_asked if shown else (), thin_root, labels,
                                   fit=shown, headroom=gates.min_headroom)
    mapped = session.read_tensor_map(tensor_map, reports) if tensor_map else None
    if png == "-" and (output == "-" or len(reports) > 1):
        raise UnsupportedOperation("--png - needs one report and --output elsewhere: stdout takes one output")
    picture = render.get("report", "png")
    png_paths = numbered_paths(png, len(reports), picture.extension) if png is not None else []
    if check is not None:  # every file read is an input (a thin archive's members too); numbered PNGs outputs
        check([*(r.path for r in reads), *([tensor_map] if tensor_map else []),
               *(p for r in reports for p in r.files_read)],
              [("-o", output), *(("--png", p) for p in png_paths), *([("--html", html)] if html else [])])
    summaries = summarize_all(reports, top=top, bin_kib=bin_kib, tensor_map=mapped, tiles_asked=tiles_asked,
                              headroom=gates.min_headroom)
    options = render.RenderOptions(symbols=symbols, width=width, color=color, brief=brief,
                                   errors=tuple((f.file, f.message) for f in failures))
    run = Run(data=summaries, failures=list(failures))
    run.outputs.append((output, render.render("report", fmt, summaries, options)))
    run.gates = _judge(judging.evaluate(summaries, fail_on_oom=gates.fail_on_oom, max_tile=gates.max_tile,
                                        min_headroom=gates.min_headroom))
    if png_paths:  # drawn before anything is written
        run.outputs += zip(png_paths, render.render_each(picture, summaries, render.RenderOptions()))
        if len(png_paths) > 1:
            run.notices.append(f"wrote {', '.join(png_paths)} (one PNG per report)")
    if html:
        run.outputs.append((html, render.render("report", "html", summaries)))
    return run


def export(reads: Sequence[Read], *, output: str = "-", top: int = 5, tiles_asked: Sequence[int] = (),
           symbols: int | None = None, thin_root: str | None = None, failures: Sequence[ReadFailure] = (),
           labels: Mapping[str, str] | None = None, check: Checked | None = None) -> Run:
    """``memreport export FILE...``: the reports as memreport/1 JSON that memreport reads back."""
    from .analysis import summarize_all
    reports = session.with_symbols(reads, top, tiles_asked, thin_root, labels, fit=True)
    if check is not None:
        check([*(r.path for r in reads), *(p for r in reports for p in r.files_read)], [("-o", output)])
    summaries = summarize_all(reports, top=top, tiles_asked=tiles_asked)
    rendered = render.render("report", "json", summaries, render.RenderOptions(
        symbols=symbols, errors=tuple((f.file, f.message) for f in failures)))
    return Run(outputs=[(output, rendered)], failures=list(failures), data=summaries)


def diff_of(old: Sequence[Read], new: Sequence[Read], *, top: int = 20, min_change: int = 0, sort: str = "delta",
            thin_root: str | None = None, labels: Mapping[str, str] | None = None) -> tuple[Diff, Summary]:
    """Two builds compared tile by tile, and below the tile for the ``top`` largest changes: of each side's
    reads the largest report (with a note when a file holds several); the new side's summary too."""
    from .analysis import diff as diffing
    from .analysis import summarize
    sides = []
    for reads in (old, new):
        chosen = diffing.choose_report([r.report for r in reads])
        sides.append((next(r for r in reads if r.report is chosen), len(reads)))
    (old_read, old_count), (new_read, new_count) = sides
    old_read, new_read = (Read(r.path, session.with_symbols([r], 0, (), thin_root, labels, fit=True)[0])
                          for r in (old_read, new_read))  # the tiles over's symbols: their fit plans
    summaries = (summarize(old_read.report), summarize(new_read.report))
    changes = diffing.diff_reports(old_read.report, new_read.report, summaries=summaries, min_change=min_change,
                                   of_reports=(old_count, new_count))
    below = [c.tile for c in changes.changes(top)]
    old_report, new_report = (session.with_symbols([read], 0, below, thin_root, labels)[0]
                              for read in (old_read, new_read))
    return diffing.with_items(changes, old_report, new_report, top, sort=sort), summaries[1]


def diff(old: Sequence[Read], new: Sequence[Read], *, fmt: str = "text", output: str = "-", top: int = 20,
         min_change: int = 0, sort: str = "delta", html: str | None = None, gates: Gates = Gates(),
         width: int | None = None, thin_root: str | None = None, labels: Mapping[str, str] | None = None,
         check: Checked | None = None) -> Run:
    """``memreport diff OLD NEW``: what a change did to every tile, in ``fmt``, and the page asked for."""
    from .analysis import gates as judging
    if check is not None:  # every file read is an input, a thin archive's members too
        check([*(r.path for r in (*old, *new)), *(p for r in (*old, *new) for p in r.report.files_read)],
              [("-o", output), *([("--html", html)] if html else [])])
    changes, new_summary = diff_of(old, new, top=top, min_change=min_change, sort=sort, thin_root=thin_root,
                                   labels=labels)
    results = [judging.check_growth(changes, gates.fail_on_growth)] if gates.fail_on_growth is not None else []
    if gates.fail_on_oom:
        results.append(judging.check_out_of_memory(new_summary))
    run = Run(data=changes, gates=_judge(results))
    run.outputs.append((output, render.render("diff", fmt, changes, render.RenderOptions(top=top, width=width))))
    if html:
        run.outputs.append((html, render.render("diff", "html", changes)))
    return run


def compiles_of(logs: Sequence[str | os.PathLike], *, names: Sequence[str] | None = None,
                progress: Callable[[str], Callable[[int, int], None] | None] | None = None) -> CompileSummary:
    """Every compilation, cache hit and executable load in ``logs`` (one sequence), with the findings."""
    from .analysis.compiles import summarize_compiles
    from .readers.text.compile_log import read_compile_logs
    return summarize_compiles(read_compile_logs(logs, progress=progress, names=names))


def compiles(summary: CompileSummary, *, fmt: str = "text", output: str = "-", html: str | None = None,
             gates: Gates = Gates(), width: int | None = None) -> Run:
    """``memreport compiles LOG...``: the compilations in ``fmt``, and the page asked for."""
    from .analysis.compiles import check_recompile
    run = Run(data=summary, gates=check_recompile(summary) if gates.fail_on_recompile else [])
    run.outputs.append((output, render.render("compiles", fmt, summary, render.RenderOptions(width=width))))
    if html:
        run.outputs.append((html, render.render("compiles", "html", summary)))
    return run
