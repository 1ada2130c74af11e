"""Markdown's escaping as GitHub reads it (issue 33 item 9): a name holding a pipe, a tag, a mention or math reads as
written in a cell, in a code span inside a table, and in the line naming what was left out."""
from __future__ import annotations

import re

from click.testing import CliRunner

from memreport.cli import main
from memreport.render.markdown.blocks import Fitted, cell, code
from tests.fuzzing import gfm_cells
from tests.synth import hostile


def test_a_cell_escapes_what_github_reads():
    assert [cell(name) for name in hostile.MARKDOWN] == [
        "a\\|b.elf", "&lt;img src=x\\>", "\\*bold\\*\\_", "&lt;details\\>", "@&#8203;octocat",
        "<span>$</span>x^2<span>$</span>", "\\`tick\\|pipe\\`"]
    assert cell("see #12, a@b.c") == "see \\#&#8203;12, a@&#8203;b.c"  # no issue reference, no mention
    assert cell("a\u202eb\rc\nd\te") == "a\\\\u202eb\\\\rc d e"  # controls as the text shows them; whitespace


def test_a_code_span_in_a_table_escapes_its_pipes():
    assert code("a|b.elf") == "`a|b.elf`"  # a paragraph: a pipe is a pipe
    assert code("a|b.elf", table=True) == "`a\\|b.elf`"
    assert code("`tick|pipe`", table=True) == "`` `tick\\|pipe` ``"
    assert code("a\\|b", table=True) == "a\\\\\\|b"  # a backslash before a pipe: no span can hold it, text can
    assert gfm_cells(f"| {code('a|b', table=True)} | {code('a|b', table=True)} |") == ["`a|b`", "`a|b`"]
    backslashed = code("a\\|b", table=True)
    assert gfm_cells(f"| {backslashed} | x |") == ["a\\\\|b", "x"]  # the cell's text reads back as a\|b


def test_every_table_keeps_its_cells(tmp_path, monkeypatch):
    """The top tiles of an archive whose members are named ``a|b.elf``, ```tick|pipe``` ..., and the table of
    several reports in files named so: every row has its header's cells, each name whole in its own."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.a").write_bytes(hostile.archive(hostile.MARKDOWN))
    files = ["a|b.a", "<img src=x>.a", "@octocat.a", "$x$.a", "`t|p`.a"]
    for name in files:
        (tmp_path / name).write_bytes(hostile.archive(hostile.MARKDOWN[:2]))
    for args in (["m.a", "--top", "7"], files):
        result = CliRunner().invoke(main, [*args, "--format", "markdown"])
        assert result.exit_code == 0, result.output
        tables = re.findall(r"(?m)(?:^\| .*\n)+", result.stdout)
        assert tables
        for table in tables:
            assert len({len(gfm_cells(row)) for row in table.splitlines()}) == 1, table
        rows = tables[0].splitlines()
        prose = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", result.stdout)  # what is not in a code span
        assert not re.search(r"<(?!/?(span|details|summary)>)", prose)  # no tag but memreport's own
        assert "@octocat" not in prose and "$x" not in prose  # no mention, no math
    assert [gfm_cells(row)[0] for row in rows[2:]] == ["`a|b.a`", "`<img src=x>.a`", "`@octocat.a`", "`$x$.a`",
                                                      "`` `t|p`.a ``"]
    member = [gfm_cells(row)[4] for row in CliRunner().invoke(
        main, ["m.a", "--top", "7", "--format", "markdown"]).stdout.splitlines() if row.startswith("| ")][2:]
    assert member == ["\\`tick|pipe\\`", "<span>$</span>x^2<span>$</span>", "@&#8203;octocat", "&lt;details\\>",
                      "\\*bold\\*\\_", "&lt;img src=x\\>", "a|b.elf"]


def test_the_line_naming_what_was_left_out_escapes_the_reports():
    fitted = Fitted(limit=700)
    for name in ("<img src=x>", "*", "<details>", "@octocat"):
        fitted.add("x" * 200, "the verdict", of=name)
    assert fitted.text() == ("\n\n_Left out to stay within GitHub's 700 characters: the verdict of 4 reports "
                             "(&lt;img src=x\\>, \\*, &lt;details\\>, ...). The text and JSON outputs hold "
                             "everything._\n")
    fitted = Fitted(limit=700)
    fitted.add("x" * 200, "the verdict", of="@octocat $x$ <b>")
    assert fitted.text().endswith("the verdict of @&#8203;octocat <span>$</span>x<span>$</span> &lt;b\\>. The text "
                                  "and JSON outputs hold everything._\n")
