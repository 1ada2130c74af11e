"""JSON and CBOR documents: cheap sniffing, decoding with byte offsets, per-tile arrays.

Graph profiles and tensor maps share one tree shape in two encodings
(docs/FORMATS.md §2-4); this module turns either encoding into that tree and
turns the tree's per-tile lists into int64 numpy arrays with errors that
name the key path.
"""
from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Mapping
from types import ModuleType
from typing import Any

import numpy as np

from ...errors import ReadError, Truncated

_orjson: ModuleType | None
try:  # orjson is several times faster on large profiles; json is the fallback
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised only without orjson
    _orjson = None

SELF_DESCRIBE_TAG = b"\xd9\xd9\xf7"  # CBOR tag 55799, written by use_poplar_cbor_report
UTF8_BOM = b"\xef\xbb\xbf"
_WHITESPACE = b" \t\r\n"
# Bytes needed after a map's initial byte to reach its first key (0xb8..0xbb carry a length).
_MAP_KEY_AT = {**dict.fromkeys(range(161, 184), 1), 0xB8: 2, 0xB9: 3, 0xBA: 5, 0xBB: 9, 0xBF: 1}
_KEY = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")

# A profile or tensor map nests fewer than 10 deep; decoders recurse once per level.
MAX_NESTING = 256
_NOT_JSON_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_JSON_STRING = re.compile(rb'"[^"]*"')
_NESTING_STEP = np.zeros(256, dtype=np.int64)
_NESTING_STEP[list(b"[{")] = 1
_NESTING_STEP[list(b"]}")] = -1

# RFC 8746 typed arrays: a writer may store a per-tile list as one byte string.
_TYPED_ARRAYS = {
    64: "u1", 65: ">u2", 66: ">u4", 67: ">u8", 68: "u1", 69: "<u2", 70: "<u4", 71: "<u8",
    72: "i1", 73: ">i2", 74: ">i4", 75: ">i8", 77: "<i2", 78: "<i4", 79: "<i8",
}


