"""The member table of an ``ar`` archive (docs/FORMATS.md §5): where each member's header and data lie.

GNU and BSD member names, the ``/`` (and ``/SYM64/``, ``__.SYMDEF``)
symbol index, the ``//`` long-name table, odd-size padding, and thin
archives whose members live beside the archive. :func:`iter_members` is the
reference walk, a header at a time; :func:`walk` finds the same members in
bulk (numpy) for the fast path of :mod:`.ar`, and leaves whatever it does not
handle to the reference walk, which raises the errors.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Union

import numpy as np

from ...errors import ReadError, Truncated
from .fileview import FileView

AR_MAGIC = b"!<arch>\n"
THIN_MAGIC = b"!<thin>\n"
HEADER_SIZE = 60
_SYMBOL_INDEXES = {"/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED", "__.SYMDEF_64", "__.SYMDEF_64 SORTED"}

class Member:
    """Where one member's data lies (``data_offset`` is None for a thin archive's member)."""

    __slots__ = ("data_offset", "header_offset", "name", "size")

    def __init__(self, name: str, header_offset: int, data_offset: int | None, size: int) -> None:
        self.name, self.header_offset, self.data_offset, self.size = name, header_offset, data_offset, size


def _number(field: bytes, what: str, at: int) -> int:
    text = field.strip()
    if not text.isdigit():
        raise ReadError(f"ar member header: {what} {field.decode('latin-1').strip()!r} is not a number",
                        offset=at)
    return int(text)


Buffer = Union[bytes, FileView]  # what the walks read: a window of the archive, or the archive itself


def iter_members(buf: Buffer, start: int = 8, long_names: bytes = b"") -> Iterator[Member]:
    """Every file member of the archive in ``buf``, skipping the symbol index and name table.

    ``start`` and ``long_names`` resume a walk at a member header, with the
    ``//`` name table read so far.
    """
    thin = buf[:8] == THIN_MAGIC
    offset = start
    while offset < len(buf):
        member, offset, long_names = member_at(buf, offset, long_names, thin)
        if member is not None:
            yield member


def member_at(buf: Buffer, offset: int, long_names: bytes, thin: bool) -> tuple[Member | None, int, bytes]:
    """The member whose header is at ``offset``: (the member, or None for the symbol index, the name table
    and a stray final pad byte; where the next header starts; the ``//`` name table read so far)."""
    size_total = len(buf)
    if offset + HEADER_SIZE > size_total:
        if offset + 1 == size_total and buf[offset:offset + 1] == b"\n":
            return None, size_total, long_names  # a stray final pad byte
        raise Truncated(f"ar member header cut short ({size_total - offset} of 60 bytes)", offset=offset)
    header = buf[offset:offset + HEADER_SIZE]
    if header[58:60] != b"`\n":
        raise ReadError(f"ar member header lacks its end marker (found {bytes(header[58:60])!r})",
                        offset=offset + 58)
    size = _number(header[48:58], "size", offset + 48)
    raw = bytes(header[:16]).rstrip(b" ")
    data = offset + HEADER_SIZE
    special = raw in (b"/", b"//", b"/SYM64/")
    stored = not thin or special  # a thin archive stores only its index and name table
    if stored and data + size > size_total:
        raise Truncated(f"ar member at {offset} declares {size} bytes but only {size_total - data} remain",
                        offset=offset + 48)
    name_len = 0
    name = ""
    if raw == b"//":
        long_names = bytes(buf[data:data + size])
    elif raw.startswith(b"#1/"):
        name_len = _number(raw[3:], "BSD name length", offset + 3)
        if name_len > size:
            raise ReadError(f"BSD member name of {name_len} bytes exceeds the member's {size}", offset=offset)
        name = bytes(buf[data:data + name_len]).rstrip(b"\0").decode("utf-8", "replace")
    elif raw.startswith(b"/") and raw[1:].isdigit():
        start = int(raw[1:])
        end = long_names.find(b"\n", start)
        if start >= len(long_names) or end < 0:
            raise ReadError(f"long member name {raw.decode()} outside the name table", offset=offset)
        name = long_names[start:end].rstrip(b"/").decode("utf-8", "replace")
    elif raw.endswith(b"/") and raw != b"/":
        name = raw[:-1].decode("utf-8", "replace")
    else:
        name = raw.decode("utf-8", "replace")
    after = data + (size if stored else 0)
    after += after % 2
    if raw == b"//" or (name_len == 0 and raw.decode("latin-1") in _SYMBOL_INDEXES) \
            or (name_len and name in _SYMBOL_INDEXES):
        return None, after, long_names
    return Member(name, offset, data + name_len if stored else None, size - name_len), after, long_names


_HEAD = HEADER_SIZE + 64  # a member header and room for the ELF header that follows it
_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(b" \t\n\r\x0b\x0c")] = True  # what bytes.strip() strips
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[list(b"0123456789")] = True


