"""profile.pop through libpva, tested against a stand-in ``pva`` module (no Poplar SDK can be installed here)."""
from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

import memreport
from memreport.cli import main
from memreport.errors import ReadError
from memreport.model import ALWAYS_LIVE, NOT_ALWAYS_LIVE, ProgramLiveness
from memreport.readers.documents.pva import SQLITE_MAGIC
from tests.synth.pva import fake_pva

EXCLUDING = [1000, 2000, 640_000, 500, 700, 800, 900, 1100]
INCLUDING = [1200, 2100, 641_000, 600, 800, 900, 1000, 1200]
OVERFLOW = [0, 0, 1024, 0, 0, 0, 0, 0]
VARIABLE = [e - 300 - o for e, o in zip(EXCLUDING, OVERFLOW)]
CATEGORIES = {
    "vertexCode": {"interleaved": [200] * 8},
    "variable": {"nonInterleaved": VARIABLE, "overflowed": OVERFLOW, "nonInterleaved.overlapped": [5] * 8},
    "constant": {"nonInterleaved": [100] * 8},
}
ALWAYS = [300] * 8
NOT_ALWAYS = [e - 300 for e in EXCLUDING]
STEPS = [("init/copy", 1200), ("main/conv2d_7/fwd", 9000), ("main/relu_3", 4000)]
LIVE_AT_PEAK = [("conv2d_7/fwd/partials", 6000), ("relu_3/in", 3000)]  # step 1's notAlwaysLiveMemory.variables


@pytest.fixture
def pop(tmp_path):
    """A file that starts like an SQLite database, as profile.pop does (its tables are libpva's business)."""
    path = tmp_path / "profile.pop"
    path.write_bytes(SQLITE_MAGIC + bytes(84))
    return path


def install(monkeypatch, **overrides):
    opened: list[str] = []
    kwargs = {"excluding": EXCLUDING, "including": INCLUDING, "categories": CATEGORIES, "always_live": ALWAYS,
              "not_always_live": NOT_ALWAYS, "steps": STEPS, "num_ipus": 2, "tiles_per_ipu": 4, "opened": opened,
              "step_variables": {1: LIVE_AT_PEAK, 2: [("relu_3/out", 4000)]}}
    kwargs.update(overrides)
    monkeypatch.setitem(sys.modules, "pva", fake_pva(**kwargs))
    return opened


