"""A message's "bytes used" in the tiles tables (issue #23): its own column, never as excluding or including gaps."""
from __future__ import annotations

import json

from memreport.analysis import summarize
from memreport.model import OutOfMemoryMessage, PrintedSummary, SummaryReport, Target, TileDetail
from memreport.render.data import report as table
from memreport.render.markdown import report as markdown
from memreport.render.page import report as page_report
from memreport.render.text import report as text
from tests.builds import complete


def _report() -> SummaryReport:
    """A detailed tile that a message also names, a detailed tile none names, a tile only a message names."""
    def said(tile: int, used: int, line: int) -> OutOfMemoryMessage:
        return OutOfMemoryMessage(kind="tile-memory", line=line, text="...", tile=tile, bytes_used=used,
                                  bytes_per_tile=262_144)
    return SummaryReport(
        source="s.txt", format="poplar-text", target=Target(1216, "ipu1", 1, 1216, 262_144), printed=PrintedSummary(),
        detailed_tiles=(TileDetail(4, None, 300_000), TileDetail(5, None, 100_000)),
        oom_messages=(said(4, 301_000, 7), said(9, 525_496, 8)))


def test_the_text_table_has_a_column_for_what_the_message_states():
    assert text.top_tiles_lines(summarize(_report())) == [
        "Tiles as printed:",
        "      Tile   IPU    Excluding gaps    Used (message)  % of tile  From      Out of memory",
        "  !      4     0         300,000 B         301,000 B     114.4%  detailed  OUT OF MEMORY by 37,856 B",
        "         5     0         100,000 B                        38.1%  detailed",
        "  !      9     0                 ?         525,496 B          ?  message   OUT OF MEMORY",
        "  (! = out of memory)",
        "  (used (message) = the bytes its out-of-memory message says were used)",
    ]


def test_no_column_when_no_message_states_bytes():
    lines = text.top_tiles_lines(summarize(complete([700_000, 2])))
    assert "Used (message)" not in lines[1] and len(lines) == 5


def test_json_top_tiles_carry_the_stated_bytes_or_null():
    doc = json.loads(table.render_json([summarize(_report()), summarize(complete([1, 2]))]))
    assert [[t["stated_bytes_used"] for t in r["top_tiles"]] for r in doc["reports"]] == \
        [[301_000, None, 525_496], [None, None]]
    assert [t["excluding_gaps"] for t in doc["reports"][0]["top_tiles"]] == [300_000, 100_000, None]


def test_markdown_and_page_tables_have_the_column():
    summary = summarize(_report())
    md = markdown.tiles_table(summary, summary.top).splitlines()
    # The same columns, heads and cells as the text's table (render/cells.py), in Markdown's markup.
    assert md[0] == "| Tile | IPU | Excluding gaps | Used (message) | % of tile | From | Out of memory " \
        "| Largest data types |"
    assert md[2:] == ["| 4 | 0 | 300,000 B | 301,000 B | 114.4% | detailed | **OUT OF MEMORY by 37,856 B** |  |",
                      "| 5 | 0 | 100,000 B |  | 38.1% | detailed |  |  |",
                      "| 9 | 0 | ? | 525,496 B | ? | message | **OUT OF MEMORY** |  |",
                      "", "_(used (message) = the bytes its out-of-memory message says were used)_"]
    html = page_report.tiles_table(summary, summary.top, "r0")
    assert "<th class=num>Used (message)</th><th class=num>% of tile</th>" in html
    assert html.count("525,496 B") == 1 and html.count("301,000 B") == 1
    assert "Used (message)" not in page_report.tiles_table(summarize(complete([1, 2])), summarize(complete([1, 2])).top,
                                                          "r0")
