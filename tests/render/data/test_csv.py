"""The report's CSV in a spreadsheet (issue 33 item 10): a name that starts like a formula (OWASP's =, +, -, @, tab,
carriage return) is written after a quote, as a column's name too; a number never is."""
from __future__ import annotations

import csv
import io

from memreport.analysis import summarize_all
from memreport.readers import read_path
from memreport.render.data.csv import render_csv
from tests.synth import hostile
from tests.synth import profile as synth_profile


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_members_that_start_like_a_formula_follow_a_quote(tmp_path):
    (tmp_path / "s.a").write_bytes(hostile.archive(hostile.SPREADSHEET))
    out = render_csv(summarize_all(read_path(str(tmp_path / "s.a"))))
    assert out.splitlines()[:3] == [
        "tile,ipu,member,excluding_gaps,including_gaps,out_of_memory,.bss,.data,.text,not_counted,.comment,.shstrtab",
        "0,0,\"'=SUM(1,2)\",1310,,false,300,10,1000,53,16,37",
        "1,0,'+1+2,2310,,false,300,10,2000,54,17,37"]
    assert [row[2] for row in rows(out)[1:]] == ["'=SUM(1,2)", "'+1+2", "'-3+4", "'@SUM(A1)", "'\tTAB", "'\rCR",
                                                 "''quoted"]


def test_categories_that_start_like_a_formula_follow_a_quote_in_the_header(tmp_path):
    (tmp_path / "p.json").write_bytes(synth_profile.encode_json(hostile.profile(hostile.SPREADSHEET)))
    (tmp_path / "s.a").write_bytes(hostile.archive(hostile.SPREADSHEET[:2]))
    reports = [r for name in ("p.json", "s.a") for r in read_path(str(tmp_path / name))]
    table = rows(render_csv(summarize_all(reports)))
    assert table[0][6:13] == ["'=SUM(1,2)", "'+1+2", "'-3+4", "'@SUM(A1)", "'\tTAB", "'\rCR", "''quoted"]
    assert table[1][6:13] == ["1432", "1428", "1428", "1428", "1428", "1428", "1428"]
    assert table[-1][2] == "'+1+2" and table[-1][-2:] == [str(tmp_path / "s.a"), ""]  # source, module
