"""The outputs of the bundled samples, compared byte for byte with tests/golden/.

A change to any output shows here as a diff of a file in tests/golden/.
When the change is meant, rewrite the files and review them in the commit:

    MEMREPORT_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from memreport.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("MEMREPORT_UPDATE_GOLDEN") == "1"

SAMPLES = ["mk2_1472_tiles.a", "mk1_summary.txt", "trace_two_modules.rep", "mk1_profile.json", "mk1_profile.cbor",
           "tensor_map.json"]
S = "sample_reports/"
CASES = {f"{name}.{fmt}": [S + name, "--format", fmt] for name in SAMPLES for fmt in ("text", "json", "csv")}
CASES.update({
    "archive_top3_bin64.text": [S + "mk2_1472_tiles.a", "--top", "3", "--bin-kib", "64"],
    "archive_overrides.text": [S + "mk2_1472_tiles.a", "--arch", "ipu1", "--tile-memory", "600KiB"],
    "summary_tile_memory.text": [S + "mk1_summary.txt", "--tile-memory", "5KiB"],
    "summary_tile_memory.json": [S + "mk1_summary.txt", "--tile-memory", "5KiB", "--format", "json"],
    # The tensor map is of the Mk1 program (1,216 tiles): the Mk2 archive refuses it (issue 14, item 4).
    "profile_tensor_map.text": [S + "mk1_profile.json", "--tensor-map", S + "tensor_map.json"],
    "profile_tensor_map.json": [S + "mk1_profile.json", "--tensor-map", S + "tensor_map.json", "--format", "json"],
    "several.csv": [S + "mk2_1472_tiles.a", S + "trace_two_modules.rep", S + "mk1_profile.json", "--format", "csv"],
    "several.json": [S + "mk2_1472_tiles.a", S + "trace_two_modules.rep", S + "mk1_profile.json", "--format", "json"],
    "gates.stderr": [S + "mk2_1472_tiles.a", "--fail-on-oom", "--max-tile", "600KiB", "--min-headroom", "1KiB",
                     "-o", os.devnull],
    "diff_summary_profile.text": ["diff", S + "mk1_summary.txt", S + "mk1_profile.json"],
    "diff_profiles.text": ["diff", S + "mk1_profile.json", S + "mk1_profile.cbor"],
    "diff_profiles.json": ["diff", S + "mk1_profile.json", S + "mk1_profile.cbor", "--format", "json"],
    "diff_traces.json": ["diff", S + "trace_two_modules.rep", S + "mk1_summary.txt", "--format", "json"],
})


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_is_golden(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, CASES[name], catch_exceptions=False)
    got = f"{result.output}[exit {result.exit_code}]\n"
    path = GOLDEN / name
    if UPDATE:
        path.write_text(got, encoding="utf-8")
    assert got == path.read_text(encoding="utf-8"), f"{name} differs from tests/golden/{name}"


def test_every_pinned_text_output_fits_100_columns():
    """memreport's own lines (notes, tables, symbols, tensors, diff) fit 100 columns by default (issue #14)."""
    for path in sorted(GOLDEN.glob("*.text")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert len(line) <= 100, f"{path.name}:{number} is {len(line)} columns"
