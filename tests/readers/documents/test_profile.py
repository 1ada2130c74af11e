"""JSON and CBOR graph profiles: layouts, exact per-tile arrays, target, categories, errors."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import memreport
from memreport import analysis
from memreport.errors import ReadError, Truncated
from memreport.readers import identify, read_path
from memreport.readers.documents.document import looks_like_cbor_map, looks_like_json_object
from memreport.readers.documents.profile import ALWAYS_LIVE, NOT_ALWAYS_LIVE_MAX
from tests.synth.profile import (
    build_profile,
    encode_cbor,
    encode_json,
    mk1_poplar_match_profile,
    split_categories,
    wrap,
)

SAMPLES = Path(__file__).resolve().parents[3] / "sample_reports"
EXCLUDING = np.array([1000, 2000, 300000, 4000], dtype=np.int64)
INCLUDING = EXCLUDING + np.array([24, 0, 1000, 96])
BYTES_PER_TILE = 262144


def small_profile(**kwargs) -> dict:
    """Four tiles on two IPUs; tile 2 is 37,856 B over its 262,144."""
    categories = {
        "variable": {"nonInterleaved": [600, 1500, 200000, 3000], "overflowed": [0, 0, 37856, 0]},
        "vertexCode": {"nonInterleaved": [300, 400, 2144, 800], "interleaved": [100, 100, 60000, 200]},
    }
    args = {"including_gaps": INCLUDING, "categories": categories, "num_ipus": 2, "tiles_per_ipu": 2,
            "bytes_per_tile": BYTES_PER_TILE, "clock_hz": 1.6e9, "graph": {"numVertices": 12, "numEdges": 34},
            "always_live": [900, 1900, 262000, 3900], "not_always_live_max": [100, 100, 38000, 100]}
    args.update(kwargs)
    return build_profile(EXCLUDING, **args)


ENCODINGS = {
    "json-bare": lambda doc: encode_json(doc),
    "json-wrapped": lambda doc: encode_json(wrap(doc), indent=True),
    "cbor-bare": lambda doc: encode_cbor(doc, self_describe=False),
    "cbor-tagged": lambda doc: encode_cbor(doc),
    "cbor-wrapped-tagged": lambda doc: encode_cbor(wrap(doc)),
    "cbor-typed-arrays": lambda doc: encode_cbor(doc, typed_arrays=True),
}


def write(tmp_path: Path, data: bytes, name: str = "profile.bin") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def read_one(path: Path, **kwargs) -> memreport.MemoryReport:
    reports = memreport.read_all(path, **kwargs)
    assert len(reports) == 1
    return reports[0]


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_every_layout_reads_the_same_model(tmp_path, encoding):
    report = read_one(write(tmp_path, ENCODINGS[encoding](small_profile())))
    assert report.format == ("json-profile" if encoding.startswith("json") else "cbor-profile")
    assert report.per_tile == "complete"
    np.testing.assert_array_equal(report.excluding_gaps, EXCLUDING)
    np.testing.assert_array_equal(report.including_gaps, INCLUDING)
    assert report.excluding_gaps.dtype == np.int64 and report.including_gaps.dtype == np.int64
    assert report.target == memreport.Target(num_tiles=4, arch=None, num_ipus=2, tiles_per_ipu=2,
                                             bytes_per_tile=BYTES_PER_TILE, clock_hz=1.6e9, type="IPU")
    assert report.breakdown_kind == "category"
    assert list(report.breakdown) == ["variable", "vertexCode", ALWAYS_LIVE, NOT_ALWAYS_LIVE_MAX]
    np.testing.assert_array_equal(report.breakdown["variable"].values, [600, 1500, 237856, 3000])
    np.testing.assert_array_equal(report.breakdown["vertexCode"].values, [400, 500, 62144, 1000])
    assert report.breakdown["variable"].counted and not report.breakdown[ALWAYS_LIVE].counted
    np.testing.assert_array_equal(report.breakdown[ALWAYS_LIVE].values, [900, 1900, 262000, 3900])
    np.testing.assert_array_equal(report.breakdown[NOT_ALWAYS_LIVE_MAX].values, [100, 100, 38000, 100])
    assert sorted(report.regions) == ["interleaved", "non_interleaved", "overflowed"]
    np.testing.assert_array_equal(report.regions["non_interleaved"], [900, 1900, 202144, 3800])
    np.testing.assert_array_equal(report.regions["interleaved"], [100, 100, 60000, 200])
    np.testing.assert_array_equal(report.regions["overflowed"], [0, 0, 37856, 0])
    assert report.info["graph"] == {"num_vertices": 12, "num_edges": 34, "num_vars": 0, "num_compute_sets": 0}
    assert report.info["target"] == {"bytes_per_ipu": 2 * BYTES_PER_TILE, "total_memory": 4 * BYTES_PER_TILE}
    assert report.notes == ()
    assert ("execution_profile" in report.info) == ("wrapped" in encoding)


def test_maxima_oom_and_top_tiles_via_analysis(tmp_path):
    report = read_one(write(tmp_path, encode_json(small_profile())))
    assert analysis.max_excluding_gaps(report) == memreport.TileBytes(2, 300000)
    assert analysis.max_including_gaps(report) == memreport.TileBytes(2, 301000)
    np.testing.assert_array_equal(analysis.out_of_memory(report), [False, False, True, False])
    assert report.tiles_out_of_memory == 1
    top = report.top_tiles(2)
    assert [(t.tile, t.ipu, t.out_of_memory) for t in top] == [(2, 1, True), (3, 1, False)]
    assert list(top[0].breakdown) == ["variable", "vertexCode"]  # liveness columns are not counted
    assert [s.excluding_gaps for s in analysis.per_ipu(report)] == [3000, 304000]


def test_overflowed_region_alone_makes_a_tile_out_of_memory(tmp_path):
    # Usage under the limit, but Poplar placed bytes in the overflowed region: still out of memory.
    categories = {"variable": {"nonInterleaved": [10, 20], "overflowed": [0, 5]}}
    doc = build_profile([10, 25], categories=categories, bytes_per_tile=BYTES_PER_TILE)
    report = read_one(write(tmp_path, encode_json(doc)))
    np.testing.assert_array_equal(analysis.out_of_memory(report), [False, True])


def test_overlapped_bytes_are_kept_but_not_counted(tmp_path):
    categories = {"variable": {"nonInterleaved": {"nonOverlapped": [100, 200], "overlapped": [50, 70]}}}
    doc = build_profile([100, 200], categories=categories)
    report = read_one(write(tmp_path, encode_cbor(doc)))
    np.testing.assert_array_equal(report.breakdown["variable"].values, [100, 200])
    overlapped = report.breakdown["variable.overlapped"]
    assert not overlapped.counted
    np.testing.assert_array_equal(overlapped.values, [50, 70])
    np.testing.assert_array_equal(report.regions["non_interleaved"], [100, 200])
    assert report.notes == ("the profile holds no bytes including gaps (memory.byTile.totalIncludingGaps)",)


def test_mk1_target_is_certain_ipu1_and_tile_memory_overrides(tmp_path):
    path = write(tmp_path, encode_json(mk1_poplar_match_profile()), "mk1.json")
    report = read_one(path)
    assert report.target.arch == "ipu1" and report.target.bytes_per_tile == 262144
    assert report.target.clock_hz == 1.6e9 and report.target.num_ipus == 1
    smaller = read_one(path, tile_memory=5000)
    assert smaller.target.bytes_per_tile == 5000
    assert smaller.tiles_out_of_memory == 1  # tile 0's 5,780 B
    assert any("overrides the profile's 262,144" in note for note in smaller.notes)


def test_ipu_model_and_mk2_shapes_leave_arch_unknown(tmp_path):
    for kind, per_ipu, size in (("IPU_MODEL", 1216, 262144), ("IPU", 1472, 638976)):
        doc = build_profile([1] * per_ipu, target_type=kind, tiles_per_ipu=per_ipu, bytes_per_tile=size)
        assert read_one(write(tmp_path, encode_json(doc))).target.arch is None
    doc = build_profile([1] * 1472, tiles_per_ipu=1472, bytes_per_tile=638976)
    assert read_one(write(tmp_path, encode_json(doc)), arch="ipu2").target.arch == "ipu2"


def test_missing_total_is_summed_from_categories(tmp_path):
    doc = small_profile()
    del doc["memory"]["byTile"]["total"]
    report = read_one(write(tmp_path, encode_json(doc)))
    np.testing.assert_array_equal(report.excluding_gaps, EXCLUDING)
    assert any("excluding gaps is the sum of the categories" in note for note in report.notes)


def test_tile_count_from_ipus_when_num_tiles_is_missing(tmp_path):
    doc = small_profile()
    del doc["target"]["numTiles"]
    report = read_one(write(tmp_path, encode_json(doc)))
    assert report.num_tiles == 4
    assert "numIPUs x tilesPerIPU" in report.notes[0]


def test_categories_that_do_not_sum_to_the_total_are_noted(tmp_path):
    doc = build_profile([10, 20], categories={"variable": {"nonInterleaved": [10, 19]}})
    report = read_one(write(tmp_path, encode_json(doc)))
    assert "do not sum to memory.byTile.total on 1 tile(s)" in report.notes[0]


def test_sample_files_read(tmp_path):
    json_report = read_one(SAMPLES / "mk1_profile.json")
    cbor_report = read_one(SAMPLES / "mk1_profile.cbor")
    for report in (json_report, cbor_report):
        assert report.num_tiles == 1216 and report.target.arch == "ipu1"
        assert analysis.total_excluding_gaps(report) == 5_355_604
        assert analysis.total_including_gaps(report) == 23_878_396
        assert report.breakdown["stack"].values.sum() == 3_852_288
        assert report.info["graph"] == {"num_vertices": 1219, "num_edges": 1223, "num_vars": 30562,
                                        "num_compute_sets": 4}
    np.testing.assert_array_equal(json_report.excluding_gaps, cbor_report.excluding_gaps)


def test_pod_scale_profile_reads_quickly(tmp_path):
    tiles = 64 * 1472
    rng = np.random.default_rng(7)
    excluding = rng.integers(100_000, 640_000, tiles)
    doc = build_profile(excluding, including_gaps=excluding + 4096, num_ipus=64, tiles_per_ipu=1472,
                        bytes_per_tile=638976, clock_hz=1.33e9)
    for data in (encode_json(doc), encode_cbor(wrap(doc))):
        path = write(tmp_path, data)
        start = time.perf_counter()
        report = read_one(path)
        elapsed = time.perf_counter() - start
        assert report.num_tiles == 94_208 and report.target.num_ipus == 64
        np.testing.assert_array_equal(report.excluding_gaps, excluding)
        assert report.tiles_out_of_memory == int((excluding > 638976).sum())
        assert len(analysis.per_ipu(report)) == 64
        assert elapsed < 1.5, elapsed


# -- recognition -----------------------------------------------------------------------------------


def test_recognition():
    assert looks_like_json_object(b'  \n{"target": {}}')
    assert looks_like_json_object(b'\xef\xbb\xbf{"a": 1}')
    assert not looks_like_json_object(b"[1, 2]") and not looks_like_json_object(b"Target:\n")
    assert looks_like_cbor_map(encode_cbor({"target": {}}))
    assert looks_like_cbor_map(encode_cbor({"memory": {}}, self_describe=False))
    assert looks_like_cbor_map(encode_cbor({f"key{i}": i for i in range(30)}, self_describe=False))  # 0xb8 nn
    # Text must not pass: Poplar's summary, Latin-1 text starting in 0xa0-0xbf, ELF, ar.
    for text in (b"Target:\n  Number of IPUs: 1", "\u00abquoted\u00bb text".encode("latin-1"),
                 b"\xa0 indented", b"\xb5m units", b"\x7fELF", b"!<arch>\n", b"{\"a\": 1}"):
        assert not looks_like_cbor_map(text), text


def test_registry_picks_the_profile_readers(tmp_path):
    doc = small_profile()
    assert identify("x.json", encode_json(doc)).name == "json"
    assert identify("x.bin", encode_cbor(doc)).name == "cbor"
    assert identify("x.bin", encode_cbor(doc, self_describe=False)).name == "cbor"


# -- errors ----------------------------------------------------------------------------------------


def error_for(tmp_path: Path, data: bytes, cls: type = ReadError) -> ReadError:
    path = write(tmp_path, data)
    with pytest.raises(cls) as info:
        read_path(path)
    assert info.value.path == str(path)
    return info.value


@pytest.mark.parametrize("encode", [encode_json, encode_cbor], ids=["json", "cbor"])
def test_length_mismatch_names_the_key_and_both_lengths(tmp_path, encode):
    doc = small_profile()
    doc["memory"]["byTile"]["totalIncludingGaps"] = INCLUDING[:3]
    err = error_for(tmp_path, encode(wrap(doc)))
    assert "graphProfile.memory.byTile.totalIncludingGaps has 3 values for 4 tiles (target.numTiles)" in str(err)


def test_category_length_mismatch(tmp_path):
    doc = build_profile([1, 2, 3], categories={"stack": {"nonInterleaved": [1, 2]}})
    err = error_for(tmp_path, encode_json(doc))
    assert "memory.byCategory.stack.nonInterleaved.nonOverlapped has 2 values for 3 tiles" in str(err)


def test_negative_bytes(tmp_path):
    doc = small_profile()
    doc["memory"]["byTile"]["total"] = [1000, -5, 300000, 4000]
    err = error_for(tmp_path, encode_json(doc))
    assert "memory.byTile.total holds a negative size (-5 for tile 1)" in str(err)


@pytest.mark.parametrize("bad, expected", [
    ("1000,2000", "memory.byTile.total must be a list of integers, not a string"),
    ({"a": 1}, "memory.byTile.total must be a list of integers, not an object"),
    ([1, "2", 3, 4], "memory.byTile.total[1] must be an integer, not a string '2'"),
    ([1, 2.5, 3, 4], "memory.byTile.total[1] must be an integer, not a number 2.5"),
    ([1, None, 3, 4], "memory.byTile.total[1] must be an integer, not null"),
    ([[1], [2], [3], [4]], "memory.byTile.total[0] must be an integer, not a list"),
    ([1, 2 ** 64, 3, 4], "memory.byTile.total[1] = 18446744073709551616 is too large for 64 bits"),
])
def test_wrong_shapes_name_the_key(tmp_path, bad, expected):
    doc = small_profile()
    doc["memory"]["byTile"]["total"] = bad
    data = encode_cbor(doc) if isinstance(bad, list) and 2 ** 64 in bad else encode_json(doc)
    assert expected in str(error_for(tmp_path, data))


def test_integral_floats_are_accepted(tmp_path):
    doc = small_profile()
    doc["memory"]["byTile"]["total"] = [float(v) for v in EXCLUDING]
    np.testing.assert_array_equal(read_one(write(tmp_path, encode_json(doc))).excluding_gaps, EXCLUDING)


def test_wrong_target_fields(tmp_path):
    doc = small_profile()
    doc["target"]["bytesPerTile"] = "256K"
    assert "target.bytesPerTile must be a whole number, not a string '256K'" in str(
        error_for(tmp_path, encode_json(doc)))
    doc = small_profile()
    doc["target"]["numIPUs"] = 0
    assert "target.numIPUs must be positive, not 0" in str(error_for(tmp_path, encode_json(doc)))
    doc = small_profile()
    doc["memory"]["byCategory"] = [1, 2]
    assert "memory.byCategory must be an object, not a list" in str(error_for(tmp_path, encode_json(doc)))


def test_missing_memory(tmp_path):
    err = error_for(tmp_path, encode_json({"target": {"numTiles": 4}}))
    assert "memory is missing" in str(err)


def test_truncated_json_gives_the_byte_offset(tmp_path):
    data = encode_json(small_profile())
    err = error_for(tmp_path, data[:200], Truncated)
    assert err.offset == 200 and "JSON ends early" in str(err)


def test_invalid_json_gives_the_byte_offset(tmp_path):
    data = b'{"target": {"t\xc3\xa9": 1}, "memory": x}'
    err = error_for(tmp_path, data)
    assert not isinstance(err, Truncated)
    assert err.offset == data.index(b"x") and "invalid JSON" in str(err)
    assert f"(at byte offset {data.index(b'x')})" in str(err)


def test_the_json_fallback_reports_the_same_offsets(tmp_path, monkeypatch):
    from memreport.readers.documents import document
    monkeypatch.setattr(document, "_orjson", None)
    data = encode_json(small_profile())
    np.testing.assert_array_equal(read_one(write(tmp_path, data)).excluding_gaps, EXCLUDING)
    assert error_for(tmp_path, data[:200], Truncated).offset == 200
    bad = b'{"target": {"t\xc3\xa9": 1}, "memory": x}'
    assert error_for(tmp_path, bad).offset == bad.index(b"x")


@pytest.mark.parametrize("cut", [10, 500, -1])
def test_truncated_cbor(tmp_path, cut):
    data = encode_cbor(small_profile())
    err = error_for(tmp_path, data[:cut], Truncated)
    assert "CBOR ends early" in str(err) and err.offset is not None


def test_invalid_and_trailing_cbor(tmp_path):
    bad = b"\xa1\x66target\x1c"  # additional information 28 is reserved
    err = error_for(tmp_path, bad)
    assert "invalid CBOR" in str(err) and err.offset is not None
    data = encode_cbor(small_profile())
    err = error_for(tmp_path, data + b"\x00\x00")
    assert "2 bytes follow the CBOR document" in str(err) and err.offset == len(data)


@pytest.mark.parametrize("doc, expected", [
    ({"hello": "world"}, "unrecognised JSON document (expected a graph profile or a tensor map; "
                         "top-level keys: 'hello')"),
    ({}, "top-level keys: none"),
])
def test_neither_profile_nor_tensor_map(tmp_path, doc, expected):
    assert expected in str(error_for(tmp_path, encode_json(doc)))
    if doc:
        assert "unrecognised CBOR document" in str(error_for(tmp_path, encode_cbor(doc)))


def test_split_categories_sums_exactly():
    totals = np.array([0, 7, 262144, 300001])
    parts = split_categories(totals, 262144)
    summed = sum(r["nonInterleaved"] + r["overflowed"] for r in parts.values())
    np.testing.assert_array_equal(summed, totals)
    np.testing.assert_array_equal(sum(r["overflowed"] for r in parts.values()), [0, 0, 0, 37857])


def by_program(tree) -> dict:
    doc = small_profile()
    doc["memory"]["liveness"]["notAlwaysLive"]["byProgram"] = tree
    return doc


@pytest.mark.parametrize("encode", [encode_json, encode_cbor])
def test_program_step_liveness_is_a_typed_tree(tmp_path, encode):
    """TF's sdk-release-2.1 helpers read memory.liveness.notAlwaysLive.byProgram: nodes of bytes and children."""
    from memreport.model import ProgramLiveness
    tree = [{"bytes": 10, "children": [{"bytes": 500, "children": []},
                                       {"bytes": 70, "name": "fwd/conv", "children": [{"bytes": 9}]}]},
            {"bytes": 300, "children": []}]
    report = read_one(write(tmp_path, encode(by_program(tree))))
    assert report.liveness_steps == (
        ProgramLiveness(10, None, (ProgramLiveness(500), ProgramLiveness(70, "fwd/conv", (ProgramLiveness(9),)))),
        ProgramLiveness(300))
    assert read_one(write(tmp_path, encode(small_profile()))).liveness_steps is None
    assert read_one(write(tmp_path, encode(by_program([])))).liveness_steps == ()


