"""JSON and CBOR profiles decoded without a Python object per tile value (docs/FORMATS.md §2-3).

orjson and cbor2 build a Python int for every number: at 94,208 tiles and
some sixty per-tile lists that is most of the reading time and several
times the file's size in memory. These decoders give the long integer lists
of a profile's ``memory`` tree to numpy directly and the rest of the
document to :func:`~memreport.readers.documents.document.decode_json` /
:func:`~memreport.readers.documents.document.decode_cbor`. Each returns None when it
declines (an escape in a JSON string, a CBOR map with non-text keys, a
malformed document, ...); the caller then decodes the ordinary way, so
results and error messages are exactly those of the reference decoders.
A decoded tree differs from theirs only in that long integer lists under
``memory`` are int64 arrays instead of lists.
"""
from __future__ import annotations

import array
import io
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from .cbor_ints import cbor_ints
from .document import MAX_NESTING, SELF_DESCRIBE_TAG, UTF8_BOM, decode_json
from .json_ints import WHITESPACE, digit_runs, int_list

MIN_LIST_BYTES = 1024   # JSON: shorter lists are left to the ordinary decoder
MIN_LIST_ITEMS = 256    # CBOR: likewise
MAX_BRACKETS = 100_000  # more lists than this (a tensor map, say): not a profile's shape, decline
MAX_WALK_DEPTH = 16     # CBOR: maps walked by hand at most (a profile nests fewer than 10 levels), then decline
_PLACEHOLDER = b'"\\u0000memreport:%d"'
_PLACEHOLDER_TEXT = "\0memreport:"


class _Decline(Exception):
    """The fast decoder will not vouch for this document."""


def profile_memory(tree: Any) -> list[Any]:
    """Where a profile keeps its per-tile lists: its ``memory`` tree (or its ``graphProfile``'s)."""
    return [holder["memory"] for holder in (tree, tree.get("graphProfile") if isinstance(tree, dict) else None)
            if isinstance(holder, dict) and isinstance(holder.get("memory"), dict)]


def decode_json_arrays(data: bytes, arrays_in: Callable[[Any], list[Any]] = profile_memory,
                       max_brackets: int = MAX_BRACKETS) -> Any | None:
    """The JSON tree in ``data`` with long integer lists as arrays in the subtrees ``arrays_in`` names (a
    profile's ``memory`` trees; a saved report's ``tile_values``), as lists elsewhere; or None. More than
    ``max_brackets`` lists: None."""
    if b"\\" in data:  # an escaped quote would hide string boundaries from the bracket scan
        return None
    start = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    arrays: list[np.ndarray] = []
    pieces: list[bytes | memoryview] = []
    view = memoryview(data)
    done = start
    quotes = 0  # quotes seen before ``at``: odd means inside a string
    seen = start
    at = data.find(b"[", start)
    brackets = 0
    close = -1
    while at >= 0:
        brackets += 1
        if brackets > max_brackets:
            return None
        quotes += data.count(b'"', seen, at)
        seen = at
        if close < at:  # the first "]" after ``at`` stays the same until ``at`` passes it: linear, not quadratic
            close = data.find(b"]", at)
        if close < 0:
            break
        after = data.find(b"[", at + 1)
        # A "[" before the "]" means a nested list: not a flat list of integers (and no slice copied).
        if quotes % 2 == 0 and close - at > MIN_LIST_BYTES and not 0 <= after < close:
            values = _int_list(data[at + 1:close])
            if values is not None:
                pieces += [view[done:at], _PLACEHOLDER % len(arrays)]
                arrays.append(values)
                done = seen = close + 1  # a list of integers holds no quote
                at = data.find(b"[", done)
                continue
        at = after
    tree = _skeleton_tree(pieces, view, done) if arrays else None
    return None if tree is None else _restore(tree, arrays, arrays_in)


def _skeleton_tree(pieces: list[bytes | memoryview], view: memoryview, done: int) -> Any | None:
    """The document, its long lists replaced by placeholders (``pieces``, then ``view[done:]``), decoded; None
    declines: the reference decoder will say what is wrong."""
    pieces.append(view[done:])
    skeleton = b"".join(pieces)
    pieces.clear()
    try:
        return decode_json(skeleton)
    except Exception:  # noqa: BLE001 - declining on anything
        return None


def _int_list(body: bytes) -> np.ndarray | None:
    """The integers of a JSON list's inside (:func:`~memreport.readers.documents.json_ints.int_list`),
    non-negative ones in the smallest unsigned type holding them; None unless it is exactly such a list."""
    found = int_list(body)
    if found is None:
        return None
    values, negative = found
    return values if negative else _compact(values, int(values.max()))


def _compact(values: np.ndarray, high: int | None = None) -> np.ndarray:
    """The smallest unsigned type holding non-negative values (readers widen to int64 as they use them)."""
    if values.size == 0:
        return values
    if high is None:
        if int(values.min()) < 0:
            return values
        high = int(values.max())
    for dtype in (np.uint8, np.uint16, np.uint32):
        if high <= np.iinfo(dtype).max:
            return values.astype(dtype)
    return values


