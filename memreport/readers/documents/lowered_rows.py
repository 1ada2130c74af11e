"""Lowered-variables records read straight from the file's bytes, a batch at a time (docs/FORMATS.md §11).

Poplar writes every record of ``vars`` the same way: the same keys in the
same order. The first record of a batch is taken as the template (its
tokens, keys and where each wanted field sits); every record with the same
tokens is then checked against it all at once with numpy: each gap between
tokens is empty, the template's key, or one JSON value (an integer read by
:func:`~memreport.readers.documents.json_ints.integers_at`, ``true``,
``false``, ``null`` or a string with no quote, backslash or control
character inside), the quotes number what the keys and strings need, and
the text is UTF-8. A record that passes is exactly the JSON its fields say,
read without a Python object per value; any other record (another shape, a
float, an escape, a negative count, a wrong type) is left to the reference
reading (:func:`~memreport.readers.documents.lowered_records.record_fields`),
which reads it or says what is wrong with it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .json_ints import integers_at
from .json_scan import STRUCTURE, WHITESPACE, Batch, Malformed, decode_item
from .lowered_records import NO_CLASS, OPTIONAL, WANTED, Fields, Strings

_QUOTE, _BACKSLASH, _MINUS = 0x22, 0x5C, 0x2D
_TRUE, _NULL = int.from_bytes(b"true", "little"), int.from_bytes(b"null", "little")
_FALSE = int.from_bytes(b"false", "little")
_PAD = b"        "  # after a compacted batch: forward word reads never leave the buffer


@dataclass(frozen=True, eq=False)
class Template:
    """A record's shape: its ``count`` tokens' bytes, and the gaps between token ``j`` and ``j + 1`` that hold a
    key (``keys``: the gap and its quoted bytes), a value (``values``: the gap and the Fields column it fills,
    or None) or nothing (``empty``)."""

    count: int
    chars: bytes
    keys: tuple[tuple[int, bytes], ...]
    values: tuple[tuple[int, str | None], ...]

    @cached_property
    def empty(self) -> np.ndarray:
        taken = {j for j, _ in self.keys} | {j for j, _ in self.values}
        return np.array([j for j in range(self.count - 1) if j not in taken], dtype=np.int64)

    @cached_property
    def key_words(self) -> tuple[np.ndarray, ...]:
        """The keys as 8-byte words: per word its key (a place in ``keys``), offset, mask and expected value."""
        slot, offset, mask, want = [], [], [], []
        for i, (_, quoted) in enumerate(self.keys):
            padded = quoted + bytes(8)
            for k in range(0, len(quoted), 8):
                bits = (1 << (8 * min(8, len(quoted) - k))) - 1
                slot.append(i)
                offset.append(k)
                mask.append(bits)
                want.append(int.from_bytes(padded[k:k + 8], "little") & bits)
        return (np.array(slot, dtype=np.int64), np.array(offset, dtype=np.int64), np.array(mask, dtype=np.uint64),
                np.array(want, dtype=np.uint64))

    def column(self, name: str) -> int | None:
        """Where the value of the Fields column ``name`` is among :attr:`values`."""
        return next((i for i, (_, n) in enumerate(self.values) if n == name), None)


def learn(batch: Batch, data: bytes) -> Template | None:
    """The template of the batch's first record, or None when it is not a record the fast reading takes."""
    t = batch.tokens
    lo, hi = int(batch.bounds[0]), int(batch.bounds[1])
    chars = t.chars[lo:hi].tobytes()
    places = t.positions[lo:hi] + t.start
    if not chars.startswith(b"{") or data.find(b"\\", int(places[0]), int(places[-1])) >= 0:
        return None
    stack: list[str | None] = []
    key: str | None = None
    keys: list[tuple[int, bytes]] = []
    values: list[tuple[int, str | None]] = []
    paths: dict[tuple[str | None, ...], str] = {path: name for path, name, _ in WANTED}
    seen: set[str] = set()
    for j, c in enumerate(chars[:-1]):
        if c in b"{[":
            stack.append(key)
            key = None
        elif c in b"}]":
            if not stack:
                return None
            stack.pop()
        elif c == ord(":"):
            quoted = data[int(places[j - 1]) + 1:int(places[j])].strip(b" \t\r\n") if j else b""
            if len(quoted) < 2 or quoted[:1] != b'"' or quoted[-1:] != b'"' or b'"' in quoted[1:-1]:
                return None
            keys.append((j - 1, quoted))
            key = quoted[1:-1].decode("utf-8", "replace")
            if chars[j + 1] not in b"{[":
                name = paths.get((*stack[1:], key)) if stack[:1] == [None] else None
                if name in seen:
                    return None  # a key given twice: the reference reading takes the last
                if name is not None:
                    seen.add(name)
                values.append((j, name))
        elif c == ord(","):
            key = None
    if stack or len(seen) + len([n for n in OPTIONAL if n not in seen]) != len(WANTED):
        return None
    try:  # the template must be JSON itself: the records checked against it are then JSON as it is
        record = decode_item(data[int(places[0]):int(places[-1])])
    except Malformed:
        return None
    if not isinstance(record, dict):  # pragma: no cover - a "{" starts it and it decodes
        return None
    return Template(len(chars), chars, tuple(keys), tuple(values))


