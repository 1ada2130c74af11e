"""Diffing two builds: ordering, totals, out-of-memory changes, partial reports, pod scale."""
from __future__ import annotations

import time

import numpy as np
import pytest

import memreport
from memreport.analysis.diff import TileCountMismatch, choose_report, diff_reports
from memreport.analysis.results import BuildSummary, OutOfMemoryCount, TileChange
from memreport.model import (
    MemoryReport,
    PrintedSummary,
    StatedTarget,
    SummaryReport,
    Target,
    TileBytes,
    TileDetail,
    TileReport,
)
from memreport.render.words import diff_notes
from tests.builds import LIMIT, OLD, empty_tensor_map_report, write_build


def test_changed_tiles_largest_change_first_ties_by_tile(builds):
    diff = diff_reports(*builds)
    assert diff.tiles == (
        TileChange(3, 0, 200_000, 643_072, 443_072),
        TileChange(2, 0, 640_000, 630_000, -10_000),
        TileChange(1, 0, 310_000, 318_192, 8_192),
        TileChange(6, 0, 250_000, 254_096, 4_096),
        TileChange(0, 0, 300_000, 304_000, 4_000),
        TileChange(5, 0, 100_000, 96_000, -4_000),
    )
    assert (diff.num_changed, diff.num_grown, diff.num_shrunk, diff.compared_tiles) == (6, 4, 2, 8)
    assert diff.changes(2) == list(diff.tiles[:2])
    assert diff.per_tile == "complete" and diff_notes(diff) == ()


def test_a_build_that_newly_overflows_and_one_that_recovers(builds):
    old, new = builds
    diff = diff_reports(old, new)
    assert diff.newly_out_of_memory == (3,)
    assert diff.no_longer_out_of_memory == (2,)
    back = diff_reports(new, old)
    assert back.newly_out_of_memory == (2,)
    assert back.no_longer_out_of_memory == (3,)


def test_totals_and_maxima_before_and_after(builds):
    diff = diff_reports(*builds)
    old, new = builds
    assert diff.old == BuildSummary("old.a", None, "archive", "complete", 8, LIMIT, 3_138_976, None,
                                    TileBytes(7, 700_000), 2, report_label="old.a", oom=OutOfMemoryCount(2, 2),
                                    name=old.name)
    assert diff.new == BuildSummary("new.a", None, "archive", "complete", 8, LIMIT, 3_584_336, None,
                                    TileBytes(7, 700_000), 2, report_label="new.a", oom=OutOfMemoryCount(2, 2),
                                    name=new.name)
    assert (diff.total_delta, diff.total_including_gaps_delta, diff.max_delta, diff.out_of_memory_delta) == \
        (445_360, None, 0, 0)


def test_identical_builds_give_an_empty_diff(builds):
    old, _ = builds
    diff = diff_reports(old, old)
    assert diff.tiles == ()
    assert diff.newly_out_of_memory == diff.no_longer_out_of_memory == ()
    assert (diff.total_delta, diff.max_delta, diff.out_of_memory_delta) == (0, 0, 0)


def test_mismatched_tile_counts_are_an_error(builds, tmp_path):
    old, _ = builds
    write_build(tmp_path / "small.a", OLD[:5])
    with pytest.raises(TileCountMismatch, match=r"^old.a has 8 tiles but small.a has 5$"):
        diff_reports(old, memreport.read("small.a"))


def test_ipu_comes_from_tiles_per_ipu():
    target = Target.for_arch("ipu1", 2432)  # two Mk1 IPUs of 1,216 tiles
    a = np.zeros(2432, dtype=np.int64)
    b = a.copy()
    b[[5, 1216, 2431]] = [10, 30, 20]
    diff = diff_reports(TileReport("a", "archive", target, a), TileReport("b", "archive", target, b))
    assert [(c.tile, c.ipu, c.delta) for c in diff.tiles] == [(1216, 1, 30), (2431, 1, 20), (5, 0, 10)]


def test_unknown_bytes_per_tile_leaves_out_of_memory_unknown():
    a = TileReport("a.elf", "elf", Target(1), excluding_gaps=np.array([10]))
    b = TileReport("b.elf", "elf", Target(1), excluding_gaps=np.array([20]))
    diff = diff_reports(a, b)
    assert diff.newly_out_of_memory is None and diff.no_longer_out_of_memory is None
    assert diff.tiles == (TileChange(0, None, 10, 20, 10),)
    assert diff_notes(diff) == ("out-of-memory changes unknown: bytes per tile unknown (give --tile-memory or --arch)",)


def summary(source: str, details: dict[int, int], oom: int, total: int, peak: TileBytes) -> MemoryReport:
    """A text summary of an 8-tile Mk2 program detailing ``details`` (tile -> bytes)."""
    return SummaryReport(
        source=source, format="poplar-text", target=Target(8, None, 1, 1472, LIMIT),
        printed=PrintedSummary(max_excluding_gaps=peak, tiles_out_of_memory=oom, excluding_gaps=total,
                               including_gaps=total + 1000),
        detailed_tiles=tuple(TileDetail(t, None, b) for t, b in details.items()))


