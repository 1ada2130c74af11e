"""The fields memreport takes from each record of a lowered-variables report (docs/FORMATS.md §11).

A record is ``{"var": ID, "info": {...}}``. :func:`record_fields` reads one
decoded record the reference way, every wrong value a ReadError naming its
path (``vars[12].info.sizeBytes``) and the record's byte offset;
:class:`Fields` holds a run of records' fields as columns, the form the
fast reader (:mod:`~memreport.readers.documents.lowered_rows`) gives too.
What a variable that is not allocated (``"allocated": false``) holds besides
its id is not read: it takes no tile memory.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import ReadError
from .document import whole_number
from .fields import Node, kind_of

NO_CLASS = -1
# A record's fields: (path in the record, the name of the Fields column, what it must be).
WANTED: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("var",), "var", "whole"),
    (("info", "allocated"), "allocated", "flag"),
    (("info", "tile"), "tile", "whole"),
    (("info", "offset"), "offset", "whole"),
    (("info", "sizeBytes"), "size", "whole"),
    (("info", "name"), "name", "text"),
    (("info", "category"), "category", "text"),
    (("info", "alwaysLive"), "always_live", "flag"),
    (("info", "inInterleavedMem"), "interleaved", "flag"),
    (("info", "equivalenceClass"), "eq_class", "class"),
)
OPTIONAL = ("eq_class",)  # fields a record may leave out
_MIX = np.uint64(0x9E3779B97F4A7C15)
MAX_WORDS = 16  # strings up to 128 bytes are told apart by their words; longer ones one by one


class Strings:
    """Distinct strings (as UTF-8) by code, numbered in order of first appearance: a million variables' names
    are a few thousand distinct ones.

    :meth:`codes_at` codes many strings of a buffer at once: each string is
    known by a hash of its 8-byte words, and every string is compared word
    for word with the one its hash names (strings of more than
    :data:`MAX_WORDS` words, and a hash two strings share, are coded one by
    one), so no Python object is made per string.
    """

    def __init__(self) -> None:
        self.codes: dict[bytes, int] = {}
        self._hashes = np.zeros(0, dtype=np.uint64)  # known hashes, ascending, and the code each names
        self._named = np.zeros(0, dtype=np.int64)
        self._words = np.zeros((64, MAX_WORDS + 1), dtype=np.uint64)  # per code: its length, then its words

    def code(self, value: bytes) -> int:
        return self.codes.setdefault(value, len(self.codes))

    def values(self) -> list[bytes]:
        """Every string, by code."""
        return list(self.codes)

    def codes_at(self, raw: np.ndarray, text: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """The codes of the strings ``text[starts:ends]`` (``raw`` the same bytes as an array)."""
        codes = np.empty(starts.size, dtype=np.int64)
        length = ends - starts
        short = np.flatnonzero((length <= 8 * MAX_WORDS) & (starts + 8 * MAX_WORDS + 8 <= raw.size))
        done = np.zeros(starts.size, dtype=bool)
        if short.size:
            at, size = starts[short], length[short]
            words = np.ndarray((raw.size - 7,), dtype="<u8", buffer=raw, strides=(1,))
            width = 1 + -(-int(size.max()) // 8)
            taken = np.empty((short.size, width), dtype=np.uint64)
            taken[:, 0] = size
            key = taken[:, 0].copy()
            for k in range(1, width):
                taken[:, k] = words[at + 8 * (k - 1)] & _mask(size - 8 * (k - 1))
                key = key * _MIX + taken[:, k]
            place = np.minimum(np.searchsorted(self._hashes, key), max(self._hashes.size - 1, 0))
            table = self._named[place] if self._hashes.size else np.zeros(key.size, dtype=np.int64)
            known = (self._hashes[place] == key) if self._hashes.size else np.zeros(key.size, dtype=bool)
            known &= (self._words[table, :width] == taken).all(axis=1)  # the same length, the same words
            for i in np.flatnonzero(~known).tolist():  # strings not met before (or a hash another string holds)
                a = int(at[i])
                table[i] = self.code(text[a:a + int(size[i])])
                self._remember(int(key[i]), int(table[i]), taken[i])
            codes[short] = table
            done[short] = True
        for i in np.flatnonzero(~done).tolist():
            codes[i] = self.code(text[int(starts[i]):int(ends[i])])
        return codes

    def _remember(self, key: int, code: int, words: np.ndarray) -> None:
        place = int(np.searchsorted(self._hashes, np.uint64(key)))
        if place < self._hashes.size and int(self._hashes[place]) == key:
            return  # the hash is another string's: this one is found by its bytes
        self._hashes = np.insert(self._hashes, place, np.uint64(key))
        self._named = np.insert(self._named, place, code)
        if code >= self._words.shape[0]:
            grown = np.zeros((2 * code + 1, MAX_WORDS + 1), dtype=np.uint64)
            grown[:self._words.shape[0]] = self._words
            self._words = grown
        self._words[code, :words.size] = words


@dataclass(eq=False)
class Fields:
    """The fields of ``count`` records, one entry each (zeros, and no name: -1, for a record not allocated);
    ``name`` and ``category`` are codes in ``strings``."""

    count: int
    strings: Strings
    var: np.ndarray = field(init=False)
    allocated: np.ndarray = field(init=False)
    tile: np.ndarray = field(init=False)
    offset: np.ndarray = field(init=False)
    size: np.ndarray = field(init=False)
    always_live: np.ndarray = field(init=False)
    interleaved: np.ndarray = field(init=False)
    eq_class: np.ndarray = field(init=False)
    name: np.ndarray = field(init=False)
    category: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        for column in ("var", "tile", "offset", "size"):
            setattr(self, column, np.zeros(self.count, dtype=np.int64))
        for column in ("eq_class", "name", "category"):
            setattr(self, column, np.full(self.count, -1, dtype=np.int64))
        for column in ("allocated", "always_live", "interleaved"):
            setattr(self, column, np.zeros(self.count, dtype=bool))

    def put(self, row: int, values: tuple) -> None:
        """Row ``row``'s fields from :func:`record_fields`."""
        (self.var[row], self.allocated[row], self.tile[row], self.offset[row], self.size[row], name, category,
         self.always_live[row], self.interleaved[row], self.eq_class[row]) = values
        if self.allocated[row]:
            self.name[row], self.category[row] = self.strings.code(name), self.strings.code(category)

    @classmethod
    def joined(cls, parts: list[Fields], strings: Strings) -> Fields:
        """One run of the records of ``parts``, in order."""
        if len(parts) == 1:
            return parts[0]
        whole = cls(0, strings)
        for column in ("var", "allocated", "tile", "offset", "size", "always_live", "interleaved", "eq_class",
                       "name", "category"):
            if parts:
                setattr(whole, column, np.concatenate([getattr(p, column) for p in parts]))
        whole.count = sum(p.count for p in parts)
        return whole


