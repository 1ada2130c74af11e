"""The tensor map: which tensor's elements lie on which tile (docs/FORMATS.md §4).

A tensor map counts elements, not bytes. Bytes here are always an
*estimate of tensor data only* (elements times the element size); they leave
out code, exchange buffers, vertex state and gaps, so they are never memory
usage and never stand in for it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from .values import sums_by

# Sizes of the element types Poplar's Type::toString() writes into tensor maps
# (graphcore/tensorflow GetTensorMappingJson), plus XLA and numpy spellings.
ELEMENT_BYTES: Mapping[str, int] = MappingProxyType({
    "float": 4, "half": 2, "int": 4, "unsigned int": 4, "short": 2, "unsigned short": 2,
    "char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "long": 8, "unsigned long": 8,
    "long long": 8, "unsigned long long": 8, "quarter": 1, "double": 8,
    "f32": 4, "f16": 2, "bf16": 2, "f64": 8, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "s32": 4,
    "u32": 4, "s64": 8, "u64": 8, "pred": 1,
    "float32": 4, "float16": 2, "float64": 8, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2,
    "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
})

ESTIMATE_LABEL = ("estimated bytes = elements x element size: tensor data only, not memory usage "
                  "(no code, exchange buffers, vertex state or gaps)")


def element_bytes(element_type: str) -> int | None:
    """Bytes per element of a tensor-map element type, or None when the type is unknown."""
    return ELEMENT_BYTES.get(element_type.strip().lower())


@dataclass(frozen=True)
class Tensor:
    """One tensor of a tensor map: an XLA instruction's output and its element type."""

    name: str
    computation: str
    output_index: int
    shape: tuple[int, ...]
    element_type: str
    has_constant: bool
    has_aliases: bool
    num_elements: int
    framework_name: str | None = None

    @property
    def element_bytes(self) -> int | None:
        """Bytes per element, or None for an element type memreport does not know."""
        return element_bytes(self.element_type)


class TileTensor(NamedTuple):
    """One tensor's share of one tile; ``est_bytes`` is None when its element size is unknown."""

    name: str
    computation: str
    elements: int
    est_bytes: int | None


@dataclass(frozen=True, eq=False)
class TensorMap:
    """Tensors and where their elements lie, as parallel (tensor, tile, elements) arrays.

    ``pair_tensor[i]`` (an index into ``tensors``), ``pair_tile[i]`` and
    ``pair_elements[i]`` are one ``[tile, elements]`` entry of the file.
    ``num_tiles`` is at least the highest mapped tile + 1.
    """

    source: str
    tensors: tuple[Tensor, ...]
    pair_tensor: np.ndarray
    pair_tile: np.ndarray
    pair_elements: np.ndarray
    num_tiles: int
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        arrays = (self.pair_tensor, self.pair_tile, self.pair_elements)
        for name, arr in zip(("pair_tensor", "pair_tile", "pair_elements"), arrays):
            if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype.kind not in "iu":
                raise TypeError(f"{name} must be a 1-D integer numpy array")
            if arr.shape != self.pair_tile.shape:
                raise ValueError("pair arrays must have one length")
            if arr.size and int(arr.min()) < 0:
                raise ValueError(f"{name} holds a negative value")
        if self.pair_tensor.size and int(self.pair_tensor.max()) >= len(self.tensors):
            raise ValueError("pair_tensor refers past the last tensor")
        if self.pair_tile.size and int(self.pair_tile.max()) >= self.num_tiles:
            raise ValueError(f"tile {int(self.pair_tile.max())} outside 0..{self.num_tiles - 1}")

    @property
    def computations(self) -> tuple[str, ...]:
        """Computation names, in file order."""
        return tuple(dict.fromkeys(t.computation for t in self.tensors))

    @property
    def unknown_element_types(self) -> tuple[str, ...]:
        """Element types with no known size: their tensors have no byte estimate."""
        return tuple(sorted({t.element_type for t in self.tensors if t.element_bytes is None}))

    @cached_property
    def _tensor_sizes(self) -> np.ndarray:
        return np.array([t.element_bytes or 0 for t in self.tensors], dtype=np.int64)

    @cached_property
    def _pair_bytes(self) -> np.ndarray:
        return self.pair_elements.astype(np.int64) * self._tensor_sizes[self.pair_tensor]

    def _per_tile(self, weights: np.ndarray) -> np.ndarray:
        """Per-tile sums, exact: an OverflowError where a tile's reaches 2**63 (a wrap would turn negative)."""
        approx = np.bincount(self.pair_tile, weights=weights, minlength=self.num_tiles)
        if not approx.size or approx.max() < 2 ** 53:  # float64 sums are exact below 2**53: the usual case
            return np.rint(approx).astype(np.int64)
        return sums_by(self.pair_tile, np.asarray(weights, dtype=np.int64), self.num_tiles, "tile")

    @cached_property
    def elements_by_tile(self) -> np.ndarray:
        """Elements of all tensors on each tile (int64, ``num_tiles`` values)."""
        return self._per_tile(self.pair_elements)

    @cached_property
    def est_bytes_by_tile(self) -> np.ndarray:
        """Estimated tensor-data bytes per tile, over tensors of known element size only."""
        return self._per_tile(self._pair_bytes)

    @cached_property
    def unknown_elements_by_tile(self) -> np.ndarray:
        """Elements per tile whose element size is unknown (not in ``est_bytes_by_tile``)."""
        unknown = self._tensor_sizes[self.pair_tensor] == 0
        return self._per_tile(np.where(unknown, self.pair_elements, 0))

    @cached_property
    def _tile_order(self) -> tuple[np.ndarray, np.ndarray]:
        order = np.argsort(self.pair_tile, kind="stable")
        return order, self.pair_tile[order]

    def tensors_on_tile(self, tile: int) -> list[TileTensor]:
        """The tensors on one tile, largest estimate first; tensors of unknown size follow, by elements."""
        order, sorted_tiles = self._tile_order
        lo, hi = np.searchsorted(sorted_tiles, [tile, tile + 1])
        totals: dict[int, int] = {}
        for index in order[lo:hi].tolist():  # one tile's entries: few, so a loop is fine
            tensor = int(self.pair_tensor[index])
            totals[tensor] = totals.get(tensor, 0) + int(self.pair_elements[index])
        rows = []
        for tensor, elements in totals.items():
            t = self.tensors[tensor]
            size = t.element_bytes
            rows.append(TileTensor(t.name, t.computation, elements, None if size is None else elements * size))
        rows.sort(key=lambda r: (r.est_bytes is None, -(r.est_bytes or r.elements), r.name, r.computation))
        return rows

    def __repr__(self) -> str:
        return (f"<TensorMap {self.source!r} tensors={len(self.tensors)} "
                f"computations={len(self.computations)} tiles={self.num_tiles}>")