@pytest.mark.parametrize("tree,expected", [
    ({"bytes": 1}, "memory.liveness.notAlwaysLive.byProgram must be a list of program nodes, not dict"),
    ([{"children": []}], "memory.liveness.notAlwaysLive.byProgram[0].bytes is missing"),
    ([{"bytes": 1, "children": [{"bytes": -4}]}],
     "memory.liveness.notAlwaysLive.byProgram[0].children[0].bytes must be non-negative, not -4"),
    ([7], "memory.liveness.notAlwaysLive.byProgram[0] must be an object, not"),
])
def test_a_damaged_program_tree_names_the_node(tmp_path, tree, expected):
    assert str(error_for(tmp_path, encode_json(by_program(tree)))).split(": ", 1)[1].startswith(expected)


def test_a_category_named_like_a_derived_column_is_kept(tmp_path):
    """A category called "liveness.alwaysLive" (or "x.overlapped") was overwritten by that view of the bytes:
    a counted category dropped (issue #16). The view, not the source's own category, takes a suffix."""
    categories = {"liveness.alwaysLive": {"nonInterleaved": [600, 1500, 200000, 3000]},
                  "vertexCode": {"nonInterleaved": {"nonOverlapped": [400, 500, 100000, 1000],
                                                    "overlapped": [1, 2, 3, 4]}},
                  "vertexCode.overlapped": {"nonInterleaved": [0, 0, 0, 0]}}
    report = read_one(write(tmp_path, encode_json(small_profile(categories=categories))))
    assert {name: (col.values.tolist(), col.counted) for name, col in report.breakdown.items()} == {
        "liveness.alwaysLive": ([600, 1500, 200000, 3000], True),
        "vertexCode": ([400, 500, 100000, 1000], True),
        "vertexCode.overlapped": ([0, 0, 0, 0], True),
        "vertexCode.overlapped (not counted)": ([1, 2, 3, 4], False),
        "liveness.alwaysLive (not counted)": ([900, 1900, 262000, 3900], False),
        NOT_ALWAYS_LIVE_MAX: ([100, 100, 38000, 100], False),
    }
