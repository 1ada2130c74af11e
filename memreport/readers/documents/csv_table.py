"""memreport's CSV split into columns: integer columns straight to numpy, text columns as strings.

``csv.reader`` makes a Python string of every cell, and a list of every
row: a 13 MB CSV of 94,208 tiles took some 250 MB that way, half of it
strings of digits. memreport writes its CSV in a plain shape
(``render/csvlines.py``: ``\\n`` line ends, a field quoted only when it
holds a comma, a quote or a line end), so when the file holds no quote the
cells are found from the positions of its commas and line ends alone, and
the integer cells are parsed from the bytes by numpy, a block of rows and a
digit position at a time. A file with quotes (a member name with a comma in it, say), a bare
carriage return or a NUL byte is read by ``csv.reader``, a row at a time,
each integer cell stored as it is read. Blank integer cells are -1.
"""
from __future__ import annotations

import codecs
import csv
import io
from array import array
from dataclasses import dataclass

import numpy as np

from ...errors import ReadError

BASE = ["tile", "ipu", "member", "excluding_gaps", "including_gaps", "out_of_memory"]
_TEXT_BASE = (2,)        # member
_UNREAD = (5,)           # out_of_memory: a figure the reading computes again
_SCAN_BYTES = 1 << 20    # bytes searched for separators at once
_BLOCK_ROWS = 1024       # rows whose integer cells are parsed at once: bounds the temporary arrays
_MAX_DIGITS = 18         # below 2**63
_COMMA, _NEWLINE, _ZERO = 0x2C, 0x0A, 0x30


@dataclass
class Table:
    """The header, and for each column read either its integers (-1 where blank) or its strings."""

    header: list[str]
    rows: int
    integers: dict[int, np.ndarray]
    texts: dict[int, list[str]]
    lines: np.ndarray  # the line each row starts on (1 is the header's)


def text_columns(header: list[str]) -> set[int]:
    """The columns holding text: the member, and the source and module of a CSV of several reports."""
    found = set(_TEXT_BASE)
    if header[-2:] == ["source", "module"]:
        found |= {len(header) - 2, len(header) - 1}
    return found


def read_table(data: bytes) -> Table:
    """The columns of a memreport CSV; a ReadError naming the line of the first cell that is wrong."""
    body = data[len(codecs.BOM_UTF8):] if data.startswith(codecs.BOM_UTF8) else data
    if b"\r" in body and body.count(b"\r") == body.count(b"\r\n"):
        body = body.replace(b"\r\n", b"\n")  # written on Windows: the same lines
    if b'"' in body or b"\r" in body or b"\0" in body:
        return _read_with_csv(body)
    return _read_plain(body)


def _header(cells: list[str]) -> list[str]:
    seen: set[str] = set()
    for name in cells:
        if name in seen:
            raise ReadError(f"column {name!r} appears twice in the header", line=1)
        seen.add(name)
    return cells


def _bad_cell(header: list[str], column: int, cell: str, line: int) -> ReadError:
    return ReadError(f"column {header[column]!r}: {cell[:40]!r} is not a byte count", line=line)


def _decode(raw: bytes, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReadError(f"cannot read the CSV: not UTF-8 text ({exc.reason})", line=line) from None


def _read_plain(body: bytes) -> Table:
    """A CSV without quotes: cells between commas and line ends, found all at once."""
    if not body.endswith(b"\n"):
        body += b"\n"
    end = body.index(b"\n")
    header = _header(_decode(body[:end], 1).split(","))
    if max(map(len, header)) > csv.field_size_limit():
        raise ReadError(f"not a CSV memreport wrote: field larger than field limit ({csv.field_size_limit()})", line=1)
    width = len(header)
    raw = np.frombuffer(body, dtype=np.uint8)
    seps = _separators(raw, end + 1)
    newlines = raw[seps] == _NEWLINE
    rows = int(np.count_nonzero(newlines))
    if seps.size != rows * width or not newlines[width - 1::width].all():
        _count_error(seps, newlines, width, end)
    del newlines
    table = Table(header, rows, {}, {}, np.arange(2, rows + 2, dtype=np.int64))
    if rows == 0:
        return table
    grid = seps.reshape(rows, width)
    texts = text_columns(header)
    for k in texts:
        ends = grid[:, k]
        starts = (grid[:, k - 1] if k else np.concatenate(([end], grid[:-1, -1]))) + 1
        table.texts[k] = _texts(body, starts, ends)
    numbers = [k for k in range(width) if k not in texts and k not in _UNREAD]
    values = np.empty((len(numbers), rows), dtype=np.int64)  # a column per row: each one contiguous
    for first in range(0, rows, _BLOCK_ROWS):
        block = _integer_block(raw, seps, first, min(rows, first + _BLOCK_ROWS), width, numbers, header, end)
        values[:, first:first + block.shape[0]] = block.T
    table.integers = dict(zip(numbers, values))
    return table


def _integer_block(raw: np.ndarray, seps: np.ndarray, first: int, stop: int, width: int, numbers: list[int],
                   header: list[str], header_end: int) -> np.ndarray:
    """Rows ``first`` to ``stop`` of the integer columns ``numbers``, -1 where blank: every cell of the rows at
    once, a digit position at a time from the last (the bytes read in file order)."""
    ends = seps[first * width:stop * width].astype(np.int64)
    starts = np.empty_like(ends)
    starts[0] = (seps[first * width - 1] if first else header_end) + 1
    starts[1:] = ends[:-1] + 1
    lengths = (ends - starts).reshape(-1, width)
    own = lengths[:, numbers]
    longest = int(own.max())
    if longest > _MAX_DIGITS:
        row, column = np.argwhere(own > _MAX_DIGITS)[0]
        raise _bad_cell_at(raw, starts, ends, header, width, first, int(row), numbers[column])
    values = np.zeros(ends.size, dtype=np.int64)
    wrong = np.zeros(ends.size, dtype=bool)
    flat = lengths.reshape(-1)
    for place in range(longest):
        inside = flat > place
        digits = raw[np.where(inside, ends - (place + 1), 0)] - np.uint8(_ZERO)  # a byte below "0" wraps past 9
        wrong |= inside & (digits > 9)
        digits[~inside] = 0
        values += digits * np.int64(10 ** place)
    bad = wrong.reshape(-1, width)[:, numbers]
    if bad.any():
        row, column = np.argwhere(bad)[0]
        raise _bad_cell_at(raw, starts, ends, header, width, first, int(row), numbers[column])
    values[flat == 0] = -1
    return values.reshape(-1, width)[:, numbers]


def _bad_cell_at(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray, header: list[str], width: int, first: int,
                 row: int, column: int) -> ReadError:
    cell = row * width + column
    return _bad_cell(header, column, _cell(raw, starts[cell], ends[cell]), first + row + 2)


def _separators(raw: np.ndarray, start: int) -> np.ndarray:
    """Where the commas and line ends from ``start`` are, found a megabyte at a time (int32 below 2 GiB)."""
    kind = np.dtype(np.int32 if raw.size < 2**31 else np.int64)
    parts = []
    for at in range(start, raw.size, _SCAN_BYTES):
        block = raw[at:at + _SCAN_BYTES]
        found = block == _COMMA
        found |= block == _NEWLINE
        where = np.flatnonzero(found).astype(kind)
        where += at
        parts.append(where)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=kind)


