"""A trend in Markdown: the answer and the gates first, the builds and the tiles as tables, escaped names, and within
a comment's 65,536 characters at pod scale, saying what was left out."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from memreport.analysis import summarize
from memreport.analysis.gates import REPORT_GATES, in_force
from memreport.analysis.trend import trend, trend_build
from memreport.config import Gates
from memreport.render.markdown.blocks import LIMIT
from memreport.render.markdown.trend import render_trend
from tests.synth.trend import build, tiles


def test_the_answer_then_the_builds_then_the_tiles():
    t = trend([build(tiles([150, 50, 50]), "main"), build(tiles([150, 150, 50]), "pr|1")])
    t = replace(t, gates=in_force(Gates().merged(fail_on_oom=True), REPORT_GATES))
    assert render_trend(t) == "\n".join([
        "## memreport trend: 2 builds, `main` → `pr|1`",
        "",
        "**Tile 1 first went over in pr\\|1**  ",  # two spaces: a line break inside the paragraph
        "2 of 3 tiles out of memory in pr\\|1; tile 0 was already out of memory in main (the first build)  ",
        "Worst tile in pr\\|1: 0, 150 B, 150.0% of 100 B: 50 B over  ",
        "Gates: --fail-on-oom (from the command line)",
        "",
        "| Build | Worst tile | % of tile | OOM tiles | Headroom | Total | Change |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        "| main | 0: 150 B | 150.0% | 1 | -50 B | 250 B |  |",
        "| pr\\|1 | 0: 150 B | 150.0% | 2 | -50 B | 350 B | +100 B (+40.00%) |",
        "",
        "### Tiles out of memory in `pr|1` (2), the latest to go over first",
        "",
        "| Tile | IPU | Bytes | First over | Over since | Stayed over |",
        "| ---: | ---: | ---: | --- | --- | --- |",
        "| 1 | 0 | 150 B | pr\\|1 | pr\\|1 | yes |",
        "| 0 | 0 | 150 B | main | main | yes |",
        ""])


def test_a_pod_of_builds_and_tiles_stays_within_a_comment():
    n = 94_208
    nightly = trend_build(summarize(tiles([50, 150, 50, 50]), top=0), "nightly", "nightly.json")
    small = [replace(nightly, label=f"nightly-2026-{k:04d}") for k in range(999)]
    t = trend([*small, build(tiles(np.full(n, 150)), "pod")])
    text = render_trend(t)
    assert len(text) <= LIMIT
    # the first 100 builds and the last 100 (the pod among them)
    assert text.count("\n| nightly-2026-") == 199 and "| nightly-2026-0099 |" in text and "| pod |" in text
    assert "| nightly-2026-0100 |" not in text and "| nightly-2026-0900 |" in text
    assert "800 builds between left out: the JSON and CSV outputs list every one." in text
    assert f"{n - 200:,} more tiles: the JSON output lists every one." in text
    assert text.endswith("_Left out to stay within GitHub's 65,536 characters: part of the table of builds; part of "
                         "the tiles out of memory. The text and JSON outputs hold everything._\n")
