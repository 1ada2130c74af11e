"""Lowered-variables records read straight from the file's bytes, by their quotes (docs/FORMATS.md §11).

Poplar writes every record of ``vars`` the same way: the same keys in the
same order, the same punctuation and spacing between them. So a record is
its strings (keys and string values, each between two quotes) and the
*glue* between them: fixed bytes around at most one number, ``true``,
``false`` or ``null``. :func:`learn` takes a record as the template (its
quotes, its keys, its glue, where each wanted field sits; the record must
decode with orjson), and :func:`quote_rows` checks the records that follow
all at once with numpy, from the positions of their quotes alone (one
comparison and one ``flatnonzero`` over the bytes): each key is the
template's, each glue is the template's around one JSON value (integers read
by :func:`~memreport.readers.documents.json_ints.integers_at`), each string
holds no backslash or control character, and the text is UTF-8. A record
that passes is the template's JSON with other values, so it reads as its
fields say; the first that does not (another shape, an escape, a float, a
wrong type, the list's end) stops the run, and the caller reads on from it
the reference way.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .json_ints import integers_at
from .json_scan import Malformed, decode_item
from .lowered_records import NO_CLASS, OPTIONAL, WANTED, Fields, Strings

_QUOTE, _BACKSLASH, _MINUS = 0x22, 0x5C, 0x2D
_TRUE, _NULL = int.from_bytes(b"true", "little"), int.from_bytes(b"null", "little")
_FALSE = int.from_bytes(b"false", "little")
_GLUE = frozenset(b"{}[],: \t\r\n")


@dataclass(frozen=True, eq=False)
class Template:
    """A record's shape by its ``quotes``: the bytes before its first quote (``lead``); per string, the key it
    is (bytes) or None (a value); per glue after string ``k`` (the last one runs into the next record's first
    quote), the bytes before and after its value and whether it has one; the Fields column each wanted value
    fills (by string, by glue); and where the separator lies in the last glue's ``after``."""

    quotes: int
    lead: bytes
    keys: tuple[bytes | None, ...]
    glue: tuple[tuple[bytes, bool, bytes], ...]
    string_fields: dict[int, str]
    glue_fields: dict[int, str]
    separator: int

    def same_shape(self, other: Template | None) -> bool:
        return other is not None and (self.quotes, self.lead, self.keys, self.glue) == \
            (other.quotes, other.lead, other.keys, other.glue)

    @cached_property
    def layout(self) -> Layout:
        return layout(self)


@dataclass(frozen=True, eq=False)
class Layout:
    """Where a template's bytes lie, relative to a record's quotes (``q[j]``; ``q[quotes]`` is the next
    record's first): its fixed bytes as 8-byte words (anchor quote, offset, mask, expected value), its scalar
    values and its strings' contents as (start anchor, start offset, end anchor, end offset) with the Fields
    column each fills (or None), and its separator (anchor, offset)."""

    words: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    scalars: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    scalar_fields: tuple[str | None, ...]
    texts: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    text_fields: tuple[str | None, ...]
    separator: tuple[int, int]
    controls: int  # control characters (newlines, tabs) in a record's fixed bytes


