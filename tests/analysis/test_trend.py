"""A trend over builds: each build's figures and change, and when each tile out of memory in the last went over,
with builds that cannot say (a text summary, skipped members, bytes per tile unknown) never guessed at."""
from __future__ import annotations

import numpy as np
import pytest

from memreport.analysis.results import TileHistory
from memreport.analysis.trend import OVER, UNKNOWN, WITHIN, status_of, trend
from memreport.errors import UnsupportedOperation
from memreport.model import Target, TileBytes, TileReport
from tests.builds import empty_tensor_map_report
from tests.synth.trend import LIMIT, build, summary_report, tiles


def statuses(builds, tile_ids) -> list[list[int]]:
    return [status_of(b, np.array(tile_ids)).tolist() for b in builds]


def test_each_tile_out_of_memory_in_the_last_build_with_when_it_went_over():
    builds = [build(tiles([50, 150, 50, 50]), "b0"),    # tile 1 over
              build(tiles([150, 50, 50, 120]), "b1"),   # tiles 0 and 3 go over, 1 back under
              build(tiles([150, 150, 50, 120]), "b2"),  # 1 over again
              build(tiles([150, 150, 101, 120]), "b3")]  # 2 goes over
    t = trend(builds)
    assert t.histories() == [  # the latest to go over first, then by tile
        TileHistory(2, 0, 101, first=3, first_certain=True, since=3, stayed=True, went_over=True),
        TileHistory(0, 0, 150, first=1, first_certain=True, since=1, stayed=True, went_over=True),
        TileHistory(3, 0, 120, first=1, first_certain=True, since=1, stayed=True, went_over=True),
        TileHistory(1, 0, 150, first=0, first_certain=True, since=2, stayed=False, went_over=False)]
    assert t.num_tiles == 4 and [h.tile for h in t.histories(2)] == [2, 0]
    assert statuses(t.builds, [1, 2]) == [[OVER, WITHIN], [WITHIN, WITHIN], [OVER, WITHIN],
                                                             [OVER, OVER]]


def test_a_build_that_cannot_say_leaves_the_history_unknown_there():
    # tile 1: within in b0, unknown in the summary, over in b2: it went over in the summary or in b2
    builds = [build(tiles([150, 50, 50, 50]), "b0"), build(summary_report(), "summary"),
              build(tiles([150, 150, 50, 50]), "b2")]
    t = trend(builds)
    assert builds[1].over is None
    assert statuses(t.builds, [0, 1]) == [[OVER, WITHIN], [UNKNOWN, UNKNOWN], [OVER, OVER]]
    assert t.histories() == [
        TileHistory(1, 0, 150, first=2, first_certain=False, since=2, stayed=True, went_over=False),
        # over in b0 and b2: whether it stayed over through the summary is unknown
        TileHistory(0, 0, 150, first=0, first_certain=True, since=2, stayed=None)]


def test_skipped_members_are_unknown_tiles_not_tiles_within_memory():
    builds = [build(tiles([50, 0, 50], skipped=[1]), "b0"), build(tiles([50, 150, 50]), "b1")]
    assert builds[0].unknown.tolist() == [1]
    t = trend(builds)
    assert t.histories() == [TileHistory(1, 0, 150, first=1, first_certain=False, since=1, stayed=True)]


def test_a_build_that_cannot_say_before_one_within_memory_leaves_only_earlier_unknown():
    builds = [build(summary_report(), "summary"), build(tiles([50, 50, 50, 50]), "b1"),
              build(tiles([50, 150, 50, 50]), "b2")]
    # within in b1, over in b2: it went over in b2, though it may have been over in the summary too
    assert trend(builds).histories() == [
        TileHistory(1, 0, 150, first=2, first_certain=False, since=2, stayed=True, went_over=True)]


def test_a_tile_a_build_did_not_have_was_no_tile_of_it():
    t = trend([build(tiles([50, 50]), "b0"), build(tiles([50, 50, 150]), "b1")])
    assert t.histories() == [TileHistory(2, 0, 150, first=1, first_certain=True, since=1, stayed=True,
                                         went_over=True)]


def test_bytes_per_tile_unknown_is_no_tile_status():
    unknown = build(TileReport("t.elf", "elf", Target(2), np.array([150, 50])), "b0")  # not IPU code
    assert unknown.over is None and unknown.figures.bytes_per_tile is None
    assert unknown.headroom is None and unknown.share is None and unknown.count.count is None


def test_the_last_build_without_per_tile_status_has_no_histories():
    t = trend([build(tiles([150, 50, 50, 50]), "b0"), build(summary_report(oom=2), "summary")])
    assert t.tiles is None and t.num_tiles == 0 and t.histories() == []
    assert t.last.count.count == 2


def test_every_figure_of_a_build_and_its_change():
    t = trend([build(tiles([50, 150, 50, 50]), "b0"), build(tiles([50, 150, 50, 60]), "b1"),
               build(summary_report(), "summary"), build(tiles([0, 0, 0, 0]), "zero"),
               build(tiles([10, 0, 0, 0]), "after zero")])
    first, second, printed, zero, after = t.builds
    assert (first.worst, first.share, first.headroom, first.count.count) == (TileBytes(1, 150), 1.5, -50, 1)
    assert (first.change, first.change_share) == (None, None)
    assert (second.change, second.change_share) == (10, 10 / 300)
    assert (printed.figures.total_excluding_gaps, printed.change) == (400, 90)  # the printed total
    assert (zero.change, zero.change_share) == (-400, -1.0)
    assert (after.change, after.change_share) == (10, None)  # no share of nothing
    assert zero.worst == TileBytes(0, 0) and zero.headroom == LIMIT and zero.count.count == 0


def test_a_tensor_map_holds_no_bytes_to_trend():
    report = empty_tensor_map_report(Target(4, "ipu2", 1, 4, LIMIT))
    with pytest.raises(UnsupportedOperation, match=r"trend: tm\.json: a tensor map counts elements, not bytes"):
        build(report, "map")


def test_no_build_is_no_trend():
    with pytest.raises(ValueError, match="at least one build"):
        trend([])


def test_a_pod_of_tiles_costs_arrays_not_objects():
    n = 94_208
    values = np.full(n, 50, dtype=np.int64)
    values[::2] = 150
    t = trend([build(tiles(values), "b0"), build(tiles(values[::-1].copy()), "b1")])
    assert t.num_tiles == n // 2 and t.tiles.dtype == np.int64
    assert t.first.tolist().count(1) == n // 2 and not t.stayed.min() < 1
