"""A log's reports in file order, each told its place, its run and program, and what the file's programs were.

Every report of a log carries in its position (issue #30): its first line
(and in a notebook that line's place), its index among the file's reports,
the run it comes from (.runs), the compilation it belongs to (..programs),
and one :class:`~memreport.model.FilePrograms` record of all the file's
programs, failed ones named, for the answer over the whole file. A
compilation whose only memory text is Poplar's stated outcome (``Graph
compilation finished: N tiles overflowed``) is a report of its own here;
a compilation with out-of-memory messages gets the stated count on their
report.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ....errors import ReadError
from ....model import (
    FailedProgram,
    FilePrograms,
    LogRun,
    MemoryReport,
    OutOfMemoryMessage,
    ReportPosition,
    SummaryReport,
    oom_words,
)
from ....model.programs import MAX_FAILED
from ..logtext import LogFile
from ..programs import Program, Segmenter, target_before
from .report import MESSAGES_FORMAT, stated_report
from .runs import Runs

MAX_REPORTS = 1_000  # per file


@dataclass
class Placed:
    """A report and where it came from: its first line, its run (.runs) and its compilation (..programs)."""

    line: int
    report: SummaryReport  # what a text reader makes: a summary, messages or a stated outcome
    run: object = None
    program: Program | None = None
    log_run: LogRun | None = None


def place_reports(placed: list[Placed], log: LogFile, path: str, segmenter: Segmenter, runs: Runs,
                  places: Callable[[int], str | None] | None = None) -> list[MemoryReport]:
    """The reports in file order with their positions (see the module)."""
    placed = placed + _stated(placed, log, segmenter, path)
    if len(placed) > MAX_REPORTS:
        raise ReadError(f"more than {MAX_REPORTS:,} memory reports in one file: split it")
    placed.sort(key=lambda p: p.line)
    for k, p in enumerate(placed, 1):
        if p.program is not None:
            if p.program.report is None:
                p.program.report = k
            printed = p.report.printed.tiles_out_of_memory if p.report.printed is not None else None
            p.program.printed_oom = max(p.program.printed_oom, printed or 0)
    if segmenter.count:
        record = segmenter.file_programs(places)
    elif runs.count > 1 or runs.failed:
        record = _runs(placed, runs, places)
    else:
        record = _reports(placed, places)
    n = len(placed)
    return [p.report.evolve(position=ReportPosition(
        p.line, k, n, p.log_run, program=p.program.index if p.program is not None and p.program.index else None,
        programs=record, place=places(p.line) if places is not None else None)) for k, p in enumerate(placed, 1)]


def positioned(placed: Sequence[tuple[int, SummaryReport]]) -> list[MemoryReport]:
    """Reports given with their first lines, in file order, each knowing its position (and keeping its run);
    each report is a program of the file (a ``.rep`` trace's compile reports)."""
    ordered = sorted(placed, key=lambda p: p[0])
    record = _reports([Placed(line, report) for line, report in ordered], None)
    return [report.evolve(position=ReportPosition(line, k, len(ordered),
                                                  report.position.run if report.position else None,
                                                  programs=record))
            for k, (line, report) in enumerate(ordered, 1)]


def _stated(placed: list[Placed], log: LogFile, segmenter: Segmenter, path: str) -> list[Placed]:
    """A report for each compilation whose outcome Poplar states and that has no report of its own; the stated
    count given to the message report of one that has."""
    reported: dict[int, Placed] = {}
    for p in placed:
        if p.program is not None:
            reported.setdefault(id(p.program), p)
    made = []
    for program in segmenter.programs:
        if program.stated_line is None:
            continue
        own = reported.get(id(program))
        if own is None:
            program.target = program.target or target_before(log, program)
            report = stated_report(program.stated, program.stated_text, program.stated_line, program.target, path)
            made.append(Placed(program.stated_line, report, None, program))
        elif own.report.format == MESSAGES_FORMAT and isinstance(own.report, SummaryReport) and \
                own.report.printed.tiles_out_of_memory is None and program.stated is not None:
            note = (f"Poplar states {program.stated:,} tile(s) overflowed ('Graph compilation finished:' at line "
                    f"{program.stated_line:,})")
            own.report = own.report.evolve(
                printed=dataclasses.replace(own.report.printed, tiles_out_of_memory=program.stated),
                notes=own.report.notes + (note,))
    return made


def _failure(reports: list[tuple[int, SummaryReport]]) -> tuple[OutOfMemoryMessage | None, int, int | None]:
    """Of a program's reports: its telling out-of-memory message, the tiles out of memory a summary printed,
    and the report that holds either (None: neither)."""
    messages = [(k, m) for k, r in reports for m in r.oom_messages if m.tile_memory]
    named = [(k, m) for k, m in messages if m.names_tile] or messages
    printed = [(k, r.printed.tiles_out_of_memory) for k, r in reports
               if r.printed is not None and r.printed.tiles_out_of_memory]
    if named:
        return named[0][1], max((n for _, n in printed), default=0), named[0][0]
    if printed:
        return None, printed[0][1] or 0, printed[0][0]
    return None, 0, None


def _failed(index: int, reports: list[tuple[int, SummaryReport]], error: str | None, error_line: int | None,
            process: str | None, places: Callable[[int], str | None] | None) -> FailedProgram | None:
    message, printed, report = _failure(reports)
    if message is None and not printed and error is None:
        return None
    outcome = "out of memory" if message is not None or printed else "failed"
    if message is not None:
        text, line = oom_words(message), message.line
    elif printed:
        text, line = f"{printed:,} tile(s) out of memory, as its summary printed", None
    else:
        text, line, report = str(error), error_line, report or (reports[0][0] if reports else None)
    return FailedProgram(index, outcome, text, report, line, places(line) if places and line else None,
                         process or None, message.tile if message else None,
                         message.bytes_used if message else None, message.bytes_per_tile if message else None,
                         next((m.saved_path for _, r in reports for m in r.oom_messages if m.saved_path), None))


def _runs(placed: list[Placed], runs: Runs, places: Callable[[int], str | None] | None) -> FilePrograms:
    """The file's programs are its runs (a log of programs told apart by launch and error lines)."""
    by_run: dict[int, list[tuple[int, SummaryReport]]] = {}
    for k, p in enumerate(placed, 1):
        if p.run is not None:
            by_run.setdefault(id(p.run), []).append((k, p.report))
    failed = []
    for run in runs.kept:
        record = _failed(run.index, by_run.get(id(run), []), run.failure, run.failure_line, run.process, places)
        if record is not None:
            failed.append(record)
    return _record(runs.count, "run", failed)


def _reports(placed: list[Placed], places: Callable[[int], str | None] | None) -> FilePrograms:
    """The file's programs are its reports (no compile lines, one run)."""
    failed = [f for f in (_failed(k, [(k, p.report)], None, None, None, places) for k, p in enumerate(placed, 1))
              if f is not None]
    return _record(len(placed), "program", failed)


def _record(count: int, unit: str, failed: list[FailedProgram]) -> FilePrograms:
    oom = sum(f.outcome == "out of memory" for f in failed)
    outcomes = {"out of memory": oom, "failed": len(failed) - oom, "ended": count - len(failed)}
    return FilePrograms(count, unit, tuple(failed[:MAX_FAILED]), len(failed),
                        tuple(sorted((k, v) for k, v in outcomes.items() if v)))
