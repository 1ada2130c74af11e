"""One function per command run, for the command line and ``import memreport`` alike.

Each command (:func:`report`, :func:`diff`, :func:`compiles`, :func:`trend`,
:func:`export`) reads through the session, computes through analysis,
renders through the registry and judges its gates (each input by its own:
a budget file's, with the command line's over them), and returns a
:class:`Run`: the outputs to
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
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from . import render, session
from .config import Budget, Config, Gates
from .errors import TileCountMismatch, UnsupportedOperation
from .readers import ReadOptions
from .session import Read, ReadFailure

if TYPE_CHECKING:  # numpy-backed analysis loads with the runs: --help stays quick
    from .analysis import CompileSummary, Diff, GateResult, Summary
    from .analysis.results import Trend

EXIT_OK, EXIT_READ, EXIT_USAGE, EXIT_GATE, EXIT_WRITE = 0, 1, 2, 3, 4

# The gates of each input, by its path as read (a budget file's gates for it, the command line's over them); a
# command takes these or one Gates for every input.
GatesFor = Callable[[str], Gates]
NO_GATES = Gates()


@dataclass(frozen=True)
class GatesPerInput:
    """Each input's gates: the budget file's (``config``) for its path as the user named it (``labels``: standard
    input's spool file as ``<stdin>``), with the command line's ``given`` values over them (None: not given)."""

    config: Config
    given: Mapping[str, Budget | bool | None] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)

    def __call__(self, path: str) -> Gates:
        return self.config.gates_for(self.labels.get(path, path)).merged(**self.given)


def _own(gates: Gates | GatesFor, path: str) -> Gates:
    return gates(path) if callable(gates) else gates


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


def gate_messages(results: Sequence[GateResult], failed: bool | None = True) -> list[str]:
    """The message of every gate that failed, for stderr (``failed=None``: of every gate that could not judge an
    input, and why, said beside those that failed)."""
    from .render.words import gate_message
    return [gate_message(r) for r in results if r.failed is failed]


def _judge(results: Sequence[GateResult]) -> list[GateResult]:
    """The results; when no gate failed, bad usage (UnsupportedOperation) naming the first that cannot judge (a
    gate that failed on one input fails the run whatever another input cannot say: exit 3, never 2)."""
    if not any(r.failed for r in results):
        for message in gate_messages(results, None)[:1]:
            raise UnsupportedOperation(message)
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
           png: str | None = None, html: str | None = None, tensor_map: str | None = None,
           gates: Gates | GatesFor = NO_GATES, width: int | None = None, color: bool = False, brief: bool = False,
           thin_root: str | None = None,
           failures: Sequence[ReadFailure] = (), labels: Mapping[str, str] | None = None,
           check: Checked | None = None) -> Run:
    """``memreport FILE...``: every report of ``reads`` in ``fmt``, and the picture and page asked for; each
    report judged by ``gates`` (or by the gates of its input's path, when ``gates`` is a function of it)."""
    from .analysis import gates as judging
    from .analysis import summarize, together
    shown = fmt != "csv"  # the CSV has no place for symbols: read none
    reports = session.with_symbols(reads, top if shown else 0, tiles_asked if shown else (), thin_root, labels,
                                   fit=shown, headroom=lambda path: _own(gates, path).min_headroom.value)
    mapped = session.read_tensor_map(tensor_map, reports) if tensor_map else None
    if png == "-" and (output == "-" or len(reports) > 1):
        raise UnsupportedOperation("--png - needs one report and --output elsewhere: stdout takes one output")
    picture = render.get("report", "png")
    png_paths = numbered_paths(png, len(reports), picture.extension) if png is not None else []
    if check is not None:  # every file read is an input (a thin archive's members too); numbered PNGs outputs
        check([*(r.path for r in reads), *([tensor_map] if tensor_map else []),
               *(p for r in reports for p in r.files_read)],
              [("-o", output), *(("--png", p) for p in png_paths), *([("--html", html)] if html else [])])
    owns = [_own(gates, read.path) for read in reads]  # each report by its own input's gates
    summaries = together([summarize(r, top=top, bin_kib=bin_kib, tensor_map=mapped, tiles_asked=tiles_asked,
                                    headroom=own.min_headroom.value)
                          for r, own in zip(reports, owns)])  # the plans' budget too; the answer over them all
    results: list[GateResult] = []
    for i, own in enumerate(owns):
        results += judging.judge(summaries[i], own)
        summaries[i] = replace(summaries[i], gates=judging.in_force(own, judging.REPORT_GATES))
    options = render.RenderOptions(symbols=symbols, width=width, color=color, brief=brief,
                                   errors=tuple((f.file, f.message) for f in failures))
    run = Run(data=summaries, failures=list(failures), gates=_judge(results))
    run.outputs.append((output, render.render("report", fmt, summaries, options)))
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
         min_change: int = 0, sort: str = "delta", html: str | None = None, gates: Gates | GatesFor = NO_GATES,
         width: int | None = None, thin_root: str | None = None, labels: Mapping[str, str] | None = None,
         check: Checked | None = None) -> Run:
    """``memreport diff OLD NEW``: what a change did to every tile, in ``fmt``, and the page asked for; ``gates``
    are NEW's."""
    from .analysis import gates as judging
    if check is not None:  # every file read is an input, a thin archive's members too
        check([*(r.path for r in (*old, *new)), *(p for r in (*old, *new) for p in r.report.files_read)],
              [("-o", output), *([("--html", html)] if html else [])])
    try:
        changes, new_summary = diff_of(old, new, top=top, min_change=min_change, sort=sort, thin_root=thin_root,
                                       labels=labels)
    except TileCountMismatch as exc:  # on stderr, what could not be done: the diff (exit 1)
        raise TileCountMismatch(f"diff: {exc}") from None
    own = _own(gates, new[0].path)
    results = judging.judge_diff(changes, new_summary, own)
    changes = replace(changes, gates=judging.in_force(own, judging.DIFF_GATES))
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
             gates: Gates | GatesFor = NO_GATES, width: int | None = None) -> Run:
    """``memreport compiles LOG...``: the compilations in ``fmt``, and the page asked for; ``gates`` are the last
    log's (the logs are judged as one run)."""
    from .analysis.compiles import check_recompile
    from .analysis.gates import COMPILES_GATES, in_force
    own = _own(gates, summary.history.logs[-1].source if summary.history.logs else "")
    setting = own.fail_on_recompile
    results = [replace(r, origin=setting.origin) for r in check_recompile(summary)] if setting.value else []
    summary = replace(summary, gates=in_force(own, COMPILES_GATES))
    run = Run(data=summary, gates=results)
    run.outputs.append((output, render.render("compiles", fmt, summary, render.RenderOptions(width=width))))
    if html:
        run.outputs.append((html, render.render("compiles", "html", summary)))
    return run


