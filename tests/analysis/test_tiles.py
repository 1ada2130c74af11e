"""analysis/tiles.py: bin rule, histogram, top tiles, maxima, totals, per IPU, breakdowns."""
from __future__ import annotations

import numpy as np
import pytest

from memreport import analysis
from memreport.analysis import summarize
from memreport.errors import UnsupportedOperation
from memreport.model import (
    Bin,
    Histogram,
    PrintedSummary,
    SummaryReport,
    Target,
    TileBytes,
    TileDetail,
    TileReport,
)
from tests.builds import complete, one_tile_per_ipu


@pytest.mark.parametrize("low,high,width", [
    (4 * 1024, 5780, 1),                 # the Mk1 sample: 4 - 5, 5 - 6
    (0, 127 * 1024 + 1023, 1),          # exactly 128 one-KiB bins
    (0, 128 * 1024, 2),                  # 129 would be needed
    (0, 834_339, 8),                     # the imbalanced sample: 0 - 8 ... 808 - 816
    (0, 0, 1),
    (500 * 1024, 500 * 1024, 1),
    (0, 10 * 1024 ** 2, 128),
])
def test_choose_bin_kib(low, high, width):
    assert analysis.choose_bin_kib(low, high) == width


def test_histogram_from_full_data_matches_poplar_sample():
    values = np.full(1216, 4500)
    values[0] = 5780
    hist = analysis.histogram(complete(values, arch="ipu1"))
    assert hist == Histogram(1, (Bin(4, 5, 1215), Bin(5, 6, 1)))


def test_histogram_bins_are_aligned_and_count_every_tile():
    values = [0, 8191, 8192, 834_339, 512 * 1024 + 5]
    hist = analysis.histogram(complete(values))
    assert hist.bin_kib == 8
    assert hist.bins[0] == Bin(0, 8, 2) and hist.bins[1] == Bin(8, 16, 1)
    assert hist.bins[-1] == Bin(808, 816, 1)
    assert Bin(512, 520, 1) in hist.bins
    assert len(hist.bins) == 102 and hist.total == 5
    assert analysis.histogram(complete(values), bin_kib=100).bins[0] == Bin(0, 100, 3)


def test_printed_histogram_is_returned_as_printed():
    printed = Histogram(8, (Bin(0, 8, 3), Bin(8, 16, 2)))
    report = SummaryReport(source="r.txt", format="poplar-text", target=Target(num_tiles=5),
                          printed=PrintedSummary(histogram=printed, tiles_out_of_memory=2,
                                                 max_excluding_gaps=TileBytes(4, 9000)))
    assert analysis.histogram(report) is printed
    assert analysis.histogram(report, 8) is printed
    with pytest.raises(UnsupportedOperation, match="cannot be re-binned to 1 KiB"):
        analysis.histogram(report, 1)
    assert analysis.count_out_of_memory(report) == 2
    assert analysis.max_excluding_gaps(report) == TileBytes(4, 9000)
    assert analysis.max_including_gaps(report) is None
    assert analysis.out_of_memory(report) is None
    assert analysis.total_excluding_gaps(report) is None


def test_top_tiles_order_and_ties():
    report = complete([10, 50, 50, 7, 50, 60])
    assert [t.tile for t in analysis.top_tiles(report, 4)] == [5, 1, 2, 4]
    assert [t.tile for t in analysis.top_tiles(report, 100)] == [5, 1, 2, 4, 0, 3]
    assert analysis.top_tiles(report, 0) == []


def test_top_tiles_prefer_including_gaps():
    report = complete([10, 20, 30], including=[100, 20, 30])
    top = analysis.top_tiles(report, 2)
    assert [(t.tile, t.including_gaps, t.excluding_gaps) for t in top] == [(0, 100, 10), (2, 30, 30)]


def test_top_tiles_of_partial_report_are_the_detailed_tiles():
    details = (TileDetail(3, 900, 800, {"Variables": 700, "Stack": 100}), TileDetail(1, 500, 400))
    report = SummaryReport(source="r", format="poplar-text", target=Target.for_arch("ipu1", 1216),
                          detailed_tiles=details)
    top = analysis.top_tiles(report, 5)
    assert [(t.tile, t.ipu, t.excluding_gaps, t.out_of_memory) for t in top] == [(3, 0, 800, False),
                                                                               (1, 0, 400, False)]
    assert list(top[0].breakdown) == ["Variables", "Stack"]


def test_maxima_and_totals():
    report = complete([5, 9, 9, 1], including=[6, 9, 12, 1])
    assert analysis.max_excluding_gaps(report) == TileBytes(1, 9)
    assert analysis.max_including_gaps(report) == TileBytes(2, 12)
    assert analysis.total_excluding_gaps(report) == 24
    assert analysis.total_including_gaps(report) == 28
    no_gaps = complete([5, 9])
    assert analysis.max_including_gaps(no_gaps) is None and analysis.total_including_gaps(no_gaps) is None


def test_per_ipu():
    values = np.zeros(1472 * 2 + 10, dtype=np.int64)
    values[3] = 700_000
    values[1472 + 8] = 9
    report = complete(values)
    ipus = analysis.per_ipu(report)
    assert [(s.ipu, s.first_tile, s.num_tiles, s.excluding_gaps, s.max_excluding_gaps, s.tiles_out_of_memory)
            for s in ipus] == [(0, 0, 1472, 700_000, TileBytes(3, 700_000), 1),
                               (1, 1472, 1472, 9, TileBytes(1480, 9), 0),
                               (2, 2944, 10, 0, TileBytes(2944, 0), 0)]
    assert analysis.per_ipu(complete([1, 2], arch=None)) == []


