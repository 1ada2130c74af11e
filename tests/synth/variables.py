"""The model's variables built straight from ``(tile, offset, size)`` ranges, for the model and fit-plan tests
(a lowered-variables report to read is tests/synth/lowered.py's)."""
from __future__ import annotations

import numpy as np

from memreport.model import Variables


def variables(ranges: list[tuple[int, int, int]], num_tiles: int = 2, *, categories: list[int] | None = None,
              tile_memory: int | None = 64, always_live: list[bool] | None = None) -> Variables:
    """Variables of ``(tile, offset, size)`` ranges, sorted as the model keeps them."""
    n = len(ranges)
    order = sorted(range(n), key=lambda i: (ranges[i][0], ranges[i][1], -ranges[i][2], i))
    cat = categories or [0] * n

    def column(values, dtype=np.int64):
        return np.array([values[i] for i in order], dtype=dtype)

    return Variables(num_tiles=num_tiles, tile=column([r[0] for r in ranges]), offset=column([r[1] for r in ranges]),
                     size=column([r[2] for r in ranges]), category=column(cat),
                     always_live=column(always_live or [False] * n, bool), interleaved=np.zeros(n, dtype=bool),
                     name_index=np.arange(n), categories=("a", "b"), names=tuple(f"v{i}" for i in order),
                     var_id=column(list(range(n))), tile_memory=tile_memory)