@dataclass(eq=False)
class _Body:
    """The bytes the checks read: the batch compacted (no whitespace outside strings), or the file itself."""

    raw: np.ndarray
    text: bytes         # ``raw`` as bytes
    places: np.ndarray  # every token of the batch, in ``raw``
    stop: int           # one past the batch in ``raw``
    start: int


def _body(batch: Batch, data: bytes) -> _Body:
    t = batch.tokens
    size = batch.end - t.start
    raw = t.raw[:size]
    spaced = any(data.find(c, t.start, batch.end) >= 0 for c in (b" ", b"\n", b"\r", b"\t"))
    inside = t.inside(size) if spaced else None
    spaces = None if inside is None else np.greater(WHITESPACE[raw], inside)  # whitespace outside strings
    if spaces is None or inside is None or not spaces.any():  # as Poplar and orjson write JSON: read in place
        return _Body(np.frombuffer(data, dtype=np.uint8), data, t.positions[:batch.bounds[-1]] + t.start,
                     batch.end, t.start)
    keep = ~spaces
    compact = np.concatenate((raw[keep], np.frombuffer(_PAD, dtype=np.uint8)))
    structural = STRUCTURE[compact[:-len(_PAD)]] & ~inside[keep]
    return _Body(compact, compact.tobytes(), np.flatnonzero(structural), int(keep.sum()), 0)


def fast_fields(batch: Batch, template: Template, data: bytes, strings: Strings) -> tuple[Fields, np.ndarray]:
    """The batch's records as :class:`Fields`, and a bool per record: left to the reference reading (its
    fields here are placeholders). Every check reads a record's cells together (row-major), so a batch is
    read about once from memory."""
    n, count = batch.count, template.count
    found = Fields(n, strings)
    slow = np.ones(n, dtype=bool)
    rows = np.flatnonzero(np.diff(batch.bounds) == count)
    if rows.size == 0:
        return found, slow
    t = batch.tokens
    index = batch.bounds[rows][:, None] + np.arange(count)
    chars = t.chars[index]
    pattern = np.frombuffer(template.chars, dtype=np.uint8)
    ok = (chars[:, :-1] == pattern[:-1]).all(axis=1) & np.isin(chars[:, -1], np.frombuffer(b",]", np.uint8))
    body = _body(batch, data)
    raw = body.raw
    places = body.places[index]
    before = index[:, 0] - 1
    ok &= places[:, 0] == np.where(before >= 0, body.places[np.maximum(before, 0)] + 1, body.start)
    starts, ends = places[:, :-1] + 1, places[:, 1:]
    ok &= (starts[:, template.empty] == ends[:, template.empty]).all(axis=1)
    ok &= _keys_agree(raw, template, starts, ends)
    value_gaps = np.array([j for j, _ in template.values], dtype=np.int64)
    valid, cells = _values(raw, starts[:, value_gaps].ravel(), ends[:, value_gaps].ravel())
    shape = (rows.size, value_gaps.size)
    ok &= valid.reshape(shape).all(axis=1)
    cells = tuple(c.reshape(shape) for c in cells) + (starts[:, value_gaps], ends[:, value_gaps])
    quoted = 2 * (len(template.keys) + cells[4].sum(axis=1))
    ok &= _quotes_agree(body, places, quoted, ok, rows.size == n)
    batch_bytes = raw[body.start:body.stop]
    low, high = int(batch_bytes.min()), int(batch_bytes.max())
    if low < 0x20 or body.text.find(b"\\", body.start, body.stop) >= 0:  # a control character, an escape
        ok &= ~_rows_holding(body, places, (batch_bytes < 0x20) | (batch_bytes == _BACKSLASH))
    if high >= 0x80:  # text beyond ASCII: the whole batch must be UTF-8
        try:
            body.text[body.start:body.stop].decode("utf-8")
        except UnicodeDecodeError:
            ok &= ~_rows_holding(body, places, batch_bytes >= 0x80)
    ok &= _put(found, rows, template, cells, body, ok)
    slow[rows[ok]] = False
    return found, slow


