"""``memreport FILE --png OUT.png``: a picture beside any format, written whole or not at all."""
from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from memreport.cli import main
from memreport.errors import MemreportError
from memreport.render.picture import plot

pytest.importorskip("matplotlib")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "sample_reports")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def leftovers(directory) -> list[str]:
    """Temporary files a failed write would leave behind."""
    return [name for name in os.listdir(directory) if name.startswith(".memreport-")]


@pytest.mark.parametrize("fmt", ["text", "json", "csv"])
def test_png_beside_any_format(archive, tmp_path, fmt):
    out = tmp_path / "memory.png"
    result = run(archive, "--png", out, "--format", fmt)
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(PNG_MAGIC)
    if fmt == "json":
        assert json.loads(result.output)["reports"][0]["tiles_out_of_memory"] == 1
    elif fmt == "text":
        assert "1 tile(s) out of memory" in result.output
    assert leftovers(tmp_path) == []


def test_png_of_a_text_summary(tmp_path):
    out = tmp_path / "summary.png"
    result = run(os.path.join(SAMPLES, "mk1_summary.txt"), "--png", out, "-o", tmp_path / "summary.txt")
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(PNG_MAGIC)


def test_several_reports_one_png_each(archive, tmp_path):
    out = tmp_path / "memory.png"
    result = run(archive, os.path.join(SAMPLES, "trace_two_modules.rep"), "--png", out, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert not out.exists()
    for n in (1, 2, 3):  # the archive, then the trace's two modules
        assert (tmp_path / f"memory-{n}.png").read_bytes().startswith(PNG_MAGIC)
    assert "memory-3.png (one PNG per report)" in result.output  # stderr, mixed in by CliRunner


def test_png_to_stdout_needs_the_report_elsewhere(archive, tmp_path):
    result = run(archive, "--png", "-")
    assert result.exit_code == 2
    assert "--png - needs one report and --output elsewhere" in result.output
    result = CliRunner().invoke(main, [str(archive), "--png", "-", "-o", str(tmp_path / "r.txt")])
    assert result.exit_code == 0
    assert result.stdout_bytes.startswith(PNG_MAGIC)
    assert "By Tile" in (tmp_path / "r.txt").read_text()


def test_unreadable_input_writes_no_png(tmp_path):
    bad = tmp_path / "bad.a"
    bad.write_bytes(b"!<arch>\ntruncated")
    out = tmp_path / "memory.png"
    result = run(bad, "--png", out)
    assert result.exit_code == 1
    assert not out.exists() and leftovers(tmp_path) == []


def test_failed_drawing_writes_nothing(archive, tmp_path, monkeypatch):
    calls = []

    def render_png(report, bin_kib=None):
        calls.append(report)
        if len(calls) == 2:
            raise MemreportError("drawing failed")
        return PNG_MAGIC

    monkeypatch.setattr(plot, "render_png", render_png)
    report_path, out = tmp_path / "report.txt", tmp_path / "memory.png"
    result = run(archive, archive, "--png", out, "-o", report_path)
    assert result.exit_code == 1
    assert "drawing failed" in result.output
    # Every figure is drawn before anything is written: no first PNG, no report, no temporary file.
    assert sorted(os.listdir(tmp_path)) == ["build.a"]


def test_unwritable_png_leaves_no_partial_file(archive, tmp_path):
    """Every output or none (issue #14): -o was written before a --png that failed, exit 1."""
    out = tmp_path / "missing" / "memory.png"
    result = run(archive, "--png", out, "-o", tmp_path / "report.txt")
    assert result.exit_code == 4
    assert result.stderr == f"memreport: {out}: cannot write: No such file or directory\n"
    assert not out.parent.exists() and leftovers(tmp_path) == []
    assert not (tmp_path / "report.txt").exists()


def test_a_tensor_map_has_no_picture(tmp_path):
    out = tmp_path / "memory.png"
    result = run(os.path.join(SAMPLES, "tensor_map.json"), "--png", out)
    assert result.exit_code == 2
    assert "elements, not bytes" in result.output
    assert not out.exists()
