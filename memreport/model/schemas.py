"""The names of memreport's own JSON schemas, each defined once: writers put them in ``"schema"``, readers check it.

A schema gains fields and never renames one; a change that would rename
or remove one is a new name (``memreport/2``).
"""
REPORT_SCHEMA = "memreport/1"             # the report's JSON (``--format json``, ``export``), read back as reports
DIFF_SCHEMA = "memreport-diff/1"          # ``diff --format json``: two reports compared, never read back as one
COMPILES_SCHEMA = "memreport-compiles/1"  # ``compiles --format json``
TREND_SCHEMA = "memreport-trend/1"        # ``trend --format json``: builds in order, never read back as a report
