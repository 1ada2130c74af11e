"""The pandas view: built from the model, with the CSV's columns, never by parsing memreport's own CSV."""
from __future__ import annotations

import csv
import io
import os

import numpy as np
import pytest

import memreport
from memreport.analysis import summarize_all
from memreport.render.data import csv as table
from memreport.render.data import dataframe
from tests import SAMPLES as _SAMPLES

pytest.importorskip("pandas")

SAMPLES = str(_SAMPLES)


def test_a_tensor_map_frame_comes_from_the_model_not_from_csv_text(monkeypatch):
    report = memreport.read(os.path.join(SAMPLES, "tensor_map.json"), arch="ipu1")
    expected = list(csv.reader(io.StringIO(table.render_csv(summarize_all([report])))))

    def no_csv(*args, **kwargs):
        raise AssertionError("to_dataframe rendered CSV")
    monkeypatch.setattr(table, "render_csv", no_csv)
    monkeypatch.setattr(dataframe, "render_csv", no_csv, raising=False)
    frame = report.to_dataframe()
    assert list(frame.columns) == expected[0]
    assert len(frame) == len(expected) - 1 == 1216
    for name in ("tensor_elements", "tensor_est_bytes", "tensor_unknown_size_elements"):
        assert frame[name].dtype == np.int64
        assert frame[name].astype(str).tolist() == [row[expected[0].index(name)] for row in expected[1:]]
    assert frame["ipu"].dtype == "Int64" and frame["ipu"].tolist() == [0] * 1216
    for name in ("excluding_gaps", "including_gaps"):  # a tensor map holds no bytes: NA, never 0
        assert frame[name].dtype == "Int64" and frame[name].isna().all()
    assert frame["out_of_memory"].dtype == "boolean" and frame["out_of_memory"].isna().all()
    assert frame.attrs["format"] == "tensor-map" and frame.attrs["per_tile"] == "partial"
