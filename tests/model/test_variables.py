"""Variables: the checks on building them, and every figure against a byte-by-byte count of the ranges."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memreport.model import Interference, Variables
from tests.synth.variables import variables


def covered(ranges: list[tuple[int, int]], memory: int = 64) -> np.ndarray:
    """How many ranges cover each byte."""
    count = np.zeros(memory, dtype=np.int64)
    for offset, size in ranges:
        count[offset:offset + size] += 1
    return count


tiles_of_ranges = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 48), st.integers(0, 16)), max_size=12)


@settings(max_examples=200, deadline=None)
@given(tiles_of_ranges, st.data())
def test_every_figure_is_the_byte_count_of_the_ranges(ranges, data):
    cats = data.draw(st.lists(st.integers(0, 1), min_size=len(ranges), max_size=len(ranges)))
    v = variables(ranges, categories=cats)
    totals = v.tile_totals()
    for tile in range(2):
        mine = [(o, s) for t, o, s in ranges if t == tile]
        count = covered(mine)
        assert totals.excluding_gaps[tile] == int(np.count_nonzero(count))
        assert totals.including_gaps[tile] == max((o + s for o, s in mine), default=0)
        assert sum(int(c[tile]) for c in totals.by_category.values()) == totals.excluding_gaps[tile]
        where = v.on_tile(tile)
        spans = [(int(o), int(s)) for o, s in zip(v.offset[where], v.size[where])]
        for i, (o, s) in enumerate(spans):
            others = covered(spans[:i] + spans[i + 1:])
            assert v.frees(tile)[i] == int(np.count_nonzero(others[o:o + s] == 0)), (tile, i)
        chosen = data.draw(st.lists(st.integers(0, max(len(spans) - 1, 0)), max_size=4)) if spans else []
        kept = [sp for i, sp in enumerate(spans) if i not in chosen]
        assert v.frees_of(tile, chosen) == int(np.count_nonzero(count)) - int(np.count_nonzero(covered(kept)))


def test_a_shared_byte_counts_for_the_category_of_the_variable_laid_lowest():
    # b [0, 10) and a [5, 20): the shared [5, 10) counts for b, which starts lower; c [5, 8) adds nothing.
    v = variables([(0, 5, 15), (0, 0, 10), (0, 5, 3)], categories=[0, 1, 1])
    totals = v.tile_totals()
    assert totals.excluding_gaps.tolist() == [20, 0]
    assert {k: c.tolist() for k, c in totals.by_category.items()} == {"a": [10, 0], "b": [10, 0]}
    rows = v.tile_variables(0)
    assert [(r.name, r.bytes, r.frees) for r in rows] == [("v0", 15, 10), ("v1", 10, 5), ("v2", 3, 0)]
    assert v.by_name(0) == {"v0": 15, "v1": 10, "v2": 3}


def test_variables_are_checked_when_built():
    good = {"num_tiles": 1, "tile": np.zeros(2, np.int64), "offset": np.array([0, 8]), "size": np.array([8, 8]),
                "category": np.zeros(2, np.int64), "always_live": np.zeros(2, bool), "interleaved": np.zeros(2, bool),
                "name_index": np.array([0, 1]), "categories": ("x",), "names": ("a", "b"), "var_id": np.array([3, 4]),
                "tile_memory": 16}
    Variables(**good)
    for change, words in (({"tile": np.array([0, 1])}, "tile outside 0..0"),
                          ({"size": np.array([8, 9])}, "ends past the tile memory (16 B)"),
                          ({"offset": np.array([8, 0])}, "sorted by tile, then offset"),
                          ({"size": np.array([-1, 8])}, "negative"),
                          ({"name_index": np.array([0, 2])}, "name_index outside 0..1"),
                          ({"always_live": np.zeros(3, bool)}, "bool numpy array of 2"),
                          ({"var_id": np.array([1])}, "var_id has 1 entries for 2")):
        with pytest.raises((TypeError, ValueError), match=re.escape(words)):
            Variables(**{**good, **change})


def test_interference_is_read_either_way_round():
    table = Interference(np.array([1, 4]), np.array([0, 1, 1]), np.array([4]))
    assert table.of(1).tolist() == [4] and table.of(4).tolist() == [] and table.of(2).tolist() == []
    assert table.listing(4).tolist() == [1]
    with pytest.raises(ValueError, match="ascending"):
        Interference(np.array([4, 1]), np.array([0, 1, 1]), np.array([4]))
    v = variables([(0, 0, 8), (0, 0, 8), (0, 16, 8)], always_live=[False, False, False])
    v = Variables(**{**v.__dict__, "equivalence_class": np.array([1, 4, 2]), "interference": table})
    assert v.live_with(1).tolist() == [0]  # class 4 is listed by class 1 only
    assert v.live_with(2).tolist() == []
