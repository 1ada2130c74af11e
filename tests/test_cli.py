"""The command as users run it: formats, outputs, exit codes and one-line errors."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from memreport import __version__
from memreport.cli import main
from memreport.synth.archive import ar_archive, tile_elf

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "sample_reports", "mk2_1472_tiles.a")


@pytest.fixture
def archive(tmp_path):
    limit = 638_976
    members = [(f"tile_{i}.elf", tile_elf(i, 2000 + i, 100, (limit + 10 if i == 3 else 1000 * i)))
               for i in range(6)]
    path = tmp_path / "build.a"
    path.write_bytes(ar_archive(members, symbol_index=True))
    return path


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result


def test_text_is_the_default(archive):
    result = run(archive)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "  By Tile (Excluding Gaps):\n    Range (KB) Histogram (Excluding Gaps)" in out
    assert "    1 tile(s) out of memory\n" in out
    assert "Top 5 tiles (by excluding gaps):" in out
    assert "OUT OF MEMORY by 2,113 B" in out  # 2,003 + 100 + 638,986 - 638,976


def test_json_and_csv_carry_the_same_figures(archive):
    doc = json.loads(run(archive, "--format", "json", "--top", "2").output)
    (r,) = doc["reports"]
    rows = list(csv.DictReader(io.StringIO(run(archive, "--format", "csv").output)))
    assert len(rows) == r["target"]["num_tiles"] == 6
    assert sum(int(row["excluding_gaps"]) for row in rows) == r["totals"]["excluding_gaps"]
    assert sum(row["out_of_memory"] == "true" for row in rows) == r["tiles_out_of_memory"] == 1
    assert max(int(row["excluding_gaps"]) for row in rows) == r["max_excluding_gaps"]["bytes"]
    assert [t["tile"] for t in r["top_tiles"]] == [3, 5]
    assert rows[3][".text"] == "2003" and rows[3]["member"] == "tile_3.elf"


def test_several_files_give_one_report_each(archive, tmp_path):
    doc = json.loads(run(archive, SAMPLE, "--format", "json").output)
    assert [r["source"] for r in doc["reports"]] == [str(archive), SAMPLE]
    text = run(archive, SAMPLE).output
    assert text.count("By Tile (Excluding Gaps):") == 2


def test_output_file(archive, tmp_path):
    out = tmp_path / "r.json"
    result = run(archive, "--format", "json", "-o", out)
    assert result.exit_code == 0 and result.output == ""
    assert json.loads(out.read_text())["schema"] == "memreport/1"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".memreport-")] == []


def test_options(archive):
    doc = json.loads(run(archive, "--format", "json", "--tile-memory", "4KiB", "--bin-kib", "64").output)
    (r,) = doc["reports"]
    assert r["target"]["bytes_per_tile"] == 4096
    assert r["tiles_out_of_memory"] == 4  # tiles 2-5 exceed 4,096 B
    assert r["histogram"]["bin_kib"] == 64
    assert json.loads(run(archive, "--format", "json", "--arch", "ipu1").output)["reports"][0]["target"][
        "tiles_per_ipu"] == 1216


@pytest.mark.parametrize("args,message", [
    (["--format", "xml"], "Invalid value for '--format'"),
    (["--tile-memory", "lots"], "not a size: 'lots'"),
    (["--top", "-1"], "Invalid value for '--top'"),
    (["--arch", "ipu3"], "Invalid value for '--arch'"),
    ([], None),
])
def test_bad_usage_exits_2(archive, args, message):
    result = run(*(args + ([archive] if args else [])))
    assert result.exit_code == 2
    if message:
        assert message in result.output


def test_unreadable_inputs_exit_1_with_one_line(tmp_path, archive):
    (tmp_path / "notes.txt").write_text("shopping list\n")
    (tmp_path / "empty").write_bytes(b"")
    cases = {
        str(tmp_path / "missing.a"): "no such file",
        str(tmp_path): "is a directory",
        str(tmp_path / "empty"): "empty file",
        str(tmp_path / "notes.txt"): "unrecognised format (expected ",
    }
    for path, message in cases.items():
        proc = subprocess.run([sys.executable, "-m", "memreport", str(archive), path], capture_output=True, text=True)
        assert proc.returncode == 1, (path, proc.stderr)
        assert proc.stdout == ""  # nothing half-printed for the good file before it
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        assert proc.stderr.startswith(f"memreport: {path}: {message}")


def test_version_and_help():
    assert run("--version").output == f"memreport, version {__version__}\n"
    help_text = run("--help").output
    assert help_text.startswith("Usage: memreport [OPTIONS] FILE...")
    for option in ("--format", "--output", "--top", "--tile-memory", "--arch", "--bin-kib", "Exit status"):
        assert option in help_text


def test_console_script_runs_the_sample():
    proc = subprocess.run(["memreport", SAMPLE], capture_output=True, text=True)
    assert proc.returncode == 0
    assert "    3 tile(s) out of memory" in proc.stdout
    assert "Maximum (Excluding Gaps): 788,976 (770.5 K) on tile 1402" in proc.stdout