def _restore(tree: Any, arrays: list[np.ndarray], arrays_in: Callable[[Any], list[Any]]) -> Any:
    """Put the arrays back: as arrays in the subtrees ``arrays_in`` names, as lists anywhere else."""
    used = [0]
    for holder in arrays_in(tree):
        _swap(holder, arrays, True, used)
    if used[0] < len(arrays):  # long integer lists elsewhere keep their ordinary form
        _swap(tree, arrays, False, used)
    return tree


def _swap(node: Any, arrays: list[np.ndarray], as_array: bool, used: list[int]) -> Any:
    """``node`` with each placeholder in it replaced by its array (as a list unless ``as_array``), counted in
    ``used[0]``; the walk stops once every placeholder is back (a saved report's 94,208 member names after its
    arrays are never looked at). Recursive at module level: a nested function calling itself would hold
    ``arrays`` in a reference cycle until the garbage collector runs."""
    if isinstance(node, str) and node.startswith(_PLACEHOLDER_TEXT):
        used[0] += 1
        values = arrays[int(node[len(_PLACEHOLDER_TEXT):])]
        return values if as_array else values.tolist()
    if isinstance(node, dict):
        for key, value in node.items():
            if used[0] == len(arrays):
                break
            if isinstance(value, (dict, list, str)):
                node[key] = _swap(value, arrays, as_array, used)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            if used[0] == len(arrays):
                break
            if isinstance(value, (dict, list, str)):
                node[i] = _swap(value, arrays, as_array, used)
    return node


_PAIR_BYTES = b"0123456789,[] \t\n\r"
PAIR_CHUNK = 1 << 20  # bytes of a pair list parsed at once
_OPEN_PAIRS, _CLOSE_PAIRS = re.compile(rb"\[[ \t\n\r]*\["), re.compile(rb"\][ \t\n\r]*\]")


def decode_tensor_map_json(data: bytes) -> Any | None:
    """A JSON tensor map with every ``[[tile, elements], ...]`` list as an (n, 2) integer array, or None.

    A tensor map is mostly such pairs; as Python lists they take some 130
    bytes each (a list and two ints) for the 6 to 20 the file spends. Each
    list made only of pairs of JSON integers is parsed by numpy and replaced
    by a placeholder before the rest is decoded; None declines, as the
    profile decoders do (an escape in a string, no pair list), and the
    caller decodes the ordinary way.
    """
    if b"\\" in data:  # an escaped quote would hide string boundaries
        return None
    arrays: list[np.ndarray] = []
    pieces: list[bytes | memoryview] = []
    view = memoryview(data)
    done = seen = quotes = 0
    close = None
    found = _OPEN_PAIRS.search(data)
    while found:
        at = found.start()
        quotes += data.count(b'"', seen, at)
        seen = at
        if close is None or close.start() < at:  # the first "]]" after ``at`` holds until ``at`` passes it
            close = _CLOSE_PAIRS.search(data, at)
            if close is None:
                break
        following = _OPEN_PAIRS.search(data, at + 1)
        # A "[[" before the "]]" cannot start a list of pairs (nor be parsed: quadratic over "[[[[...").
        if quotes % 2 == 0 and (following is None or following.start() > close.start()):
            pairs = _pair_lists(data, found.end() - 1, close.start() + 1)
            if pairs is not None:
                pieces += [view[done:at], _PLACEHOLDER % len(arrays)]
                arrays.append(pairs)
                done = seen = close.end()  # pairs of integers hold no quote
                found = _OPEN_PAIRS.search(data, done)
                continue
        found = following
    tree = _skeleton_tree(pieces, view, done) if arrays else None
    return None if tree is None else _swap(tree, arrays, True, [0])


