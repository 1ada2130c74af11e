"""Per-tile lists to arrays (document.tile_array): what a byte count may be."""
from __future__ import annotations

import numpy as np
import pytest

from memreport.errors import ReadError
from memreport.readers.documents.document import tile_array


@pytest.mark.parametrize("values,message", [
    ([1000, True, False, 1000], r"^memory\.byTile\.total\[1\] must be an integer, not a boolean True$"),
    ((1000, 1000, False), r"^memory\.byTile\.total\[2\] must be an integer, not a boolean False$"),
    ([True, False], r"^memory\.byTile\.total\[0\] must be an integer, not a boolean True$"),
    ([1.0, True], r"^memory\.byTile\.total\[1\] must be an integer, not a boolean True$"),
])
def test_booleans_are_not_byte_counts(values, message):
    with pytest.raises(ReadError, match=message):
        tile_array(values, "memory.byTile.total")


def test_integers_and_whole_floats_still_read():
    assert tile_array([1000, 0, 7], "t").tolist() == [1000, 0, 7]
    assert tile_array([2.0, 3.0], "t").tolist() == [2, 3]
    from_bulk_decode = tile_array(np.array([5, 6], dtype=np.uint16), "t")
    assert from_bulk_decode.dtype == np.int64 and from_bulk_decode.tolist() == [5, 6]