class Walked:
    """A batch of members found by :func:`walk`: plain lists and arrays, member by member."""

    __slots__ = ("cut", "elf_heads", "headers", "long_names", "names", "offset", "sizes", "starts", "stopped")

    def __init__(self, names, headers, starts, sizes, elf_heads, offset, long_names, stopped, cut) -> None:
        self.names, self.headers, self.starts, self.sizes = names, headers, starts, sizes
        self.elf_heads, self.offset, self.long_names, self.stopped = elf_heads, offset, long_names, stopped
        self.cut = cut  # ended at a member the window does not hold whole (the file goes on)


def walk(buf, offset: int, long_names: bytes, max_members: int, end: int, at_end: bool,
          limit: int | None = None) -> Walked:
    """The members of ``buf[:end]`` from the header at ``offset`` on, as :func:`iter_members` finds them,
    checked in bulk (the fast path); offsets are the buffer's.

    Stops after ``max_members`` members, before a member starting at or past
    ``limit`` (default ``end``), at the first member ``buf[:end]`` does not
    hold whole (``at_end`` says ``end`` is the end of the file: a member
    past it is then an error, not one to read whole), and
    before the first header :func:`iter_members` would reject or that this
    walk does not handle (``stopped``), leaving it to ``iter_members``,
    which raises the same errors. Also returns the first 64 bytes of every
    member's data (its ELF header).
    """
    heads: list[bytes] = []
    offsets: list[int] = []
    sizes: list[int] = []
    add_head, add_offset, add_size = heads.append, offsets.append, sizes.append
    k = 0
    stopped = cut = False
    # Trust each size field just enough to find the next header; every header is checked below.
    limit = end if limit is None else limit
    while offset < limit and k < max_members:
        if offset + HEADER_SIZE > end and not at_end:
            cut = True
            break  # the header goes on in the next window
        head = buf[offset:offset + _HEAD]
        try:
            size = int(head[48:58])
        except ValueError:
            stopped = True
            break
        if size < 0:
            stopped = True
            break
        add_head(head)
        add_offset(offset)
        add_size(size)
        k += 1
        offset += HEADER_SIZE + size + (size & 1)  # offsets stay even: data is padded to an even size
    k = len(heads)
    if k == 0:
        return Walked([], np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                       np.zeros((0, 64), np.uint8), offset, long_names, stopped, cut)
    for i in range(k - 1, -1, -1):  # only the last members can run into the end of the window
        if len(heads[i]) == _HEAD:
            break
        heads[i] = heads[i].ljust(_HEAD, b"\0")
    table = np.frombuffer(b"".join(heads), dtype=np.uint8).reshape(k, _HEAD)
    header_at = np.array(offsets, dtype=np.int64)
    size_arr = np.array(sizes, dtype=np.int64)
    inside = header_at + HEADER_SIZE + size_arr <= end
    valid = (table[:, 58] == 0x60) & (table[:, 59] == 0x0A) & inside
    digit, space = _DIGIT[table[:, 48:58]], _SPACE[table[:, 48:58]]
    runs = (digit[:, 1:] & ~digit[:, :-1]).sum(axis=1) + digit[:, 0]
    valid &= (digit | space).all(axis=1) & (runs == 1)  # field.strip().isdigit()
    raw = table[:, :16]
    column = np.arange(16)
    name_end = 15 - np.argmax((raw != 0x20)[:, ::-1], axis=1)  # the last non-space byte
    regular = ((raw[np.arange(k), name_end] == 0x2F) & (raw[:, 0] != 0x2F) & (raw[:, 0] != 0x20)
               & ~((raw[:, 0] == 0x23) & (raw[:, 1] == 0x31) & (raw[:, 2] == 0x2F))  # "#1/": BSD
               & ~((raw == 0x0A) & (column < name_end[:, None])).any(axis=1))
    bad = np.flatnonzero(~valid)
    first_bad = int(bad[0]) if bad.size else k
    if first_bad < k:  # a member the window cuts short is read on its own (and checked there)
        offset, stopped = offsets[first_bad], at_end or bool(inside[first_bad])
        cut = not stopped
    names, chosen, name_lens, stop, long_names = _names(buf, table, heads, offsets, sizes, first_bad,
                                                        regular, name_end, long_names)
    if stop < first_bad:  # iter_members must judge this one
        offset, stopped, cut = offsets[stop], True, False
    starts = header_at[chosen] + HEADER_SIZE
    member_sizes = size_arr[chosen]
    elf_heads = table[chosen, HEADER_SIZE:]
    if name_lens is not None and name_lens.any():  # BSD names sit before the data
        starts = starts + name_lens
        member_sizes = member_sizes - name_lens
        elf_heads = elf_heads.copy()
        for j in np.flatnonzero(name_lens).tolist():
            elf_heads[j] = np.frombuffer(buf[starts[j]:starts[j] + 64].ljust(64, b"\0"), dtype=np.uint8)
    return Walked(names, header_at[chosen], starts, member_sizes, elf_heads, offset, long_names, stopped, cut)


