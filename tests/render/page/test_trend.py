"""The trend page: the answer and the gates, a line chart per figure with its limit, the builds and the tiles as
tables, names from files shown as text; and in a browser, at a desktop's width and a phone's, every chart drawn."""
from __future__ import annotations

import os
from dataclasses import replace

import pytest

import memreport
from memreport.analysis.gates import REPORT_GATES, in_force
from memreport.analysis.trend import trend
from memreport.config import Gates, Origin, Setting
from memreport.render import render
from memreport.render.page import contract
from tests import SAMPLES
from tests.render.page_browser import clean, drawn, launch, open_page
from tests.synth.page import data_block
from tests.synth.trend import build, summary_report, tiles

HOSTILE = "</script><b>pr</b>"


def page_of(t) -> str:
    return render("trend", "html", t)


def test_the_charts_data_a_value_and_a_limit_per_build():
    t = trend([build(tiles([50, 150, 50, 50]), "a"), build(summary_report(), "summary"),
               build(tiles([150, 150, 60, 40]), HOSTILE)])
    data = data_block(page_of(t))
    assert contract.problems(data) == []
    section, = data["sections"]
    assert section["builds"] == ["a", "summary", HOSTILE] and section["worst_tiles"] == [1, 0, 0]
    assert {c["key"]: (c["unit"], c["values"], c["limit"], c["at_least"]) for c in section["charts"]} == {
        "worst": ("bytes", [150, 150, 150], [100, 100, 100], [False, False, False]),
        "headroom": ("bytes", [-50, -50, -50], [0, 0, 0], [False, False, False]),
        "oom": ("tiles", [1, 1, 2], [None, None, None], [False, False, False]),
        "total": ("bytes", [300, 400, 400], [None, None, None], [False, False, False])}


def test_unknown_values_are_null_and_a_lower_bound_is_marked():
    sweep = os.path.join(SAMPLES, "sweep.log")  # out-of-memory messages alone: at least 1 tile, no worst tile
    t = memreport.trend(os.path.join(SAMPLES, "mk2_1472_tiles.a"), sweep, labels=["main", "sweep"])
    charts = {c["key"]: c for c in data_block(page_of(t))["sections"][0]["charts"]}
    assert charts["worst"]["values"] == [788_976, None] and charts["worst"]["limit"] == [638_976, 262_144]  # ipu1
    assert charts["oom"]["values"] == [3, 1] and charts["oom"]["at_least"] == [False, True]
    assert charts["headroom"]["values"] == [-150_000, None] and charts["headroom"]["limit"] == [0, 0]


def test_the_answer_the_gates_the_tables_and_names_as_text():
    t = trend([build(tiles([50, 150, 50, 50]), "a"), build(tiles([150, 150, 60, 40]), HOSTILE)])
    gates = Gates(max_tile=Setting(95, Origin(".memreport.toml", "gates.max-tile", 3)))
    html = page_of(replace(t, gates=in_force(gates, REPORT_GATES)))
    assert HOSTILE not in html and "&lt;/script&gt;&lt;b&gt;pr&lt;/b&gt;" in html
    assert ('<div class="verdict oom"><p class=headline>Tile 0 first went over in &lt;/script&gt;&lt;b&gt;pr&lt;/b&gt;'
            '</p>') in html
    assert "<p class=gates>Gates: --max-tile 95 B (from .memreport.toml, line 3, gates.max-tile)</p>" in html
    for key in ("worst", "headroom", "oom", "total"):
        assert f"<canvas class=trend id=t0-{key}></canvas>" in html
    assert "<h3>Builds (2), in the order given</h3>" in html
    assert ("<h3>Tiles out of memory in &lt;/script&gt;&lt;b&gt;pr&lt;/b&gt; (2), the latest to go over first"
            "</h3>") in html


@pytest.fixture(scope="module")
def browser():
    yield from launch()


@pytest.mark.parametrize("width", [1280, 390])
def test_every_chart_is_drawn_with_its_limit_and_nothing_is_wider_than_the_window(browser, tmp_path, width):
    t = memreport.trend(os.path.join(SAMPLES, "mk2_1472_tiles.a"), os.path.join(SAMPLES, "sweep.log"),
                        os.path.join(SAMPLES, "mk2_1472_tiles_pr.a"), labels=["main", "a-long-build-name-2026-11-28",
                                                                               "pr"])
    path = tmp_path / "trend.html"
    path.write_text(page_of(t), encoding="utf-8")
    opened = open_page(browser, str(path), width=width)
    clean(opened, path)
    page = opened.page
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for key in ("worst", "headroom", "oom", "total"):
        painted = drawn(page, f"#t0-{key}")
        assert painted["painted"] > 500, (key, painted)
        assert (painted["red"] > 0) == (key in ("worst", "headroom")), (key, painted)  # the limit; points over it
    page.hover("#t0-worst", position={"x": width // 2, "y": 100})
    assert page.inner_text("#tip").split("\n")[0] in ("main", "a-long-build-name-2026-11-28", "pr")
