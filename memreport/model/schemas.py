"""The names of memreport's own JSON schemas, each defined once: writers put them in ``"schema"``, readers check it;
and how its CSV writes a text cell, for the writer and the reader alike.

A schema gains fields and never renames one; a change that would rename
or remove one is a new name (``memreport/2``).
"""
REPORT_SCHEMA = "memreport/1"             # the report's JSON (``--format json``, ``export``), read back as reports
DIFF_SCHEMA = "memreport-diff/1"          # ``diff --format json``: two reports compared, never read back as one
COMPILES_SCHEMA = "memreport-compiles/1"  # ``compiles --format json``

# memreport's CSV (docs/CSV.md, "Text cells"): a spreadsheet runs a cell that starts with one of these as a formula
# (OWASP, "CSV Injection"), so a text cell that does is written after a single quote, which a spreadsheet shows it
# without and reads as "text"; so is one that starts with the quote itself, so memreport reads every name back whole.
CSV_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_TEXT_QUOTE = "'"


def csv_text(value: str) -> str:
    """A text cell of memreport's CSV: ``value``, after :data:`CSV_TEXT_QUOTE` when it starts like a formula (or
    with the quote). Never for a number: ``-5`` in a byte column is a number."""
    return CSV_TEXT_QUOTE + value if value.startswith((*CSV_FORMULA_STARTS, CSV_TEXT_QUOTE)) else value


def csv_text_read(cell: str) -> str:
    """The text a cell of memreport's CSV holds (:func:`csv_text` undone)."""
    return cell[1:] if cell.startswith(CSV_TEXT_QUOTE) else cell