def test_two_text_summaries_compare_only_the_tiles_both_detail():
    old = summary("old.txt", {7: 700_000, 2: 640_000, 4: 638_976}, 2, 3_138_976, TileBytes(7, 700_000))
    new = summary("new.txt", {7: 700_000, 3: 643_072, 2: 630_000}, 2, 3_584_336, TileBytes(7, 700_000))
    diff = diff_reports(old, new)
    assert diff.compared_tiles == 2  # tiles 2 and 7
    assert diff.tiles == (TileChange(2, 0, 640_000, 630_000, -10_000),)
    # Out-of-memory changes tile by tile are unknown (None, not an empty list): neither side states every tile.
    assert diff.newly_out_of_memory is None and diff.no_longer_out_of_memory is None
    assert (diff.total_delta, diff.total_including_gaps_delta, diff.out_of_memory_delta) == (445_360, 445_360, 0)
    assert diff.per_tile == "partial"
    assert diff_notes(diff) == (
        "OLD (old.txt) and NEW (new.txt) are partial (a text summary): only the 2 tile(s) whose "
                          "bytes both sides state are compared; totals, maxima and out-of-memory counts are as printed",
                          "out-of-memory changes tile by tile unknown: a text summary does not state every tile's "
                          "bytes (the out-of-memory counts are compared)")


def test_summaries_sharing_no_detailed_tile_compare_their_maximum_lines():
    old = summary("a.txt", {3: 5_000}, 0, 40_000, TileBytes(0, 5_780))
    new = summary("b.txt", {5: 700_000}, 2, 1_900_000, TileBytes(0, 834_339))
    diff = diff_reports(old, new)
    assert diff.compared_tiles == 1
    assert diff.tiles == (TileChange(0, 0, 5_780, 834_339, 828_559),)
    assert (diff.max_delta, diff.out_of_memory_delta) == (828_559, 2)
    assert diff.newly_out_of_memory is None


def test_summaries_stating_no_common_tile_compare_none():
    old = summary("a.txt", {3: 5_000}, 0, 40_000, TileBytes(1, 5_780))
    new = summary("b.txt", {5: 700_000}, 2, 1_900_000, TileBytes(0, 834_339))
    assert diff_reports(old, new).compared_tiles == 0


def test_a_text_summary_against_a_complete_build(builds):
    old, _ = builds
    new = summary("new.txt", {7: 700_000, 3: 643_072, 2: 630_000}, 2, 3_584_336, TileBytes(7, 700_000))
    diff = diff_reports(old, new)
    assert diff.compared_tiles == 3
    assert diff.tiles == (TileChange(3, 0, 200_000, 643_072, 443_072), TileChange(2, 0, 640_000, 630_000, -10_000))
    assert diff.newly_out_of_memory is None and diff.no_longer_out_of_memory is None
    assert diff.total_delta == 445_360 and diff.total_including_gaps_delta is None
    assert diff_notes(diff)[0].startswith("NEW (new.txt) is partial (a text summary): only the 3 tile(s)")


def test_choose_report_takes_the_largest_and_says_so():
    target = Target.for_arch("ipu2", 2)
    small = SummaryReport("t.rep", "poplar-text", target, module="init",
                         printed=PrintedSummary(excluding_gaps=10))
    large = SummaryReport("t.rep", "poplar-text", target, module="main",
                         printed=PrintedSummary(excluding_gaps=20))
    assert choose_report([small, large]) is large and choose_report([small]) is small
    notes = diff_notes(diff_reports(small, large, of_reports=(1, 2)))
    assert notes[0] == "t.rep holds 2 reports; comparing the largest (module main)"


def test_a_side_of_unknown_tile_count_is_compared_by_tile_id(builds):
    """A lone ``Tile # N`` excerpt gives no tile count: nothing to check against, and the diff says so."""
    from memreport.model import ReportPosition
    old, _ = builds
    lone = SummaryReport("tile.txt", "poplar-text", Target(0),
                         detailed_tiles=(TileDetail(2, None, 650_000),))
    diff = diff_reports(old, lone)
    assert diff.tiles == (TileChange(2, 0, 640_000, 650_000, 10_000),)
    assert "the tile count of tile.txt is unknown: tiles are compared by id" in diff_notes(diff)
    assert diff.new.num_tiles is None and diff.old.num_tiles == old.num_tiles
    import json

    from memreport.render.data.diff import render_json
    assert json.loads(render_json(diff))["new"]["num_tiles"] is None
    second = lone.evolve(position=ReportPosition(40, 2, 2), printed=PrintedSummary(excluding_gaps=9))
    first = lone.evolve(position=ReportPosition(1, 1, 2))
    assert choose_report([first, second]) is second
    assert diff_notes(diff_reports(old, second, of_reports=(1, 2)))[0] == \
        "tile.txt holds 2 reports; comparing the largest (#2, line 40)"


