"""The pages as a new user found them, in a real browser (issue 29 item 6, issue 33 item 7): nothing wider than a
phone, bars inside the plot at every zoom, the histogram's log axis and limit line, the heat map's legend and
its out-of-memory tiles at pod scale, charts that open fitted, IPU lines labelled, a report of no tiles, and one
section's failure that leaves the others drawn."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from memreport.analysis import summarize
from memreport.render.page import render_report_page
from memreport.render.page.document import DATA_ID
from tests.builds import complete
from tests.render.page_browser import clean, drawn, open_page
from tests.synth.page import pod_report

PAGES = ["report.html", "several.html", "sweep.html", "diff.html", "compiles.html", "profile.html"]
DARK = (49, 130, 189)  # a tile's bar (dom.mjs COLOURS.dark)


def pixels(page, selector: str, region: str, test: str) -> int:
    """How many pixels of the canvas, in ``region`` (x, y, w, h in CSS pixels, as JavaScript), pass ``test``
    (JavaScript over r, g, b)."""
    return page.eval_on_selector(selector, f"""c => {{
        const [x, y, w, h] = (({region}))(c, window.__memreport.charts[0]);
        if (w <= 0 || h <= 0) return 0;
        const d = c.getContext("2d").getImageData(x, y, w, h).data; let n = 0;
        for (let i = 0; i < d.length; i += 4) {{ const r = d[i], g = d[i + 1], b = d[i + 2];
            if (d[i + 3] && ({test})) n++; }}
        return n;
    }}""")


@pytest.mark.parametrize("name", PAGES)
def test_nothing_is_wider_than_a_phone_and_every_column_can_be_reached(browser, pages, name):
    opened = open_page(browser, str(pages / name), width=390)
    clean(opened, pages / name)
    page = opened.page
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    tables = page.evaluate("""() => [...document.querySelectorAll('table')].map((t) => {
        t.scrollLeft = t.scrollWidth;  // scrolled to its end inside its card: the last column in view
        const last = t.querySelector('tr').lastElementChild.getBoundingClientRect();
        return {right: last.right, fits: t.scrollWidth <= t.clientWidth, overflow: getComputedStyle(t).overflowX};
    })""")
    assert tables
    for t in tables:
        assert t["right"] <= 390 and (t["fits"] or t["overflow"] == "auto"), t


def test_at_the_deepest_zoom_the_bars_stay_inside_the_plot(browser, pages):
    page = open_page(browser, str(pages / "report.html")).page
    page.evaluate("window.__memreport.charts[0].show(733.5, 738.5)")  # half a tile at each edge
    assert page.get_attribute(".chart", "data-view") == "733-738"
    bar = f"r === {DARK[0]} && g === {DARK[1]} && b === {DARK[2]}"
    left = "(c, ch) => [0, 0, ch.left, c.height]"
    right = "(c, ch) => [ch.left + ch.plotW, 0, c.width - ch.left - ch.plotW, c.height]"
    inside = "(c, ch) => [ch.left, 0, ch.plotW, c.height]"
    assert pixels(page, ".chart canvas", left, bar) == 0  # never over the y axis's labels
    assert pixels(page, ".chart canvas", right, bar) == 0
    assert pixels(page, ".chart canvas", inside, bar) > 20_000


def test_the_histogram_opens_on_a_log_count_axis_with_the_limit_line(browser, pages):
    page = open_page(browser, str(pages / "report.html")).page
    button = page.query_selector("div.tools:has(+ canvas.hist) button")
    assert button.inner_text() == "Linear count"  # bins of 1 to 128 tiles: log first, as the PNG
    red = "r > 150 && g < 80 && b < 80"
    above = "(c) => [0, 0, c.width, 16]"  # above the tallest bar: only the limit's line and label are red
    assert pixels(page, "canvas.hist", above, red) > 20
    log = drawn(page, "canvas.hist")["painted"]
    button.click()
    assert button.inner_text() == "Log count"
    assert drawn(page, "canvas.hist")["painted"] < log  # linear: the 1-tile bins are slivers
    assert pixels(page, "canvas.hist", above, red) > 20


def test_the_heat_map_has_a_legend(browser, pages):
    page = open_page(browser, str(pages / "report.html")).page
    assert page.inner_text("#r0-heat .heat-legend").split() == ["0", "B", "624", "KiB", "out", "of", "memory"]
    assert page.inner_text("#r0-heat p.hint") == (
        "Colour: bytes excluding gaps as a share of tile memory (638,976 B)")
    assert drawn(page, "#r0-heat canvas.ramp")["painted"] > 1000


def test_a_chart_of_small_tiles_opens_fitted_to_them(browser, pages):
    page = open_page(browser, str(pages / "profile.html")).page  # 5,780 B at most, of 256 KiB
    fit = page.query_selector(".chart button[data-act=fit]")
    assert fit.inner_text() == "Tile memory"  # fitted: the button goes to tile memory
    bars = "(c, ch) => [ch.left, 0, ch.plotW, c.height]"
    bar = "b > 150 && r < 120"
    fitted = pixels(page, ".chart canvas", bars, bar)
    assert fitted > 150_000  # bars up most of the plot, not a line at 0
    fit.click()
    assert fit.inner_text() == "Fit height"
    assert pixels(page, ".chart canvas", bars, bar) < fitted / 20
    assert page.inner_text("#r0-heat p.hint") == "Colour: bytes excluding gaps as a share of the largest tile (5,780 B)"


def test_the_diff_page_first_line_stands_clear_of_its_card_border(browser, pages):
    page = open_page(browser, str(pages / "diff.html")).page
    gap = page.evaluate("""() => document.querySelector('section .meta').getBoundingClientRect().top
        - document.querySelector('section').getBoundingClientRect().top""")
    assert gap >= 10


def test_a_report_of_no_tiles_draws_its_no_tiles_state(browser, pages):
    opened = open_page(browser, str(pages / "zero.html"))
    clean(opened, pages / "zero.html")
    page = opened.page
    assert page.inner_text(".verdict .headline") == "0 of 0 tiles out of memory"
    assert page.inner_text("#r0-heat") == "No tiles: this report has none."
    assert drawn(page, ".chart canvas")["painted"] > 100  # the words where the bars would be
    assert page.is_hidden(".chart button[data-act=in]") and page.query_selector(".failed") is None


def test_a_section_that_fails_says_so_and_the_others_are_drawn(browser, tmp_path):
    page = render_report_page([summarize(complete([100, 200, 300])), summarize(complete([400, 500, 600, 700]))])
    block = re.search(rf'id="{DATA_ID}">(.*?)</script>', page, re.S)
    data = json.loads(block.group(1))
    data["sections"][0]["tiles"]["excluding_gaps"]["data"] = "AAAA"  # no gzip stream
    path = tmp_path / "broken.html"
    path.write_text(page.replace(block.group(1), json.dumps(data)))
    opened = open_page(browser, str(path))
    shown = opened.page
    assert shown.inner_text("#r0 .failed").startswith("This part of the page could not be drawn (")
    assert shown.query_selector("#r1 .failed") is None
    assert drawn(shown, "#r1-chart canvas")["painted"] > 1000 and drawn(shown, "#r1-heat canvas")["painted"] > 100
    assert [kind for kind, _ in opened.problems] == ["error"]  # the failure, logged once


def test_at_pod_scale_out_of_memory_tiles_are_ringed_and_ipus_labelled(browser, tmp_path):
    path = tmp_path / "pod.html"
    path.write_text(render_report_page([summarize(pod_report(94_208))]))  # 64 IPUs, 40 tiles over
    opened = open_page(browser, str(path))
    clean(opened, path)
    page = opened.page
    assert drawn(page, "#r0-heat canvas")["red"] >= 40 * 16  # a ring around each: 2 x 2 pixels alone otherwise
    assert "out of memory (ringed: too small to see at this scale)" in page.inner_text("#r0-heat .heat-legend")
    page.evaluate("window.__memreport.charts[0].show(0, 8 * 1472)")  # eight IPUs: their boundaries in view
    grey = "Math.abs(r - g) < 12 && Math.abs(g - b) < 12 && r < 170"
    labels = "(c, ch) => [ch.left, 0, ch.plotW, 15]"  # above the plot, where "IPU 1" ... "IPU 7" go
    assert pixels(page, ".chart canvas", labels, grey) > 7 * 20
    page.evaluate("window.__memreport.charts[0].show(0, 94208)")  # every IPU: 17 pixels apart, every 5th named
    start = "(c, ch) => [Math.round(ch.left + {ipu} * 1472 / 94208 * ch.plotW) + 2, 0, 5, 15]"  # a name's "I"
    named = [k for k in (0, 3, 4, 5, 8, 9, 10) if pixels(page, ".chart canvas", start.format(ipu=k), grey)]
    assert named == [0, 5, 10]  # (after IPU 1, 2, 6, 7: the names of IPU 0 and 5 run on there)
    assert np.isclose(page.evaluate("window.__memreport.charts[0].x1"), 94208)


def test_the_tile_memory_label_stands_clear_of_the_bars_crossing_it(browser, pages):
    page = open_page(browser, str(pages / "report.html")).page  # tile 17, out of memory, rises through the label
    crossed = page.eval_on_selector(".chart canvas", """c => {
        const ch = window.__memreport.charts[0], plotH = c.clientHeight - 16 - 22;  // tilechart.mjs TOP, BOTTOM
        const y = Math.round(16 + plotH * (1 - (638976 - ch.lo) / (ch.hi - ch.lo)));
        const d = c.getContext("2d").getImageData(ch.left + 4, y - 13, 100, 11).data; let columns = 0;
        for (let x = 0; x < 100; x++) {  // a column of the label's box red from top to foot: a bar over the words
            let red = 0;
            for (let r = 0; r < 11; r++) { const i = 4 * (r * 100 + x); if (d[i] > 180 && d[i + 1] < 90) red++; }
            if (red === 11) columns++;
        }
        return columns;
    }""")
    assert crossed == 0


def test_on_a_phone_the_histograms_limit_label_is_whole_and_the_liveness_steps_are_named(browser, pages):
    page = open_page(browser, str(pages / "steps.html"), width=390).page  # the limit at two thirds of the axis
    red = "r > 150 && g < 80 && b < 80"
    edge = "(c) => [c.width - 3, 0, 3, 16]"  # the label's end, above the plot: inside the canvas, not cut there
    assert pixels(page, "canvas.hist", "(c) => [0, 0, c.width, 16]", red) > 20
    assert pixels(page, "canvas.hist", edge, red) == 0
    written = page.eval_on_selector("canvas.liveness", """c => {  // rows below the plot partly dark: words, not a line
        const x = Math.round(c.width / 4), w = c.width - x;
        const d = c.getContext("2d").getImageData(x, c.height - 16, w, 16).data;
        let rows = 0;
        for (let r = 0; r < 16; r++) {
            let dark = 0;
            for (let i = 4 * r * w; i < 4 * (r + 1) * w; i += 4) if (d[i + 3] && d[i] < 120 && d[i + 1] < 120) dark++;
            if (dark > 0 && dark < 0.5 * w) rows++;
        }
        return rows;
    }""")
    assert written >= 5  # the steps' numbers under the curve's axis


@pytest.mark.parametrize(("name", "tables"), [("report.html", 2), ("steps.html", 3)])
def test_on_a_phone_a_tiles_panel_wraps_its_names_and_figures_inside_the_card(browser, pages, name, tables):
    page = open_page(browser, str(pages / name), width=390).page
    page.click("a[data-tile='1402']")
    assert page.inner_text(".detail h4").startswith("Tile 1,402 (IPU 0)")
    wider = page.eval_on_selector_all(".detail table.kv", "ts => ts.map((t) => t.scrollWidth - t.clientWidth)")
    assert wider == [0] * tables  # the figures, the sections or categories (a profile's long names), the regions
