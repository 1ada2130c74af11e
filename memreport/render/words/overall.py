"""The answer over every report read, in programs (issue #30): ``16 of 223 runs failed, out of memory; worst:
run 145, tile 0, 670,344 B used of 262,144 B``, and a line per failing program.

The text leads with it and closes with it, ``--brief`` is it and its
failing programs, the page and the Markdown lead with it, and JSON's
top-level ``verdict.text`` is its headline.
"""
from __future__ import annotations

import shlex

from ...analysis.results import FailingProgram, Overall
from ...units import count
from .counts import look_into
from .verdicts import Verdict

SHOWN_FAILING = 5  # failing programs a verdict block lists under its headline (--brief and JSON list all)


def _name(f: FailingProgram, files: int) -> str:
    """Which program: ``run 145``, ``compilation 3``, a report's name; its file first when several were read."""
    if f.unit == "report" or f.index is None:
        return f.report.short_label if f.report is not None else f.source
    name = f"{f.unit} {f.index:,}"
    if f.unit == "program" and f.report is not None and f.report.module:
        name = f"module {f.report.module}"  # a trace's programs are its modules
    return f"{f.source} {name}" if files > 1 else name


def _detail(f: FailingProgram) -> str:
    """What it failed with: its worst tile and bytes, else what its error states, else how many tiles."""
    if f.tile is not None and f.bytes is not None:
        bytes_ = f"{f.bytes:,} B used" if f.stated else f"{f.bytes:,} B excluding gaps"
        of = f" of {f.bytes_per_tile:,} B" if f.bytes_per_tile is not None else ""
        return f"tile {f.tile}, {bytes_}{of}"
    if f.failure:
        return f.failure
    if f.tiles is not None:
        return f"{'' if f.tiles_exact else 'at least '}{count(f.tiles, 'tile')} out of memory"
    return "tiles out of memory"


def failing_line(f: FailingProgram, files: int = 1) -> str:
    """One failing program: ``run 145 (line 52,113): out of memory, tile 0, 670,344 B used of 262,144 B``."""
    where = f" ({f.where})" if f.where else ""
    return f"{_name(f, files)}{where}: {f.outcome}, {_detail(f)}"


def overall_headline(o: Overall, worst: bool = True) -> str:
    """How many programs failed, of how many, how; the worst (unless not ``worst``: a last line kept short)."""
    noun = o.unit
    cannot = f" ({o.unknown:,} cannot say)" if o.unknown else ""
    if noun == "report":
        has = "has" if o.failed == 1 else "have"
        line = f"{o.failed:,} of {count(o.count, noun)} {has} tiles out of memory{cannot}"
    elif not o.failed or o.out_of_memory == 0:
        line = f"{o.failed:,} of {count(o.count, noun)} failed{cannot}"
    elif o.out_of_memory == o.failed:
        line = f"{o.failed:,} of {count(o.count, noun)} failed, out of memory{cannot}"
    else:
        line = (f"{o.failed:,} of {count(o.count, noun)} failed{cannot}: {o.out_of_memory:,} out of memory, "
                f"{o.failed - o.out_of_memory:,} otherwise")
    if o.worst is not None and worst:
        line += f"; worst: {_name(o.worst, o.files)}, {_detail(o.worst)}"
    return line


def overall_command(o: Overall) -> str | None:
    """What to run next: the worst failure's tile, else its report of the file's several (None: neither)."""
    w = o.worst
    if w is None:
        return None
    if w.look_into is not None:
        return look_into(w.look_into)
    if w.report is not None and w.report.part is not None:
        return f"memreport {shlex.quote(w.report.source)} --module {shlex.quote(w.report.part)}"
    return None


def overall_verdict(o: Overall, shown: int | None = SHOWN_FAILING) -> Verdict:
    """The verdict over all: its headline, the first ``shown`` failing programs (all when None) with how many
    more, the command to run next."""
    level = "oom" if o.failed else "unknown" if o.unknown else "ok"
    listed = o.failing if shown is None else o.failing[:shown] if o.failed > 1 else ()  # one: the headline says it
    lines = [failing_line(f, o.files) for f in listed]
    left = o.failed - len(listed) if listed else 0
    if left > 0:  # kept but not listed here, or past what the record keeps
        lines.append(f"{left:,} more failed: --brief and the JSON list every one" if len(o.failing) > len(listed)
                     else f"{left:,} more (not kept)")
    return Verdict(level, overall_headline(o), tuple(lines), overall_command(o))
