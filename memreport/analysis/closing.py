"""The reports of a file of several side by side: a row per report or run (issue #23).

``memreport logs/*`` or a log of many runs shows one report after another;
the closing table puts them side by side: where each comes from, its
target, its largest tile and how many tiles are out of memory. The rows
are facts (:class:`~.results.ClosingRow`, :meth:`~.results.Closing.of`);
the words are the renderers'.
"""
from __future__ import annotations

from collections.abc import Sequence

from .results import Closing, ClosingRow, Summary


def closing_row(summary: Summary) -> ClosingRow:
    """A report's row, from its summary and verdict."""
    return ClosingRow.of(summary)


def closing(summaries: Sequence[Summary]) -> Closing:
    """The rows of several reports, in order, and the answer over them all, in programs."""
    return Closing.of(summaries)