def test_past_the_ipus_listed_one_by_one_every_ipu_in_brief():
    """Tiles spanning more than IPU_ROWS IPUs: the first IPU_ROWS listed, every IPU counted, those holding a tile out
    of memory counted, and the IPUs holding the largest tiles (the lowest among equals), never an object per IPU."""
    n = analysis.tiles.IPU_ROWS + 904
    values = np.arange(n) % 500
    report = one_tile_per_ipu(values, over_at=(9, 4_500, 4_999), skipped=(4_998,))
    summary = summarize(report)
    assert len(summary.per_ipu) == analysis.tiles.IPU_ROWS and summary.per_ipu[-1].ipu == analysis.tiles.IPU_ROWS - 1
    spread = summary.ipu_spread
    assert (spread.ipus, spread.listed, spread.left_out, spread.with_out_of_memory) == (n - 1, 4_096, 903, 3)
    assert [(s.ipu, s.max_excluding_gaps.bytes, s.tiles_out_of_memory) for s in spread.largest] == [
        (9, 2_000, 1), (4_500, 2_000, 1), (4_999, 2_000, 1), (499, 499, 0), (999, 499, 0), (1_499, 499, 0),
        (1_999, 499, 0), (2_499, 499, 0), (2_999, 499, 0), (3_499, 499, 0)]
    assert summarize(one_tile_per_ipu(np.ones(analysis.tiles.IPU_ROWS))).ipu_spread is None  # every IPU listed
    assert len(summarize(one_tile_per_ipu(np.ones(analysis.tiles.IPU_ROWS))).per_ipu) == analysis.tiles.IPU_ROWS


def test_breakdown_for_a_tile_skips_absent_and_uncounted():
    from memreport.model import Column
    values = np.array([3, 4], dtype=np.int64)
    report = TileReport(source="t", format="archive", target=Target(num_tiles=2), excluding_gaps=values,
                          breakdown={".text": Column(np.array([3, 1])), ".bss": Column(np.array([0, 3]),
                                     np.array([False, True])), ".comment": Column(np.array([9, 9]), counted=False)})
    assert analysis.tile_breakdown(report, 0) == {".text": 3}
    assert analysis.tile_breakdown(report, 1) == {".bss": 3, ".text": 1}
    assert analysis.tile_breakdown(report, 1, counted_only=False) == {".comment": 9, ".bss": 3, ".text": 1}


def test_totals_past_int64_are_exact():
    """Two tiles of 2**62 printed a negative total, exit 0 (issue #16)."""
    report = complete([2 ** 62, 2 ** 62, 2 ** 62 - 1, 5], arch="ipu2", bytes_per_tile=None)
    summary = summarize(report)
    assert summary.excluding_gaps == 3 * 2 ** 62 + 4
    assert [(s.ipu, s.excluding_gaps) for s in summary.per_ipu] == [(0, 3 * 2 ** 62 + 4)]


def test_a_message_states_bytes_used_of_its_own_never_as_gaps():
    """Issue #23: the "bytes used" of an out-of-memory message is kept beside the tile's own figures."""
    from memreport.model import OutOfMemoryMessage, PrintedSummary, SummaryReport, Target, TileDetail

    def said(tile, used, line):
        return OutOfMemoryMessage(kind="tile-memory", line=line, text="...", tile=tile, bytes_used=used,
                                  bytes_per_tile=262_144)
    report = SummaryReport(
        source="s.txt", format="poplar-text", target=Target(1216, None, 1, 1216, 262_144), printed=PrintedSummary(),
        detailed_tiles=(TileDetail(4, None, 300_000), TileDetail(5, None, 100_000)),
        oom_messages=(said(4, 301_000, 7), said(9, 525_496, 8), said(9, 1, 9)))
    rows = {t.tile: (t.excluding_gaps, t.stated_bytes_used, t.stated_by) for t in analysis.tiles.stated_tiles(report)}
    # the first message naming a tile states its bytes; a tile no message names states none
    assert rows == {4: (300_000, 301_000, "detailed"), 5: (100_000, None, "detailed"), 9: (None, 525_496, "message")}
    assert [t.stated_bytes_used for t in summarize(report).top] == [301_000, None, 525_496]
    assert [t.stated_bytes_used for t in summarize(complete([1, 2])).top] == [None, None]


def test_summarize_chooses_once_what_renderers_branch_on():
    """Issue #22: the per-tile arrays, a tensor map alone, a summary's rows and readable symbols, chosen once."""
    from memreport.analysis import TextSummary, TileSummary
    from memreport.model import PrintedSummary, SummaryReport, Target
    archive = complete([1, 2])
    whole = summarize(archive)
    assert isinstance(whole, TileSummary) and whole.tiles is archive and whole.kind == "tiles"
    assert archive.format == "archive" and whole.symbols_readable is True
    profile = summarize(archive.evolve(format="json-profile"))
    assert isinstance(profile, TileSummary) and profile.symbols_readable is False
    printed = summarize(SummaryReport(source="s.txt", format="poplar-text", target=Target(1216, None, 1, 1216, None),
                                      printed=PrintedSummary()))
    assert (type(printed), printed.kind, printed.top_order) == (TextSummary, "summary", None)
