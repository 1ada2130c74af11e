"""The text renderer: Poplar's By Tile layout to the byte, then the top tiles."""
from __future__ import annotations

import numpy as np

from memreport.analysis import summarize
from memreport.model import Bin, Column, Histogram, PrintedSummary, SummaryReport, Target, TileReport
from memreport.render.layout import by_tile_block, histogram_rows
from memreport.render.text.report import data_types_lines, render_report
from tests.conftest import MK1_BY_TILE


def test_rows_as_poplar_prints_them():
    hist = Histogram(8, (Bin(0, 8, 20), Bin(8, 16, 1192), Bin(16, 24, 2), Bin(24, 32, 0), Bin(808, 816, 1)))
    assert histogram_rows(hist) == [
        "   0 -   8 *                                            20",
        "   8 -  16 ****************************************  1,192",
        "  16 -  24 *                                             2",
        "  24 -  32                                               0",
        "       ...",  # the bins are not adjacent: rows were left out, and none is made up
        " 808 - 816 *                                             1",
    ]


def test_bar_length_is_ceiling_and_wide_counts_run_into_the_bar():
    rows = histogram_rows(Histogram(1, (Bin(0, 1, 3), Bin(1, 2, 2), Bin(2, 3, 12_345_678))))
    assert rows[0] == "     0 - 1 *" + " " * 39 + "      3"
    assert rows[2] == "     2 - 3 " + "*" * 40 + "12,345,678"


def test_mk1_block_from_full_data_is_byte_for_byte():
    excluding = np.full(1216, 4 * 1024 + 300, dtype=np.int64)
    excluding[0] = 5780
    including = np.full(1216, 40_000, dtype=np.int64)
    including[0] = 49_184
    report = TileReport(source="p", format="json-profile", target=Target.for_arch("ipu1", 1216),
                          excluding_gaps=excluding, including_gaps=including)
    assert "\n".join(by_tile_block(summarize(report))) == MK1_BY_TILE


def test_unknown_tile_memory_is_said():
    report = TileReport(source="p", format="archive", target=Target(num_tiles=1),
                          excluding_gaps=np.array([10]))
    assert by_tile_block(summarize(report))[-1] == \
        "    out-of-memory tiles unknown (bytes per tile unknown: give --tile-memory or --arch)"


def test_whole_report_golden():
    values = np.array([1000, 640_000, 5000], dtype=np.int64)
    report = TileReport(
        source="a.a", format="archive", target=Target.for_arch("ipu2", 3), excluding_gaps=values,
        breakdown={".text": Column(np.array([1000, 40_000, 5000])),
                   ".bss": Column(np.array([0, 600_000, 0]), np.array([False, True, False])),
                   ".comment": Column(np.array([3, 3, 3]), counted=False)},
        breakdown_kind="section", tile_names=["t0", "t1", "t2"],
        notes=("an ELF archive holds no gap information: including gaps is unknown",))
    assert render_report(summarize(report, top=2)) == """\
Verdict: 1 of 3 tiles out of memory
         Worst tile: 1 (IPU 0), 640,000 B excluding gaps, 100.2% of 638,976 B: 1,024 B over
         Largest on it: section .bss 600,000 B
         Next: memreport a.a --tile 1 --symbols 20

To fit tile 1: free the 1,024 B over from .text (40,000 B, section, always live) (no symbol of tile
  1 was read: --tile 1 --symbols 20 lists them).

Source:   a.a
Format:   ELF archive
Target:   ipu2, 3 tiles (1,472 per IPU), 638,976 B (624.0 KiB) per tile
Per tile: complete
Note:     an ELF archive holds no gap information: including gaps is unknown

Memory Usage:
  Including Gaps: unknown
  Excluding Gaps: 646,000 B

  By Tile (Excluding Gaps):
    Range (KB) Histogram (Excluding Gaps)               Count (tiles)
       0 -   8 ****************************************      2
       8 -  16                                               0
""" + "".join(f"{lo:>8} - {lo + 8:>3}{'0':>48}\n" for lo in range(16, 624, 8)) + """\
     624 - 632 ********************                          1

    Maximum (Excluding Gaps): 640,000 (625.0 K) on tile 1
    1 tile(s) out of memory

Top 2 tiles (by excluding gaps):
      Tile   IPU    Excluding gaps  % of tile  Member  Out of memory
  !      1     0         640,000 B     100.2%  t1      OUT OF MEMORY by 1,024 B
            largest sections: .bss 600,000 B, .text 40,000 B
         2     0           5,000 B       0.8%  t2
            largest sections: .text 5,000 B
  (! = out of memory)

Verdict: 1 of 3 tiles out of memory
"""


