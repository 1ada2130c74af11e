"""The Python API a notebook uses: read, figures, records, tables, rich display; no eager heavy imports."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import memreport
from memreport import MemoryReport, MissingDependency, Target, TileReport
from memreport.analysis import summarize_all
from memreport.errors import MemreportError, UnsupportedOperation
from memreport.render.data.csv import BASE_COLUMNS, render_csv

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "sample_reports")
ARCHIVE = os.path.join(SAMPLES, "mk2_1472_tiles.a")
PROFILE = os.path.join(SAMPLES, "mk1_profile.json")
TRACE = os.path.join(SAMPLES, "trace_two_modules.rep")


@pytest.fixture(scope="module")
def archive() -> MemoryReport:
    return memreport.read(ARCHIVE)


def test_read_and_the_records(archive):
    t = archive.target
    assert (t.arch, t.num_ipus, t.tiles_per_ipu, t.num_tiles, t.bytes_per_tile) == ("ipu2", 1, 1472, 1472, 638_976)
    assert archive.tiles_out_of_memory == 3
    top = archive.top_tiles()
    assert len(top) == 5 and [r.tile for r in top[:3]] == [1402, 17, 731]
    first = top[0]
    assert (first.ipu, first.excluding_gaps, first.including_gaps) == (0, 638_976 + 150_000, None)
    assert first.out_of_memory is True
    assert list(first.breakdown)[0] == ".bss" and sum(first.breakdown.values()) == first.excluding_gaps
    assert len(archive.top_tiles(n=2)) == 2
    hist = archive.histogram()
    assert hist.bin_kib == 8 and sum(b.count for b in hist.bins) == 1472
    assert archive.histogram(bin_kib=64).bins[0].high_kib - archive.histogram(bin_kib=64).bins[0].low_kib == 64
    # Per-tile arrays, numpy all the way.
    assert isinstance(archive.excluding_gaps, np.ndarray) and archive.excluding_gaps.shape == (1472,)
    assert archive.including_gaps is None
    assert archive.breakdown[".text"].values.shape == (1472,)


def test_read_all_and_read_picks_the_largest():
    reports = memreport.read_all(TRACE)
    assert [r.module for r in reports] == ["cluster_vars_init.3", "cluster_training_step.17"]
    assert memreport.read(TRACE).module == "cluster_training_step.17"


def test_text_report_records_are_what_it_printed():
    report = memreport.read(TRACE)
    assert report.per_tile == "partial" and report.kind == "summary" and not hasattr(report, "excluding_gaps")
    assert report.tiles_out_of_memory == 2
    assert [t.tile for t in report.top_tiles()] == [5, 902, 17, 230, 641]
    with pytest.raises(UnsupportedOperation):
        report.histogram(bin_kib=1)


def test_plot_returns_a_figure(archive):
    from matplotlib.figure import Figure
    fig = archive.plot()
    assert isinstance(fig, Figure)
    assert fig.get_size_inches().tolist() == [12.0, 7.5]
    assert archive.plot(figsize=(8, 5)).get_size_inches().tolist() == [8.0, 5.0]


def test_repr_png(archive):
    png = archive._repr_png_()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000


def test_repr_png_of_a_tensor_map_is_none():
    report = memreport.read(os.path.join(SAMPLES, "tensor_map.json"))
    assert report._repr_png_() is None
    assert "tensor map" in report._repr_html_()


def test_repr_html_has_summary_and_top_tiles(archive):
    html = archive._repr_html_()  # the shareable page (issue 25) in a sandboxed frame
    assert html.startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;') and html.endswith("</iframe>")
    for text in ("ELF archive", "ipu2, 1 IPU x 1,472 tiles", "Top 5 tiles", "tile_1402.elf", "788,976 B",
                 "3 of 1,472 tiles out of memory"):
        assert text in html
    partial = memreport.read(TRACE)._repr_html_()
    assert "Tiles as printed" in partial and "cluster_training_step.17" in partial


def test_repr_html_escapes_everything_from_the_file():
    n = 3
    report = TileReport(
        source="<script>alert(1)</script>.a", format="archive", target=Target.for_arch("ipu2", n),
        excluding_gaps=np.array([1, 2, 700_000]), tile_names=["a&b", "<img src=x>", "<b>"],
        breakdown={"<i>section</i>": memreport.Column(np.array([1, 2, 700_000]))},
        notes=("a <note> & more",))
    html = report._repr_html_()
    assert "<script>" not in html and "<img" not in html and "<i>section" not in html and "<note>" not in html
    # The page escapes them, and the frame's srcdoc escapes the page once more.
    assert "&amp;lt;script&amp;gt;alert(1)" in html and "&amp;lt;i&amp;gt;section&amp;lt;/i&amp;gt;" in html
    assert "a &amp;lt;note&amp;gt; &amp;amp; more" in html and "\\u003cb\\u003e" in html


def test_to_dataframe_matches_the_csv(archive):
    pd = pytest.importorskip("pandas")
    frame = archive.to_dataframe()
    assert len(frame) == 1472
    assert list(frame.columns) == render_csv(summarize_all([archive])).splitlines()[0].split(",")
    assert list(frame.columns[:6]) == BASE_COLUMNS
    assert frame["tile"].dtype == np.int64
    for column in ("ipu", "excluding_gaps", "including_gaps", ".text", ".bss"):
        assert frame[column].dtype == "Int64", column
    assert frame["out_of_memory"].dtype == "boolean"
    assert frame["including_gaps"].isna().all()  # an archive has no gap information
    assert frame["excluding_gaps"].tolist() == archive.excluding_gaps.tolist()
    assert frame.loc[frame["out_of_memory"], "tile"].tolist() == [17, 731, 1402]
    assert frame.loc[1402, "member"] == "tile_1402.elf"
    assert frame.attrs["source"] == ARCHIVE and frame.attrs["bytes_per_tile"] == 638_976
    csv = pd.read_csv(__import__("io").StringIO(render_csv(summarize_all([archive]))))
    assert (frame[".text"].astype("int64") == csv[".text"]).all()


def test_to_dataframe_marks_missing_sections_na():
    pytest.importorskip("pandas")
    report = TileReport(source="x.a", format="archive", target=Target.for_arch("ipu2", 3),
                          excluding_gaps=np.array([10, 20, 30]),
                          breakdown={".data": memreport.Column(np.array([0, 5, 0]),
                                                               present=np.array([False, True, False]))})
    frame = report.to_dataframe()
    assert frame[".data"].isna().tolist() == [True, False, True]
    assert frame[".data"].dtype == "Int64"


def test_to_dataframe_of_a_text_report_has_the_detailed_tiles():
    pytest.importorskip("pandas")
    report = memreport.read(TRACE)
    frame = report.to_dataframe()
    assert frame["tile"].tolist() == [5, 902, 17, 230, 641]  # the maximum is on tile 5, detailed
    assert frame["out_of_memory"].tolist() == [True, True, False, False, False]
    assert frame["stated_by"].tolist() == ["detailed"] * 5
    assert frame["member"].isna().all()
    assert frame.attrs["per_tile"] == "partial"
    assert list(frame.columns) == render_csv(summarize_all([report])).splitlines()[0].split(",")


def test_to_dataframe_of_a_profile_has_including_gaps():
    pytest.importorskip("pandas")
    report = memreport.read(PROFILE)
    frame = report.to_dataframe()
    assert frame["including_gaps"].notna().all()
    assert int(frame["including_gaps"].sum()) == 23_878_396
    assert int(frame["excluding_gaps"].sum()) == 5_355_604


def test_missing_pandas_is_a_clear_memreport_error(archive, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    with pytest.raises(MissingDependency, match="pip install pandas") as info:
        archive.to_dataframe()
    assert isinstance(info.value, MemreportError) and isinstance(info.value, ImportError)


def test_missing_matplotlib_is_a_clear_memreport_error(archive, monkeypatch):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg",
                 "memreport.render.picture.figure"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(MissingDependency, match="pip install matplotlib"):
        archive.plot()
    assert archive._repr_png_() is None  # a notebook still shows the HTML
    assert "Top 5 tiles" in archive._repr_html_()


def test_import_and_read_do_not_import_matplotlib_or_pandas():
    script = textwrap.dedent(f"""
        import sys
        import memreport
        for path in ({ARCHIVE!r}, {PROFILE!r}, {TRACE!r}):
            report = memreport.read(path)
            report.top_tiles(); report.histogram(); report.tiles_out_of_memory; repr(report)
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("matplotlib", "pandas"))
        print(heavy)
    """)
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("kwargs,message", [
    ({"arch": "ipu9"}, "arch must be one of 'ipu1', 'ipu2', 'ipu21' (or None), not 'ipu9'"),
    ({"arch": "IPU2"}, "arch must be one of 'ipu1', 'ipu2', 'ipu21' (or None), not 'IPU2'"),
    ({"arch": 3}, "arch must be one of 'ipu1', 'ipu2', 'ipu21' (or None), not 3"),
    ({"tile_memory": 1.5}, "tile_memory must be a whole number of bytes or a size such as '624KiB', not 1.5"),
    ({"tile_memory": True}, "tile_memory must be a whole number of bytes or a size such as '624KiB', not True"),
    ({"tile_memory": 0}, "tile_memory: bytes per tile must be at least 1 B, not 0"),
    ({"tile_memory": "lots"}, "tile_memory: not a size: 'lots'"),
    ({"skip_bad_members": "yes"}, "skip_bad_members must be True or False, not 'yes'"),
    ({"thin_root": 3}, "thin_root must be a directory path (or None), not 3"),
])
def test_bad_arguments_are_value_errors_naming_the_argument(archive, kwargs, message):
    for function in (memreport.read, memreport.read_all):
        with pytest.raises(ValueError) as caught:
            function(ARCHIVE, **kwargs)
        assert str(caught.value).startswith(message)
        assert not isinstance(caught.value, memreport.MemreportError)


def test_read_takes_explicit_keywords_help_can_show():
    import inspect
    for function in (memreport.read, memreport.read_all):
        params = inspect.signature(function).parameters
        assert list(params) == ["path", "tile_memory", "arch", "skip_bad_members", "thin_root"]
        assert all(p.kind is p.KEYWORD_ONLY for name, p in params.items() if name != "path")


def test_top_tiles_refuses_a_count_that_is_not_one(archive):
    for n in (-1, 2.5, True, "3"):
        with pytest.raises(ValueError, match=r"^n must be a whole number of tiles, 0 or more"):
            archive.top_tiles(n)
    assert archive.top_tiles(0) == []


def test_notes_spell_the_overrides_as_python_does():
    report = memreport.read(ARCHIVE, arch="ipu1")
    assert "arch='ipu1' overrides the ipu2 named by the ELF flags" in report.notes
    from click.testing import CliRunner

    from memreport.cli import main
    out = CliRunner().invoke(main, [ARCHIVE, "--arch", "ipu1"]).output
    assert "Note:     --arch ipu1 overrides the ipu2 named by the ELF flags" in out
def test_read_compiles_reads_run_logs_as_one_sequence(tmp_path):
    from tests.synth.compile_logs import tf_batch_size_change
    log = tmp_path / "train.log"
    log.write_text(tf_batch_size_change().text())
    rerun = tmp_path / "rerun.log"  # the same run again: another file (the same file twice is read once)
    rerun.write_text(log.read_text())
    summary = memreport.read_compiles(log, str(rerun))
    assert [c.result for c in summary.history.compilations] == ["compiled"] * 4
    assert [f.kind for f in summary.findings][:2] == ["recompiled", "cache-not-working"]
