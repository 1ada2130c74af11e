"""The browser and the pages the page tests share (tests/render/test_page*.py)."""
from __future__ import annotations

import os
import shutil
from datetime import timedelta

import numpy as np
import pytest
from click.testing import CliRunner

from memreport.cli import main
from tests.builds import NEW, OLD, write_build
from tests.render.page_browser import launch
from tests.synth.compile_logs import Clock, popart_cold, popart_warm, tf_batch_size_change
from tests.synth.profile import build_profile, encode_json

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "sample_reports")


@pytest.fixture(scope="module")
def browser():
    yield from launch()


@pytest.fixture(scope="session")
def pages(tmp_path_factory):
    """A page of each kind: the bundled archive's report, one of several reports, the runs of a sweep's log, a
    diff, a compiles page, the Mk1 profile's (small tiles), a profile of no tiles and one of 400 program steps."""
    d = tmp_path_factory.mktemp("pages")
    shutil.copy(os.path.join(SAMPLES, "mk2_1472_tiles.a"), d / "mk2.a")
    shutil.copy(os.path.join(SAMPLES, "sweep.log"), d / "sweep.log")
    shutil.copy(os.path.join(SAMPLES, "mk1_profile.json"), d / "profile.json")
    shutil.copy(os.path.join(SAMPLES, "mk2_profile.json"), d / "steps.json")
    (d / "zero.json").write_bytes(encode_json(build_profile(np.zeros(0, dtype=np.int64))))
    shutil.copy(os.path.join(SAMPLES, "trace_two_modules.rep"), d / "trace.rep")
    shutil.copy(os.path.join(SAMPLES, "mk1_summary.txt"), d / "summary.txt")
    write_build(d / "old.a", OLD)
    write_build(d / "new.a", NEW)
    cold = popart_cold()
    (d / "cold.log").write_text(cold.text())
    (d / "warm.log").write_text(popart_warm(Clock(cold.clock.now + timedelta(hours=1))).text())
    (d / "train.log").write_text(tf_batch_size_change().text())
    cwd = os.getcwd()
    os.chdir(d)
    try:
        for args in (["mk2.a", "--html", "report.html"], ["trace.rep", "summary.txt", "--html", "several.html"],
                     ["diff", "old.a", "new.a", "--html", "diff.html"],
                     ["compiles", "cold.log", "warm.log", "train.log", "--html", "compiles.html"],
                     ["sweep.log", "--html", "sweep.html"], ["profile.json", "--html", "profile.html"],
                     ["zero.json", "--html", "zero.html"], ["steps.json", "--html", "steps.html"]):
            result = CliRunner().invoke(main, [*args, "-o", os.devnull], prog_name="memreport")
            assert result.exit_code == 0, result.output
    finally:
        os.chdir(cwd)
    return d