def test_detailed_tiles_of_a_text_report_show_data_types_and_regions():
    from memreport.model import PrintedSummary, TileDetail
    from memreport.render.text.report import top_tiles_lines
    report = SummaryReport(
        source="r.txt", format="poplar-text", target=Target(num_tiles=1216, tiles_per_ipu=1216, num_ipus=1,
                                                            bytes_per_tile=262_144),
        breakdown_kind="data type", printed=PrintedSummary(),
        detailed_tiles=(TileDetail(0, 834_416, 834_339, {"Variables": 807_658, "Stack": 3_168},
                                   {"non_interleaved": 122_880, "interleaved": 131_072, "overflowed": 580_387}),))
    assert top_tiles_lines(summarize(report), 5) == [
        "Tiles as printed:",  # 101 columns in the fixed columns: as narrow as their cells instead
        "    Tile  IPU  Excluding gaps  Including gaps  % of tile  From      Out of memory",
        "  !    0    0       834,339 B       834,416 B     318.3%  detailed  OUT OF MEMORY by 572,195 B",
        "          largest data types: Variables 807,658 B, Stack 3,168 B",
        "          regions: non-interleaved 122,880 B, interleaved 131,072 B, overflowed 580,387 B",
        "  (! = out of memory)",
    ]


def test_an_elision_line_where_the_source_left_rows_out_and_never_a_made_up_row():
    hist = Histogram(8, (Bin(0, 8, 20), Bin(8, 16, 1192)), elided_before=(0, 2))
    assert histogram_rows(hist) == [
        "       ...",
        "    0 -  8 *                                            20",
        "    8 - 16 ****************************************  1,192",
        "       ...",
    ]
    assert histogram_rows(Histogram(8, (), elided_before=(0,))) == ["       ..."]


def test_out_of_memory_messages_are_listed_with_their_lines():
    from memreport.model import OutOfMemoryMessage
    from memreport.render.text.report import messages_lines
    report = SummaryReport(source="run.log", format="oom-messages", target=Target(0, bytes_per_tile=638_976),
                           oom_messages=(
                               OutOfMemoryMessage("tile-memory", 9, "...", 0, 876_476, 638_976),
                               OutOfMemoryMessage("exchange", 12_345, "...", 3, exchange="cs19_98/ExchangePre")))
    assert messages_lines(summarize(report)) == [
        "Out-of-memory messages (2):",
        "  line      9  tile-memory  tile 0: 876,476 B used, tiles have 638,976 B: out of memory by 237,500 B",
        "  line 12,345  exchange     tile 3 receives more data than it has memory in exchange",
        "                            'cs19_98/ExchangePre' (exchange overflow)"]  # wrapped under what it states
    text = render_report(summarize(report))
    assert "Out of memory:\n  at least 2 tile(s) out of memory (from its out-of-memory messages; the log holds no " \
           "memory\n    summary, only out-of-memory messages)\n" in text
    assert "Target:   arch unknown, tiles unknown, 638,976 B (624.0 KiB) per tile\n" in text


def test_wording_plurals_and_more_counts_only_items_with_bytes():
    report = TileReport(source="one.a", format="archive", target=Target(1, None, 1, 1, 1000),
                        excluding_gaps=np.array([500]),
                        breakdown={name: Column(np.array([size])) for name, size in
                                   (("a", 300), ("b", 100), ("c", 60), ("d", 40), ("e", 0), ("f", 0))})
    text = render_report(summarize(report, top=5))
    assert "Target:   arch unknown, 1 IPU x 1 tile = 1 tile, 1,000 B (1.0 KiB) per tile\n" in text
    assert "\nTop 1 tile (by excluding gaps):\n" in text
    assert "a 300 B, b 100 B, c 60 B, +1 more\n" in text  # d has bytes; e and f (0 B) are not counted


def test_a_diff_side_label_has_one_pair_of_parentheses():
    from memreport.analysis.diff import diff_reports
    from memreport.model import PrintedSummary
    from memreport.render.text.diff import render_text
    side = SummaryReport(source="t.rep", format="poplar-text", target=Target(4, None, 1, 4, 1000), module="m",
                         printed=PrintedSummary(tiles_out_of_memory=0))
    assert render_text(diff_reports(side, side)).split("\n\n", 1)[1].startswith(
        "Old: t.rep (module m; Poplar text summary, per tile: partial)\n"
        "New: t.rep (module m; Poplar text summary, per tile: partial)\n")


def test_tile_rows_fit_100_columns_with_out_of_memory_near_the_left_and_colour_on_request():
    from memreport.render import RenderOptions
    from memreport.render.text.report import RED, RESET, YELLOW, top_tiles_lines
    names = {f"a_rather_long_section_name_{i}": 100_000 - i for i in range(4)}
    values = np.array([700_000, 620_000, 10_000], dtype=np.int64)
    report = TileReport(source="w.a", format="archive", target=Target.for_arch("ipu2", 3), excluding_gaps=values,
                        breakdown={n: Column(np.full(3, v)) for n, v in names.items()}, breakdown_kind="section")
    plain = top_tiles_lines(summarize(report, top=3), 3)
    assert max(len(line) for line in plain) <= 100
    assert plain[2] == "  !      0     0         700,000 B     109.6%  OUT OF MEMORY by 61,024 B"
    assert plain[3:6] == ["            largest sections: a_rather_long_section_name_0 100,000 B,",
                          "                              a_rather_long_section_name_1 99,999 B,",
                          "                              a_rather_long_section_name_2 99,998 B, +1 more"]
    wide = top_tiles_lines(summarize(report, top=3), 3, RenderOptions(width=200))
    assert wide[2].startswith(plain[2] + "  a_rather_long_section_name_0 100,000 B")
    coloured = top_tiles_lines(summarize(report, top=3), 3, RenderOptions(color=True))
    assert coloured[2] == RED + plain[2] + RESET                 # out of memory
    assert coloured[6] == YELLOW + plain[6] + RESET              # 620,000 B: within 5 % of 638,976 B
    assert coloured[10] == plain[10]                             # far below the limit: plain


