"""The diff renderers: golden text, the exact ``memreport-diff/1`` JSON, CSV rows."""
from __future__ import annotations

import numpy as np
import pytest

from memreport.analysis.diff import diff_reports
from memreport.model import PrintedSummary, SummaryReport, Target, TileBytes, TileDetail, TileReport
from memreport.render import RenderOptions, render
from memreport.render.data import diff as render_data
from memreport.render.text import diff as render_diff

from ...builds import LIMIT

GOLDEN_TEXT = """\
Verdict: 1 tile newly out of memory; 6 tiles changed (4 grew, 2 shrank)
         Out of memory: 2 tiles -> 2 tiles
         Worst growth: tile 3, 200,000 B -> 643,072 B (+443,072 B)

Old: old.a (ELF archive, per tile: complete)
New: new.a (ELF archive, per tile: complete)
Tiles:  8, 638,976 B per tile

                                        Old                 New       Delta
Total, excluding gaps           3,138,976 B         3,584,336 B  +445,360 B
Maximum, excluding gaps  700,000 B (tile 7)  700,000 B (tile 7)        +0 B
Tiles out of memory                       2                   2          +0

Newly out of memory (1): tile 3
No longer out of memory (1): tile 2

Changed tiles: 6 of 8 (4 grew, 2 shrank)
  Tile  IPU        Old        New       Delta
     3    0  200,000 B  643,072 B  +443,072 B  newly out of memory
     2    0  640,000 B  630,000 B   -10,000 B  no longer out of memory
     1    0  310,000 B  318,192 B    +8,192 B
     6    0  250,000 B  254,096 B    +4,096 B
  2 more changed tiles (--top to show more; --format json or csv lists all)

Fit plans of the 1 tile over in both builds: none grew in NEW (no more items to move, no more bytes
  over)

Verdict: 1 tile newly out of memory; 6 tiles changed (4 grew, 2 shrank)
"""


def test_text_is_golden(builds):
    assert render_diff.render_text(diff_reports(*builds), RenderOptions(top=4)) == GOLDEN_TEXT


def test_text_lists_every_change_within_top(builds):
    text = render_diff.render_text(diff_reports(*builds))
    assert "more changed tile" not in text
    assert text.endswith("     5    0  100,000 B   96,000 B    -4,000 B\n\n"
                         "Fit plans of the 1 tile over in both builds: none grew in NEW (no more items to move, "
                         "no more bytes\n  over)\n\n"
                         "Verdict: 1 tile newly out of memory; 6 tiles changed (4 grew, 2 shrank)\n")


def test_text_of_identical_builds(builds):
    old, _ = builds
    text = render_diff.render_text(diff_reports(old, old))
    assert "Newly out of memory" not in text
    assert text.endswith("Tiles out of memory                       2                   2     +0\n\n"
                         "No tile changed.\n\n"
                         "Fit plans of the 2 tiles over in both builds: none grew in NEW (no more items to move, "
                         "no more bytes\n  over)\n\n"
                         "Verdict: No tile newly out of memory; 0 tiles changed (0 grew, 0 shrank)\n")


def test_text_of_a_partial_diff_says_so(builds):
    old, _ = builds
    new = SummaryReport(
        source="new.txt", format="poplar-text", target=Target(8, None, 1, 1472, LIMIT),
        printed=PrintedSummary(max_excluding_gaps=TileBytes(7, 700_000), tiles_out_of_memory=1,
                               excluding_gaps=3_000_000, including_gaps=3_100_000),
        detailed_tiles=(TileDetail(7, None, 700_000), TileDetail(4, None, 600_000)))
    text = render_diff.render_text(diff_reports(old, new))  # the last line one line: without the aside
    assert text == """\
Verdict: Newly out of memory: unknown (a side does not state every tile's bytes); 1 tile changed
         (0 grew, 1 shrank)
         Out of memory: 2 tiles -> 1 tile

Old: old.a (ELF archive, per tile: complete)
New: new.txt (Poplar text summary, per tile: partial)
Tiles:  8, 638,976 B per tile
Note:   NEW (new.txt) is partial (a text summary): only the 2 tile(s) whose bytes both sides state
        are compared; totals, maxima and out-of-memory counts are as printed
Note:   out-of-memory changes tile by tile unknown: a text summary does not state every tile's bytes
        (the out-of-memory counts are compared)

                                        Old                 New       Delta
Total, excluding gaps           3,138,976 B         3,000,000 B  -138,976 B
Total, including gaps               unknown         3,100,000 B
Maximum, excluding gaps  700,000 B (tile 7)  700,000 B (tile 7)        +0 B
Tiles out of memory                       2                   1          -1

Changed tiles: 1 of 2 compared (0 grew, 1 shrank)
  Tile  IPU        Old        New      Delta
     4    0  638,976 B  600,000 B  -38,976 B

Fit plans of the 1 tile over in both builds: none grew in NEW (no more items to move, no more bytes
  over)

Verdict: Newly out of memory: unknown; 1 tile changed (0 grew, 1 shrank)
"""


def test_text_cuts_long_out_of_memory_lists():
    target = Target.for_arch("ipu2", 30)
    old = TileReport("a", "archive", target, np.zeros(30, dtype=np.int64))
    new = TileReport("b", "archive", target, np.full(30, LIMIT + 1))
    text = render_diff.render_text(diff_reports(old, new), RenderOptions(top=0))
    assert "Newly out of memory (30): tiles 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,\n" \
           "  19 and 10 more\n" in text  # 100 columns: wrapped under its first word
    assert text.endswith("Changed tiles: 30 of 30 (30 grew, 0 shrank)\n\n"
                         "Verdict: 30 tiles newly out of memory; 30 tiles changed (30 grew, 0 shrank)\n")


def test_render_picks_the_format(builds):
    diff = diff_reports(*builds)
    assert render("diff", "csv", diff) == render_data.render_csv(diff)
    assert render("diff", "json", diff) == render_data.render_json(diff)
    assert render("diff", "text", diff, RenderOptions(top=4)) == GOLDEN_TEXT
    with pytest.raises(ValueError, match="no diff renderer 'png' \\(choose from text, json, csv, markdown, html\\)"):
        render("diff", "png", diff)
