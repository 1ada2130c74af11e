"""The pages in a real browser (headless Chromium): no request, no console error, the verdict and tables in the
DOM, a click shows a tile's breakdown, zoom and pan change the view, the charts are drawn, hostile names stay text.
"""
from __future__ import annotations

import io
import re

import numpy as np

from memreport.analysis import summarize
from memreport.model import Column, Symbol, Target, TileReport, TileSymbols
from memreport.render.page import render_report_page
from tests.render.page_browser import clean, drawn, open_page, wait_until
from tests.scripts import script_module

BENCH_JS = script_module("bench_page").BENCH_JS
HOSTILE = "</script><script>alert(1)</script>"


def test_the_report_page_leads_with_the_verdict_and_draws_every_tile(browser, pages):
    opened = open_page(browser, str(pages / "report.html"))
    page = opened.page
    clean(opened, pages / "report.html")
    assert page.inner_text(".verdict .headline") == "3 of 1,472 tiles out of memory"
    assert page.eval_on_selector_all(".verdict > p", "ps => ps.map(p => p.textContent)")[1:] == [
        "Worst tile: 1402 (IPU 0), 788,976 B excluding gaps, 123.5% of 638,976 B: 150,000 B over",
        "Largest on it: symbol conv2d_7/weights (.bss) 393,288 B",
        "Next: memreport mk2.a --tile 1402 --symbols 20"]
    assert page.eval_on_selector_all(".verdict .plans p", "ps => ps.map(p => p.textContent)") == [  # the fit plans
        "To fit tile 1402: move conv2d_7/momentum (157,315 B, .bss) off it; that frees 157,315 B of the 150,000 B "
        "over.",
        "To fit tile 17: move conv2d_7/momentum (139,491 B, .bss) off it; that frees 139,491 B of the 61,024 B over.",
        "To fit tile 731: move conv2d_7/momentum (127,702 B, .bss) off it; that frees 127,702 B of the 2,048 B over."]
    assert page.eval_on_selector_all("table.tiles tbody tr", "rows => rows.map(r => r.cells[0].textContent)") == [
        "1402", "17", "731", "1024", "1088"]
    chart = drawn(page, ".chart canvas")
    assert chart["painted"] > 20_000 and chart["red"] > 100  # bars, and the three out-of-memory tiles in red
    assert drawn(page, ".heat canvas")["red"] == 3 * 6 * 6  # a block of 6 x 6 pixels a tile (one IPU)
    assert drawn(page, "canvas.hist")["painted"] > 5_000
    shot = page.screenshot(full_page=True)
    from PIL import Image
    colours = Image.open(io.BytesIO(shot)).convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # not blank


def plot_of(page) -> tuple[float, float]:
    """The first tile chart's plot: its left edge and width, in CSS pixels of its canvas."""
    return page.evaluate("[window.__memreport.charts[0].left, window.__memreport.charts[0].plotW]")


def test_a_click_on_a_tile_shows_its_breakdown_and_symbols(browser, pages):
    page = open_page(browser, str(pages / "report.html")).page
    box = page.query_selector(".chart canvas").bounding_box()
    left, plot_width = plot_of(page)
    column = int(plot_width * 1402.5 / 1472)  # the pixel column that holds tile 1402 (and its neighbour)
    page.mouse.click(box["x"] + left + column + 0.2, box["y"] + box["height"] / 2)
    detail = page.wait_for_selector("#r0-detail[data-tile]", timeout=10_000)  # columns unpacked after the charts
    assert detail.get_attribute("data-tile") == "1402"  # the column's largest tile
    text = detail.inner_text()
    assert "Tile 1,402 (IPU 0) · tile_1402.elf" in text
    assert "Out of memory\tyes, by 150,000 B" in text
    assert ".bss\t786,960 B" in text and "conv2d_7/weights\t.bss\t393,288" in text
    assert "Fit plan\n\nTo fit tile 1402: move conv2d_7/momentum (157,315 B, .bss) off it; that frees 157,315 B of " \
           "the 150,000 B over." in text  # the tile's plan, and what it moves
    assert "conv2d_7/momentum\t.bss\tunknown\t157,315\t157,315" in text
    page.click("table.tiles a[data-tile='1024']")  # a top tile's number selects it too
    page.wait_for_selector("#r0-detail[data-tile='1024']", timeout=10_000)
    assert "Fit plan" not in page.inner_text("#r0-detail")  # it fits: no plan


