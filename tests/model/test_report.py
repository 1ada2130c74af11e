"""Reports check their own invariants, hold only what their kind holds, and are named from facts."""
from __future__ import annotations

import numpy as np
import pytest

from memreport.model import Column, SummaryReport, Target, TileDetail, TileReport
from tests.builds import empty_tensor_map_report


def test_report_invariants():
    t = Target(num_tiles=2)
    with pytest.raises(ValueError, match="excluding_gaps has 3 values for 2 tiles"):
        TileReport("s", "archive", t, excluding_gaps=np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="negative size"):
        TileReport("s", "archive", t, excluding_gaps=np.array([1, -1]))
    with pytest.raises(TypeError, match="1-D integer numpy array"):
        TileReport("s", "archive", t, excluding_gaps=np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="excluding_gaps"):  # including gaps alone is no kind of report
        TileReport("s", "archive", t, including_gaps=np.array([1, 2]))
    with pytest.raises(ValueError, match="breakdown '.text' has 1 values for 2 tiles"):
        TileReport("s", "archive", t, excluding_gaps=np.array([1, 2]), breakdown={".text": Column(np.array([1]))})
    with pytest.raises(ValueError, match="1 tile names for 2 tiles"):
        TileReport("s", "archive", t, excluding_gaps=np.array([1, 2]), tile_names=["a"])
    with pytest.raises(ValueError, match="detailed tile 5 outside 0..1"):
        SummaryReport("s", "poplar-text", t, detailed_tiles=(TileDetail(5, 1, 1),))
    with pytest.raises(ValueError, match="present must be a bool array"):
        Column(np.array([1, 2]), np.array([1, 0]))


def test_per_tile_view():
    t = Target(num_tiles=2)
    assert TileReport("s", "archive", t, excluding_gaps=np.array([1, 2])).per_tile == "complete"
    assert SummaryReport("s", "poplar-text", t).per_tile == "partial"
    assert "per_tile=partial" in repr(SummaryReport("s", "poplar-text", t))


def test_a_kind_holds_only_what_it_knows():
    """No stand-in fields: a summary has no per-tile arrays, a tile report no printed figures (issue #29)."""
    from memreport.model import PrintedSummary
    t = Target(num_tiles=2)
    printed = SummaryReport("s.txt", "poplar-text", t, printed=PrintedSummary(tiles_out_of_memory=0))
    tiles = TileReport("a.a", "archive", t, excluding_gaps=np.array([1, 2]))
    assert (printed.kind, tiles.kind, empty_tensor_map_report(t).kind) == ("summary", "tiles", "tensor-map")
    assert not hasattr(printed, "excluding_gaps") and not hasattr(printed, "symbols")
    assert not hasattr(tiles, "printed") and not hasattr(tiles, "oom_messages")
    assert not hasattr(empty_tensor_map_report(t), "excluding_gaps")


def test_a_report_of_a_log_is_named_by_its_place():
    from memreport.model import ReportPosition
    report = SummaryReport(source="run.log", format="poplar-text", target=Target(8))
    assert report.label == "run.log"
    assert report.evolve(position=ReportPosition(12_345, 2, 3)).label == "run.log#2 (line 12,345)"
    assert report.evolve(position=ReportPosition(40, 1, 1)).label == "run.log (line 40)"
    assert report.evolve(position=ReportPosition(1, 1, 1)).label == "run.log"
    assert report.evolve(module="m", position=ReportPosition(7, 1, 2)).label == "run.log (module m)"


def test_a_name_is_built_once_from_facts():
    """A report's name, its part among its file's reports, and its short form: one builder (issue #29)."""
    from memreport.model import ReportName
    second = ReportName("run.log", None, 2, 3, 12_345)
    assert (second.label, second.part, second.part_label, second.short_label) == \
        ("run.log#2 (line 12,345)", "#2", "#2", "run.log#2")
    module = ReportName("t.rep", "main", 1, 2, 7)
    assert (module.label, module.part, module.part_label, module.short_label) == \
        ("t.rep (module main)", "main", "module main", "t.rep (module main)")
    whole = ReportName("a.a")
    assert (whole.label, whole.part, whole.part_label, whole.short_label) == ("a.a", None, None, "a.a")