def layout(template: Template) -> Layout:
    """The template's bytes as runs of fixed bytes between its values, each run anchored at a quote: a key and
    the punctuation around it make one run, so a record's fixed bytes are read in few words. The quotes a run
    holds are the record's next ones (no other quote can come between), so the runs place every quote."""
    runs: list[list] = []  # [anchor quote, offset, bytes]

    def fixed(anchor: int, offset: int, text: bytes) -> None:
        if runs and runs[-1][0] == anchor and runs[-1][1] + len(runs[-1][2]) == offset:
            runs[-1][2] += text
        elif text:
            runs.append([anchor, offset, text])

    scalars: list[tuple[int, int, int, int]] = []
    scalar_fields: list[str | None] = []
    texts: list[tuple[int, int, int, int]] = []
    text_fields: list[str | None] = []
    anchor = offset = 0  # where the next byte lies: q[anchor] + offset
    separator = (0, 0)
    last = len(template.keys) - 1
    for k, key in enumerate(template.keys):
        if key is not None:  # "key": fixed bytes, quotes and all
            fixed(anchor, offset, b'"' + key + b'"')
            anchor, offset = 2 * k + 1, 1
        else:  # a string value: its quotes fixed, its content between them
            fixed(anchor, offset, b'"')
            texts.append((2 * k, 1, 2 * k + 1, 0))
            text_fields.append(template.string_fields.get(k))
            anchor, offset = 2 * k + 1, 0
            fixed(anchor, offset, b'"')
            offset = 1
        before, has_value, after = template.glue[k]
        if k == last and not has_value:
            separator = (anchor, offset + template.separator)
        fixed(anchor, offset, before)
        offset += len(before)
        if has_value:
            scalars.append((anchor, offset, 2 * k + 2, -len(after)))
            scalar_fields.append(template.glue_fields.get(k))
            anchor, offset = 2 * k + 2, -len(after)
            if k == last:
                separator = (anchor, offset + template.separator)
            fixed(anchor, offset, after)
            offset = 0
    fixed(anchor, offset, b'"')  # the next record's first quote
    slot, shift, mask, want = [], [], [], []
    for run_anchor, start, text in runs:
        padded = text + bytes(8)
        for k in range(0, len(text), 8):
            bits = (1 << (8 * min(8, len(text) - k))) - 1
            slot.append(run_anchor)
            shift.append(start + k)
            mask.append(bits)
            want.append(int.from_bytes(padded[k:k + 8], "little") & bits)

    def columns(items: list[tuple[int, int, int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        table = np.array(items, dtype=np.int64).reshape(len(items), 4)
        return table[:, 0], table[:, 1], table[:, 2], table[:, 3]

    # from a record's first quote to the next record's: its fixed bytes, the next record's lead among them
    controls = sum(sum(1 for c in text if c < 0x20) for _, _, text in runs)
    return Layout((np.array(slot, dtype=np.int64), np.array(shift, dtype=np.int64), np.array(mask, dtype=np.uint64),
                   np.array(want, dtype=np.uint64)), columns(scalars), tuple(scalar_fields), columns(texts),
                  tuple(text_fields), separator, controls)


def learn(data: bytes, start: int, separator: int) -> Template | None:
    """The template of the record ``data[start:separator]`` (``separator`` its comma), or None when it is not a
    record the fast reading takes (or not JSON: the reference reading will say)."""
    following = data.find(b'"', separator)
    if following < 0 or data.find(b"\\", start, following) >= 0:
        return None
    quotes, at = [], data.find(b'"', start, separator)
    while at >= 0:
        quotes.append(at)
        at = data.find(b'"', at + 1, separator)
    if not quotes or len(quotes) % 2:
        return None
    strings = len(quotes) // 2
    glue = [data[quotes[2 * k + 1] + 1:quotes[2 * k + 2] if k + 1 < strings else following] for k in range(strings)]
    lead = data[start:quotes[0]]
    parts = [_split(g) for g in glue]
    if any(p is None for p in parts) or not glue[-1].endswith(lead):
        return None
    walk = _Walk({path: name for path, name, _ in WANTED})
    if not walk.glue(lead):
        return None
    keys: list[bytes | None] = []
    for k, part in enumerate(parts):
        assert part is not None
        before, value, after = part
        is_key = before.lstrip(b" \t\r\n")[:1] == b":"
        content = data[quotes[2 * k] + 1:quotes[2 * k + 1]]
        keys.append(content if is_key else None)
        if is_key:
            walk.key = content.decode("utf-8", "replace")
        elif not walk.value(("string", k)):
            return None
        if k == strings - 1:  # the last glue runs on into the next record's lead: walk this record's part
            if value:
                after = after[:len(after) - len(lead)]
            else:
                before = before[:len(before) - len(lead)]
        if not walk.glue(before) or (value and not walk.value(("glue", k))) or not walk.glue(after):
            return None
    before, value, after = parts[-1]  # type: ignore[misc]
    closing = (after if value else before)[:-len(lead)] if lead else (after if value else before)
    if walk.stack or walk.missing() or closing.rstrip(b" \t\r\n")[-1:] != b",":
        return None
    try:  # the template must be JSON itself: the records checked against it are then JSON as it is
        if not isinstance(decode_item(data[start:separator]), dict):
            return None
    except Malformed:
        return None
    string_fields = {k: name for (kind, k), name in walk.fields.items() if kind == "string"}
    glue_fields = {k: name for (kind, k), name in walk.fields.items() if kind == "glue"}
    return Template(len(quotes), lead, tuple(keys), tuple((b, bool(v), a) for b, v, a in parts),  # type: ignore[misc]
                    string_fields, glue_fields, closing.rstrip(b" \t\r\n").rfind(b","))


def _split(glue: bytes) -> tuple[bytes, bytes, bytes] | None:
    """Glue as (bytes before its value, the value, bytes after); None with more than one value in it."""
    runs = []
    i = 0
    while i < len(glue):
        if glue[i] in _GLUE:
            i += 1
            continue
        j = i
        while j < len(glue) and glue[j] not in _GLUE:
            j += 1
        runs.append((i, j))
        i = j
    if len(runs) > 1:
        return None
    if not runs:
        return glue, b"", b""
    i, j = runs[0]
    return glue[:i], glue[i:j], glue[j:]


class _Walk:
    """The nesting seen so far in a template: which wanted field each value is."""

    def __init__(self, paths: dict) -> None:
        self.paths = paths
        self.stack: list[str | None] = []
        self.key: str | None = None
        self.fields: dict[tuple[str, int], str] = {}
        self.broken = False

    def glue(self, text: bytes) -> bool:
        for c in text:
            if c in b"{[":
                self.stack.append(self.key)
                self.key = None
            elif c in b"}]":
                if not self.stack:
                    return False
                self.stack.pop()
            elif c == ord(","):
                self.key = None
        return True

    def value(self, where: tuple[str, int]) -> bool:
        name = self.paths.get((*self.stack[1:], self.key)) if self.stack[:1] == [None] else None
        self.key = None
        if name is None:
            return True
        if name in self.fields.values():
            return False  # a key given twice: the reference reading takes the last
        self.fields[where] = name
        return True

    def missing(self) -> bool:
        found = set(self.fields.values())
        return any(name not in found and name not in OPTIONAL for _, name, _ in WANTED)


@dataclass(frozen=True, eq=False)
class Rows:
    """A run of records read by :func:`quote_rows`: their fields, first bytes and separators (commas)."""

    fields: Fields
    firsts: np.ndarray
    separators: np.ndarray


def quote_rows(data: bytes, start: int, template: Template, size: int, strings: Strings) -> Rows | None:
    """The records from ``start`` (a record's first byte) that the template reads, within about ``size``
    bytes; None when not even the first does."""
    raw = np.frombuffer(data, dtype=np.uint8)
    stop = min(start + size, len(data))
    quotes = np.flatnonzero(raw[start:stop] == _QUOTE) + start
    count = template.quotes
    rows = (quotes.size - 1) // count
    if rows == 0 or data[start:int(quotes[0])] != template.lead:
        return None
    marks = np.empty((rows, count + 1), dtype=np.int64)  # each record's quotes, and the next record's first
    marks[:, :count] = quotes[:rows * count].reshape(rows, count)
    marks[:, count] = quotes[count:rows * count + 1:count]
    plan = template.layout
    anchor, shift, mask, want = plan.words
    at = marks[:, anchor] + shift
    ok = (at.max(axis=1) <= raw.size - 8) if at.size else np.ones(rows, dtype=bool)
    words = np.ndarray((raw.size - 7,), dtype="<u8", buffer=raw, strides=(1,))
    ok &= ((words[np.minimum(at, raw.size - 8)] & mask) == want).all(axis=1)
    a0, o0, a1, o1 = plan.scalars
    firsts, lasts = marks[:, a0] + o0, marks[:, a1] + o1
    valid, kinds = _values(raw, firsts.ravel(), lasts.ravel())
    ok &= valid.reshape(firsts.shape).all(axis=1)
    cells: dict[str, tuple[np.ndarray, ...]] = {}
    for column, name in enumerate(plan.scalar_fields):
        if name is not None:
            cells[name] = tuple(kind.reshape(firsts.shape)[:, column] for kind in kinds)
    a0, o0, a1, o1 = plan.texts
    text_firsts, text_lasts = marks[:, a0] + o0, marks[:, a1] + o1
    for column, name in enumerate(plan.text_fields):
        if name is not None:
            cells[name] = (text_firsts[:, column], text_lasts[:, column])
    ok &= ~_strings_hold(raw, data, quotes[:rows * count + 1], count, plan.controls)
    ok &= _typed(cells, template, rows)
    accepted = int(np.argmin(ok)) if not ok.all() else rows
    if accepted == 0:
        return None
    separators = marks[:accepted, plan.separator[0]] + plan.separator[1]
    fields = Fields(accepted, strings)
    _put(fields, {name: tuple(c[:accepted] for c in cell) for name, cell in cells.items()}, raw, data)
    return Rows(fields, np.append(start, separators[:-1] + 1), separators)


def _typed(cells: dict[str, tuple[np.ndarray, ...]], template: Template, rows: int) -> np.ndarray:
    """Per record, whether its wanted values are what the reference reading takes without a word: a count a
    non-negative integer, a flag true or false, a name a string, a class an integer or null. A wanted value
    the template holds in the other form (a count written as a string) fails every record that needs it."""
    strung = set(template.string_fields.values())

    def scalar(name: str) -> tuple[np.ndarray, ...] | None:
        return None if name in strung or name not in cells else cells[name]

    flag, var = scalar("allocated"), scalar("var")
    if flag is None or var is None:
        return np.zeros(rows, dtype=bool)
    allocated = flag[1]
    good = (flag[1] | flag[2]) & var[0] & (var[5] >= 0)
    for name in ("tile", "offset", "size", "always_live", "interleaved"):
        cell = scalar(name)
        if cell is None:
            good &= ~allocated
        elif name in ("tile", "offset", "size"):
            good &= ~allocated | (cell[0] & (cell[5] >= 0))
        else:
            good &= ~allocated | cell[1] | cell[2]
    for name in ("name", "category"):
        if name not in strung:
            good &= ~allocated
    if "eq_class" in strung:
        good &= ~allocated
    elif "eq_class" in cells:
        good &= ~allocated | cells["eq_class"][0] | cells["eq_class"][3]
    return good


def _put(found: Fields, cells: dict[str, tuple[np.ndarray, ...]], raw: np.ndarray, data: bytes) -> None:
    allocated = cells["allocated"][1]
    found.allocated[:] = allocated
    found.var[:] = cells["var"][5]
    live = np.flatnonzero(allocated)
    for name in ("tile", "offset", "size"):
        getattr(found, name)[live] = cells[name][5][live]
    found.always_live[live] = cells["always_live"][1][live]
    found.interleaved[live] = cells["interleaved"][1][live]
    if "eq_class" in cells:
        eq = cells["eq_class"]
        found.eq_class[live] = np.where(eq[0][live], np.maximum(eq[5][live], NO_CLASS), NO_CLASS)
    for name in ("name", "category"):
        a, b = cells[name][-2:]
        getattr(found, name)[live] = found.strings.codes_at(raw, data, a[live], b[live])


def _strings_hold(raw: np.ndarray, data: bytes, quotes: np.ndarray, count: int, controls: int) -> np.ndarray:
    """Per record, whether a string of it holds a backslash or a control character (or the text is not UTF-8
    there): the glue was checked byte for byte, so only strings can. ``controls``: the control characters
    (newlines, tabs) of a record's glue; when the records hold no more than that, none is in a string."""
    rows = (quotes.size - 1) // count
    held = np.zeros(rows, dtype=bool)
    start, stop = int(quotes[0]), int(quotes[-1])
    region = raw[start:stop]
    suspects: list[np.ndarray] = []
    spaced = int(region.min()) < 0x20
    if data.find(b"\\", start, stop) >= 0 or \
            (spaced and int(np.count_nonzero(region < 0x20)) != rows * controls):
        suspects.append(np.flatnonzero((region < 0x20) | (region == _BACKSLASH)) + start)
    if int(region.max()) >= 0x80:
        try:
            data[start:stop].decode("utf-8")
        except UnicodeDecodeError:
            suspects.append(np.flatnonzero(region >= 0x80) + start)
    for at in suspects:
        place = np.searchsorted(quotes, at)  # quotes before: odd inside a string
        inside = (place & 1) == 1
        held[np.minimum((place[inside] - 1) // count, rows - 1)] = True
    return held


def _values(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """Whether each place is one JSON value this reading takes, and per kind a bool (integer, true, false,
    null, string) with the integers' values."""
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
    text = np.zeros(n, dtype=bool)
    return whole | true | false | null, (whole, true, false, null, text, value)