def _spelled(raw: np.ndarray, name_end: np.ndarray, rows: np.ndarray) -> list[str]:
    """The names in ``raw[rows, :name_end + 1]`` (none holds a newline), decoded at once."""
    if rows.size == 0:
        return []
    width = raw.shape[1]
    spelled = np.empty((rows.size, width + 1), dtype=np.uint8)
    spelled[:, :width] = raw[rows]
    spelled[:, width] = 0x0A
    column = np.arange(width + 1)
    keep = (column <= name_end[rows, None]) | (column == width)
    return spelled[keep].tobytes().decode("utf-8", "replace").split("\n")[:-1]


# Per thread (archives are read from many threads at once): (the walk's last ``//`` table, its bytes as an
# array, where its newlines are).
_NEWLINES = threading.local()


def _newlines(table: bytes) -> tuple[np.ndarray, np.ndarray]:
    """The table as an array and where its newlines are, found once for the walk's many batches."""
    cached = getattr(_NEWLINES, "last", None)
    if cached is None or cached[0] is not table:
        raw = np.frombuffer(table, dtype=np.uint8)
        cached = _NEWLINES.last = (table, raw, np.flatnonzero(raw == 0x0A))
    return cached[1], cached[2]


def long_names_at(table: bytes, starts: np.ndarray) -> tuple[list[str], int]:
    """The ``//`` table's names at ``starts``, resolved at once as :func:`member_at` resolves each one:
    from the offset to the next newline, trailing slashes dropped. Returns the names of the leading run
    of offsets that resolve and how many those are (a later offset is outside the table, or no newline
    follows it)."""
    if starts.size == 0 or not table:
        return [], 0
    raw, newlines = _newlines(table)
    after = np.searchsorted(newlines, starts)  # the first newline at or after each start
    good = (starts < raw.size) & (after < newlines.size)
    count = int(np.argmin(good)) if not good.all() else starts.size
    if count == 0:
        return [], 0
    starts = starts[:count]
    ends = newlines[after[:count]]
    slash = (ends > starts) & (raw[ends - 1] == 0x2F)
    while slash.any():  # rstrip(b"/"), a slash at a time
        ends = ends - slash
        slash &= (ends > starts) & (raw[ends - 1] == 0x2F)
    lengths = ends - starts
    bounds = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths + 1, out=bounds[1:])
    at = np.arange(int(bounds[-1])) + np.repeat(starts - bounds[:-1], lengths + 1)
    joined = raw[np.minimum(at, raw.size - 1)]
    joined[bounds[1:] - 1] = 0x0A
    return joined.tobytes().decode("utf-8", "replace").split("\n")[:-1], count


