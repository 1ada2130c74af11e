"""Renderers do no Python work per tile: the same lines run for 1,472 tiles as for 94,208.

Work that grows with the tile count must happen inside numpy. Counting the
Python lines executed (sys.settrace) catches any per-tile loop, however cheap.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

from memreport import analysis
from memreport.analysis import summarize_all
from memreport.model import Column, MemoryReport, Target, TileReport
from memreport.render.data import csv as csv_table
from memreport.render.data import report as table
from memreport.render.text import report as text


def report(n: int) -> MemoryReport:
    """``n`` tiles over 4 IPUs, the same value range (so the same histogram bins) whatever ``n``."""
    tiles = np.arange(n)
    excluding = (tiles * 7919) % 598_000 + 40_000  # below the limit: the fit plans are one per tile over
    excluding[[1, n // 2]] = [0, 650_000]  # the same extremes (and one tile out of memory) at every size
    sometimes = tiles % 3 == 0
    return TileReport(
        source="synthetic", format="archive",
        target=Target(num_tiles=n, arch="ipu2", num_ipus=4, tiles_per_ipu=n // 4, bytes_per_tile=638_976),
        excluding_gaps=excluding,
        breakdown={".text": Column(excluding - excluding // 4), ".bss": Column(excluding // 4),
                   ".data": Column(np.where(sometimes, 8, 0), sometimes),
                   ".comment": Column(np.full(n, 12), counted=False)},
        tile_names=[f"tile_{i}.elf" for i in range(n)])


def lines_run(render, *args, **kwargs) -> int:
    render(*args, **kwargs)  # first calls import what they need: count a second call
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        render(*args, **kwargs)
    finally:
        sys.settrace(None)
    return count


GROWTH = 94_208 - 1472  # a loop over tiles would run at least this many more lines


def summarized(renderer):
    """``renderer`` with the figures computed in the same call: analysis and rendering counted together."""
    return lambda reports: renderer(summarize_all(reports))


@pytest.mark.parametrize("render", [summarized(text.render), summarized(table.render_json)], ids=["text", "json"])
def test_python_work_is_independent_of_the_tile_count(render):
    small, pod = report(1472), report(94_208)
    assert len(analysis.histogram(small).bins) == len(analysis.histogram(pod).bins)
    # Not exactly equal: the JSON encoder's and formatting's branches follow the values.
    assert abs(lines_run(render, [pod]) - lines_run(render, [small])) < GROWTH // 100


def test_csv_lines_are_built_without_a_python_loop_per_cell():
    """CSV has a line per tile, but numpy makes the cells: Python lines grow by row chunks only."""
    render_csv = summarized(csv_table.render_csv)
    small, pod = lines_run(render_csv, [report(1472)]), lines_run(render_csv, [report(94_208)])
    assert pod - small < GROWTH // 30
