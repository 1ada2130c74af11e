"""The notebook HTML: a summary and the top tiles, named for what the source is."""
from __future__ import annotations

import os

import numpy as np

import memreport
from memreport import PrintedSummary, SummaryReport, Target, TileDetail, TileReport
from memreport.analysis import summarize
from memreport.model import StatedTarget
from memreport.render.html import render_html

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "sample_reports")


def test_detailed_tiles_are_called_as_printed_only_for_a_printed_summary():
    summary = memreport.read(os.path.join(SAMPLES, "trace_two_modules.rep"))
    assert "<b>Tiles as printed</b>" in render_html(summarize(summary))
    bare = TileReport("bare.elf", "elf", Target(1), np.array([100]))
    html = render_html(summarize(bare))
    assert "as printed" not in html and "<b>Top 1 tile</b>" in html


def test_breakdown_kinds_read_as_plurals():
    assert "Largest categories" in render_html(summarize(memreport.read(os.path.join(SAMPLES, "mk1_profile.json"))))
    trace = memreport.read(os.path.join(SAMPLES, "trace_two_modules.rep"))
    assert "Largest data types" in render_html(summarize(trace))


def test_an_out_of_memory_bound_is_shown_with_its_reason():
    summary = SummaryReport(
        "s.txt", "poplar-text", Target(8, None, 1, 8, 500_000), stated=StatedTarget(8, bytes_per_tile=638_976),
        printed=PrintedSummary(tiles_out_of_memory=1), detailed_tiles=(TileDetail(3, None, 600_000),
                                                                       TileDetail(4, None, 550_000)))
    html = render_html(summarize(summary))
    assert '<span style="color:#d62728;font-weight:bold">at least 2</span>' in html
    assert "its printed count, 1, is for the 638,976 B per tile it printed, not 500,000 B" in html
