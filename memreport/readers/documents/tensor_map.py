"""Tensor maps (tensor_map.json, docs/FORMATS.md §4): tensors' elements, tile by tile.

``{"mappings": {computation: [tensor, ...]}}`` (one writer spells the key
``mapping``), each tensor ``[name, output index, shape, element type,
has-constant, has-aliases, total elements, [[tile, elements], ...],
framework name?]`` as graphcore/tensorflow's GetTensorMappingJson writes it.
The JSON reader in :mod:`memreport.readers.documents.profile` hands documents with a
``mappings`` key here; :func:`read_tensor_map` reads one for ``--tensor-map``.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from itertools import chain
from typing import Any

import numpy as np

from ...errors import ReadError
from ...model import MAX_TILES, MemoryReport, StatedTarget, TensorMapReport, resolve_target
from ...model.tensor_map import Tensor, TensorMap
from ..registry import read_prefix, reading
from .bulk_decode import decode_tensor_map_json
from .document import decode_cbor, decode_json, looks_like_cbor_map, mapping, whole_number

MAPPING_KEYS = ("mappings", "mapping")
TENSOR_FIELDS = 8  # the framework name, a ninth, appears in files from 2020 on
MAX_ELEMENTS = 1 << 40  # per [tile, elements] pair: far past any tile, and byte estimates stay in int64


def is_tensor_map(tree: Any) -> bool:
    """True for a decoded document whose top level has ``mappings`` (or ``mapping``)."""
    return isinstance(tree, Mapping) and any(key in tree for key in MAPPING_KEYS)


def tensor_map_from_document(tree: Any, source: str, num_tiles: int | None = None) -> TensorMap:
    """A :class:`TensorMap` from a decoded document; ``num_tiles`` raises the tile count if larger."""
    key = next((k for k in MAPPING_KEYS if isinstance(tree, Mapping) and k in tree), None)
    if key is None:
        raise ReadError("not a tensor map (no top-level \"mappings\")")
    computations = mapping(tree[key], key)
    tensors: list[Tensor] = []
    pair_lists: list[Any] = []
    for computation, entries in computations.items():
        path = f"{key}[{computation!r}]"
        if not isinstance(entries, (list, tuple)):
            raise ReadError(f"{path} must be a list of tensors")
        for index, entry in enumerate(entries):
            tensor, pairs = _tensor(entry, str(computation), f"{path}[{index}]")
            tensors.append(tensor)
            pair_lists.append(pairs)
    tiles, elements = _pairs(pair_lists, tensors, key)
    counts = np.fromiter((len(p) for p in pair_lists), dtype=np.int64, count=len(pair_lists))
    pair_tensor = np.repeat(np.arange(len(tensors), dtype=np.int32 if len(tensors) < 2 ** 31 else np.int64), counts)
    used = int(tiles.max()) + 1 if tiles.size else 0
    notes = _totals_notes(tensors, pair_tensor, elements)
    tensor_map = TensorMap(source=source, tensors=tuple(tensors), pair_tensor=pair_tensor, pair_tile=tiles,
                           pair_elements=elements, num_tiles=max(used, num_tiles or 0), notes=notes)
    try:  # the per-tile sums every output shows, computed (and bounded) here, where errors name the file
        tensor_map.elements_by_tile, tensor_map.est_bytes_by_tile  # noqa: B018
    except OverflowError as exc:
        raise ReadError(f"{key}: the elements or estimated bytes on {exc}: no tile holds that much") from None
    return tensor_map


def _tensor(entry: Any, computation: str, path: str) -> tuple[Tensor, Any]:
    if not isinstance(entry, (list, tuple)):
        raise ReadError(f"{path} must be a list [name, output index, shape, element type, has-constant, "
                        f"has-aliases, total elements, tiles, framework name?], not {type(entry).__name__}")
    if len(entry) < TENSOR_FIELDS:
        raise ReadError(f"{path} has {len(entry)} items; a tensor has {TENSOR_FIELDS} or {TENSOR_FIELDS + 1}")
    name, element_type, shape, pairs = entry[0], entry[3], entry[2], entry[7]
    if not isinstance(name, str):
        raise ReadError(f"{path}[0] (name) must be a string")
    if not isinstance(element_type, str):
        raise ReadError(f"{path}[3] (element type) must be a string")
    if not isinstance(shape, (list, tuple)):
        raise ReadError(f"{path}[2] (shape) must be a list of integers")
    if not isinstance(pairs, (list, tuple, np.ndarray)):  # an array: the bulk decoder's
        raise ReadError(f"{path}[7] (tiles) must be a list of [tile, elements] pairs")
    framework = entry[8] if len(entry) > TENSOR_FIELDS and isinstance(entry[8], str) else None
    tensor = Tensor(
        name=name, computation=computation, output_index=whole_number(entry[1], f"{path}[1] (output index)"),
        shape=tuple(whole_number(d, f"{path}[2] (shape)") for d in shape), element_type=element_type,
        has_constant=_flag(entry[4], f"{path}[4] (has-constant)"),
        has_aliases=_flag(entry[5], f"{path}[5] (has-aliases)"),
        num_elements=whole_number(entry[6], f"{path}[6] (total elements)"), framework_name=framework)
    return tensor, pairs


def _flag(value: Any, path: str) -> bool:
    if isinstance(value, bool):
        return value
    return bool(whole_number(value, path))


def _pairs(pair_lists: list[Any], tensors: list[Tensor], key: str) -> tuple[np.ndarray, np.ndarray]:
    """All ``[tile, elements]`` pairs as two int64 arrays: one numpy conversion, not one per pair."""
    if pair_lists and all(isinstance(p, np.ndarray) for p in pair_lists):  # decoded straight to arrays
        both = np.concatenate(pair_lists)
        tiles, elements = both[:, 0], both[:, 1]
        if int(tiles.max(initial=0)) < MAX_TILES and int(elements.max(initial=0)) < MAX_ELEMENTS:
            return tiles, elements
    pair_lists = [p.tolist() if isinstance(p, np.ndarray) else p for p in pair_lists]  # the paths below name
    flat = list(chain.from_iterable(pair_lists))
    if not flat:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    try:
        arr = np.asarray(flat)
    except (ValueError, TypeError, OverflowError):
        arr = None
    # numpy reads true/false as 1/0: a pair holding one goes to the slow path, which names it.
    if arr is not None and arr.ndim == 2 and arr.shape[1] == 2 and arr.dtype.kind in "iu" \
            and bool not in map(type, chain.from_iterable(flat)):
        tiles, elements = arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64)
        if int(tiles.min()) >= 0 and int(elements.min()) >= 0 and int(tiles.max()) < MAX_TILES \
                and int(elements.max()) < MAX_ELEMENTS:
            return tiles, elements
    # Slow path: names the first bad pair, and takes integral floats as whole_number does elsewhere.
    tile_list, element_list = [], []
    for tensor, pairs in zip(tensors, pair_lists):
        path = f"{key}[{tensor.computation!r}] tensor {tensor.name!r} tiles"
        for index, pair in enumerate(pairs):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ReadError(f"{path}[{index}] must be a [tile, elements] pair")
            tile_id = whole_number(pair[0], f"{path}[{index}][0] (tile)")
            count = whole_number(pair[1], f"{path}[{index}][1] (elements)")
            if tile_id >= MAX_TILES:
                raise ReadError(f"{path}[{index}][0] (tile) is {tile_id:,}: beyond any IPU system "
                                f"(at most {MAX_TILES:,} tiles)")
            if count >= MAX_ELEMENTS:
                raise ReadError(f"{path}[{index}][1] (elements) is {count:,}: more than a tile can hold")
            tile_list.append(tile_id)
            element_list.append(count)
    return np.array(tile_list, dtype=np.int64), np.array(element_list, dtype=np.int64)


def _totals_notes(tensors: list[Tensor], pair_tensor: np.ndarray, elements: np.ndarray) -> tuple[str, ...]:
    mapped = np.bincount(pair_tensor, weights=elements, minlength=len(tensors))
    totals = np.fromiter((t.num_elements for t in tensors), dtype=np.float64, count=len(tensors))
    differ = int(np.count_nonzero(mapped != totals))
    if not differ:
        return ()
    return (f"{differ:,} tensor(s) list a total that differs from the sum of their tiles' elements",)


def read_tensor_map(path: str | os.PathLike, *, num_tiles: int | None = None) -> TensorMap:
    """The tensor map in a JSON (or CBOR) file; ReadErrors name the file."""
    path = os.fspath(path)
    prefix = read_prefix(path)
    with reading(path, "tensor map"):
        if not prefix:
            raise ReadError("empty file")
        if not looks_like_cbor_map(prefix) and not re.match(rb"(?:\xef\xbb\xbf)?\s*\{", prefix):
            raise ReadError(f"not a tensor map (a JSON object with \"mappings\"): {_what_it_is(prefix)}")
        tree = _decode(path, prefix)
        if not is_tensor_map(tree):
            raise ReadError("not a tensor map: expected a top-level \"mappings\" object")
        return tensor_map_from_document(tree, path, num_tiles)


def _what_it_is(prefix: bytes) -> str:
    """What a file that is not a tensor map starts as, in a few words."""
    if prefix.startswith((b"!<arch>\n", b"!<thin>\n")):
        return "it is an ar archive (give it as an input, not as --tensor-map)"
    if prefix.startswith(b"\x7fELF"):
        return "it is an ELF file"
    stripped = prefix.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"["):
        return "it is a JSON list, not an object"
    try:
        prefix.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason != "unexpected end of data":  # not merely a character cut at the end of the prefix
            return f"it is binary data (byte offset {exc.start:,} is not UTF-8 text)"
    return "it is text that does not start with a JSON object"


def _decode(path: str, prefix: bytes) -> Any:
    with open(path, "rb") as f:
        data = f.read()
    if looks_like_cbor_map(prefix):
        return decode_cbor(data)
    tree = decode_tensor_map_json(data)  # pair lists straight to arrays; None: decode the ordinary way
    return decode_json(data) if tree is None else tree


def looks_like_tensor_map(data: bytes) -> bool:
    """Whether a JSON document's first key is ``mappings`` (or ``mapping``): worth the tensor-map decoder."""
    return re.match(rb'(?:\xef\xbb\xbf)?\s*\{\s*"mappings?"\s*:', data) is not None


def report_from_tensor_map(tensor_map: TensorMap) -> MemoryReport:
    """A report that carries a tensor map alone: no bytes are known, so no per-tile usage.

    Its tile count is the highest mapped tile + 1; an arch (``--arch``)
    rounds it up to whole IPUs.
    """
    stated = StatedTarget(num_tiles=tensor_map.num_tiles, whole_ipus=True, source_kind="tensor map")
    notes = ("a tensor map counts elements, not bytes: memory usage is unknown here",)
    info = {"num_tensors": len(tensor_map.tensors), "computations": list(tensor_map.computations),
            "unknown_element_types": list(tensor_map.unknown_element_types)}
    return TensorMapReport(source=tensor_map.source, format="tensor-map", target=resolve_target(stated)[0],
                           tensor_map=tensor_map, info=info, notes=notes + tensor_map.notes, stated=stated)