def file_bytes(path: str) -> bytes:
    """The whole file, an OSError a ReadError (the registry names the file)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc)) from None


def looks_like_json_object(prefix: bytes) -> bool:
    """True when the first non-whitespace byte (after an optional BOM) is ``{``."""
    body = prefix[len(UTF8_BOM):] if prefix.startswith(UTF8_BOM) else prefix
    return body.lstrip(_WHITESPACE)[:1] == b"{"


def looks_like_cbor_map(prefix: bytes) -> bool:
    """True for the self-describe tag, or a CBOR map whose first key is a short identifier.

    A bare map byte (0xa1-0xbb, 0xbf) could open Latin-1 text, so the first
    key must also be a definite-length text string spelling an identifier.
    """
    if prefix.startswith(SELF_DESCRIBE_TAG):
        return True
    if not prefix:
        return False
    if prefix[0] == 0xA0:  # the empty map: a one-byte document
        return len(prefix) == 1
    at = _MAP_KEY_AT.get(prefix[0])
    if at is None or at >= len(prefix):
        return False
    key_byte = prefix[at]
    if not 0x61 <= key_byte <= 0x77:  # text string of 1..23 bytes, length in the byte itself
        return False
    key = prefix[at + 1:at + 1 + (key_byte - 0x60)]
    return len(key) == key_byte - 0x60 and _KEY.fullmatch(key) is not None


def check_json_nesting(data: bytes) -> None:
    """Refuse JSON nested deeper than :data:`MAX_NESTING` before a decoder recurses into it.

    orjson 3.8 crashes the interpreter on an object nested 100,000 deep and
    builds lists nested as deep as asked. The scan keeps only quotes and
    brackets (escapes dropped first, strings then removed), a small
    fraction of the file, so it costs little beside the decoding.
    """
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    structure = _JSON_STRING.sub(b"", data.translate(None, _NOT_JSON_STRUCTURE)).split(b'"', 1)[0]
    if len(structure) <= MAX_NESTING:
        return
    depth = np.cumsum(_NESTING_STEP[np.frombuffer(structure, dtype=np.uint8)])
    if int(depth.max()) > MAX_NESTING:
        raise ReadError(f"JSON nested more than {MAX_NESTING} levels deep (a profile or tensor map nests "
                        "fewer than 10)")


def decode_json(data: bytes) -> Any:
    """The JSON tree in ``data``; a ReadError (Truncated at the end) with the byte offset."""
    start = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    body = memoryview(data)[start:] if start else data
    check_json_nesting(bytes(data))
    try:
        if _orjson is not None:
            return _orjson.loads(body)
        return json.loads(bytes(body))
    except json.JSONDecodeError as exc:  # orjson's error subclasses it
        # pos counts characters of the decoded text; report bytes of the file.
        offset = start + len(exc.doc[:exc.pos].encode("utf-8", "surrogatepass"))
        at_end = offset >= len(bytes(data).rstrip(_WHITESPACE)) or "end of data" in exc.msg \
            or exc.msg.startswith("Unterminated")
        cls = Truncated if at_end else ReadError
        what = "JSON ends early" if at_end else "invalid JSON"
        if "UTF-8" in exc.msg:  # orjson reports bad UTF-8 at offset 0: find the byte
            try:
                bytes(body).decode("utf-8")
            except UnicodeDecodeError as bad:
                offset = start + bad.start
        raise cls(f"{what}: {exc.msg}", offset=offset) from None
    except UnicodeDecodeError as exc:
        raise ReadError(f"invalid JSON: not UTF-8 text ({exc.reason})", offset=start + exc.start) from None
    except ValueError as exc:  # the json fallback: an integer of more than 4,300 digits
        raise ReadError(f"invalid JSON: {exc}") from None


def decode_cbor(data: bytes) -> Any:
    """The CBOR tree in ``data`` (with or without the self-describe tag)."""
    import cbor2

    # Skip the tag ourselves: cbor2 decodes a tagged item as frozendict/tuples.
    start = len(SELF_DESCRIBE_TAG) if data.startswith(SELF_DESCRIBE_TAG) else 0
    fp = io.BytesIO(data)
    fp.seek(start)
    try:
        tree = cbor_decoder(fp).decode()
    except cbor2.CBORDecodeEOF as exc:
        raise Truncated(f"CBOR ends early: {exc}", offset=fp.tell()) from None
    except cbor2.CBORDecodeError as exc:
        if isinstance(exc.__cause__, _SharingRefused):
            raise ReadError("CBOR value sharing (tags 28 and 29) refused: Poplar does not write it, and one "
                            "shared list named many times would multiply the memory a reading takes",
                            offset=fp.tell()) from None
        raise ReadError(f"invalid CBOR: {exc}", offset=fp.tell()) from None
    if fp.tell() != len(data):
        raise ReadError(f"{len(data) - fp.tell():,} bytes follow the CBOR document", offset=fp.tell())
    return tree


def cbor_decoder(fp: io.BytesIO) -> Any:
    """A cbor2 decoder with memreport's limits: nesting depth, and no value sharing (tags 28 and 29).

    cbor2 6 also reads a string in chunks, so a header claiming 2**60 bytes
    fails at the end of the file (5.5 allocated the declared length first).
    """
    import cbor2

    return cbor2.CBORDecoder(fp, max_depth=MAX_NESTING, semantic_decoders={28: _refuse_sharing, 29: _refuse_sharing})


class _SharingRefused(Exception):
    """Raised inside cbor2 for tags 28/29; becomes a ReadError in :func:`decode_cbor`."""


def _refuse_sharing(*args: Any) -> Any:
    raise _SharingRefused()


def child(node: Mapping, key: str, path: str, *, required: bool = False) -> Any:
    """``node[key]`` or None; a ReadError naming ``path`` when required and missing."""
    if key in node:
        return node[key]
    if required:
        raise ReadError(f"{path}{key} is missing")
    return None


def mapping(value: Any, path: str) -> Mapping:
    """``value`` when it is a map (JSON object), else a ReadError naming ``path``."""
    if not isinstance(value, Mapping):
        raise ReadError(f"{path} must be an object, not {_kind(value)}")
    return value


def whole_number(value: Any, path: str, *, positive: bool = False) -> int:
    """An integer field (integral floats accepted), checked for sign."""
    if not _is_whole(value):
        raise ReadError(f"{path} must be a whole number, not {_kind(value)} {_short(value)}".rstrip())
    number = int(value)
    if not -2 ** 63 <= number < 2 ** 63:  # a CBOR bignum: too large to format, let alone count
        raise ReadError(f"{path} must be a whole number below 2**63, not a {number.bit_length()}-bit one")
    if number < 0 or (positive and number == 0):
        raise ReadError(f"{path} must be {'positive' if positive else 'non-negative'}, not {number:,}")
    return number


def _is_whole(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value) and value == int(value)


def tile_array(value: Any, path: str, num_tiles: int | None = None, count_of: str = "tiles",
               signed: bool = False) -> np.ndarray:
    """A per-tile list as an int64 array: no Python object per value kept, errors name ``path``; negative values
    refused unless ``signed``."""
    arr = _typed_array(value, path)
    if arr is None:
        if not isinstance(value, (list, tuple, np.ndarray)):  # arrays: from bulk_decode
            raise ReadError(f"{path} must be a list of integers, not {_kind(value)}")
        # numpy reads true/false among integers as 1/0: as objects, _integers names the first boolean.
        booleans = not isinstance(value, np.ndarray) and bool in map(type, value)
        try:
            arr = np.asarray(value, dtype=object if booleans else None)
        except (ValueError, TypeError, OverflowError):  # ragged nesting, huge integers
            arr = np.asarray(value, dtype=object)
        arr = _integers(arr, value, path)
    if num_tiles is not None and arr.shape[0] != num_tiles:
        raise ReadError(f"{path} has {arr.shape[0]:,} values for {num_tiles:,} {count_of}")
    if arr.size and not signed and int(arr.min()) < 0:
        tile = int(np.argmin(arr))
        raise ReadError(f"{path} holds a negative size ({int(arr[tile]):,} for tile {tile})")
    return arr


def _integers(arr: np.ndarray, value: Any, path: str) -> np.ndarray:
    if arr.size == 0 and arr.ndim == 1:
        return np.zeros(0, dtype=np.int64)
    if arr.ndim == 1 and arr.dtype.kind in "iu":
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            raise ReadError(f"{path} holds a value too large for 64 bits")
        return arr.astype(np.int64, copy=False)
    if arr.ndim == 1 and arr.dtype.kind == "f" and np.isfinite(arr).all() and (arr == np.floor(arr)).all() \
            and np.abs(arr).max() < 2 ** 53:
        return arr.astype(np.int64)
    # Slow path, only to name the first offending value.
    for index, item in enumerate(value):
        if not _is_whole(item):
            raise ReadError(f"{path}[{index}] must be an integer, not {_kind(item)} {_short(item)}".rstrip())
        if not -2 ** 63 <= int(item) < 2 ** 63:
            raise ReadError(f"{path}[{index}] = {item} is too large for 64 bits")
    raise ReadError(f"{path} must be a list of integers")  # pragma: no cover - a shape numpy rejects


def _typed_array(value: Any, path: str) -> np.ndarray | None:
    tag, payload = getattr(value, "tag", None), getattr(value, "value", None)
    if tag is None or not isinstance(payload, (bytes, bytearray)):
        return None
    dtype = _TYPED_ARRAYS.get(tag)
    if dtype is None:
        raise ReadError(f"{path} must be a list of integers, not CBOR tag {tag}")
    size = np.dtype(dtype).itemsize
    if len(payload) % size:
        raise ReadError(f"{path}: typed array of {len(payload)} bytes is not a whole number of {size}-byte values")
    arr = np.frombuffer(bytes(payload), dtype=dtype)
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
        raise ReadError(f"{path} holds a value too large for 64 bits")
    return arr.astype(np.int64)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return type(value).__name__


def _short(value: Any) -> str:
    if not isinstance(value, (str, int, float)):
        return ""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
