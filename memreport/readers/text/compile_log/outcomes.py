"""How each compilation ended, as ``memreport LOG`` sees it: out of memory, failed, and its memory report.

The compilations of a log (``.assemble``) are put beside the log's
programs (..programs, found by ``memreport LOG``'s own scan of the same
file, ..poplar_text.scan): an out-of-memory error belongs to the last
compilation its process started before it, another error to the
compilation it ended. Each compilation takes its program's outcome when it
failed ("out of memory", "failed", with what the error states) and the
index of the memory report that holds its error or summary (``#N`` as
``memreport LOG`` numbers them), so the two commands tell one story.
"""
from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ....errors import ReadError
from ....model import Compilation
from ..logtext import LogFile

if TYPE_CHECKING:  # ..programs reads its lines with .lines: imported by this package, it imports this package
    from ..programs import Program


def log_programs(path: str, source: str, places: Callable[[int], str | None] | None = None,
                 all_frames: bool = False) -> list[Program] | None:
    """The programs ``memreport LOG`` finds in the log at ``path`` (reports numbered), or None when its memory
    text cannot be read (a damaged summary: the compilations keep what their own lines say)."""
    from ..poplar_text.scan import LogScan  # the memory reader stands on this family's modules, as this does
    with LogFile(path, keep_cut=True) as log:
        scan = LogScan(log, source, places=places, all_frames=all_frames)
        try:
            scan.scan()
        except ReadError:
            return None
    return scan.segmenter.programs


def with_outcomes(compilations: Sequence[Compilation], programs: Sequence[Program]) -> list[Compilation]:
    """``compilations`` (in line order) with their programs' failures and memory reports.

    A compilation is the program of its process that starts within its
    lines (its first and last), else the last one that starts before it
    (PopTorch's bar is drawn before PopART's first line of the same
    compilation); each program is one compilation's at most.
    """
    by_process: dict[str, list[Program]] = {}
    for p in programs:
        by_process.setdefault(p.process, []).append(p)
    starts = {key: [p.line for p in ps] for key, ps in by_process.items()}
    taken: set[int] = set()
    out = []
    for c in compilations:
        key = c.process or ""
        ps, lines = by_process.get(key, []), starts.get(key, [])
        first = bisect.bisect_left(lines, c.line)
        last = bisect.bisect_right(lines, c.end_line or c.line)
        inside = [p for p in ps[first:last] if id(p) not in taken]
        before = ps[first - 1] if first and id(ps[first - 1]) not in taken else None
        program = inside[0] if inside else before
        if program is None:
            out.append(c)
            continue
        taken.add(id(program))
        out.append(_outcome(c, program))
    return out


def _outcome(c: Compilation, program: Program) -> Compilation:
    outcome = program.outcome
    changes: dict = {"report": program.report}
    if outcome in ("out of memory", "failed"):
        changes.update(result=outcome, failure=program.failure)
    return dataclasses.replace(c, **changes)
