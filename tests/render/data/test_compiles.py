"""The compilations' CSV in a spreadsheet (issue 33 item 10): a log's words that start like a formula are written
after a quote; durations and line numbers stay numbers."""
from __future__ import annotations

import csv
import io

from memreport.analysis.compiles import summarize_compiles
from memreport.readers.text.compile_log import read_compile_logs
from memreport.render.data.compiles import render_csv
from tests.synth import hostile
from tests.synth.compile_logs import LogBuilder


def test_modules_that_start_like_a_formula_follow_a_quote(tmp_path):
    log = LogBuilder()
    for i, name in enumerate(hostile.SPREADSHEET[:4]):
        log.tf_compile(name, f"{i:04x}abcd", ms=1000 * (i + 1))
    (tmp_path / "c.log").write_text(log.text())
    rows = list(csv.reader(io.StringIO(render_csv(summarize_compiles(read_compile_logs([tmp_path / "c.log"]))))))
    assert [(row[1], row[6], row[11]) for row in rows[1:]] == [
        ("1", "'=SUM(1,2)", "1.0"), ("10", "'+1+2", "2.0"), ("19", "'-3+4", "3.0"), ("28", "'@SUM(A1)", "4.0")]
