"""Synthetic profiles: exact sums, encodings, and the Mk1 profile that matches a real Poplar report."""
from __future__ import annotations

from pathlib import Path

import cbor2
import numpy as np
import orjson
import pytest

import memreport
from memreport import analysis
from memreport.analysis import summarize, summarize_all
from tests.conftest import MK1_BY_TILE
from tests.synth.profile import (
    MK1_EXCLUDING_GAPS,
    MK1_INCLUDING_GAPS,
    MK1_REPORT_CATEGORIES,
    build_profile,
    build_tensor_map,
    encode_cbor,
    encode_json,
    mk1_poplar_match_profile,
    mk1_tensor_map,
    spread,
    tensor_entry,
    wrap,
)

ROOT = Path(__file__).resolve().parents[2]



@pytest.mark.parametrize("total, n, amplitude", [(0, 1, 0), (10, 3, 0), (5_349_824, 1215, 120), (7, 10, 50)])
def test_spread_sums_exactly(total, n, amplitude):
    values = spread(total, n, amplitude)
    assert values.shape == (n,) and int(values.sum()) == total
    assert int(values.max() - values.min()) <= 2 * amplitude + 3


def test_mk1_profile_matches_the_real_report():
    doc = mk1_poplar_match_profile()
    target = doc["target"]
    assert (target["numIPUs"], target["tilesPerIPU"], target["numTiles"], target["bytesPerTile"],
            target["clockFrequency"]) == (1, 1216, 1216, 262144, 1.6e9)
    excluding = doc["memory"]["byTile"]["total"]
    including = doc["memory"]["byTile"]["totalIncludingGaps"]
    assert int(excluding.sum()) == MK1_EXCLUDING_GAPS and int(including.sum()) == MK1_INCLUDING_GAPS
    assert (excluding[0], including[0]) == (5780, 49184)
    assert ((excluding[1:] >= 4096) & (excluding[1:] < 5120)).all()
    assert (including[1:] < 49184).all() and (including >= excluding).all()
    categories = doc["memory"]["byCategory"]
    for name, (total, on_tile_0) in MK1_REPORT_CATEGORIES.items():
        values = categories[name]["nonInterleaved"]["nonOverlapped"]
        assert int(values.sum()) == total and values[0] == on_tile_0 and (values >= 0).all()
    np.testing.assert_array_equal(sum(c["nonInterleaved"]["nonOverlapped"] for c in categories.values()),
                                  excluding)
    assert doc["graph"] == {"numVertices": 1219, "numEdges": 1223, "numVars": 30562, "numComputeSets": 4}


def test_mk1_profile_renders_poplars_by_tile_block_byte_for_byte(tmp_path):
    from memreport.render.text import report as text
    for data in (encode_json(mk1_poplar_match_profile()), encode_cbor(wrap(mk1_poplar_match_profile()))):
        path = tmp_path / "mk1"
        path.write_bytes(data)
        report = memreport.read(path)
        block = "\n".join(text.by_tile_block(summarize(report))[1:])  # after the "By Tile (Excluding Gaps):" heading
        assert block == MK1_BY_TILE.split("\n", 1)[1]
        assert MK1_BY_TILE.split("\n", 1)[1] in text.render(summarize_all([report]))


def test_samples_are_what_the_script_writes():
    assert (ROOT / "sample_reports" / "mk1_profile.json").read_bytes() == encode_json(mk1_poplar_match_profile())
    assert (ROOT / "sample_reports" / "mk1_profile.cbor").read_bytes() == \
        encode_cbor(wrap(mk1_poplar_match_profile()))
    assert (ROOT / "sample_reports" / "tensor_map.json").read_bytes() == encode_json(mk1_tensor_map())


def test_sample_summary_and_profile_agree():
    summary = ROOT / "sample_reports" / "mk1_summary.txt"
    if not summary.exists():
        pytest.skip("no text summary sample")
    text_report = memreport.read(summary)
    profile = memreport.read(ROOT / "sample_reports" / "mk1_profile.json")
    for figure in (analysis.total_excluding_gaps, analysis.total_including_gaps, analysis.max_excluding_gaps,
                   analysis.max_including_gaps, analysis.count_out_of_memory):
        assert figure(text_report) == figure(profile), figure.__name__
    assert analysis.histogram(text_report) == analysis.histogram(profile)


def test_encodings_round_trip():
    doc = build_profile([5, 6, 7], including_gaps=[8, 9, 10])
    plain = orjson.loads(encode_json(doc))
    assert plain["memory"]["byTile"]["total"] == [5, 6, 7]
    assert orjson.loads(encode_json(doc, indent=True)) == plain
    tagged = encode_cbor(doc)
    assert tagged[:3] == b"\xd9\xd9\xf7"
    assert cbor2.loads(tagged[3:]) == plain == cbor2.loads(encode_cbor(doc, self_describe=False))
    assert orjson.loads(encode_json(wrap(doc)))["graphProfile"] == plain
    typed = cbor2.loads(encode_cbor(doc, self_describe=False, typed_arrays=True))
    assert typed["memory"]["byTile"]["total"].tag == 79


def test_tensor_entries_follow_the_published_layout():
    entry = tensor_entry("add.0", {3: 2, 1: 5}, shape=[7], framework_name="add")
    assert entry == ["add.0", 0, [7], "float", 0, 0, 7, [[3, 2], [1, 5]], "add"]
    assert build_tensor_map({"c": [entry]}, key="mapping") == {"mapping": {"c": [entry]}}
    doc = mk1_tensor_map()
    assert list(doc["mappings"]) == ["cluster_main", "cluster_init"]
    assert all(len(t) == 9 for tensors in doc["mappings"].values() for t in tensors)