def _pair_lists(data: bytes, start: int, stop: int) -> np.ndarray | None:
    """:func:`_pair_list` of ``data[start:stop]``, parsed :data:`PAIR_CHUNK` bytes at a time (cut after a
    pair), so a list of millions of pairs costs its array, not copies of its text."""
    parts = []
    at = start
    while at < stop:
        end = data.find(b"]", at + PAIR_CHUNK, stop) + 1 if stop - at > PAIR_CHUNK else stop
        end = end or stop
        pairs = _pair_list(data[at:end])
        if pairs is None:
            return None
        parts.append(pairs)
        if end < stop:
            after = data.find(b"[", end, stop)
            if after < 0 or data[end:after].strip() != b",":  # one comma between two pairs
                return None
            end = after
        at = end
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _pair_list(body: bytes) -> np.ndarray | None:
    """``[a, b], [c, d], ...`` (the inside of a list of pairs) as an (n, 2) integer array; None unless it is
    exactly that, in JSON's own syntax."""
    if not body or body.translate(None, _PAIR_BYTES):  # a byte that is none of these
        return None
    compact = body.translate(None, WHITESPACE)
    values = _int_list(compact.translate(None, b"[]"))  # strict: digits and commas
    bare = np.frombuffer(compact, dtype=np.uint8)
    opens, closes = np.flatnonzero(bare == 0x5B), np.flatnonzero(bare == 0x5D)
    n = opens.size
    if values is None or values.size != 2 * n or closes.size != n or bare[0] != 0x5B or bare[-1] != 0x5D:
        return None
    if len(compact) != len(body) and digit_runs(body) != values.size:  # whitespace inside a number: "[1 2, 3]"
        return None
    commas = np.flatnonzero(bare == 0x2C)
    inside = np.searchsorted(commas, closes) - np.searchsorted(commas, opens)
    if not ((closes > opens).all() and (opens[1:] == closes[:-1] + 2).all() and (bare[closes[:-1] + 1] == 0x2C).all()
            and (inside == 1).all()):  # "[a,b]" each, "," between: nothing else
        return None
    return values.reshape(n, 2)  # the smallest unsigned type holding them (readers widen as they use them)


def decode_cbor_arrays(data: bytes) -> Any | None:
    """The CBOR tree in ``data`` with long integer lists under ``memory`` as arrays, or None."""
    start = len(SELF_DESCRIBE_TAG) if data.startswith(SELF_DESCRIBE_TAG) else 0
    fp = io.BytesIO(data)
    fp.seek(start)
    decoder = _inner_decoder(fp)
    try:
        tree = _cbor_item(data, fp, decoder, _TOP, 0)
    except Exception:  # noqa: BLE001 - declining on anything: the reference decoder will say what is wrong
        return None
    if fp.tell() != len(data):
        return None
    return tree


def _inner_decoder(fp: io.BytesIO) -> Any:
    """cbor2 for the items inside the hand-walked maps, kept within the reference decoder's limits.

    cbor2 counts nesting from zero in each ``decode()``, so the maps walked
    by hand (at most :data:`MAX_WALK_DEPTH`) take their share of
    :data:`~memreport.readers.documents.document.MAX_NESTING` here. Value sharing
    (tags 28 and 29) declines: the reference decoder refuses it.
    """
    import cbor2

    return cbor2.CBORDecoder(fp, max_depth=MAX_NESTING - MAX_WALK_DEPTH,
                             semantic_decoders={28: _decline_tag, 29: _decline_tag})


def _decline_tag(*args: Any) -> Any:
    raise _Decline


_LENGTH_BYTES = {24: 1, 25: 2, 26: 4, 27: 8}


_TOP, _GRAPH, _MEMORY, _OTHER = range(4)  # where an item sits: top level, graphProfile, a memory tree, elsewhere


def _cbor_item(data: bytes, fp: io.BytesIO, decoder, where: int, depth: int) -> Any:
    """One item inside ``depth`` maps: maps with text keys walked here, everything else decoded by cbor2."""
    at = fp.tell()
    initial = data[at]
    major, info = initial >> 5, initial & 31
    if major == 5 and info < 28:  # a definite-length map
        if depth >= MAX_WALK_DEPTH:  # deeper than any profile: the reference decoder decides
            raise _Decline
        extra = _LENGTH_BYTES.get(info, 0)
        count = int.from_bytes(data[at + 1:at + 1 + extra], "big") if extra else info
        fp.seek(at + 1 + extra)
        result: dict = {}
        for _ in range(count):
            key_initial = data[fp.tell()]
            if key_initial >> 5 != 3 or key_initial & 31 >= 28:  # only definite-length text keys
                raise _Decline
            key = decoder.decode()
            if where in (_TOP, _GRAPH) and key == "memory":
                inner = _MEMORY
            elif where == _TOP and key == "graphProfile":
                inner = _GRAPH
            else:
                inner = _OTHER if where != _MEMORY else _MEMORY
            result[key] = _cbor_item(data, fp, decoder, inner, depth + 1)
        return result
    if where == _MEMORY and major == 4 and info < 28:  # a definite-length array in a memory tree
        extra = _LENGTH_BYTES.get(info, 0)
        count = int.from_bytes(data[at + 1:at + 1 + extra], "big") if extra else info
        if count >= MIN_LIST_ITEMS:
            found = cbor_ints(data, at + 1 + extra, count)
            if found is not None:
                values, end = found
                fp.seek(end)
                return _compact(values)
            value = decoder.decode()
            # array.array takes true/false (0xf5/0xf4) as 1/0: such a list stays a list, for the reader to refuse.
            if isinstance(value, list) and bool not in map(type, value):
                try:
                    return _compact(np.frombuffer(array.array("q", value), dtype=np.int64))
                except (TypeError, OverflowError):  # not all integers, or too large: the reader names the value
                    return value
            return value
    return decoder.decode()
