"""Always-live against not-always-live bytes: per tile, per IPU, over the program, by program step."""
from __future__ import annotations

from memreport.analysis import summarize
from memreport.analysis.liveness import Liveness, StepPeak, step_peak, summarize_liveness, tile_liveness
from memreport.model.liveness import walk
from tests.synth.liveness import TREE, report


def test_a_tiles_pressure():
    basis = "the most live at once (maxBytesByTile)"
    assert tile_liveness(report(), 0) == Liveness(400, 100, basis)
    assert tile_liveness(report(), 0).pressure == "always-live" and tile_liveness(report(), 0).always_live_share == 0.8
    assert tile_liveness(report(), 1).pressure == "not-always-live"
    assert tile_liveness(report(), 2).pressure == "even"
    assert Liveness(0, 0, basis).pressure is None and Liveness(0, 0, basis).always_live_share is None
    assert tile_liveness(report(liveness=False), 0) is None


def test_program_steps_are_walked_depth_first_and_the_first_peak_wins():
    assert [(path, s.bytes) for path, s in walk(TREE)] == [("0", 100), ("0.0", 900), ("0.1", 40), ("1", 900)]
    assert step_peak(TREE) == (4, StepPeak("0.0", "fwd", 900))
    assert step_peak(()) == (0, None)


def test_the_program_summary():
    summary = summarize_liveness(report(TREE), [3, 1, 0])
    assert summary.total == Liveness(650, 1750, "the most live at once (maxBytesByTile)")
    assert summary.top_pressure == {"not-always-live": 2, "always-live": 1}
    assert (summary.num_steps, summary.peak, summary.peak_live_bytes) == (4, StepPeak("0.0", "fwd", 900), 1550)
    steps_only = summarize_liveness(report(TREE, liveness=False), [0])
    assert steps_only.total is None and steps_only.peak_live_bytes is None and steps_only.num_steps == 4
    assert summarize_liveness(report(liveness=False), [0]) is None


def test_summaries_carry_liveness_per_tile_and_per_ipu_and_category_totals():
    s = summarize(report(TREE), top=2)
    assert [t.tile for t in s.top] == [3, 1] and s.top[0].liveness == Liveness(100, 900, s.top[0].liveness.basis)
    assert [i.liveness for i in s.per_ipu] == [Liveness(500, 800, s.liveness.total.basis),
                                               Liveness(150, 950, s.liveness.total.basis)]
    assert dict(s.breakdown_totals) == {"variable": 1750, "vertexCode": 650}
    assert [dict(i.breakdown) for i in s.per_ipu] == [{"variable": 800, "vertexCode": 500},
                                                      {"variable": 950, "vertexCode": 150}]
