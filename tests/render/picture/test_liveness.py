"""The PNG's liveness panel: a profile with program steps gets a panel across the picture's foot, the curve's
peak marked and named, the IPU's memory dashed where it is within reach of the peak."""
from __future__ import annotations

import io

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.image import imread

import memreport
from memreport.analysis import summarize
from memreport.render.picture import liveness, plot
from tests import SAMPLES
from tests.synth.profile import build_profile, encode_json, program_steps

MIB = 1 << 20


def panel_of(fig):
    """The liveness panel's axes (the one titled so), or None."""
    found = [ax for ax in fig.axes if ax.get_title(loc="left").startswith("Liveness over program steps")]
    return found[0] if found else None


def test_a_profile_with_program_steps_draws_the_curve_its_peak_and_the_ipus_memory():
    summary = summarize(memreport.read(SAMPLES / "mk2_profile.json"))
    fig = plot.figure(summary)
    ax = panel_of(fig)
    assert ax is not None
    assert ax.get_title(loc="left") == "Liveness over program steps (always-live + not-always-live)"
    curve = summary.liveness.curve
    line = ax.get_lines()[0]  # every step, at 400 steps
    assert list(line.get_xdata()) == list(range(400))
    assert np.array_equal(line.get_ydata(), curve.live / MIB)
    peak = next(t for t in ax.texts if t.get_text().startswith("peak "))
    assert peak.get_text() == "peak 518,209,375 B\nstep 237"
    assert peak.xy == (237, 518_209_375 / MIB)
    # 940,572,672 B of IPU memory is within four times the peak: dashed across the panel, labelled.
    limits = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert [list(ln.get_ydata()) for ln in limits] == [[940_572_672 / MIB] * 2]
    assert any(t.get_text() == " IPU memory 897.0 MiB" for t in ax.texts)
    assert ax.get_ylim()[1] == pytest.approx(940_572_672 * 1.1 / MIB)
    assert ax.get_title(loc="right") == "55.1% of the IPU's 940,572,672 B"  # the limit, above the panel
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=plot.DPI)
    image = imread(io.BytesIO(buf.getvalue()), format="png")
    assert image.shape[:2] == (int(plot.FIGSIZE_STEPS[1] * plot.DPI), int(plot.FIGSIZE_STEPS[0] * plot.DPI))


def test_a_limit_far_above_the_peak_is_said_not_drawn(tmp_path):
    excluding = np.full(1216, 100_000, dtype=np.int64)
    path = tmp_path / "steps.json"
    path.write_bytes(encode_json(build_profile(excluding, always_live=excluding // 2,
                                               not_always_live_max=excluding // 2,
                                               by_program=program_steps(300, peak_at=40, peak_bytes=2_000_000,
                                                                        low_bytes=100_000))))
    fig = plot.figure(summarize(memreport.read(path)))
    ax = panel_of(fig)
    assert [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"] == []  # 5.07 x the 62,800,000 B peak
    assert ax.get_title(loc="right") == "19.7% of the IPU's 318,767,104 B"


def test_a_report_without_program_steps_has_no_panel():
    fig = plot.figure(summarize(memreport.read(SAMPLES / "mk1_profile.json")))
    assert panel_of(fig) is None
    assert tuple(fig.get_size_inches()) == plot.FIGSIZE


def test_past_the_points_drawn_each_bucket_keeps_its_highest_step():
    values = np.arange(10_000, dtype=np.int64) % 97
    values[6_543] = 1_000
    steps, drawn = liveness._highest(values, liveness.MAX_POINTS)
    assert steps.size == liveness.MAX_POINTS and 6_543 in steps.tolist()
    assert drawn.max() == 1_000 and np.array_equal(drawn, values[steps])
