"""What the document readers' tests share: comparisons of decoded trees and of reports read back."""
from __future__ import annotations

import json

import numpy as np

from memreport.model import MemoryReport, TensorMapReport, TileReport, Variables


def same(tree, reference) -> bool:
    """Trees equal, arrays standing for lists of the same integers."""
    if isinstance(tree, np.ndarray):
        return isinstance(reference, list) and tree.tolist() == reference
    if isinstance(tree, dict):
        return isinstance(reference, dict) and list(tree) == list(reference) and all(
            same(tree[k], reference[k]) for k in tree)
    if isinstance(tree, list):
        return isinstance(reference, list) and len(tree) == len(reference) and all(
            same(a, b) for a, b in zip(tree, reference))
    return type(tree) is type(reference) and tree == reference


def same_variables(a: Variables, b: Variables) -> None:
    """Every column of two Variables equal (and of the same kind), their names, categories, limits, interference."""
    for key in ("tile", "offset", "size", "category", "always_live", "interleaved", "name_index", "var_id",
                "equivalence_class"):
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key), err_msg=key)
        assert getattr(a, key).dtype.kind == getattr(b, key).dtype.kind, key
    assert (a.names, a.categories, a.num_tiles, a.tile_memory) == (b.names, b.categories, b.num_tiles, b.tile_memory)
    assert (a.interference is None) == (b.interference is None)
    if a.interference is not None and b.interference is not None:
        for key in ("classes", "indptr", "indices"):
            np.testing.assert_array_equal(getattr(a.interference, key), getattr(b.interference, key))


def same_model(a: MemoryReport, b: MemoryReport) -> None:
    """Every fact of two reports is equal: arrays, columns with their presence and counted flags, the rest."""
    kind = {"tiles": ("skipped", "liveness_steps", "symbols"), "summary": ("printed", "detailed_tiles", "oom_messages"),
            "tensor-map": ()}[a.kind]
    for key in ("source", "format", "module", "target", "stated", "notes", "breakdown_kind", "kind", *kind):
        assert getattr(a, key) == getattr(b, key), key
    assert json.loads(json.dumps(dict(a.info), default=str)) == dict(b.info)
    if isinstance(a, TileReport):
        assert isinstance(b, TileReport)
        np.testing.assert_array_equal(a.excluding_gaps, b.excluding_gaps)
        assert (a.including_gaps is None) == (b.including_gaps is None)
        if a.including_gaps is not None:
            np.testing.assert_array_equal(a.including_gaps, b.including_gaps)
        assert list(a.breakdown) == list(b.breakdown) and list(a.regions) == list(b.regions)
        for name, col in a.breakdown.items():
            other = b.breakdown[name]
            np.testing.assert_array_equal(col.values, other.values)
            assert col.counted == other.counted
            assert (col.present is None) == (other.present is None)
            if col.present is not None:
                np.testing.assert_array_equal(col.present, other.present)
        for name, values in a.regions.items():
            np.testing.assert_array_equal(values, b.regions[name])
        assert (None if a.tile_names is None else list(a.tile_names)) == b.tile_names
        assert (a.variables is None) == (b.variables is None)
        if a.variables is not None and b.variables is not None:
            same_variables(a.variables, b.variables)
    if isinstance(a, TensorMapReport):
        assert isinstance(b, TensorMapReport)
        ma, mb = a.tensor_map, b.tensor_map
        assert (ma.source, ma.tensors, ma.num_tiles, ma.notes) == (mb.source, mb.tensors, mb.num_tiles, mb.notes)
        for key in ("pair_tensor", "pair_tile", "pair_elements"):
            np.testing.assert_array_equal(getattr(ma, key), getattr(mb, key))
