"""The target: an arch's figures, the invariants, and the one --arch/--tile-memory rule (model/target.py)."""
from __future__ import annotations

import pytest

from memreport.model import Target


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
