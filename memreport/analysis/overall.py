"""The answer over every report read, in programs (issue #30).

People open a log of 223 runs to learn how many failed and which failed
worst. Each file's reports carry the file's programs
(:class:`~memreport.model.FilePrograms`: its compilations, or its runs, or
its reports), the programs that left no memory report counted too; a file
with no such record (an archive, a profile) is one report, one program.

- A log of compilations or runs: its record counts its programs and lists
  those that failed (out of memory or otherwise); a report the analysis
  finds out of memory whose program the record does not list (a summary
  whose histogram shows a tile over, with no count printed) fails its
  program too.
- A file whose reports are its programs (a trace's modules, a pasted
  summary, an archive): each report that has tiles out of memory failed,
  each that cannot say is unknown.

The worst failure is the one whose tile is the most bytes over its memory
(bytes used as a message states them, else excluding gaps); where no
failure says bytes, the first. Facts only: the words are
:mod:`memreport.render.words`'.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..model import FailedProgram, FilePrograms
from .results import MAX_FAILING, FailingProgram, Overall, Summary


def overall(summaries: Sequence[Summary]) -> Overall:
    """The answer over ``summaries`` (every report read, in order), in programs."""
    files: dict[str, list[Summary]] = {}
    for s in summaries:
        files.setdefault(s.report.source, []).append(s)
    units: set[str] = set()
    count = failed = oom = unknown = 0
    failing: list[FailingProgram] = []
    for source, group in files.items():
        record = next((s.report.position.programs for s in group
                       if s.report.position is not None and s.report.position.programs is not None), None)
        if record is not None and record.unit in ("compilation", "run"):
            unit = record.unit
            found, n_failed, n_oom, n_unknown = _programs(source, group, record)
            count += record.count  # those it missed failing are among its programs all the same
        else:  # its reports are its programs (a trace's modules), or it is one report (an archive)
            unit = "program" if record is not None and len(group) > 1 else "report"
            found, n_failed, n_oom, n_unknown = _reports(source, group, unit)
            count += len(group)
        units.add(unit)
        failed += n_failed
        oom += n_oom
        unknown += n_unknown
        failing += found[:max(0, MAX_FAILING - len(failing))]
    unit = units.pop() if len(units) == 1 else "program"  # files of different kinds: programs
    return Overall(unit, count, failed, oom, unknown, len(files), len(summaries), tuple(failing), _worst(failing))


def _programs(source: str, group: list[Summary], record: FilePrograms
              ) -> tuple[list[FailingProgram], int, int, int]:
    """A log's programs from its record, with the reports that show a failure the record does not hold."""
    by_index = {s.report.position.index: s for s in group if s.report.position is not None}
    listed = {f.index for f in record.failed}
    found = [_from_record(source, record, f, by_index.get(f.report) if f.report is not None else None)
             for f in record.failed]
    n_failed, n_oom = record.failed_count, record.by_outcome.get("out of memory", 0)
    unknown = 0
    for s in group:
        index = _program_of(s, record.unit)
        if s.oom.at_least and index is not None and index not in listed:
            listed.add(index)
            found.append(_from_summary(source, record.unit, index, record.count, s))
            n_failed, n_oom = n_failed + 1, n_oom + 1
        elif not s.oom.known and index not in listed:
            unknown += 1
    found.sort(key=lambda f: f.index or 0)
    return found, n_failed, n_oom, unknown


def _reports(source: str, group: list[Summary], unit: str) -> tuple[list[FailingProgram], int, int, int]:
    """A file whose reports are its ``unit``s: those with tiles out of memory failed, out of memory."""
    several = len(group) > 1
    found = []
    unknown = 0
    for k, s in enumerate(group, 1):
        if s.oom.at_least:
            index = s.report.position.index if s.report.position is not None else k
            found.append(_from_summary(source, unit, index if several else None, len(group) if several else None,
                                       s))
        elif not s.oom.known:
            unknown += 1
    return found, len(found), len(found), unknown


def _program_of(summary: Summary, unit: str) -> int | None:
    """The index of the program a report belongs to among its file's ``unit``s (None: unknown)."""
    p = summary.report.position
    if p is None:
        return None
    if unit == "run":
        return p.run.index if p.run is not None else None
    return p.program


def _from_record(source: str, record: FilePrograms, f: FailedProgram, summary: Summary | None) -> FailingProgram:
    """A failed program of a record, with its report's worst tile where its error states none."""
    tiles, exact = (None, False) if summary is None else _tiles(summary)
    base = FailingProgram(source, record.unit, f.index, record.count, f.outcome, f.failure,
                          summary.name if summary is not None else None, f.line, f.place, tiles=tiles,
                          tiles_exact=exact, look_into=summary.verdict.look_into if summary is not None else None)
    if f.tile is not None and f.bytes_used is not None:
        return _with(base, f.tile, f.bytes_used, f.bytes_per_tile, stated=True)
    if summary is not None:
        return _worst_of(base, summary)
    return base


def _from_summary(source: str, unit: str, index: int | None, of: int | None, summary: Summary) -> FailingProgram:
    """A report with tiles out of memory as a failed program: its worst tile, its first message's place."""
    messages = summary.verdict.messages
    first = messages[0] if messages else None
    tiles, exact = _tiles(summary)
    base = FailingProgram(source, unit, index, of, "out of memory", None, summary.name,
                          first.line if first is not None else None, first.place if first is not None else None,
                          tiles=tiles, tiles_exact=exact, look_into=summary.verdict.look_into)
    return _worst_of(base, summary)


def _tiles(summary: Summary) -> tuple[int | None, bool]:
    """How many tiles a report has out of memory: exact, or at least (None: it cannot say)."""
    oom = summary.oom
    if oom.count is not None:
        return oom.count, True
    return (oom.at_least, False) if oom.at_least else (None, False)


def _worst_of(base: FailingProgram, summary: Summary) -> FailingProgram:
    """``base`` with its report's worst tile over: excluding gaps, else the message stating the most bytes."""
    v = summary.verdict
    if v.worst is not None and v.bytes_per_tile is not None and v.worst.bytes > v.bytes_per_tile:
        return _with(base, v.worst.tile, v.worst.bytes, v.bytes_per_tile, stated=False)
    stated = [m for m in v.messages if m.tile is not None and m.bytes_used is not None]
    if stated:
        m = max(stated, key=lambda m: m.bytes_used - (m.bytes_per_tile or 0))  # type: ignore[operator]
        return _with(base, m.tile, m.bytes_used, m.bytes_per_tile or v.bytes_per_tile, stated=True)
    return base


def _with(base: FailingProgram, tile: int | None, nbytes: int | None, per_tile: int | None,
          stated: bool) -> FailingProgram:
    return replace(base, tile=tile, bytes=nbytes, bytes_per_tile=per_tile, stated=stated)


def _worst(failing: Sequence[FailingProgram]) -> FailingProgram | None:
    """The failure the most bytes over its tile's memory; the first when none says (None: none failed)."""
    over = [f for f in failing if f.over_by is not None]
    if over:
        return max(over, key=lambda f: f.over_by or 0)  # max keeps the first of equals
    return failing[0] if failing else None
