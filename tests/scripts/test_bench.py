"""scripts/bench.py's quick mode on tiny inputs, so the benchmark cannot rot."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import needs_size, size_a
from tests.scripts import script_module

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "bench.py")


def bench_module():
    """scripts/bench.py, imported as a module."""
    return script_module("bench")


def test_quick_mode_on_tiny_inputs(tmp_path):
    figures = tmp_path / "figures.json"
    result = subprocess.run([sys.executable, BENCH, "--quick", "--tiles", "48", "--data-dir", str(tmp_path),
                             "--json", str(figures)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "memreport --format json" in result.stdout and "ours/this" in result.stdout
    data = json.loads(figures.read_text())
    inputs = {row["input"] for row in data["rows"]}
    assert {"start-up", "archive (short), 48 tiles", "JSON profile, 48 tiles", "JSON (spaced) profile, 48 tiles",
            "CBOR profile, 48 tiles"} <= inputs
    commands = {(row["input"], row["command"]) for row in data["rows"]}
    assert ("JSON profile, 48 tiles", "python: orjson.loads") in commands
    assert ("JSON (spaced) profile, 48 tiles", "python: orjson.loads") in commands
    assert ("archive (short), 48 tiles", "python: touch the pages") in commands
    assert ("CBOR profile, 48 tiles", "python: cbor2.load") in commands
    for row in data["rows"]:
        assert row["runs"] == 1 and row["median_s"] > 0 and row["peak_rss_mb"] > 0 and row["cpu_median_s"] > 0
        first = row["command"] in ("memreport --format json", "memreport --version")  # what the others compare with
        assert (row["cpu_ratio"] is None) == first
    assert {t["target"] for t in data["targets"]} == {"memreport --version under 0.3 s"}
    # The inputs are kept for the next run, and the archive is one size -A can read.
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".json" or "profile" in p.name) == [
        "ipu2_48_tiles.v1.a", "profile_48_tiles.v2.cbor", "profile_48_tiles.v2.csv", "profile_48_tiles.v2.json",
        "profile_48_tiles.v2.spaced.json"]
    spaced = (tmp_path / "profile_48_tiles.v2.spaced.json").read_bytes()
    assert b'", "' in spaced and b'": ' in spaced and json.loads(spaced) == json.loads(
        (tmp_path / "profile_48_tiles.v2.json").read_bytes())
    assert ("memreport CSV profile, 48 tiles", "python: list(csv.reader)") in commands  # issue #26, item 7


@needs_size
def test_generated_archive_matches_size_dash_a(tmp_path):
    bench = bench_module()
    import memreport
    path = tmp_path / "a.a"
    bench.write_archive(str(path), 30)
    report = memreport.read(path)
    layout = bench.tile_layout(30)
    assert report.num_tiles == 30 and report.target.arch == "ipu2"
    assert report.excluding_gaps.tolist() == layout.sum(axis=1).tolist()
    assert report.breakdown[".text"].values.tolist() == layout[:, 0].tolist()
    assert {".rela.text", ".symtab", ".strtab", ".comment"} <= set(report.breakdown)
    for tile, (name, sections) in enumerate(size_a(path)):  # binutils reads every member
        assert name == f"tile_{tile:05d}.elf"
        assert all(report.breakdown[section].get(tile) == size for section, size in sections.items())


@needs_size
def test_archive_variants_hold_the_same_tiles_under_long_names_and_an_index(tmp_path):
    bench = bench_module()
    import memreport
    base = tmp_path / "base.a"
    bench.write_archive(str(base), 1475)  # past one IPU: the names count IPUs
    expected = memreport.read(base)
    for long_names, symbol_index in ((True, False), (True, True), (False, True)):
        path = tmp_path / f"v{long_names:d}{symbol_index:d}.a"
        bench.write_variant(str(path), str(base), long_names, symbol_index)
        blob = path.read_bytes()
        assert blob.startswith(b"!<arch>\n/               ") == symbol_index
        assert (b"//              " in blob[:40000]) == long_names
        report = memreport.read(path)
        names = [bench.long_name(i) if long_names else f"tile_{i:05d}.elf" for i in range(1475)]
        assert list(report.tile_names) == names
        assert names[1473] == ("ipu01_tile_0001.elf" if long_names else "tile_01473.elf")
        assert report.excluding_gaps.tolist() == expected.excluding_gaps.tolist()
        assert [name for name, _ in size_a(path)][-3:] == names[-3:]  # binutils reads the table and the index
