"""The page as a file, without a browser: its policy, the data embedded once and escaped, packed arrays, sizes,
the registry, the CLI's --html and the notebook's display."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

import memreport
from memreport import render
from memreport.analysis import summarize, summarize_all
from memreport.cli import main
from memreport.render.page import notebook_html, render_report_page
from memreport.render.page.document import DATA_ID, embed_json, pack
from tests.synth.page import data_block as data_of
from tests.synth.page import pod_report
from tests.synth.page import unpacked as unpack

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "sample_reports")
MIB = 1024 * 1024


def sample_page() -> str:
    return render_report_page([summarize(memreport.read(os.path.join(SAMPLES, "mk2_1472_tiles.a")))])


def test_the_policy_forbids_every_request_and_runs_only_the_page_own_script_and_style():
    page = sample_page()
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert policy.startswith("default-src 'none'; script-src 'sha256-")
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(scripts) == 1 and len(styles) == 1
    for text, directive in ((scripts[0], "script-src"), (styles[0], "style-src")):
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"{directive} 'sha256-{digest}'" in policy
    assert " style=" not in page and "http://" not in page and "https://" not in page


def test_the_data_is_embedded_once_and_cannot_end_its_block():
    hostile = {"name": "</script><script>alert(1)</script><!-- & >"}
    text = embed_json(hostile)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == hostile
    page = sample_page()
    assert page.count(f'id="{DATA_ID}"') == 1
    section = data_of(page)["sections"][0]
    assert page.count(section["tiles"]["excluding_gaps"]["data"]) == 1  # the per-tile bytes once, not once per chart


def test_per_tile_arrays_round_trip_in_the_narrowest_type():
    cases = [(np.array([True, False]), "u8"), (np.array([0, 255]), "u8"), (np.array([0, 65_535]), "u16"),
             (np.array([0, 638_976, 2 ** 32 - 1]), "u32"), (np.array([-5, 2 ** 31 - 1]), "i32"),
             (np.array([-1, 2 ** 40]), "f64"), (np.zeros(0, dtype=np.int64), "u8")]
    for values, kind in cases:
        packed = pack(values)
        assert packed["type"] == kind
        assert unpack(packed).tolist() == values.astype(np.int64).tolist()
    assert pack(None) is None


def test_the_sample_page_holds_every_tile_and_its_columns():
    section = data_of(sample_page())["sections"][0]
    tiles = section["tiles"]
    report = memreport.read(os.path.join(SAMPLES, "mk2_1472_tiles.a"))
    assert unpack(tiles["excluding_gaps"]).tolist() == report.excluding_gaps.tolist()
    assert np.flatnonzero(unpack(tiles["out_of_memory"])).tolist() == [17, 731, 1402]
    assert [c["name"] for c in tiles["breakdown"]][:3] == [".bss", ".text", ".data"]
    assert section["bytes_per_tile"] == 638_976 and section["tiles_per_ipu"] == 1472 and tiles["count"] == 1472


def test_the_page_keeps_its_size_budget_at_pod_scale():
    assert len(sample_page().encode()) <= 1.5 * MIB
    page = render_report_page([summarize(pod_report(94_208))])
    assert len(page.encode()) < 4 * MIB
    kept = [c["name"] for c in data_of(page)["sections"][0]["tiles"]["breakdown"]]
    assert len(kept) >= 4  # random bytes barely compress: the rest are left out, and said to be
    left = [f".section{i}" for i in range(6) if f".section{i}" not in kept]
    assert not left or f"left out of this page to keep it small: the per-tile {', '.join(left)} " in page


def test_columns_past_the_budget_are_left_out_with_a_note():
    from memreport.render.page import report as page_report
    report = pod_report(4_000, columns=3)
    old = page_report.DATA_BUDGET_MIN, page_report.DATA_BUDGET_PER_TILE
    page_report.DATA_BUDGET_MIN, page_report.DATA_BUDGET_PER_TILE = 1, 0
    try:
        page = render_report_page([summarize(report)])
    finally:
        page_report.DATA_BUDGET_MIN, page_report.DATA_BUDGET_PER_TILE = old
    assert data_of(page)["sections"][0]["tiles"]["breakdown"] == []
    named = re.search(r"left out of this page to keep it small: the per-tile ([^(]+) \(", page).group(1)
    assert sorted(named.split(", ")) == [".section0", ".section1", ".section2"]


def test_html_and_markdown_are_registered_formats():
    for subject in ("report", "diff", "compiles"):
        names = [r.name for r in render.renderers(subject)]
        assert names[-2:] == ["markdown", "html"]
        assert render.get(subject, "html").extension == ".html"


def test_html_writes_the_page_beside_the_other_outputs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(os.path.join(SAMPLES, "mk2_1472_tiles.a"), "mk2.a")
    result = CliRunner().invoke(main, ["mk2.a", "--html", "page.html", "--format", "json", "-o", "r.json"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "page.html").read_text().startswith("<!DOCTYPE html>")
    assert json.loads((tmp_path / "r.json").read_text())["reports"][0]["tiles_out_of_memory"] == 3
    refused = CliRunner().invoke(main, ["mk2.a", "--html", "mk2.a"])
    assert refused.exit_code == 2 and "--html" in refused.output
    with open(os.path.join(SAMPLES, "mk2_1472_tiles.a"), "rb") as sample:
        assert (tmp_path / "mk2.a").read_bytes() == sample.read()
    assert CliRunner().invoke(main, ["mk2.a", "--html", "no/such/dir/page.html"]).exit_code == 4


def test_the_notebook_shows_the_same_page_in_a_sandboxed_frame():
    report = memreport.read(os.path.join(SAMPLES, "mk2_1472_tiles.a"))
    shown = report._repr_html_()
    assert shown.startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;') and 'sandbox="allow-scripts"' in shown
    assert "3 of 1,472 tiles out of memory" in shown
    assert notebook_html(summarize(report)).count("<script") == 0  # every tag escaped inside srcdoc


@pytest.mark.parametrize("name", ["mk1_profile.json", "mk1_summary.txt", "trace_two_modules.rep", "tensor_map.json"])
def test_every_sample_renders(name):
    reports = memreport.read_all(os.path.join(SAMPLES, name))
    page = render_report_page([summarize(r) for r in reports])
    assert page.endswith("</html>\n") and len(data_of(page)["sections"]) == len(reports)


def test_a_source_without_every_tile_says_why_where_the_chart_would_be_and_notes_each_thing_once():
    reports = memreport.read_all(os.path.join(SAMPLES, "sweep.log"))
    page = render_report_page([summarize(r) for r in reports[:1]])
    assert re.findall(r"<p class=nochart>(.*?)</p>", page) == [
        "No per-tile chart or heat map: the log holds no memory summary, only out-of-memory messages."]
    notes = re.findall(r"<li>(.*?)</li>", page)
    assert "the log holds no memory summary, only out-of-memory messages" not in notes  # said above, and in:
    assert notes[0].startswith("per-tile values: none; the log holds no memory summary, only out-of-memory")
    assert len(notes) == len(set(notes))
    summary = render_report_page([summarize(r) for r in memreport.read_all(os.path.join(SAMPLES, "mk1_summary.txt"))])
    assert "<p class=nochart>No per-tile chart or heat map: a text summary does not list every tile.</p>" in summary


def test_several_reports_open_with_the_answer_over_them_all_and_a_row_each():
    reports = [*memreport.read_all(os.path.join(SAMPLES, "sweep.log")),
               memreport.read(os.path.join(SAMPLES, "mk1_summary.txt"))]
    page = render_report_page(summarize_all(reports))
    overview = page[page.index("<section class=overview>"):page.index("</section>")]
    sweep = os.path.join(SAMPLES, "sweep.log")
    assert overview.startswith(  # the words of the text's first lines: runs of the log, and the summary's program
        f'<section class=overview><div class="verdict oom"><p class=headline>3 of 6 programs failed, out of memory; '
        f'worst: {sweep} run 2, tile 0, 525,496 B used of 262,144 B</p><p>{sweep} run 2 (line 10): out of memory, '
        f'tile 0, 525,496 B used of 262,144 B</p>')
    assert f"<p>Next: <code>memreport {sweep} --module &#x27;#1&#x27;</code></p></div>" in overview
    rows = re.findall(r"<tr( class=oom)?><td class=text><a href=\"#r(\d)\">(.*?)</a></td>(.*?)</tr>", overview)
    assert rows[0][2].endswith("/<wbr>sweep.log<wbr>#1")  # a narrow screen breaks it between directories
    rows = [(oom, i, source.replace("<wbr>", ""), cells) for oom, i, source, cells in rows]
    assert [(oom, i, os.path.basename(source)) for oom, i, source, _ in rows] == [
        (" class=oom", "0", "sweep.log#1"), (" class=oom", "1", "sweep.log#2"), (" class=oom", "2", "sweep.log#3"),
        ("", "3", "mk1_summary.txt")]
    assert re.findall(r"<td[^>]*>([^<]*)</td>", rows[2][3]) == ["25", "5/5", "ipu1", "&gt;=2,432", "1300",
                                                                "401,000 B*", "at least 1"]
    assert "<li>&gt;= a lower bound: no tile count stated; whole IPUs, enough for the highest tile named</li>" \
        in overview
    one = render_report_page([summarize(reports[-1])])
    assert "class=overview" not in one  # one report: its own verdict leads


def test_the_timeline_places_events_at_their_times_only_when_the_times_compare():
    from memreport.render.page.compiles import timeline_rows
    rows, note = timeline_rows(memreport.read_compiles(os.path.join(SAMPLES, "compile_cold.log")))
    assert note is None and [(r["ref"].rsplit(":", 1)[1], round(r["start_s"], 3)) for r in rows] == [
        ("8", 0.0), ("55", 75.253)]  # every time UTC ("...Z"): placed at its time
    # TensorFlow's local times beside Poplar's UTC ones (two hours apart here): no zone to convert them by.
    rows, note = timeline_rows(memreport.read_compiles(os.path.join(SAMPLES, "compile_recompiling.log")))
    assert note == ("the timeline places events end to end: the log mixes times with a zone (UTC) and local times "
                    "without one, which cannot be compared")
    assert [(r["ref"].rsplit(":", 1)[1], round(r["start_s"], 3)) for r in rows] == [
        ("5", 0.0), ("53", 41.0), ("70", 42.063), ("118", 81.563), ("134", 82.626), ("150", 83.689)]
    page = render.render("compiles", "html", memreport.read_compiles(os.path.join(SAMPLES, "compile_recompiling.log")))
    assert "<td class=num>6,120.5 MiB</td>" in page  # the peak RSS in the unit the log printed
