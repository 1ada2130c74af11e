"""A trend in text: the answer first, the table of builds and the tiles fitted to the width, the notes, the answer
again last."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from memreport.analysis.gates import REPORT_GATES, in_force
from memreport.analysis.trend import trend
from memreport.config import Gates, Origin, Setting
from memreport.render import RenderOptions, render
from tests.synth.trend import build, summary_report, tiles


@pytest.fixture
def four_builds():
    """main: tile 1 over; nightly: a text summary; pr-1234: tile 0 over, 1 back under; pr-1240: 0, 1, 3 over."""
    return trend([build(tiles([50, 150, 50, 50]), "main"), build(summary_report(), "nightly"),
                  build(tiles([150, 50, 60, 50]), "pr-1234"), build(tiles([150, 150, 60, 120]), "pr-1240")])


def text(t, width: int | None = None) -> str:
    return render("trend", "text", t, RenderOptions(width=width))


def test_the_answer_first_then_the_builds_the_tiles_and_the_notes(four_builds):
    gates = Gates(max_tile=Setting(95, Origin(".memreport.toml", "gates.max-tile", 3))).merged(fail_on_oom=True)
    assert text(replace(four_builds, gates=in_force(gates, REPORT_GATES))) == """\
Verdict: Tile 3 went over in pr-1240 (maybe earlier too: nightly cannot say)
         3 of 4 tiles out of memory in pr-1240; tile 0 went over in pr-1234 or earlier (nightly
           cannot say); tile 1 was already out of memory in main (the first build)
         Worst tile in pr-1240: 0, 150 B, 150.0% of 100 B: 50 B over
Gates:   --fail-on-oom (from the command line); --max-tile 95 B (from .memreport.toml, line 3,
         gates.max-tile)

Builds (4), in the order given:
  Build    Worst tile  % of tile  OOM tiles  Headroom  Total            Change
  main       1: 150 B     150.0%          1     -50 B  300 B
  nightly    0: 150 B     150.0%          1     -50 B  400 B  +100 B (+33.33%)
  pr-1234    0: 150 B     150.0%          1     -50 B  310 B   -90 B (-22.50%)
  pr-1240    0: 150 B     150.0%          3     -50 B  480 B  +170 B (+54.84%)

Tiles out of memory in pr-1240 (3), the latest to go over first:
  Tile  IPU  Bytes  First over                   Over since  Stayed over
     3    0  120 B  pr-1240 (maybe earlier too)  pr-1240     yes
     0    0  150 B  pr-1234 or earlier           pr-1234     yes
     1    0  150 B  main                         pr-1240     no

Note: nightly holds no per-tile status (a text summary does not list every tile): which tiles were
      out of memory in it is unknown

Verdict: Tile 3 went over in pr-1240 (maybe earlier too: nightly cannot say)
"""


def test_a_narrow_terminal_moves_the_change_under_the_rows_and_shortens_names(four_builds):
    out = text(four_builds, 60)
    assert out.split("\n\n")[1] == """\
Builds (4), in the order given:
  Build    Worst tile  % of tile  OOM tiles  Headroom  Total
  main       1: 150 B     150.0%          1     -50 B  300 B
  nightly    0: 150 B     150.0%          1     -50 B  400 B
      change: +100 B (+33.33%)
  pr-1234    0: 150 B     150.0%          1     -50 B  310 B
      change: -90 B (-22.50%)
  pr-1240    0: 150 B     150.0%          3     -50 B  480 B
      change: +170 B (+54.84%)"""
    assert text(four_builds, 50).split("\n\n")[1].splitlines()[2:4] == [
        "  main       1: 150 B     150.0%          1     -50 B", "      total: 300 B"]
    assert ("  Tile  IPU  Bytes  First over       Over since  Stayed over\n"
            "     3    0  120 B  pr-124...r too)  pr-1240") in out
    assert all(len(line) <= 60 for line in out.splitlines())
    assert out.endswith("\nVerdict: Tile 3 went over in pr-1240\n")  # the last line without its aside


def test_the_first_build_is_the_one_tiles_were_already_over_in():
    out = text(trend([build(tiles([150, 50]), "a"), build(tiles([150, 150]), "b")]))
    assert out.startswith("Verdict: Tile 1 first went over in b\n"
                          "         2 of 2 tiles out of memory in b; tile 0 was already out of memory in a (the first "
                          "build)\n")


def test_no_tile_out_of_memory_last_says_when_tiles_last_were():
    out = text(trend([build(tiles([150, 50]), "a"), build(tiles([90, 50]), "b"), build(tiles([60, 50]), "c")]))
    assert out.startswith("Verdict: No tile out of memory in c\n         Last out of memory: a (1 tile)\n"
                          "         Worst tile in c: 0, 60 B, 60.0% of 100 B: 40 B free\n\nBuilds (3)")
    assert "Tiles out of memory" not in out


def test_a_last_build_without_per_tile_status_says_which_tiles_are_unknown():
    out = text(trend([build(tiles([150, 50, 50, 50]), "a"), build(summary_report(oom=2), "summary")]))
    assert out.startswith(
        "Verdict: 2 of 4 tiles out of memory in summary\n"
        "         Which tiles, and when each went over: unknown (summary: a text summary does not list every\n"
        "           tile)\n")


def test_the_text_lists_twenty_tiles_and_counts_the_rest():
    values = np.full(30, 150)
    out = text(trend([build(tiles(np.full(30, 50)), "a"), build(tiles(values), "b")]))
    assert out.startswith("Verdict: 30 tiles (0, 1, 2, ...) first went over in b\n")
    listing = out.split("Tiles out of memory in b (30), the latest to go over first:\n")[1].split("\n\n")[0]
    assert len(listing.splitlines()) == 1 + 20 + 1
    assert listing.endswith("\n  10 more tiles (--format json lists every one)")


@pytest.mark.parametrize("share, shown", [(0.000338, "+0.03%"), (-0.2250, "-22.50%"), (0.0, "+0.00%"),
                                          (0.00001, "+<0.01%"), (-0.00001, "-<0.01%")])
def test_a_change_too_small_to_round_is_not_shown_as_none(share, shown):
    from memreport.render.cells import percent_change
    assert percent_change(share) == shown
