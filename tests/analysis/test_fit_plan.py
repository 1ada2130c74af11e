"""The fit plan against brute force on random small tiles (every subset tried), with additive items and with
variables whose ranges overlap; its bound where it is greedy; its JSON key by key."""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memreport.analysis import fit_search
from memreport.analysis.fit_plan import (
    ALWAYS_LIVE,
    NOT_ALWAYS_LIVE,
    FitItem,
    FitItems,
    fit_plan,
    variable_items,
    variable_plans,
)
from memreport.readers.documents.lowered_vars import lowered_report
from tests.synth import lowered as synth
from tests.synth.variables import variables


def brute_force(items: FitItems, gap: int) -> tuple[int, int] | None:
    """(fewest items, then fewest bytes) of any set freeing ``gap``, trying every set; None when none does."""
    n = len(items.items)
    for k in range(n + 1):
        costs = [sum(items.items[i].bytes for i in chosen) for chosen in combinations(range(n), k)
                 if items.frees_of(chosen) >= gap]
        if costs:
            return k, min(costs)
    return None


def check(items: FitItems, gap: int) -> None:
    plan = fit_plan(items, gap)
    best = brute_force(items, gap)
    chosen = [items.items.index(item) for item in plan.items]
    assert plan.frees == items.frees_of(chosen)
    if best is None:
        assert not plan.closes_gap and plan.at_least is None
        assert plan.frees == items.frees_of(range(len(items.items))) < gap
        return
    assert plan.closes_gap and plan.frees >= gap
    assert plan.at_least is not None and plan.at_least <= best[0] <= len(plan.items)
    if plan.optimal:
        assert (len(plan.items), plan.bytes_moved) == best
        assert plan.at_least == best[0]
    for i in chosen:  # no item the gap does not need
        assert items.frees_of([c for c in chosen if c != i]) < gap


def additive(sizes: list[tuple[int, int]]) -> FitItems:
    return FitItems(0, tuple(FitItem(f"s{i}", ".data", ALWAYS_LIVE, b, f) for i, (b, f) in enumerate(sizes)))


sizes_and_frees = st.integers(1, 120).flatmap(lambda b: st.tuples(st.just(b), st.integers(0, b)))


@settings(max_examples=300, deadline=None)
@given(st.lists(sizes_and_frees, max_size=9), st.integers(1, 700))
def test_additive_plans_are_the_fewest_items_then_the_fewest_bytes(sizes, gap):
    check(additive(sizes), gap)


ranges = st.lists(st.tuples(st.just(0), st.integers(0, 40), st.integers(0, 24)), max_size=9)


@settings(max_examples=300, deadline=None)
@given(ranges, st.integers(1, 64))
def test_plans_over_overlapping_variables_are_the_fewest_then_the_cheapest(spans, gap):
    check(variable_items(variables(spans, 1), 0), gap)


@settings(max_examples=150, deadline=None)
@given(ranges, st.integers(1, 64))
def test_greedy_plans_close_the_gap_within_their_bound(spans, gap):
    with pytest.MonkeyPatch.context() as m:
        m.setattr(fit_search, "EXACT_ITEMS", 1)  # every tile past the exact search
        items = variable_items(variables(spans, 1), 0)
        plan = fit_plan(items, gap)
        check(items, gap)
        if plan.closes_gap and len([i for i in items.items if i.bytes]) > 1:
            assert plan.search == "greedy" and not plan.optimal


def test_two_variables_sharing_an_offset_free_nothing_alone_and_their_range_together():
    v = lowered_report(synth.encode(synth.known_overlaps()[1]), "vars.json").variables
    items = variable_items(v, 0)
    assert [(i.name, i.kind, i.liveness, i.bytes, i.frees) for i in items.items] == [
        ("acts/a", "variable", NOT_ALWAYS_LIVE, 1000, 400), ("acts/b", "variable", NOT_ALWAYS_LIVE, 600, 0),
        ("weights", "variable", ALWAYS_LIVE, 500, 500), ("momentum", "variable", ALWAYS_LIVE, 256, 256)]
    plan = fit_plan(items, 1000)
    assert [i.name for i in plan.items] == ["acts/a", "acts/b"] and plan.frees == 1000 and plan.bytes_moved == 1600
    assert (plan.optimal, plan.at_least, plan.search) == (True, 2, "exact")


def test_a_search_out_of_nodes_keeps_the_fewest_items_and_says_it_is_not_proven(monkeypatch):
    monkeypatch.setattr(fit_search, "NODE_LIMIT", 2)
    items = additive([(60, 60), (55, 55), (50, 50), (45, 45), (40, 40), (35, 35), (30, 30)])
    plan = fit_plan(items, 100)
    assert len(plan.items) == plan.at_least == 2 and plan.frees >= 100 and not plan.optimal
    monkeypatch.setattr(fit_search, "NODE_LIMIT", 20_000)
    best = fit_plan(items, 100)
    assert ([i.name for i in best.items], best.bytes_moved, best.optimal) == (["s0", "s4"], 100, True)


def test_the_plan_s_json_key_by_key():
    items = additive([(160_000, 160_000), (9_000, 9_000)])
    plan = fit_plan(items, 71_142, ipu=0)
    assert plan.as_json() == {
        "tile": 0, "ipu": 0, "over_by": 71_142,
        "items": [{"name": "s0", "kind": ".data", "class": "always live", "bytes": 160_000, "frees": 160_000,
                   "exact": True}],
        "closes_gap": True, "exact": True, "budget": "limit", "frees": 160_000, "bytes_moved": 160_000,
        "optimal": True, "at_least": 1, "search": "exact", "source": None, "candidates": 2}
    estimated = FitItems(3, (FitItem("t", "tensor", NOT_ALWAYS_LIVE, 500, 500, exact=False),))
    assert fit_plan(estimated, 10, budget="headroom").as_json()["exact"] is False
    assert fit_plan(items, 71_142, gap_exact=False).exact is False
    short = fit_plan(items, 200_000).as_json()
    assert (short["closes_gap"], short["at_least"], short["frees"], len(short["items"])) == (False, None, 169_000, 2)


def test_items_are_checked():
    with pytest.raises(ValueError, match="class is one of always live, not always live, gap, unknown"):
        FitItem("x", ".bss", "live", 10, 10)
    assert FitItem("x", ".bss", "unknown", 10, 10).as_json()["class"] == "unknown"  # an ELF does not say
    with pytest.raises(ValueError, match="frees 11 B"):
        FitItem("x", ".bss", ALWAYS_LIVE, 10, 11)
    with pytest.raises(ValueError, match="budget"):
        fit_plan(additive([(1, 1)]), 1, budget="over")


def test_plans_for_a_lowered_variables_report_over_its_limit(tmp_path):
    report = lowered_report(synth.encode(synth.known_overlaps()[1]), "vars.json")
    assert variable_plans(report) == ()  # nothing over 638,976 B
    tight = report.evolve(target=report.target.__class__(num_tiles=3, bytes_per_tile=1500))
    (plan,) = variable_plans(tight)
    assert (plan.tile, plan.over_by, plan.budget, [i.name for i in plan.items]) == (0, 256, "limit", ["momentum"])
    plans = variable_plans(tight, headroom=1000)
    assert [(p.tile, p.over_by, p.budget) for p in plans] == [(0, 1256, "headroom"), (1, 100, "headroom")]
    assert [i.name for i in plans[1].items] == ["grad"]  # 200 B of its own: the cheapest that frees 100
    assert variable_plans(tight, headroom=1000, tiles=[1]) == (plans[1],)
    assert np.array_equal(report.excluding_gaps, tight.excluding_gaps)
