"""The words people read, written once for every output form, built from the facts analysis returns.

The verdict of a report (how many tiles are out of memory, the worst, what
is on it, what to run next), why a count is not exact ("at least N",
"unknown"), what an out-of-memory message says, a report's target, the
verdict over several reports, a diff's and a compile history's verdicts and
notes, the out-of-memory cell of a tile, and the message of every gate. The
text, the page, the Markdown, the picture and JSON's description fields take
their sentences from here and only lay them out; plurals are
:func:`memreport.units.count`'s and report names the model's
(:class:`~memreport.model.ReportName`).
"""
from __future__ import annotations

from .compiles import (
    NBSP,
    compile_totals,
    compiles_headline,
    compiles_verdict,
    seconds,
    timed,
)
from .counts import (
    OUT_OF_MEMORY,
    UNKNOWN,
    basis,
    count_lines,
    count_note,
    count_phrase,
    count_short,
    count_tiles,
    count_title,
    heat_note,
    ipus_heading,
    ipus_note,
    look_into,
    message_description,
    next_command,
    next_commands,
    out_of_memory_cell,
    partial_reason,
    reason,
)
from .diffs import (
    diff_headline,
    diff_notes,
    diff_verdict,
    side_count,
    side_tiles,
)
from .gates import (
    gate_message,
    gate_setting,
    gates_line,
    origin_phrase,
)
from .page import LABELS
from .trend import (
    first_phrase,
    trend_notes,
    trend_verdict,
)
from .verdicts import (
    Verdict,
    closing_verdict,
    headline,
    picture_partial_note,
    picture_title,
    printed_lines,
    report_notes,
    target,
    verdict,
)

__all__ = [
    "LABELS",
    "NBSP",
    "OUT_OF_MEMORY",
    "UNKNOWN",
    "Verdict",
    "basis",
    "closing_verdict",
    "compile_totals",
    "compiles_headline",
    "compiles_verdict",
    "count_lines",
    "count_note",
    "count_phrase",
    "count_short",
    "count_tiles",
    "count_title",
    "diff_headline",
    "diff_notes",
    "diff_verdict",
    "first_phrase",
    "gate_message",
    "gate_setting",
    "gates_line",
    "headline",
    "heat_note",
    "ipus_heading",
    "ipus_note",
    "look_into",
    "message_description",
    "next_command",
    "next_commands",
    "origin_phrase",
    "out_of_memory_cell",
    "partial_reason",
    "picture_partial_note",
    "picture_title",
    "printed_lines",
    "reason",
    "report_notes",
    "seconds",
    "side_count",
    "side_tiles",
    "target",
    "timed",
    "trend_notes",
    "trend_verdict",
    "verdict",
]