def test_zoom_and_pan_change_the_view(browser, pages):
    page = open_page(browser, str(pages / "report.html")).page
    chart = page.query_selector(".chart")
    assert chart.get_attribute("data-view") == "0-1471"
    page.click(".chart button[data-act=in]")
    wait_until(page, "() => document.querySelector('.chart').dataset.view === '368-1103'")
    box = page.query_selector(".chart canvas").bounding_box()
    page.mouse.move(box["x"] + 64, box["y"] + 100)
    for _ in range(12):
        page.mouse.wheel(0, -100)
    wait_until(page, "() => { const [a, b] = document.querySelector('.chart').dataset.view.split('-')"
                     ".map(Number); return b - a < 60; }")
    before = chart.get_attribute("data-view")
    page.mouse.move(box["x"] + 600, box["y"] + 100)
    page.mouse.down()
    page.mouse.move(box["x"] + 300, box["y"] + 100, steps=5)
    page.mouse.up()
    wait_until(page, f"() => document.querySelector('.chart').dataset.view !== '{before}'")
    after = [int(x) for x in chart.get_attribute("data-view").split("-")]
    assert after[0] > int(before.split("-")[0])  # dragged left: later tiles come into view
    page.click(".chart button[data-act=reset]")
    wait_until(page, "() => document.querySelector('.chart').dataset.view === '0-1471'")
    fps = page.evaluate(BENCH_JS, 20)  # the benchmark's driver, brought by the test: no page ships it
    assert fps["frames"] == 20 and fps["tiles"] == 1472


def test_the_page_reads_without_javascript(browser, pages):
    opened = open_page(browser, str(pages / "report.html"), javascript=False)
    page = opened.page
    assert page.inner_text(".verdict .headline") == "3 of 1,472 tiles out of memory"
    assert page.eval_on_selector_all("table.tiles tbody tr", "rows => rows.length") == 5
    assert "Range (KB) Histogram (Excluding Gaps)" in page.text_content("details pre")


def test_several_reports_are_one_page_a_section_each(browser, pages):
    opened = open_page(browser, str(pages / "several.html"))
    clean(opened, pages / "several.html")
    page = opened.page
    assert page.eval_on_selector_all("section.report h2", "hs => hs.map(h => h.textContent)") == [
        "trace.rep (module cluster_vars_init.3)", "trace.rep (module cluster_training_step.17)",
        "summary.txt"]
    assert page.eval_on_selector_all("section.report", "s => s.length") == 3
    assert page.query_selector(".chart") is None  # text summaries: no per-tile chart
    assert page.eval_on_selector_all("canvas.hist", "cs => cs.length") == 3


def test_the_diff_page_shows_each_tile_change_and_what_is_below_it(browser, pages):
    opened = open_page(browser, str(pages / "diff.html"))
    clean(opened, pages / "diff.html")
    page = opened.page
    assert page.inner_text(".verdict .headline") == "1 tile newly out of memory; 6 tiles changed (4 grew, 2 shrank)"
    assert page.eval_on_selector_all("table.tiles tbody tr", "rows => rows.map(r => r.cells[0].textContent)") == [
        "3", "2", "1", "6", "0", "5"]
    assert drawn(page, ".chart canvas")["red"] > 100  # tile 3, newly out of memory
    page.click("table.tiles a[data-tile='3']")
    detail = page.inner_text("#d0-detail")
    assert "Tile 3" in detail and "200,000 B → 643,072 B" in detail and "+443,072 B" in detail
    assert "section\t.bss\t198,720\t641,792\t+443,072" in detail
    page.click(".chart button[data-act=reset]")
    assert page.get_attribute(".chart", "data-view") == "0-7"
    page.click(".chart button[data-act=in]")
    # half of 8 tiles is under the deepest zoom (5 tiles): 1.5 to 6.5, tiles 1 to 6 in view
    wait_until(page, "() => document.querySelector('.chart').dataset.view === '1-6'")


