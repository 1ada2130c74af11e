"""Tensor maps: parsing, the TensorMap model, its analysis, and reading through the registry."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import memreport
from memreport.analysis import count_out_of_memory, summarize
from memreport.analysis import tensors as tensor_analysis
from memreport.errors import ReadError, Truncated, UnsupportedOperation
from memreport.model.tensor_map import ESTIMATE_LABEL, TileTensor, element_bytes
from memreport.readers import read_path
from memreport.readers.documents.tensor_map import read_tensor_map, tensor_map_from_document
from tests.synth.profile import (
    build_profile,
    build_tensor_map,
    encode_cbor,
    encode_json,
    mk1_poplar_match_profile,
    tensor_entry,
)

SAMPLES = Path(__file__).resolve().parents[3] / "sample_reports"


def small_map(key: str = "mappings") -> dict:
    return build_tensor_map({
        "main": [
            tensor_entry("w", {0: 100, 1: 100, 2: 50}, shape=[250], framework_name="dense/kernel"),
            tensor_entry("h", [(1, 300), (3, 10)], element_type="half", shape=[2, 155], has_aliases=True),
            tensor_entry("odd", {1: 7}, element_type="mystery"),
        ],
        "init": [tensor_entry("c", {0: 8}, element_type="int", has_constant=True)],
    }, key=key)


def write(tmp_path: Path, data: bytes, name: str = "tensor_map.json") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_parse_tensors_and_pairs():
    tm = tensor_map_from_document(small_map(), "tm.json")
    assert tm.computations == ("main", "init")
    assert [t.name for t in tm.tensors] == ["w", "h", "odd", "c"]
    w, h, odd, c = tm.tensors
    assert (w.shape, w.element_type, w.num_elements, w.framework_name) == ((250,), "float", 250, "dense/kernel")
    assert h.has_aliases and not h.has_constant and c.has_constant
    assert (w.element_bytes, h.element_bytes, odd.element_bytes, c.element_bytes) == (4, 2, None, 4)
    assert tm.num_tiles == 4
    np.testing.assert_array_equal(tm.pair_tensor, [0, 0, 0, 1, 1, 2, 3])
    np.testing.assert_array_equal(tm.pair_tile, [0, 1, 2, 1, 3, 1, 0])
    np.testing.assert_array_equal(tm.elements_by_tile, [108, 407, 50, 10])
    np.testing.assert_array_equal(tm.est_bytes_by_tile, [432, 1000, 200, 20])
    np.testing.assert_array_equal(tm.unknown_elements_by_tile, [0, 7, 0, 0])
    assert tm.unknown_element_types == ("mystery",)
    assert tm.notes == ()


def test_tensors_on_tile_largest_first_unknown_sizes_last():
    tm = tensor_map_from_document(small_map(), "tm.json")
    assert tm.tensors_on_tile(1) == [TileTensor("h", "main", 300, 600), TileTensor("w", "main", 100, 400),
                                     TileTensor("odd", "main", 7, None)]
    name, computation, elements, est_bytes = tm.tensors_on_tile(0)[0]
    assert (name, computation, elements, est_bytes) == ("w", "main", 100, 400)
    assert tm.tensors_on_tile(3) == [("h", "main", 10, 20)]
    assert tm.tensors_on_tile(99) == []


def test_misspelt_key_and_eight_field_tensors():
    doc = small_map(key="mapping")
    for tensors in doc["mapping"].values():
        for t in tensors:
            del t[8:]
    tm = tensor_map_from_document(doc, "tm.json")
    assert len(tm.tensors) == 4 and all(t.framework_name is None for t in tm.tensors)


def test_element_sizes():
    assert [element_bytes(t) for t in ("float", "half", "int", "unsigned int", "bool", "char", "short",
                                       "long long", "quarter", "F32", "f16", "pred")] == \
        [4, 2, 4, 4, 1, 1, 2, 8, 1, 4, 2, 1]
    assert element_bytes("fancy") is None


def test_totals_that_differ_from_the_tiles_are_noted():
    doc = build_tensor_map({"c": [tensor_entry("t", {0: 5}, total=6)]})
    assert "differs from the sum" in tensor_map_from_document(doc, "x").notes[0]


def test_element_histogram_and_top_data_tiles():
    tm = tensor_map_from_document(small_map(), "tm.json")
    hist = tensor_analysis.element_histogram(tm, max_bins=8)
    assert hist.bin_elements == 64
    assert [(b.low, b.high, b.count) for b in hist.bins] == [
        (0, 64, 2), (64, 128, 1), (128, 192, 0), (192, 256, 0), (256, 320, 0), (320, 384, 0), (384, 448, 1)]
    assert sum(b.count for b in hist.bins) == tm.num_tiles
    top = tensor_analysis.top_data_tiles(tm, 2, tiles_per_ipu=2)
    assert [(r.tile, r.ipu, r.elements, r.est_bytes, r.unknown_size_elements) for r in top] == [
        (1, 0, 407, 1000, 7), (0, 0, 108, 432, 0)]
    assert top[0].tensors[0] == ("h", "main", 300, 600)


def test_attribution_to_a_profile(tmp_path):
    excluding = np.array([5000, 9000, 100, 200])
    report = memreport.read(write(tmp_path, encode_json(build_profile(excluding, including_gaps=excluding + 8)),
                                  "p.json"))
    tm = tensor_map_from_document(small_map(), "tm.json")
    rows = tensor_analysis.attribute(report, tm, summarize(report, top=2).top)
    assert [(r.tile, r.excluding_gaps, r.including_gaps, r.est_bytes) for r in rows] == [
        (1, 9000, 9008, 1000), (0, 5000, 5008, 432)]
    bigger = tensor_map_from_document(build_tensor_map({"c": [tensor_entry("t", {9: 1})]}), "big.json")
    with pytest.raises(ReadError, match="tile 9, but .* has 4 tiles"):
        tensor_analysis.attribute(report, bigger, ())


def test_a_tensor_map_alone_is_a_report_without_bytes(tmp_path):
    path = write(tmp_path, encode_json(small_map()))
    report = memreport.read(path)
    assert report.format == "tensor-map" and report.per_tile == "partial"
    assert report.kind == "tensor-map" and not hasattr(report, "excluding_gaps")
    assert report.num_tiles == 4 and count_out_of_memory(report) is None
    assert report.tensor_map.tensors_on_tile(0)[0].name == "w"
    assert report.info["unknown_element_types"] == ["mystery"]
    assert any("elements, not bytes" in note for note in report.notes)
    with pytest.raises(UnsupportedOperation):
        report.histogram()
    # --arch rounds the tile count up to whole IPUs.
    mk2 = memreport.read(path, arch="ipu2")
    assert mk2.num_tiles == 1472 and mk2.target.tiles_per_ipu == 1472
    assert mk2.tensor_map.elements_by_tile.shape == (1472,)


def test_a_cbor_tensor_map_reads_too(tmp_path):
    report = memreport.read(write(tmp_path, encode_cbor(small_map()), "tm.cbor"))
    assert report.format == "tensor-map" and len(report.tensor_map.tensors) == 4


def test_read_tensor_map_and_the_sample():
    tm = read_tensor_map(SAMPLES / "tensor_map.json")
    assert tm.computations == ("cluster_main", "cluster_init") and len(tm.tensors) == 6
    assert tm.num_tiles == 1216 and tm.unknown_element_types == ()
    profile = mk1_poplar_match_profile()
    variables = profile["memory"]["byCategory"]["variable"]["nonInterleaved"]["nonOverlapped"]
    assert (tm.est_bytes_by_tile <= variables).all()
    assert ESTIMATE_LABEL.startswith("estimated bytes")


def test_read_tensor_map_rejects_a_profile(tmp_path):
    path = write(tmp_path, encode_json(build_profile([1, 2])))
    with pytest.raises(ReadError, match="not a tensor map") as info:
        read_tensor_map(path)
    assert info.value.path == str(path)


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d.update(mappings=[]), "mappings must be an object, not a list"),
    (lambda d: d["mappings"].update(main="x"), "mappings['main'] must be a list of tensors"),
    (lambda d: d["mappings"]["main"].append({"inst_name": "x"}), "mappings['main'][3] must be a list"),
    (lambda d: d["mappings"]["main"].append(["x", 0, [1]]),
     "mappings['main'][3] has 3 items; a tensor has 8 or 9"),
    (lambda d: d["mappings"]["main"][0].__setitem__(3, 7),
     "mappings['main'][0][3] (element type) must be a string"),
    (lambda d: d["mappings"]["main"][0].__setitem__(6, "250"),
     "mappings['main'][0][6] (total elements) must be a whole number, not a string '250'"),
    (lambda d: d["mappings"]["main"][0].__setitem__(7, "0:100"),
     "mappings['main'][0][7] (tiles) must be a list of [tile, elements] pairs"),
    (lambda d: d["mappings"]["main"][1][7].append([5]),
     "mappings['main'] tensor 'h' tiles[2] must be a [tile, elements] pair"),
    (lambda d: d["mappings"]["main"][1][7].append([5, -3]),
     "mappings['main'] tensor 'h' tiles[2][1] (elements) must be non-negative, not -3"),
    (lambda d: d["mappings"]["main"][1][7].append(["5", 3]),
     "mappings['main'] tensor 'h' tiles[2][0] (tile) must be a whole number, not a string '5'"),
    (lambda d: d["mappings"]["main"][1][7].append([5, True]),  # numpy would read it as 1 element
     "mappings['main'] tensor 'h' tiles[2][1] (elements) must be a whole number, not a boolean True"),
    (lambda d: d["mappings"]["main"][1][7].append([False, 3]),
     "mappings['main'] tensor 'h' tiles[2][0] (tile) must be a whole number, not a boolean False"),
])
def test_malformed_tensor_maps(tmp_path, mutate, expected):
    doc = small_map()
    mutate(doc)
    path = write(tmp_path, encode_json(doc))
    with pytest.raises(ReadError) as info:
        read_path(path)
    assert expected in str(info.value)
    assert info.value.path == str(path)


def test_truncated_tensor_map(tmp_path):
    data = encode_json(small_map())
    with pytest.raises(Truncated) as info:
        read_tensor_map(write(tmp_path, data[:-5]))
    assert info.value.offset == len(data) - 5


def test_empty_mappings():
    tm = tensor_map_from_document({"mappings": {}}, "empty.json")
    assert tm.num_tiles == 0 and tm.tensors == ()
    assert tensor_analysis.top_data_tiles(tm) == [] and tensor_analysis.element_histogram(tm).bins == ()


def test_large_map_converts_pairs_in_one_go(tmp_path):
    tiles = 1472 * 4
    tensors = [tensor_entry(f"t{i}", [(t, 3) for t in range(i % 7, tiles, 7)]) for i in range(200)]
    tm = tensor_map_from_document(build_tensor_map({"c": tensors}), "big.json")
    assert tm.pair_tile.size == sum(len(t[7]) for t in tensors)
    assert int(tm.elements_by_tile.sum()) == 3 * tm.pair_tile.size


def test_an_arch_rounding_the_tile_count_past_the_limit_is_a_read_error(tmp_path):
    """--arch ipu1 on a map whose largest tile (2,097,151) rounds up to 2,097,600 tiles was "a memreport bug"."""
    from click.testing import CliRunner

    from memreport.cli import main
    from memreport.errors import UnexpectedError
    path = write(tmp_path, encode_json(build_tensor_map({"m": [tensor_entry("w", {2_097_151: 4})]})))
    with pytest.raises(ReadError) as caught:
        read_path(path, memreport.ReadOptions(arch="ipu1"))
    assert not isinstance(caught.value, UnexpectedError)
    assert str(caught.value) == f"{path}: 2,097,600 tiles is beyond any IPU system (at most 2,097,152)"
    result = CliRunner().invoke(main, [str(path), "--arch", "ipu1"])
    assert (result.exit_code, result.stderr) == (1, f"memreport: {caught.value}\n")


@pytest.mark.parametrize("data, what", [
    (b"!<arch>\n", "it is an ar archive (give it as an input, not as --tensor-map)"),
    (b"\x7fELF\x01\x01\x01", "it is an ELF file"),
    (b"[1, 2]", "it is a JSON list, not an object"),
    (b"\x00\xff\xfe", "it is binary data (byte offset 1 is not UTF-8 text)"),
    (b"Target:\n  Number of IPUs: 1\n", "it is text that does not start with a JSON object"),
])
def test_a_file_that_is_not_a_tensor_map_is_called_so(tmp_path, data, what):
    path = tmp_path / "not_a_map.json"
    path.write_bytes(data)
    with pytest.raises(ReadError) as caught:
        read_tensor_map(path)
    assert str(caught.value) == f'{path}: not a tensor map (a JSON object with "mappings"): {what}'