def test_prose_wraps_at_spaces_under_its_lead_and_keeps_long_words_whole():
    from memreport.render.layout import prose
    assert prose("Note:     ", "a b c " * 5, 21) == ["Note:     a b c a b c", "          a b c a b c",
                                                     "          a b c"]
    assert prose("  ", "x " + "y" * 30 + " z", 20, hang="    ") == ["  x", "    " + "y" * 30, "    z"]
    assert prose("Note: ", "", 20) == ["Note:"]


def _summary_with_data_types(by_data_type: dict) -> SummaryReport:
    return SummaryReport(source="r.txt", format="poplar-text", target=Target(4, None, 1, 4, 1000),
                         printed=PrintedSummary(tiles_out_of_memory=0), info={"memory_by_data_type": by_data_type})


def test_a_summarys_largest_data_types_follow_poplars_block_with_their_share():
    # Poplar's order and names; 0 B items neither listed nor counted; ties keep the printed order.
    report = _summary_with_data_types({"Variables": 39_108, "Constants": 0, "Host Exchange Packet Headers": 10_512,
                                       "Stack": 3_852_288, "Control Code": 851_272, "Vertex Code": 170_788,
                                       "Host Exchange Code": 351_328, "Instrumentation Results": 351_328})
    summary = summarize(report)
    assert summary.data_types is not None and summary.data_types.total == 5_626_624
    assert data_types_lines(summary) == [
        "Data types over all tiles (share of the 5,626,624 B By Data Type lists):",
        "  Stack               3,852,288 B   68.5%",
        "  Control Code          851,272 B   15.1%",
        "  Host Exchange Code    351,328 B    6.2%",
        "  4 more                571,736 B   10.2%",
    ]
    text = render_report(summary)
    block_end = text.index("    0 tile(s) out of memory\n")
    assert text.index("Data types over all tiles") > block_end  # after Poplar's block, never inside it
    assert text.count("Data types over all tiles") == 1


def test_no_data_types_line_without_a_by_data_type_list_with_bytes():
    assert data_types_lines(summarize(_summary_with_data_types({"Variables": 0, "Stack": 0}))) == []
    assert data_types_lines(summarize(_summary_with_data_types({"Stack": 5, "Odd": "5", "Flag": True}))) == [
        "Data types over all tiles (share of the 5 B By Data Type lists):",
        "  Stack  5 B  100.0%",
    ]
    no_list = SummaryReport(source="r.txt", format="poplar-text", target=Target(4, None, 1, 4, 1000))
    assert summarize(no_list).data_types is None and data_types_lines(summarize(no_list)) == []


def test_past_the_ipus_listed_the_text_shows_those_holding_the_largest_tiles():
    """Issue 33 item 15: a report of 4,999 IPUs (one tile each) lists no 4,999 rows: the IPUs holding the largest
    tiles, in a column wide enough for their numbers, and a line on them all."""
    from memreport.render.text.report import per_ipu_lines
    from tests.builds import one_tile_per_ipu
    summary = summarize(one_tile_per_ipu(np.arange(5_000) % 500, over_at=(9, 4_500, 4_999), skipped=(4_998,)))
    assert per_ipu_lines(summary) == [
        "By IPU (4,999 IPUs: the 10 IPUs holding the largest tiles):",
        "    IPU   Tiles    Excluding gaps   Max tile    Max bytes  OOM tiles",
        "      9       1           2,000 B          9      2,000 B          1",
        "   4500       1           2,000 B       4500      2,000 B          1",
        "   4999       1           2,000 B       4999      2,000 B          1",
        "    499       1             499 B        499        499 B          0",
        "    999       1             499 B        999        499 B          0",
        "   1499       1             499 B       1499        499 B          0",
        "   1999       1             499 B       1999        499 B          0",
        "   2499       1             499 B       2499        499 B          0",
        "   2999       1             499 B       2999        499 B          0",
        "   3499       1             499 B       3499        499 B          0",
        "  3 of 4,999 IPUs hold a tile out of memory; the JSON lists the first 4,096 IPUs one by one",
        "  (per_ipu), and every tile's bytes, as the CSV does."]
    wide = summarize(one_tile_per_ipu(np.arange(200_000) % 500, over_at=(199_999,)))  # six digits: a wider column
    assert per_ipu_lines(wide)[1:4] == ["     IPU   Tiles    Excluding gaps   Max tile    Max bytes  OOM tiles",
                                        "  199999       1           2,000 B     199999      2,000 B          1",
                                        "     499       1             499 B        499        499 B          0"]
