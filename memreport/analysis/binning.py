"""Power-of-two binning, for bytes (Poplar's By Tile histogram) and for tensor elements alike."""
from __future__ import annotations

import numpy as np


def power_of_two_width(low: int, high: int, unit: int = 1, max_bins: int = 128) -> int:
    """The smallest power-of-two width (in ``unit``\\s) whose aligned bins cover ``[low, high]`` in at most
    ``max_bins`` bins: Poplar's rule for its By Tile histogram (docs/FORMATS.md §1)."""
    width = 1
    while high // (width * unit) - low // (width * unit) + 1 > max_bins:
        width *= 2
    return width


def aligned_counts(values: np.ndarray, step: int) -> tuple[int, np.ndarray]:
    """(index of the first bin, counts) for bins of ``step`` aligned to multiples of it; values non-empty."""
    index = values // step
    first = int(index.min())
    return first, np.bincount(index - first)
