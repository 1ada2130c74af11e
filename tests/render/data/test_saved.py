"""The keys a memreport/1 record adds to be read back: a lowered-variables report's variables, key by key."""
from __future__ import annotations

import json

from memreport.analysis import summarize_all
from memreport.readers.documents.lowered_vars import lowered_report
from memreport.render.data.report import render_json
from tests.synth import lowered as synth


def test_a_lowered_variables_report_saves_its_variables_as_columns():
    report = lowered_report(synth.encode(synth.known_overlaps()[1]), "vars.json")
    (record,) = json.loads(render_json(summarize_all([report])))["reports"]
    assert record["variables"] == {
        "num_tiles": 3, "tile_memory": 638_976,
        "tile": [0, 0, 0, 0, 1, 1], "offset": [0, 0, 2000, 4096, 100, 300], "size": [1000, 600, 500, 256, 300, 400],
        "category": [0, 0, 0, 0, 0, 1], "always_live": [0, 0, 1, 1, 0, 0], "interleaved": [0, 0, 0, 1, 0, 0],
        "name_index": [0, 1, 2, 3, 4, 5], "var_id": [0, 1, 2, 3, 4, 5], "equivalence_class": [1, 2, -1, -1, 1, 3],
        "categories": ["variable", "stack"], "names": ["acts/a", "acts/b", "weights", "momentum", "grad", "scratch"],
        "interference": {"classes": [0, 1, 2, 3], "indptr": [0, 0, 1, 1, 2], "indices": [3, 1]}}
    text = render_json(summarize_all([report]))
    assert '"tile": [0,0,0,0,1,1],\n' in text  # a column on one line


def test_reports_without_variables_say_null():
    import numpy as np

    from memreport.model import Target, TileReport
    plain = TileReport("x", "archive", Target(2), np.array([1, 2]))
    (record,) = json.loads(render_json(summarize_all([plain])))["reports"]
    assert record["variables"] is None