def test_the_compiles_page_draws_the_timeline_and_lists_the_findings(browser, pages):
    opened = open_page(browser, str(pages / "compiles.html"))
    clean(opened, pages / "compiles.html")
    page = opened.page
    assert page.inner_text(".verdict .headline") == (  # the text's words
        "4 compilations (3 compiled, 1 from the cache): 1 recompilation found")
    assert page.inner_text(".verdict p:nth-child(2)") == (
        "Findings: 1\u00a0recompiled, 1\u00a0hash-drift, 1\u00a0late-compile, 1\u00a0executable-switching")
    assert page.eval_on_selector_all(".findings li b", "bs => bs.map(b => b.textContent)") == [
        "recompiled", "hash-drift", "late-compile", "executable-switching"]
    assert drawn(page, "canvas.timeline")["painted"] > 500


def test_hostile_names_and_symbols_are_shown_as_text(browser, tmp_path):
    n = 4
    report = TileReport(
        HOSTILE, "archive", Target(n, "ipu2", 1, n, 1000), np.array([10, 2000, 30, 40]),
        breakdown={"<img src=x onerror=alert(2)>": Column(np.array([10, 2000, 30, 40]))}, breakdown_kind="section",
        tile_names=[f"{HOSTILE}{i}" for i in range(n)], module="<!--",
        symbols={1: TileSymbols(1, HOSTILE, {".bss": 2000}, {".bss": 2000},
                                (Symbol("</script><!--<script>alert(3)</script>", ".bss", 2000),))})
    path = tmp_path / "hostile.html"
    path.write_text(render_report_page([summarize(report)]))
    opened = open_page(browser, str(path))
    clean(opened, path)
    page = opened.page
    assert page.inner_text("h1") == f"memreport: {HOSTILE} (module <!--)"
    assert page.eval_on_selector_all("script", "s => s.length") == 2  # the data block and the page's script
    page.click("table.tiles a[data-tile='1']")
    detail = page.wait_for_selector("#r0-detail[data-tile='1']", timeout=10_000).inner_text()
    assert f"Tile 1 (IPU 0) · {HOSTILE}1" in detail
    assert "<img src=x onerror=alert(2)>\t2,000 B" in detail
    assert "</script><!--<script>alert(3)</script>\t.bss\t2,000" in detail
    assert opened.dialogs == []


def test_a_profiles_liveness_curve_gives_the_step_and_its_bytes_under_the_pointer(browser, pages):
    opened = open_page(browser, str(pages / "steps.html"))
    clean(opened, pages / "steps.html")
    page = opened.page
    curve = drawn(page, "canvas.liveness")
    assert curve["painted"] > 2_000 and curve["red"] > 10  # the curve, and its peak's dot in red
    canvas = page.query_selector("canvas.liveness")
    canvas.scroll_into_view_if_needed()
    width = canvas.bounding_box()["width"]
    page.hover("canvas.liveness", position={"x": width - 12, "y": 90})  # the last steps' column
    tip = page.inner_text("#tip").split("\n")
    assert tip[0] in ("step 398", "step 399")
    assert re.fullmatch(r"3[0-9]{2},[0-9]{3},[0-9]{3} B live \(3[0-9]\.[0-9]% of the IPU's memory\)", tip[1]), tip
    said = page.eval_on_selector_all("canvas.liveness ~ p.hint", "ps => ps.map(p => p.textContent)")
    assert said[0].startswith("peak 518,209,375 B at step 237 of 400; 55.1% of the IPU's 940,572,672 B")