def test_a_pod_diffs_well_under_a_second():
    n = 94_208  # 64 Mk2 IPUs
    rng = np.random.default_rng(6)
    old = rng.integers(100_000, 600_000, n)
    new = old + rng.integers(-5_000, 5_000, n)
    target = Target.for_arch("ipu2", n)
    a, b = TileReport("a", "archive", target, old), TileReport("b", "archive", target, new)
    start = time.perf_counter()
    diff = diff_reports(a, b)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5, elapsed
    assert diff.num_changed == int(np.count_nonzero(new != old))
    assert int(diff.delta.sum()) == int((new - old).sum())
    assert np.all(np.abs(diff.delta[:-1]) >= np.abs(diff.delta[1:]))


# ---------------------------------------------------------------- what cannot be diffed, what is partial, and why

def test_a_tensor_map_cannot_be_diffed(builds):
    from memreport.errors import UnsupportedOperation
    old, _ = builds
    tensor_map = empty_tensor_map_report(Target(8))
    for pair in ((tensor_map, tensor_map), (old, tensor_map)):
        with pytest.raises(UnsupportedOperation, match="^diff: tm.json: a tensor map counts elements, not bytes"):
            diff_reports(*pair)


def test_a_partial_report_that_is_not_a_summary_is_not_called_one(builds):
    old, new = builds
    notes = diff_notes(diff_reports(old, skipping(new, 3)))
    assert notes[0] == "NEW (new.a) has 1 tile(s) of unknown bytes (damaged members skipped): they are not compared"
    assert not any("text summary" in note for note in notes)


def skipping(report: MemoryReport, *tiles: int) -> MemoryReport:
    """``report`` as --skip-bad-members reads it when the members of ``tiles`` are damaged."""
    values = report.excluding_gaps.copy()
    values[list(tiles)] = 0
    return TileReport(report.source, report.format, report.target, excluding_gaps=values,
                        skipped=tuple(memreport.SkippedMember(t, f"tile_{t}.elf", "not an ELF file") for t in tiles))


def test_skipped_members_leave_the_same_tiles_out_of_both_sides_totals(builds):
    old, _ = builds
    diff = diff_reports(skipping(old, 7), old)  # the same build: tile 7 (700,000 B, out of memory) unreadable in OLD
    assert diff.num_changed == 0 and diff.compared_tiles == 7
    assert diff.figures_over == "compared tiles"
    assert diff.total_delta == 0 and diff.max_delta == 0 and diff.out_of_memory_delta == 0
    assert diff.old.total_excluding_gaps == diff.new.total_excluding_gaps == sum(OLD) - 700_000
    assert diff.new.max_excluding_gaps == TileBytes(2, 640_000) and diff.new.tiles_out_of_memory == 1
    assert ("totals, maxima and out-of-memory counts of both sides are over the 7 compared tile(s) only: a tile "
            "skipped on one side is left out of both") in diff_notes(diff)


def test_skipped_members_against_a_summary_give_no_deltas(builds):
    old, _ = builds
    summary = SummaryReport("s.txt", "poplar-text", Target(8, None, 1, 1472, LIMIT),
                           printed=PrintedSummary(max_excluding_gaps=TileBytes(7, 700_000), tiles_out_of_memory=2,
                                                  excluding_gaps=sum(OLD)),
                           detailed_tiles=(TileDetail(7, None, 700_000),))
    diff = diff_reports(skipping(old, 7), summary)
    assert diff.figures_over == "not comparable"
    assert diff.old.total_excluding_gaps == sum(OLD) - 700_000 and diff.new.total_excluding_gaps == sum(OLD)
    assert diff.total_delta is None and diff.max_delta is None and diff.out_of_memory_delta is None
    assert any(n.startswith("totals, maxima and out-of-memory counts are not compared") for n in diff_notes(diff))


def test_the_diff_shows_a_summarys_out_of_memory_bound_and_why(builds):
    old, _ = builds
    summary = SummaryReport("s.txt", "poplar-text", Target(8, None, 1, 1472, 600_000),  # --tile-memory 600000
                           stated=StatedTarget(8, bytes_per_tile=LIMIT),
                           printed=PrintedSummary(tiles_out_of_memory=2),
                           detailed_tiles=(TileDetail(7, None, 700_000), TileDetail(4, None, 620_000)))
    diff = diff_reports(old, summary)
    assert diff.new.tiles_out_of_memory is None and diff.new.out_of_memory_at_least == 2
    assert diff.out_of_memory_delta is None
    assert ("NEW (s.txt) out-of-memory count: at least 2 tile(s) out of memory (from its printed detailed tiles; "
            "its printed count, 2, is for the 638,976 B per tile it printed, not 600,000 B)") in diff_notes(diff)
