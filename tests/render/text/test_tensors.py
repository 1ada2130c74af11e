"""Tensor-map sections in text, JSON and CSV, and the ``--tensor-map`` option."""
from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

import memreport
from memreport.analysis import summarize, summarize_all
from memreport.analysis.tensors import element_histogram
from memreport.cli import main
from memreport.model.tensor_map import ESTIMATE_LABEL
from memreport.readers.documents.tensor_map import tensor_map_from_document
from memreport.render.data import csv as csv_table
from memreport.render.data import report as table
from memreport.render.text import report as text
from memreport.render.text import tensors
from tests import SAMPLES
from tests.conftest import flat
from tests.synth.profile import build_profile, build_tensor_map, encode_json, tensor_entry


def small_map() -> dict:
    return build_tensor_map({"main": [
        tensor_entry("w", {0: 100, 1: 100, 2: 50}),
        tensor_entry("h", {1: 300, 3: 10}, element_type="half"),
        tensor_entry("odd", {1: 7}, element_type="mystery"),
    ]})


@pytest.fixture
def files(tmp_path):
    excluding = [5000, 9000, 100, 200]
    profile = tmp_path / "profile.json"
    profile.write_bytes(encode_json(build_profile(excluding, including_gaps=[e + 8 for e in excluding],
                                                  num_ipus=2, tiles_per_ipu=2)))
    tensor_map = tmp_path / "tensor_map.json"
    tensor_map.write_bytes(encode_json(small_map()))
    return profile, tensor_map


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_histogram_rows_golden():
    hist = element_histogram(tensor_map_from_document(small_map(), "tm.json"), max_bins=8)
    assert tensors.histogram_lines(hist) == [
        "    Range (elements) Histogram                                Count (tiles)",
        "             0 -  64 ****************************************             2",
        "            64 - 128 ********************                                 1",
        "           128 - 192                                                      0",
        "           192 - 256                                                      0",
        "           256 - 320                                                      0",
        "           320 - 384                                                      0",
        "           384 - 448 ********************                                 1",
    ]


def test_tensor_map_alone_as_text(files):
    _, tensor_map = files
    out = text.render(summarize_all([memreport.read(tensor_map)], top=2))
    assert "Format:   tensor map" in out
    assert "Memory Usage" not in out and "By Tile (Excluding Gaps)" not in out  # no bytes are known
    assert "  Tensors:      3 in 1 computation(s)\n  Elements:     567 on 4 of 4 tiles\n" in out
    assert flat(f"  ({ESTIMATE_LABEL})") in flat(out)
    assert "Tiles holding the most tensor data (top 2, by estimated bytes):" in out
    assert ("  Tile 1: tensors: 3, 407 elements, ~1,000 B estimated (+7 elements of unknown size)\n"
            "    Elements  Est. bytes  Tensor (computation)\n"
            "         300      ~600 B  h (main)\n"
            "         100      ~400 B  w (main)\n"
            "           7           ?  odd (main)\n") in out
    assert "? = element type of unknown size (mystery): no byte estimate" in out


def test_tensor_map_alone_as_json_and_csv(files):
    _, tensor_map = files
    report = memreport.read(tensor_map)
    record = table.report_dict(summarize(report, top=1))
    assert record["format"] == "tensor-map" and record["histogram"] is None
    assert record["totals"] == {"including_gaps": None, "excluding_gaps": None}
    assert "tensor_map" not in record["info"]
    section = record["tensor_map"]
    assert (section["num_tensors"], section["elements"], section["est_bytes"]) == (3, 567, 1620)
    assert section["unknown_element_types"] == ["mystery"] and section["estimate"] == ESTIMATE_LABEL
    assert section["top_tiles"][0]["tensors"][2] == {"name": "odd", "computation": "main", "elements": 7,
                                                     "est_bytes": None}
    json.loads(table.render_json(summarize_all([report])))
    rows = list(csv.reader(io.StringIO(csv_table.render_csv(summarize_all([report])))))
    assert rows[0][-3:] == ["tensor_elements", "tensor_est_bytes", "tensor_unknown_size_elements"]
    assert rows[2] == ["1", "", "", "", "", "", "407", "1000", "7"]
    assert len(rows) == 5


def test_cli_tensor_map_attributes_the_top_tiles(files):
    profile, tensor_map = files
    result = run(profile, "--tensor-map", tensor_map, "--top", "2")
    assert result.exit_code == 0, result.output
    out = result.output
    assert flat(f"Tensors on the top 2 tiles (from {tensor_map}):\n  ({ESTIMATE_LABEL})\n") in flat(out)
    assert flat("  Tile 1 (IPU 0): 9,000 B excluding gaps; tensors: 3, 407 elements, ~1,000 B estimated "
                "(+7 elements of unknown size), 11.1% of excluding gaps\n") in flat(out)
    assert flat("  Tile 0 (IPU 0): 5,000 B excluding gaps; tensors: 1, 100 elements, ~400 B estimated") in flat(out)
    assert out.index("Top 2 tiles") < out.index("Tensors on the top 2 tiles")


def test_cli_tensor_map_json(files):
    profile, tensor_map = files
    result = run(profile, "--tensor-map", tensor_map, "--format", "json", "--top", "1")
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)["reports"][0]
    attribution = record["tensor_attribution"]
    assert attribution["tensor_map"] == str(tensor_map)
    assert [(t["tile"], t["excluding_gaps"], t["tensor_est_bytes"]) for t in attribution["tiles"]] == [
        (1, 9000, 1000)]
    assert record["max_excluding_gaps"] == {"tile": 1, "bytes": 9000}  # the profile's own figures stay


def test_cli_tensor_map_alone(files):
    _, tensor_map = files
    result = run(tensor_map)
    assert result.exit_code == 0, result.output
    assert "By Tile (tensor elements):" in result.output


def test_cli_tensor_map_errors(files, tmp_path):
    profile, _ = files
    too_big = tmp_path / "big.json"
    too_big.write_bytes(encode_json(build_tensor_map({"c": [tensor_entry("t", {9: 1})]})))
    result = run(profile, "--tensor-map", too_big)
    assert result.exit_code == 1
    assert "places tensors on tile 9" in result.output and "has 4 tiles" in result.output
    result = run(profile, "--tensor-map", profile)
    assert result.exit_code == 1 and "not a tensor map" in result.output
    result = run(profile, "--tensor-map", tmp_path / "missing.json")
    assert result.exit_code == 1 and "no such file" in result.output


def test_samples_with_the_tensor_map():
    result = run(SAMPLES / "mk1_profile.json", "--tensor-map", SAMPLES / "tensor_map.json", "--top", "1")
    assert result.exit_code == 0, result.output
    assert (flat("  Tile 0 (IPU 0): 5,780 B excluding gaps; tensors: 6, 269 elements, ~1,065 B estimated")
            in flat(result.output))
    assert "bias.2 (cluster_main)" in result.output