def _names(buf, table: np.ndarray, heads: list[bytes], offsets: list[int], sizes: list[int], count: int,
           regular: np.ndarray, name_end: np.ndarray, long_names: bytes):
    """The names of the first ``count`` members of a walk, as :func:`iter_members` reads them, in bulk:
    GNU short names (``name/``), long names (``/N`` into the ``//`` table) and plain names at once, the
    rest (the index, the name table, BSD ``#1/N`` names, odd spellings) one by one.

    Returns (names, the members they name, BSD name lengths or None, the first member
    :func:`iter_members` must judge (``count`` if none), the ``//`` table read so far).
    """
    raw = table[:count, :16]
    name_end = name_end[:count]
    regular = regular[:count]
    if regular.all():
        return _spelled(raw, name_end - 1, np.arange(count)), np.arange(count), None, count, long_names
    column = np.arange(16)
    digit = _DIGIT[raw] & (column >= 1) & (column <= name_end[:, None])
    long = (raw[:, 0] == 0x2F) & (name_end >= 1) & (digit.sum(axis=1) == name_end)  # "/" and digits only
    inner_newline = ((raw == 0x0A) & (column <= name_end[:, None])).any(axis=1)
    plain = (~regular & ~long & ~inner_newline & (raw[:, 0] != 0x2F) & (raw[:, 0] != 0x20)
             & ~((raw[:, 0] == 0x23) & (raw[:, 1] == 0x31) & (raw[:, 2] == 0x2F))
             & (raw[np.arange(count), name_end] != 0x2F))
    found = np.empty(count, dtype=object)
    rows = np.flatnonzero(regular | plain)
    found[rows] = _spelled(raw, name_end - regular, rows)  # a GNU short name without its "/"
    keep = regular | plain
    lens = np.zeros(count, dtype=np.int64)
    numbers = (np.where(digit, raw - 0x30, 0).astype(np.int64)
               * 10 ** np.clip(name_end[:, None] - column, 0, 15)).sum(axis=1)
    others = np.flatnonzero(~(regular | plain | long)).tolist()
    stop = count
    begin = 0
    for other in others + [count]:
        rows = np.flatnonzero(long[begin:other]) + begin
        resolved, good = long_names_at(long_names, numbers[rows])
        found[rows[:good]] = resolved
        keep[rows[:good]] = True
        if good < rows.size:
            stop = int(rows[good])
            break
        if other == count:
            break
        special = _special_name(buf, heads[other], offsets[other] + HEADER_SIZE, sizes[other], long_names)
        if special is None:
            stop = other
            break
        name, lens[other], long_names = special
        if name is not None:
            found[other] = name
            keep[other] = True
        begin = other + 1
    keep[stop:] = False
    for i in np.flatnonzero(plain[:stop]).tolist():  # "__.SYMDEF" and friends are the index
        if found[i] in _SYMBOL_INDEXES:
            keep[i] = False
    chosen = np.flatnonzero(keep)
    name_lens = lens[chosen]
    return found[chosen].tolist(), chosen, name_lens if name_lens.any() else None, stop, long_names


def _special_name(buf, head: bytes, data: int, size: int, long_names: bytes):
    """(name or None for the index and name table, name length in the data, long_names), as
    :func:`iter_members` reads a header that is not a plain GNU name; None where it would raise."""
    raw = head[:16].rstrip(b" ")
    if raw == b"//":
        return None, 0, buf[data:data + size]
    if raw[:3] == b"#1/":
        if not raw[3:].strip().isdigit():
            return None
        name_len = int(raw[3:])
        if not 0 < name_len <= size:
            return None
        name = buf[data:data + name_len].rstrip(b"\0").decode("utf-8", "replace")
        return (None if name in _SYMBOL_INDEXES else name), name_len, long_names
    if raw[:1] == b"/" and raw[1:].isdigit():
        start = int(raw[1:])
        stop = long_names.find(b"\n", start)
        if start >= len(long_names) or stop < 0:
            return None
        return long_names[start:stop].rstrip(b"/").decode("utf-8", "replace"), 0, long_names
    if raw.decode("latin-1") in _SYMBOL_INDEXES:
        return None, 0, long_names
    if raw.endswith(b"/") and raw != b"/":
        return raw[:-1].decode("utf-8", "replace"), 0, long_names
    return raw.decode("utf-8", "replace"), 0, long_names


def forget_name_table() -> None:
    """Drop this thread's copy of the last walk's ``//`` table: it is the walk's, not kept past it."""
    _NEWLINES.last = None
