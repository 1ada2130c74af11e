"""Where the items of a JSON document's top-level list lie, found without decoding them (RFC 8259).

A lowered-variables report (docs/FORMATS.md §11) is mostly one list of a
million small objects: decoded whole, it takes some seven times the file
in Python objects. This scanner finds the list's items chunk by chunk with
numpy, so a reader can decode them a batch at a time (or not at all: see
:mod:`~memreport.readers.documents.lowered_rows`):

- a byte is inside a string when an odd number of unescaped quotes come
  before it (a quote after an odd run of backslashes is escaped);
- the structural characters ``{}[],:`` outside strings are the tokens; a
  list's items are separated by its commas, at its own depth.

The scanner vouches for nothing: an item it delimits is decoded or checked
by the caller, and a document whose items do not decode is read again by
the reference decoder, which says what is wrong and where. Splitting at
commas that are not the list's own can only give items that fail to decode
(RFC 8259's grammar reads a value followed by a comma one way only).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .document import _orjson

_QUOTE, _BACKSLASH, _COMMA, _COLON = 0x22, 0x5C, 0x2C, 0x3A
STRUCTURE = np.zeros(256, dtype=bool)
STRUCTURE[list(b"{}[],:")] = True
WHITESPACE = np.zeros(256, dtype=bool)
WHITESPACE[list(b" \t\n\r")] = True
DEPTH = np.zeros(256, dtype=np.int8)
DEPTH[list(b"{[")] = 1
DEPTH[list(b"}]")] = -1
CHUNK = 1 << 20  # bytes scanned at once: 1 MiB (some 3,000 lowered variables), so the arrays stay in cache


class Malformed(Exception):
    """The scan cannot follow the document: the reference decoder will say what is wrong."""


def decode_item(text: bytes) -> Any:
    """orjson's (or json's) reading of an item the scan delimited; :class:`Malformed` when it is not JSON."""
    try:
        if _orjson is not None:
            return _orjson.loads(text)
        import json
        return json.loads(text)
    except ValueError:  # JSONDecodeError, orjson's included
        raise Malformed("an item does not decode") from None


@dataclass(frozen=True, eq=False)
class Tokens:
    """The structural characters outside strings in ``data[start:stop]`` (which starts outside a string).

    ``raw`` is that slice as bytes, ``quotes`` a bool per byte (an
    unescaped quote), ``positions`` the tokens' offsets in the slice,
    ``chars`` their bytes.
    """

    start: int
    raw: np.ndarray
    quotes: np.ndarray
    positions: np.ndarray
    chars: np.ndarray

    def inside(self, size: int) -> np.ndarray:
        """A bool per byte of the slice's first ``size``: inside a string (its opening quote included)."""
        parity = np.cumsum(self.quotes[:size], dtype=np.uint8)  # wraps at 256, and the parity stays right
        parity &= 1
        return parity.view(bool)


def tokens(data: bytes, start: int, stop: int) -> Tokens:
    """The tokens of ``data[start:stop]``; ``start`` must lie outside any string."""
    raw = np.frombuffer(data, dtype=np.uint8, count=stop - start, offset=start)
    quotes = raw == _QUOTE
    if data.find(b"\\", start, stop) >= 0:  # unmark each quote that follows an odd run of backslashes
        slashes = np.flatnonzero(raw == _BACKSLASH)
        breaks = np.flatnonzero(np.diff(slashes) != 1)
        first = slashes[np.concatenate(([0], breaks + 1))]
        last = slashes[np.concatenate((breaks, [slashes.size - 1]))] + 1
        escaped = last[((last - first) & 1) == 1]
        quotes[escaped[escaped < raw.size]] = False
    folded = raw | 0x20  # "[" and "{", "]" and "}" alike
    structural = (folded == 0x7B) | (folded == 0x7D) | (raw == _COMMA) | (raw == _COLON)
    # The parity of the quotes before each byte, counted over the quotes and structural bytes alone (a tenth of
    # the text), tells which structural bytes lie outside strings.
    marked = np.flatnonzero(structural | quotes)
    is_quote = quotes[marked]
    parity = np.cumsum(is_quote, dtype=np.uint8)
    parity &= 1
    outside = np.less(parity.view(bool), ~is_quote)  # not a quote, and an even number of quotes before it
    positions = marked[outside]
    return Tokens(start, raw, quotes, positions, raw[positions])


def _chunk_end(data: bytes, start: int, size: int) -> int:
    """``start + size`` (or the end), moved past a run of backslashes so an escape is never cut from its quote."""
    stop = min(start + size, len(data))
    while stop < len(data) and data[stop - 1] == _BACKSLASH:
        stop += 1
    return stop


