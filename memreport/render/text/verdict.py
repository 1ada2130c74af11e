"""The verdict first, in text: the answer before the detail (issue 24).

A report opens with at most six lines: how many tiles are out of memory (N
of M, or "at least N"), the worst tile with its bytes, share of tile memory
and excess, the largest thing on it, and the command to run next; its first
line closes the report again (what ``| tail`` shows). When the count is
unknown, that is said once, with why. A diff opens with the tiles newly out
of memory and the worst growth, the compilations with how many there were,
recompiled or not, unfinished.

The words are those of every form (:mod:`..words`), laid out here for a
terminal: every line within the width, prose wrapped
with a hanging indent. The gates a run judged follow the block on a line of
their own, each with where it was set (``Gates:   --max-tile 90% (from
.memreport.toml, line 3, gates.max-tile)``).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from ...analysis import Summary
from ...analysis.compiles import CompileSummary
from ...analysis.diff import Diff
from ...analysis.results import GateSetting, Overall, Trend
from ..layout import WIDTH, prose, visible
from ..words import (
    SHOWN_FAILING,
    Verdict,
    compiles_verdict,
    diff_verdict,
    gates_line,
    overall_headline,
    overall_verdict,
    trend_verdict,
    verdict,
)
from ..words.fit import plan_lines as plan_sentences

LEAD = "Verdict: "
NBSP = "\xa0"  # holds a count to its noun when wrapped (printed as a space)
HANG = " " * len(LEAD)


def _block(first: str, rest: list[str], width: int) -> list[str]:
    """The first line after :data:`LEAD`, the rest under it, each wrapped to ``width`` with a hanging indent."""
    lines = prose(LEAD, first, width)
    for line in rest:
        lines += prose(HANG, line, width, hang=HANG + "  ")
    return lines


def _next(command: str, width: int) -> list[str]:
    """``Next: COMMAND``; when too wide, the command whole on the line below, or else broken before an option
    with a shell's ``\\`` (it pastes as it is), continued under it; a path's control characters escaped."""
    command = visible(command)
    if len(HANG) + 2 + len(command) <= width < len(HANG) + 6 + len(command):  # whole on the line below
        return [f"{HANG}Next:", f"{HANG}  {command}"]
    words = command.split(" ")
    pieces = [words[0]]
    for word in words[1:]:  # an option keeps its value ("--tile 5"); a program its first argument
        if word.startswith("-"):
            pieces.append(word)
        else:
            pieces[-1] += " " + word
    lines, line = [], f"{HANG}Next: {pieces[0]}"
    indent = HANG + "  " if all(len(HANG) + 4 + len(p) <= width for p in pieces[1:]) else "  "
    for piece in pieces[1:]:
        if len(line) + 1 + len(piece) + (2 if piece is not pieces[-1] else 0) > width:
            lines.append(line + " \\")
            line = indent + piece
        else:
            line += " " + piece
    return [*lines, line]


def _verdict_lines(v: Verdict, width: int) -> list[str]:
    """A verdict block: its headline after :data:`LEAD`, its lines under it, the command to run next."""
    return _block(v.headline, list(v.lines), width) + (_next(v.command, width) if v.command else [])


def report_lines(summary: Summary, width: int = WIDTH) -> list[str]:
    """A report's verdict block: at most six lines at 100 columns (a narrower width wraps its lines, never
    drops one)."""
    return _verdict_lines(verdict(summary), width)


def plan_lines(summary: Summary, width: int = WIDTH) -> list[str]:
    """The fit plans of the worst tiles over, right after the verdict: a sentence each, wrapped under itself."""
    return [line for sentence in plan_sentences(summary) for line in prose("", sentence, width, hang="  ")]


def _last(headline: str, width: int) -> list[str]:
    """The headline as the text's last line: whole when it fits ``width``, else without its asides in
    parentheses (the block at the top has them), the longest first; wrapped only when still too wide."""
    while len(LEAD) + len(headline) > width:
        asides = _ASIDE.findall(headline)
        if not asides:
            break
        headline = headline.replace(max(asides, key=len), "", 1)
    return prose(LEAD, headline, width)


_ASIDE = re.compile(r" \((?:[^()]|\([^()]*\))*\)")  # " (why ...)", one level of nested parentheses


def report_headline(summary: Summary, width: int = WIDTH) -> list[str]:
    """The verdict's first line again, for the report's last line (its asides left out when too wide)."""
    return _last(verdict(summary).headline, width)


def overall_lines(o: Overall, width: int = WIDTH, every: bool = False) -> list[str]:
    """The verdict over every report read, in programs, with the first failing programs (``every``: all of them,
    what ``--brief`` shows of a file of several)."""
    return _verdict_lines(overall_verdict(o, None if every else SHOWN_FAILING), width)


def overall_last(o: Overall, width: int = WIDTH) -> list[str]:
    """The verdict over all again, for the text's last line (without the worst when that is too wide)."""
    headline = overall_headline(o)
    return _last(headline if len(LEAD) + len(headline) <= width else overall_headline(o, worst=False), width)


def diff_headline(diff: Diff, width: int = WIDTH) -> list[str]:
    """A diff's verdict line again, for its last line."""
    return _last(diff_verdict(diff).headline, width)


def diff_lines(diff: Diff, width: int = WIDTH) -> list[str]:
    """A diff's verdict block."""
    return _verdict_lines(diff_verdict(diff), width)


def compiles_headline(summary: CompileSummary, width: int = WIDTH) -> list[str]:
    """The compilations' verdict line again, for the text's last line."""
    return _last(compiles_verdict(summary).headline, width)


def compiles_lines(summary: CompileSummary, width: int = WIDTH) -> list[str]:
    """The compilations' verdict block."""
    return _verdict_lines(compiles_verdict(summary), width)


def trend_headline(trend: Trend, width: int = WIDTH) -> list[str]:
    """A trend's answer again, for its last line."""
    return _last(trend_verdict(trend).headline, width)


def trend_lines(trend: Trend, width: int = WIDTH) -> list[str]:
    """A trend's verdict block: when the tiles out of memory in the last build went over."""
    return _verdict_lines(trend_verdict(trend), width)


GATES_LEAD = "Gates:   "


def gates_lines(settings: Sequence[GateSetting], width: int = WIDTH) -> list[str]:
    """The gates judged, each with where it was set, under the verdict block (nothing when none was)."""
    line = gates_line(settings)
    return [] if line is None else prose(GATES_LEAD, line, width)
