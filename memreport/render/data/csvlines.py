"""CSV lines for tens of thousands of rows, built column by column with numpy.

``csv.writer`` turns every cell into a string and checks it for quoting one
at a time: at 94,208 tiles and thirty columns that is most of a second.
Here integer columns become their decimal digits in one uint8 array, and
only text columns go through the quoting rules, which are ``csv.writer``'s
own (``QUOTE_MINIMAL``, ``\\n`` line ends), so the output is byte for byte
the same, but for one thing: a field holding a carriage return is quoted too
(``csv.writer`` leaves it bare with ``\\n`` line ends, and ``csv.reader`` then
refuses the file).
"""
from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import repeat
from typing import Union

import numpy as np

CHUNK_ROWS = 8192  # rows turned into digits at once: bounds the temporary arrays
BLOCK_ROWS = 32_768  # rows made into lines at once (blocks): bounds the strings held, a few calls a pod
_MAX_DIGITS = 18   # larger magnitudes (and negative values) take the plain str() path


class Integers:
    """An integer column; cells where ``present`` is False are blank."""

    __slots__ = ("present", "values")

    def __init__(self, values: np.ndarray, present: np.ndarray | None = None) -> None:
        self.values, self.present = values, present


class Text:
    """A text column: one string per row, or one string for every row."""

    __slots__ = ("cells", "constant")

    def __init__(self, cells: Sequence[str] | None = None, constant: str | None = None) -> None:
        self.cells, self.constant = cells, constant


ColumnSpec = Union[Integers, Text]


@cache
def _quoting_characters() -> str:
    """The characters that make ``csv.writer`` quote a field, asked of csv itself."""
    found = []
    for code in range(128):
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow(["a" + chr(code), "b"])
        if out.getvalue().startswith('"') or chr(code) in "\r\n":
            found.append(chr(code))
    return "".join(found)


def _quote(value: str) -> str:
    """``csv.writer``'s quoting (``doublequote``): the field in quotes, its quotes doubled."""
    return '"' + value.replace('"', '""') + '"'


def row(cells: Sequence[str]) -> str:
    """One CSV line of text cells, without its line end."""
    return ",".join(text_cells(cells))


def text_cells(cells: Sequence[str]) -> Sequence[str]:
    """Cells quoted exactly as ``csv.writer`` would quote them."""
    special = _quoting_characters()
    joined = "".join(cells)
    if not any(c in joined for c in special):
        return cells
    return [_quote(c) if any(s in c for s in special) else c for c in cells]


def integer_rows(columns: Sequence[Integers], n: int) -> list[str]:
    """Row by row, the comma-joined cells of integer columns."""
    values = np.stack([np.asarray(c.values) for c in columns], axis=1)
    present = np.stack([np.ones(n, dtype=bool) if c.present is None else c.present for c in columns], axis=1)
    if values.size and (int(values.min()) < 0 or int(values.max()) >= 10 ** _MAX_DIGITS):
        cells = [[str(v) if p else "" for v, p in zip(c.values.tolist(), (
            [True] * n if c.present is None else c.present.tolist()))] for c in columns]
        return [",".join(row) for row in zip(*cells)]
    values = values.astype(np.int64, copy=False)
    lines: list[str] = []
    k = len(columns)
    for start in range(0, n, CHUNK_ROWS):
        block = values[start:start + CHUNK_ROWS]
        rows = block.shape[0]
        digits = np.ones(block.shape, dtype=np.int8)
        top = int(block.max()) if block.size else 0
        power = 10
        while power <= top:
            digits += block >= power
            power *= 10
        width = int(digits.max()) if block.size else 1
        digits[~present[start:start + rows]] = 0
        text = np.empty((rows, k, width + 1), dtype=np.uint8)
        rest = block.copy()
        for place in range(width - 1, -1, -1):
            rest, digit = np.divmod(rest, 10)
            text[:, :, place] = digit
        text[:, :, :width] += 48
        text[:, :, width] = 44                     # ","
        text[:, -1, width] = 10                    # "\n" ends the row
        keep = np.arange(width + 1) >= (width - digits)[:, :, None]
        lines += text[keep].tobytes().decode("ascii").split("\n")[:-1]
    return lines


def blocks(columns: Sequence[ColumnSpec], n: int, rows: int = BLOCK_ROWS) -> Iterator[str]:
    """The ``n`` lines of :func:`lines`, ``rows`` at a time, each block's lines ended: a pod's rows never held as
    one list of strings at once (376,832 rows were 118 MB of Python strings for a CSV of 11 MB)."""
    def rows_of(column: ColumnSpec, start: int, stop: int) -> ColumnSpec:
        if isinstance(column, Integers):
            return Integers(column.values[start:stop], None if column.present is None else column.present[start:stop])
        return column if column.cells is None else Text(column.cells[start:stop])

    for start in range(0, n, rows):
        stop = min(n, start + rows)
        yield "\n".join(lines([rows_of(c, start, stop) for c in columns], stop - start)) + "\n"


def lines(columns: Sequence[ColumnSpec], n: int) -> list[str]:
    """``n`` CSV lines (without line ends) from columns in order."""
    parts: list[Iterable[str]] = []
    run: list[Integers] = []
    for column in list(columns) + [None]:
        if isinstance(column, Integers):
            run.append(column)
            continue
        if run:
            parts.append(integer_rows(run, n))
            run = []
        if isinstance(column, Text):
            if column.constant is not None:
                parts.append(repeat(text_cells([column.constant])[0], n))
            else:
                assert column.cells is not None  # a text column has cells or a constant
                parts.append(text_cells(column.cells))
    if len(parts) == 1:
        return list(parts[0])
    return list(map(",".join, zip(*parts)))