def _keys_agree(raw: np.ndarray, template: Template, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per row, whether every key gap holds exactly the template's key."""
    gaps = np.array([j for j, _ in template.keys], dtype=np.int64)
    sizes = np.array([len(q) for _, q in template.keys], dtype=np.int64)
    ok = ((ends[:, gaps] - starts[:, gaps]) == sizes).all(axis=1)
    slot, offset, mask, want = template.key_words
    at = starts[:, gaps[slot]] + offset
    inside = at + 8 <= raw.size
    ok &= inside.all(axis=1)
    words = np.ndarray((max(raw.size - 7, 0),), dtype="<u8", buffer=raw, strides=(1,))
    ok &= ((words[np.where(inside, at, 0)] & mask) == want).all(axis=1)
    return ok


def _put(found: Fields, rows: np.ndarray, template: Template, cells: tuple[np.ndarray, ...], body: _Body,
         ok: np.ndarray) -> np.ndarray:
    """Fill the fast rows' fields; False for rows whose values are not what the reference reading takes
    without a word (a count that is not a non-negative integer, a flag that is not true or false...).

    ``cells`` are (integer, true, false, null, string, integer value, start, end), each an array of a column
    per value."""
    def cell(name: str) -> tuple[np.ndarray, ...]:
        col = template.column(name)
        return tuple(c[:, col] for c in cells)

    flag = cell("allocated")
    allocated = flag[1]
    good = (flag[1] | flag[2]) & _counted(cell("var"))
    for name in ("tile", "offset", "size"):
        good &= ~allocated | _counted(cell(name))
    for name in ("always_live", "interleaved"):
        good &= ~allocated | cell(name)[1] | cell(name)[2]
    for name in ("name", "category"):
        good &= ~allocated | cell(name)[4]
    eq = cell("eq_class") if template.column("eq_class") is not None else None
    if eq is not None:
        good &= ~allocated | eq[0] | eq[3]
    keep = good & ok
    found.allocated[rows[keep]] = allocated[keep]
    found.var[rows[keep]] = cell("var")[5][keep]
    live = keep & allocated
    placed = rows[live]
    for name in ("tile", "offset", "size"):
        getattr(found, name)[placed] = cell(name)[5][live]
    found.always_live[placed] = cell("always_live")[1][live]
    found.interleaved[placed] = cell("interleaved")[1][live]
    if eq is not None:
        found.eq_class[placed] = np.where(eq[0][live], np.maximum(eq[5][live], NO_CLASS), NO_CLASS)
    for name in ("name", "category"):
        first, last = cell(name)[6][live] + 1, cell(name)[7][live] - 1
        getattr(found, name)[placed] = found.strings.codes_at(body.raw, body.text, first, last)
    return good


def _counted(cell: tuple[np.ndarray, ...]) -> np.ndarray:
    """A non-negative integer (as the reference reading's whole numbers)."""
    return cell[0] & (cell[5] >= 0)


def _values(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """Whether each gap is one JSON value this reading takes, and per kind a bool (integer, true, false, null,
    string) with the integers' values."""
    n = starts.size
    size = ends - starts
    first = raw[np.minimum(starts, raw.size - 1)]
    whole, value = np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64)
    number = np.flatnonzero((size > 0) & (((first >= 0x30) & (first <= 0x39)) | (first == _MINUS)))
    if number.size:
        value[number], whole[number] = integers_at(raw, starts[number], ends[number])
    true, false, null = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    letters = np.flatnonzero((size >= 4) & ((first == 0x74) | (first == 0x66) | (first == 0x6E)) &
                             (starts + 8 <= raw.size))  # t, f, n
    if letters.size:
        words = np.ndarray((raw.size - 7,), dtype="<u8", buffer=raw, strides=(1,))
        word = words[starts[letters]]
        low4, low5 = word & np.uint64(0xFFFFFFFF), word & np.uint64(0xFFFFFFFFFF)
        four, five = size[letters] == 4, size[letters] == 5
        true[letters] = four & (low4 == np.uint64(_TRUE))
        false[letters] = five & (low5 == np.uint64(_FALSE))
        null[letters] = four & (low4 == np.uint64(_NULL))
    text = (size >= 2) & (first == _QUOTE) & (raw[np.maximum(ends - 1, 0)] == _QUOTE)
    return whole | true | false | null | text, (whole, true, false, null, text, value)


def _quotes_agree(body: _Body, places: np.ndarray, expected: np.ndarray, ok: np.ndarray, every: bool
                  ) -> np.ndarray:
    """Per row, whether its quotes are exactly those its keys and strings need (a quote inside a string would
    hide from the token scan). Each row that passed the other checks holds at least as many, so when every
    record of the batch is such a row, one count over the batch settles it."""
    if every and bool(ok.all()) and body.text.count(b'"', body.start, body.stop) == int(expected.sum()):
        return ok
    lo, hi = int(places[0, 0]), int(places[-1, -1]) + 1
    where = np.flatnonzero(body.raw[lo:hi] == _QUOTE) + lo
    return np.searchsorted(where, places[:, -1]) - np.searchsorted(where, places[:, 0]) == expected


def _rows_holding(body: _Body, places: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Per row, whether its bytes hold one flagged in ``flags`` (a bool per byte of the batch)."""
    hits = np.flatnonzero(flags) + body.start
    held = np.zeros(places.shape[0], dtype=bool)
    if hits.size:
        row = np.searchsorted(places[:, 0], hits, side="right") - 1
        inside = (row >= 0) & (hits <= places[np.maximum(row, 0), -1])
        held[row[inside]] = True
    return held
