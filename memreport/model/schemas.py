"""The names of memreport's own JSON schemas, each defined once: writers put them in ``"schema"``, readers check it;
and how its CSV writes a text cell, for the writer and the reader alike.

A schema gains fields and never renames one; a change that would rename
or remove one is a new name (``memreport/2``).
"""
from collections.abc import Sequence
from itertools import compress, repeat

REPORT_SCHEMA = "memreport/1"             # the report's JSON (``--format json``, ``export``), read back as reports
DIFF_SCHEMA = "memreport-diff/1"          # ``diff --format json``: two reports compared, never read back as one
COMPILES_SCHEMA = "memreport-compiles/1"  # ``compiles --format json``
TREND_SCHEMA = "memreport-trend/1"        # ``trend --format json``: builds in order, never read back as a report

# memreport's CSV (docs/CSV.md, "Text cells"): a spreadsheet runs a cell that starts with one of these as a formula
# (OWASP, "CSV Injection"), so a text cell that does is written after a single quote, which a spreadsheet shows it
# without and reads as "text"; so is one that starts with the quote itself, so memreport reads every name back whole.
CSV_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_TEXT_QUOTE = "'"
_QUOTED = (*CSV_FORMULA_STARTS, CSV_TEXT_QUOTE)


def csv_text(value: str) -> str:
    """A text cell of memreport's CSV: ``value``, after :data:`CSV_TEXT_QUOTE` when it starts like a formula (or
    with the quote). Never for a number: ``-5`` in a byte column is a number."""
    return CSV_TEXT_QUOTE + value if value.startswith(_QUOTED) else value


def csv_text_read(cell: str) -> str:
    """The text a cell of memreport's CSV holds (:func:`csv_text` undone)."""
    return cell[1:] if cell.startswith(CSV_TEXT_QUOTE) else cell


def csv_texts(values: Sequence[str], read: bool = False) -> list[str]:
    """:func:`csv_text` (``read``: :func:`csv_text_read`) of every value, which a pod has one of a tile (376,832
    members): the test in C, Python only for the values it changes."""
    out = list(values)
    starts = repeat(CSV_TEXT_QUOTE if read else _QUOTED)
    for i in compress(range(len(out)), map(str.startswith, out, starts)):
        out[i] = csv_text_read(out[i]) if read else csv_text(out[i])
    return out