def record_fields(record: Any, where: str, offset: int | None = None) -> tuple:
    """One decoded record's fields, in :meth:`Fields.put`'s order; a ReadError naming ``where`` (``vars[3]``)
    and ``offset`` (the record's first byte) for a missing or wrong one."""
    try:
        return _fields(record, where)
    except ReadError as exc:
        raise ReadError(exc.message, offset=offset) from None


def _fields(record: Any, where: str) -> tuple:
    node = Node(record, where)
    var = node.whole("var", required=True)
    info = node.child("info")
    allocated = _flag(info, "allocated")
    if not allocated:
        return var, False, 0, 0, 0, b"", b"", False, False, NO_CLASS
    return (var, True, info.whole("tile", required=True), info.whole("offset", required=True),
            info.whole("sizeBytes", required=True), _text(info, "name"), _text(info, "category"),
            _flag(info, "alwaysLive"), _flag(info, "inInterleavedMem"), equivalence_class(info))


def _flag(node: Node, key: str) -> bool:
    value = node.raw(key, required=True)
    if not isinstance(value, bool):
        raise ReadError(f"{node.at(key)} must be true or false, not {kind_of(value)}")
    return value


def _text(node: Node, key: str) -> bytes:
    """A string field as UTF-8 (the bytes the fast reader takes from the file; lone surrogates kept)."""
    return node.text(key).encode("utf-8", "surrogatepass")


def equivalence_class(info: Node) -> int:
    """``equivalenceClass``: a whole number; absent, null or negative: none (:data:`NO_CLASS`)."""
    value = info.raw("equivalenceClass")
    if value is None:
        return NO_CLASS
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        whole_number(-value, info.at("equivalenceClass"))  # a whole number all the same
        return NO_CLASS
    return whole_number(value, info.at("equivalenceClass"))


def fields_of(records: list, first: int, offsets: np.ndarray | None, strings: Strings) -> Fields:
    """:class:`Fields` of decoded records, the first being record ``first`` of the list (at ``offsets`` in the
    file, where known)."""
    found = Fields(len(records), strings)
    for row, record in enumerate(records):
        found.put(row, record_fields(record, f"vars[{first + row}]", None if offsets is None else int(offsets[row])))
    return found




def _mask(left: np.ndarray) -> np.ndarray:
    """Per string, the mask of its bytes in a word where ``left`` of its bytes remain (0 to 8)."""
    bits = np.clip(left, 0, 8).astype(np.uint64) * np.uint64(8)
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    return np.where(bits >= 64, full, (np.uint64(1) << np.minimum(bits, np.uint64(63))) - np.uint64(1))
