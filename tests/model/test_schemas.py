"""memreport's own formats: the CSV's text cells, written safe for a spreadsheet and read back whole (issue 33
item 10)."""
from __future__ import annotations

from memreport.model.schemas import csv_text, csv_text_read, csv_texts
from tests.synth.hostile import NAMES, SPREADSHEET


def test_a_text_cell_that_starts_like_a_formula_follows_a_quote():
    assert [csv_text(name) for name in SPREADSHEET] == [
        "'=SUM(1,2)", "'+1+2", "'-3+4", "'@SUM(A1)", "'\tTAB", "'\rCR", "''quoted"]
    assert [csv_text(name) for name in ("tile_0.elf", ".bss", "a=b", " =1", "", "region.x")] == [
        "tile_0.elf", ".bss", "a=b", " =1", "", "region.x"]


def test_every_name_reads_back_whole():
    assert [csv_text_read(csv_text(name)) for name in (*NAMES, "", "'", "''", "x'")] == [*NAMES, "", "'", "''", "x'"]


def test_many_at_once_as_one_by_one():
    names = [*NAMES, "", "'", "plain"] * 3
    assert csv_texts(names) == [csv_text(name) for name in names]
    assert csv_texts(csv_texts(names), read=True) == names
