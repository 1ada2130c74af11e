"""The model checks its own invariants."""
from __future__ import annotations

import numpy as np
import pytest

from memreport.model import Column, SummaryReport, Target, TileDetail, TileReport
from tests.builds import empty_tensor_map_report


def test_target_for_arch():
    t = Target.for_arch("ipu2", 94_208)
    assert (t.arch, t.num_ipus, t.tiles_per_ipu, t.bytes_per_tile) == ("ipu2", 64, 1472, 638_976)
    assert t.ipu_of(94_207) == 63 and t.ipu_of(1471) == 0 and t.ipu_of(1472) == 1
    assert Target.for_arch(None, 3).ipu_of(2) is None
    assert Target.for_arch("ipu1", 10, 1000).bytes_per_tile == 1000


@pytest.mark.parametrize("kwargs,message", [
    ({"num_tiles": -1}, "num_tiles must be >= 0"),
    ({"num_tiles": 1, "bytes_per_tile": 0}, "bytes_per_tile must be positive"),
    ({"num_tiles": 1, "arch": "ipu9"}, "unknown arch"),
])
def test_target_invariants(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Target(**kwargs)


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


def test_arch_is_inferred_only_from_figures_an_arch_has():
    from memreport.model import StatedTarget, inferred_arch, resolve_target
    assert (inferred_arch(1216, 262_144), inferred_arch(1472, 638_976), inferred_arch(1472, 262_144)) == \
        ("ipu1", "ipu2", None)
    stated = StatedTarget(1216, tiles_per_ipu=1216, bytes_per_tile=262_144, source_kind="summary", infer_arch=True)
    target, notes = resolve_target(stated)
    assert target.arch == "ipu1"
    assert notes == ["arch ipu1 inferred from the summary's 1,216 tiles per IPU x 262,144 B per tile "
                     "(it names no arch)"]
    assert resolve_target(stated, arch="ipu2") == (Target(1216, "ipu2", 1, 1216, 262_144), [])  # given: no note
    assert resolve_target(StatedTarget(1216, tiles_per_ipu=1216, bytes_per_tile=262_144))[0].arch is None


def test_out_of_memory_messages_and_positions_check_themselves():
    from memreport.model import Histogram, OutOfMemoryMessage, ReportPosition
    with pytest.raises(ValueError, match="kind must be one of"):
        OutOfMemoryMessage(kind="oops", line=1, text="")
    with pytest.raises(ValueError, match="bytes_used must be in"):
        OutOfMemoryMessage(kind="tile-memory", line=1, text="", bytes_used=2 ** 63)
    with pytest.raises(ValueError, match="report position"):
        ReportPosition(line=3, index=2, count=1)
    with pytest.raises(ValueError, match="elided_before"):
        Histogram(1, (), (1,))
    message = OutOfMemoryMessage(kind="tile-memory", line=1, text="", tile=9)
    with pytest.raises(ValueError, match="names tile 9, outside 0..7"):
        SummaryReport(source="s", format="poplar-text", target=Target(8), oom_messages=(message,))
    unknown = SummaryReport(source="s", format="oom-messages", target=Target(0), oom_messages=(message,))
    assert not unknown.num_tiles_known


def test_a_report_of_a_log_is_named_by_its_place():
    from memreport.model import ReportPosition
    report = SummaryReport(source="run.log", format="poplar-text", target=Target(8))
    assert report.label == "run.log"
    assert report.evolve(position=ReportPosition(12_345, 2, 3)).label == "run.log#2 (line 12,345)"
    assert report.evolve(position=ReportPosition(40, 1, 1)).label == "run.log (line 40)"
    assert report.evolve(position=ReportPosition(1, 1, 1)).label == "run.log"
    assert report.evolve(module="m", position=ReportPosition(7, 1, 2)).label == "run.log (module m)"


# ---------------------------------------------------------------- sums past int64 (issue #16)

def test_exact_sum_does_not_wrap():
    from memreport.model import exact_sum
    assert exact_sum(np.array([2 ** 62, 2 ** 62], dtype=np.int64)) == 2 ** 63  # numpy's sum: -2**63
    assert exact_sum(np.array([2 ** 63 - 1] * 5 + [7], dtype=np.int64)) == 5 * (2 ** 63 - 1) + 7
    assert exact_sum(np.array([-2 ** 62, -2 ** 62, 3], dtype=np.int64)) == -2 ** 63 + 3
    assert exact_sum(np.array([1, 2, 3], dtype=np.uint8)) == 6
    assert exact_sum(np.zeros(0, dtype=np.int64)) == 0


def test_sums_by_bin_are_exact_or_an_overflow_error():
    from memreport.model import check_sums, sums_by
    index = np.array([0, 1, 1, 2])
    values = np.array([5, 2 ** 62, 2 ** 62 - 1, 2 ** 62], dtype=np.int64)
    assert sums_by(index, values, 4).tolist() == [5, 2 ** 63 - 1, 2 ** 62, 0]
    with pytest.raises(OverflowError, match=r"^tile 1 sum to 9,223,372,036,854,775,808: 2\*\*63 or more$"):
        sums_by(index, values + np.array([0, 0, 1, 0]), 4, "tile")
    check_sums(index, values, 4)  # fits: no error