def _count_error(seps: np.ndarray, newlines: np.ndarray, width: int, header_end: int) -> None:
    """The ReadError for the first row whose number of cells is not the header's (0 for an empty line, as
    ``csv.reader`` counts)."""
    ends = np.flatnonzero(newlines)
    cells = np.diff(ends, prepend=-1)  # separators per line, its line end included
    row = int(np.flatnonzero(cells != width)[0])
    count = int(cells[row])
    start = int(seps[ends[row - 1]]) + 1 if row else header_end + 1
    empty = count == 1 and start == int(seps[ends[row]])
    raise ReadError(f"{0 if empty else count} cells for {width} columns", line=row + 2)


def _texts(body: bytes, starts: np.ndarray, ends: np.ndarray) -> list[str]:
    lengths = ends - starts
    if not lengths.any():
        return [""] * starts.size
    if int(lengths.max()) > csv.field_size_limit():  # as csv.reader refuses it, whether quoted or not
        raise ReadError(f"not a CSV memreport wrote: field larger than field limit ({csv.field_size_limit()})",
                        line=int(np.argmax(lengths > csv.field_size_limit())) + 2)
    cells = []
    for line, (start, stop) in enumerate(zip(starts.tolist(), ends.tolist()), 2):
        cells.append(_decode(body[start:stop], line) if stop > start else "")
    return cells


def _cell(raw: np.ndarray, start: int, stop: int) -> str:
    return raw[int(start):int(stop)].tobytes().decode("utf-8", "replace")


def _read_with_csv(body: bytes) -> Table:
    """A CSV with quotes (or a bare carriage return, a NUL): ``csv.reader`` a row at a time."""
    try:
        text = io.StringIO(body.decode("utf-8"), newline="")
    except UnicodeDecodeError as exc:
        raise ReadError(f"cannot read the CSV: not UTF-8 text ({exc.reason})",
                        line=body.count(b"\n", 0, exc.start) + 1) from None
    reader = csv.reader(text)
    try:
        header = _header(next(reader, []))
        width = len(header)
        texts = text_columns(header)
        numbers = {k: array("q") for k in range(width) if k not in texts and k not in _UNREAD}
        strings: dict[int, list[str]] = {k: [] for k in texts}
        lines = array("q")
        line = reader.line_num + 1
        for row in reader:
            if len(row) != width:
                raise ReadError(f"{len(row)} cells for {width} columns", line=line)
            for k, column in numbers.items():
                cell = row[k]
                if not cell:
                    column.append(-1)
                elif len(cell) <= _MAX_DIGITS and cell.isascii() and cell.isdigit():
                    column.append(int(cell))
                else:
                    raise _bad_cell(header, k, cell, line)
            for k, cells in strings.items():
                cells.append(row[k])
            lines.append(line)
            line = reader.line_num + 1
    except csv.Error as exc:  # a field past csv's limit (128 KiB), a NUL byte...
        raise ReadError(f"not a CSV memreport wrote: {exc}", line=reader.line_num) from None
    integers = {k: np.frombuffer(column, dtype=np.int64) if len(column) else np.zeros(0, dtype=np.int64)
                for k, column in numbers.items()}
    return Table(header, len(lines), integers, strings, np.frombuffer(lines, dtype=np.int64) if len(lines)
                 else np.zeros(0, dtype=np.int64))
