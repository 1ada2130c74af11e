"""The closing table's layout: a row per report, within the width, long sources shortened in the middle."""
from __future__ import annotations

from memreport.analysis import Closing, ClosingRow, OutOfMemoryCount
from memreport.model import ReportName, TileBytes
from memreport.render.layout import middle_shortened
from memreport.render.text.closing import closing_lines


def lines(rows: list[ClosingRow], width: int | None = None) -> list[str]:
    return closing_lines(Closing(tuple(rows)), width)


LONG = "logs/very/long/directory/of/every/rank/of/a/big/training/job/on/pod64/rank-0003-of-0064.log"


def test_middle_shortened_keeps_head_and_tail():
    assert middle_shortened("abcdefghij", 10) == "abcdefghij"
    assert middle_shortened("abcdefghij", 7) == "ab...ij"
    assert middle_shortened("abcdefghijk", 8) == "abc...jk"


def test_rows_fit_100_columns_and_say_what_is_unknown():
    rows = [ClosingRow(ReportName(LONG, None, 1, 2, 12_345), "1/16", "ipu1", None, TileBytes(0, 525_496),
                       OutOfMemoryCount(None), worst_from_message=True),
            ClosingRow(ReportName("build/archive.a"), None, "ipu2", 1472, TileBytes(1402, 788_976),
                       OutOfMemoryCount(3)),
            ClosingRow(ReportName("trace.rep", "m", 1, 2, 7), None, None, None, None, OutOfMemoryCount(0))]
    table = lines(rows)
    assert table == [
        "Reports (3):",
        "  Source                                  Line   Run  Arch  Tiles  Worst tile       Bytes  OOM tiles",
        "  logs/very/long/di...03-of-0064.log#1  12,345  1/16  ipu1      ?           0  525,496 B*    unknown",
        "  build/archive.a                                     ipu2  1,472        1402  788,976 B           3",
        "  trace.rep (module m)                       7        ?         ?           ?          ?           0",
        "  (* bytes used, as the out-of-memory message states)",
    ]
    assert max(len(line) for line in table) == 100


def test_a_tile_count_known_as_a_lower_bound_is_marked_and_explained():
    rows = [ClosingRow(ReportName("sweep.log", None, 1, 2, 10), "2/5", "ipu1", None, TileBytes(0, 525_496),
                       OutOfMemoryCount(None), worst_from_message=True, tiles_at_least=1_216),
            ClosingRow(ReportName("sweep.log", None, 2, 2, 25), "5/5", "ipu1", None, TileBytes(1300, 401_000),
                       OutOfMemoryCount(None), worst_from_message=True, tiles_at_least=2_432),
            ClosingRow(ReportName("build/archive.a"), None, "ipu2", 1472, TileBytes(1402, 788_976),
                       OutOfMemoryCount(3))]
    assert lines(rows) == [
        "Reports (3):",
        "  Source           Line  Run  Arch    Tiles  Worst tile       Bytes  OOM tiles",
        "  sweep.log#1        10  2/5  ipu1  >=1,216           0  525,496 B*    unknown",
        "  sweep.log#2        25  5/5  ipu1  >=2,432        1300  401,000 B*    unknown",
        "  build/archive.a             ipu2    1,472        1402  788,976 B           3",
        "  (* bytes used, as the out-of-memory message states)",
        "  (>= a lower bound: no tile count stated; whole IPUs, enough for the highest tile named)",
    ]


def test_no_rows_no_table():
    assert lines([]) == []


def test_the_parts_of_one_file_name_it_once_in_the_heading():
    def row(source: str, line: int, index: int | None = None, module: str | None = None) -> ClosingRow:
        return ClosingRow(ReportName(source, module, index, 2, line), None, "ipu2", 1472, TileBytes(5, 700_000),
                          OutOfMemoryCount(2))

    runs = lines([row(LONG, 10, 1), row(LONG, 99, 2)], width=80)
    assert runs[:5] == ["Reports in", LONG, "(2):",  # a path too long for the line: whole, on a line of its own
                        "  Source  Line  Arch  Tiles  Worst tile      Bytes  OOM tiles",
                        "  #1        10  ipu2  1,472           5  700,000 B          2"]
    modules = lines([row("t.rep", 7, module="a.3"), row("t.rep", 78, module="b.17")])
    assert [line.split("  ")[1] for line in modules[2:]] == ["module a.3", "module b.17"]
    assert modules[0] == "Reports in t.rep (2):"
    mixed = lines([row("t.rep", 7, module="a.3"), row("other.log", 3, 1)])  # two files: each named in full
    assert mixed[0] == "Reports (2):" and mixed[2].startswith("  t.rep (module a.3)")