def test_without_pva_the_error_says_what_to_read_instead(pop, monkeypatch):
    monkeypatch.setitem(sys.modules, "pva", None)  # import pva raises ImportError
    with pytest.raises(ReadError) as info:
        memreport.read(pop)
    assert str(info.value) == (
        f"{pop}: a PopVision profile.pop (SDK 2.1+) needs Graphcore's libpva module 'pva' (in the Poplar SDK, not on "
        "PyPI), which cannot be imported here: read the archive instead (target.saveArchive, or "
        "autoReport.outputArchive), or the printed summary, or run 'memreport export profile.pop -o memory.json' "
        "where the SDK is installed")
    result = CliRunner().invoke(main, [str(pop)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "needs Graphcore's libpva module 'pva'" in result.stderr


def test_the_libpva_attributes_map_onto_the_model(pop, monkeypatch):
    opened = install(monkeypatch)
    report = memreport.read(pop)
    assert opened == [str(pop)]
    assert report.format == "pop-profile" and report.format_name == "PopVision profile (libpva)"
    assert report.target == memreport.Target(num_tiles=8, arch="ipu2", num_ipus=2, tiles_per_ipu=4,
                                             bytes_per_tile=638_976, clock_hz=1.33e9, type="IPU")
    np.testing.assert_array_equal(report.excluding_gaps, EXCLUDING)
    np.testing.assert_array_equal(report.including_gaps, INCLUDING)
    # Categories in FORMATS.md's order (libpva's own attribute order is not known), overlapped bytes apart.
    assert list(report.breakdown) == ["variable", "constant", "vertexCode", "variable.overlapped", ALWAYS_LIVE,
                                      NOT_ALWAYS_LIVE]
    np.testing.assert_array_equal(report.breakdown["variable"].values, np.add(VARIABLE, OVERFLOW))
    assert not report.breakdown["variable.overlapped"].counted and not report.breakdown[ALWAYS_LIVE].counted
    assert {k: v.tolist() for k, v in report.regions.items()} == {
        "non_interleaved": [v + 100 for v in VARIABLE], "interleaved": [200] * 8, "overflowed": OVERFLOW}
    # The variables live at the peak step (the first with the most bytes) are read; no other step's are.
    assert report.liveness_steps == (ProgramLiveness(1200, "init/copy"),
                                     ProgramLiveness(9000, "main/conv2d_7/fwd", variables=tuple(LIVE_AT_PEAK)),
                                     ProgramLiveness(4000, "main/relu_3"))
    assert report.info == {"target": {"bytes_per_ipu": 638_976 * 4, "total_memory": 638_976 * 8, "num_replicas": 1,
                                      "ipus_per_replica": 2, "tiles_per_replica": 8,
                                      "memory_per_replica": 638_976 * 8},
                           "graph": {"num_vertices": 340, "num_compute_sets": 12}, "poplar_version": "3.4.0 (deadbeef)"}
    assert report.notes == ()
    assert report.tiles_out_of_memory == 1  # tile 2: over 638,976 B, and its overflowed region is not empty
    top = report.top_tiles(1)[0]
    assert top.tile == 2 and top.liveness is not None and top.liveness.pressure == "not-always-live"
    assert top.liveness.basis == "libpva notAlwaysLiveBytes"


def test_only_totals_per_category_and_an_odd_tile_count(pop, monkeypatch):
    install(monkeypatch, totals_only=True, num_tiles=16, architecture=None, target_type="IpuModel",
            always_live=None)
    report = memreport.read(pop)
    assert report.target.arch is None and report.target.type == "IPU_MODEL" and report.regions == {}
    assert report.breakdown["variable"].values.tolist() == [v + 5 + o for v, o in zip(VARIABLE, OVERFLOW)]
    assert report.notes == (
        "report.compilation.target.numTiles is 16 but report.compilation.tiles lists 8: the tiles listed are reported",
        "libpva gives only .total for 3 categories (variable, constant, vertexCode): no region or overlap split",
        "libpva gives only one of alwaysLiveBytes and notAlwaysLiveBytes per tile",
        "the categories do not sum to memory.total.excludingGaps on 8 tile(s)")


def test_libpva_failures_are_read_errors(pop, monkeypatch):
    install(monkeypatch, open_error="Unsupported report version 9.0")
    with pytest.raises(ReadError, match="libpva cannot open it as a PopVision profile: Unsupported report version 9.0"):
        memreport.read(pop)
    install(monkeypatch, excluding=[-1] + EXCLUDING[1:])
    with pytest.raises(ReadError, match=r"libpva's report\.compilation\.tiles\[0\]\.memory\.total\.excludingGaps is "
                                        r"-1: not a byte or tile count"):
        memreport.read(pop)
    module = fake_pva(excluding=EXCLUDING, including=INCLUDING)
    report = module.openReport("x")
    del report.compilation.tiles[3].memory.total.includingGaps
    monkeypatch.setitem(sys.modules, "pva", SimpleNamespace(openReport=lambda path: report))
    with pytest.raises(ReadError, match=r"libpva gives no report\.compilation\.tiles\[3\]\.memory\.total\."
                                        r"includingGaps"):
        memreport.read(pop)


def test_export_writes_json_every_command_reads_without_the_sdk(pop, monkeypatch, tmp_path):
    install(monkeypatch)
    runner = CliRunner()
    with_pva = runner.invoke(main, [str(pop), "--tile", "5"])
    assert with_pva.exit_code == 0, with_pva.output
    out = tmp_path / "memory.json"
    assert runner.invoke(main, ["export", str(pop), "-o", str(out), "--tile", "5"]).exit_code == 0
    monkeypatch.setitem(sys.modules, "pva", None)  # a machine without the SDK
    without = runner.invoke(main, [str(out), "--tile", "5"])
    assert without.exit_code == 0 and without.stdout == with_pva.stdout
    assert "Program steps: 3; the most not-always-live bytes, 9,000 B, at step 1 (main/conv2d_7/fwd)" in without.stdout
