"""The lowered-variables generator: what it writes is the layout it says, and reads as JSON reads it."""
from __future__ import annotations

import json

import numpy as np

from memreport.readers.documents.lowered_vars import lowered_report, report_from_tree
from tests.synth import lowered as synth


def test_a_large_report_is_json_with_the_columns_it_was_made_from(tmp_path):
    columns = synth.large_vars(500, 6)
    for spaced in (False, True):
        path = tmp_path / f"v{spaced}.json"
        synth.write_large(str(path), 500, 6, spaced=spaced)
        data = path.read_bytes()
        doc = json.loads(data)
        assert doc["numTiles"] == 6 and len(doc["vars"]) == 500 and (b"\n  " in data) == spaced
        infos = [item["info"] for item in doc["vars"]]
        assert [i["tile"] for i in infos] == columns["tile"].tolist()
        assert [i["offset"] for i in infos] == columns["offset"].tolist()
        assert all(i["offset"] + i["sizeBytes"] <= synth.TILE_MEMORY for i in infos)
        report = lowered_report(data, "v.json")
        reference = report_from_tree(doc, "v.json")
        np.testing.assert_array_equal(report.excluding_gaps, reference.excluding_gaps)
        assert report.variables.names == reference.variables.names
        assert len(report.variables.names) < 500  # a tensor's pieces on several tiles share its name
        assert (report.excluding_gaps < np.bincount(columns["tile"], columns["size"], 6)).any()  # shared offsets


def test_known_overlaps_and_damaged_forms_are_what_they_say():
    variables, doc = synth.known_overlaps()
    assert [v["var"] for v in doc["vars"]] == list(range(len(variables)))
    assert doc["vars"][1]["info"]["offset"] == doc["vars"][0]["info"]["offset"] == 0
    assert doc["vars"][2]["info"]["alwaysLive"] and not doc["vars"][0]["info"]["alwaysLive"]
    assert doc["vars"][3]["info"]["inInterleavedMem"] and "debugContextId" in doc["vars"][0]["info"]
    for name, (data, words) in synth.damaged().items():
        assert data != synth.encode(doc) and words, name