def top_level_list(data: bytes, key: str) -> int:
    """The offset of the ``[`` opening the list that is the document's top-level ``key``; :class:`Malformed`
    when the scan does not find one (absent, not a list, spelt with escapes: the caller decodes the ordinary
    way)."""
    start = len(data) - len(data.lstrip(b"\xef\xbb\xbf \t\r\n"))
    if data[start:start + 1] != b"{":
        raise Malformed("not a JSON object")
    wanted = b'"' + key.encode() + b'"'
    depth = 0
    at = start
    size = 1 << 16
    while at < len(data):
        stop = _chunk_end(data, at, size)
        found = tokens(data, at, stop)
        if found.positions.size == 0:  # a string longer than the chunk
            if stop >= len(data):
                break
            size *= 2
            continue
        places = found.positions + at
        levels = depth + np.cumsum(DEPTH[found.chars], dtype=np.int64)
        colons = np.flatnonzero((found.chars == _COLON) & (levels == 1)).tolist()
        if colons and colons[-1] == places.size - 1 and stop < len(data):  # a value cut off: read on
            size *= 2
            continue
        for i in colons:
            colon = int(places[i])
            if data[(at if i == 0 else int(places[i - 1]) + 1):colon].strip(b" \t\r\n") != wanted:
                continue
            if i + 1 < places.size and found.chars[i + 1] == ord("[") and \
                    not data[colon + 1:int(places[i + 1])].strip(b" \t\r\n"):
                return int(places[i + 1])
            raise Malformed(f"{key} is not a list")
        if bool((levels < 1).any()):  # the top-level object closed
            break
        depth = int(levels[-1])
        at = int(places[-1]) + 1  # the next chunk starts outside any string, after the last token
        size *= 2
    raise Malformed(f"no top-level {key} list")


@dataclass(frozen=True, eq=False)
class Batch:
    """The items of a list that lie wholly inside one scanned chunk.

    ``tokens`` covers ``data[tokens.start:end]``, which starts where the
    first item does and ends after the comma (or the list's ``]``) that ends
    the last; ``bounds[k]`` is the index of item ``k``'s first token, and
    ``bounds[-1]`` one past the last item's closing comma. ``last`` marks the
    batch ended by the list's ``]`` (at ``end - 1``); it may hold no item.
    """

    tokens: Tokens
    end: int
    bounds: np.ndarray
    last: bool

    @property
    def count(self) -> int:
        return int(self.bounds.size - 1)

    def spans(self) -> tuple[np.ndarray, np.ndarray]:
        """Each item's first byte and the offset of the comma (or ``]``) after it, in the document."""
        t = self.tokens
        separators = t.positions[self.bounds[1:] - 1] + t.start
        firsts = np.concatenate(([t.start], separators[:-1] + 1))
        return firsts, separators


def batch_at(data: bytes, at: int, size: int = CHUNK) -> Batch:
    """The items of a list that start at ``at`` (just after its ``[`` or a comma) and end within ``size``
    bytes (more when one item is longer); :class:`Malformed` when the list does not close as JSON lists do."""
    while True:
        stop = _chunk_end(data, at, size)
        found = tokens(data, at, stop)
        levels = np.cumsum(DEPTH[found.chars], dtype=np.int64)
        closing = np.flatnonzero(levels < 0)
        if closing.size:
            close = int(closing[0])
            if found.chars[close] != ord("]"):
                raise Malformed("the list closes with }")
            if close == 0 and not data[at:at + int(found.positions[0])].strip(b" \t\r\n"):
                bounds = np.zeros(1, dtype=np.int64)  # the list is empty (or has no item left)
            else:
                commas = np.flatnonzero((found.chars[:close] == _COMMA) & (levels[:close] == 0))
                bounds = np.concatenate(([0], commas + 1, [close + 1]))
            return Batch(found, at + int(found.positions[close]) + 1, bounds, True)
        commas = np.flatnonzero((found.chars == _COMMA) & (levels == 0))
        if commas.size:
            bounds = np.concatenate(([0], commas + 1))
            return Batch(found, at + int(found.positions[commas[-1]]) + 1, bounds, False)
        if stop >= len(data):
            raise Malformed("the list does not close")
        size *= 2  # one item longer than a chunk


def list_batches(data: bytes, open_at: int, chunk: int = CHUNK) -> Iterator[Batch]:
    """The items of the list whose ``[`` is at ``open_at``, a batch per chunk (:func:`batch_at`)."""
    at = open_at + 1
    while True:
        batch = batch_at(data, at, chunk)
        yield batch
        if batch.last:
            return
        at = batch.end