def build_labels(paths: Sequence[str], labels: Sequence[str] = (), names: Mapping[str, str] | None = None) -> list[str]:
    """Each build's name: its ``--label`` (one per file, in order), else its file's name, or its path as given
    when two builds' files share a name (``build1/archive.a``, ``build2/archive.a``)."""
    if labels:
        if len(labels) != len(paths):
            raise UnsupportedOperation(f"--label given {len(labels)} time(s) for {len(paths)} build(s): give one per "
                                       "FILE, in order, or none")
        return list(labels)
    shown = [(names or {}).get(p, p) for p in paths]
    base = [os.path.basename(p) or p for p in shown]
    return base if len(set(base)) == len(base) else shown


def trend_of(paths: Sequence[str | os.PathLike], options: ReadOptions, *, labels: Sequence[str] = (),
             module: str | None = None, names: Mapping[str, str] | None = None, around: session.Around | None = None,
             check: Callable[[Sequence[str]], None] | None = None) -> tuple[Trend, Summary]:
    """Builds in the order given, each read once and reduced at once to what the trend needs (of a file of
    several reports its largest, as ``diff`` takes); the trend, and the last build's summary (its gates are
    judged on it). ``check`` is handed the files each build read (a thin archive's members too), to refuse an
    output among them; ``names`` names files as the user knows them (standard input)."""
    from .analysis import summarize
    from .analysis.diff import choose_report
    from .analysis.trend import trend, trend_build
    files = [os.fspath(p) for p in paths]
    names = names or {}
    last: Summary | None = None
    builds = []
    for path, label in zip(files, build_labels(files, labels, names)):
        reads = session.read_files([path], options, module, labels=names, around=around)
        if check is not None:
            check([path, *(f for r in reads for f in r.report.files_read)])
        last = summarize(choose_report([r.report for r in reads]), top=0)
        builds.append(trend_build(last, label, names.get(path, path), of_reports=len(reads)))
    if last is None:
        raise UnsupportedOperation("trend: no build given")
    return trend(builds), last


def trend(paths: Sequence[str], options: ReadOptions, *, fmt: str = "text", output: str = "-",
          html: str | None = None, labels: Sequence[str] = (), module: str | None = None,
          gates: Gates | GatesFor = NO_GATES,
          width: int | None = None, names: Mapping[str, str] | None = None, around: session.Around | None = None,
          check: Checked | None = None) -> Run:
    """``memreport trend FILE...``: the builds in order, when each tile out of memory in the last went over, in
    ``fmt``, and the page asked for; ``gates`` are the last build's, judged on it."""
    from .analysis import gates as judging
    outputs = [("-o", output), *([("--html", html)] if html else [])]
    data, last = trend_of(paths, options, labels=labels, module=module, names=names, around=around,
                          check=None if check is None else (lambda files: check(files, outputs)))
    own = _own(gates, paths[-1])
    results = judging.judge(last, own)
    data = replace(data, gates=judging.in_force(own, judging.REPORT_GATES))
    run = Run(data=data, gates=_judge(results))
    run.outputs.append((output, render.render("trend", fmt, data, render.RenderOptions(width=width))))
    if html:
        run.outputs.append((html, render.render("trend", "html", data)))
    return run


def command_meant(word: str, commands: Sequence[str]) -> str | None:
    """The command a first argument that is neither a file nor a command most likely meant (``dif``: ``diff``)."""
    if os.path.lexists(word):
        return None
    import difflib
    close = difflib.get_close_matches(word, [c for c in commands if c != "report"], 1)
    return close[0] if close else None
