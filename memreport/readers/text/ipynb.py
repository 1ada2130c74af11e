"""Jupyter notebooks (nbformat 4): what their code cells printed, read as a log (issue #30).

Most out-of-memory failures on IPUs that people share sit in notebook
output. A notebook is JSON (nbformat 4): ``cells``, each with a
``cell_type``; a code cell's ``outputs`` hold ``stream`` outputs (``name``
stdout or stderr, ``text`` a string or a list of strings), ``error`` outputs
(``ename``, ``evalue``, ``traceback``: a list of strings with ANSI colour
codes) and ``display_data`` / ``execute_result`` (images, HTML: ignored).
The text of every code cell's streams and tracebacks, in cell order and
output order, is written to a temporary file and read as a log by the
readers of this family, with a map from its lines back to the notebook:
``cell 7 [4], line 12`` (the cell's number in the notebook, 1-based, its
execution count, and the line within the text that cell printed).

Jupyter saves a stream with its ``\\r`` redraws applied, so a progress bar
often shows only its last state: read with every bar frame counting
(..programs). IPython prints a traceback as ``ZeroDivisionError    Traceback
(most recent call last)``, then ``Cell In[4], line 12`` and numbered code
lines flush left: its heading line is written as Python's own
``Traceback (most recent call last):`` and its frame lines indented, so its
final line (``ename: evalue``) ends it as in a log; the lines keep their
numbers. ANSI codes are dropped. Standard library only (``json``).
"""
from __future__ import annotations

import bisect
import json
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

from ...errors import ReadError
from ..registry import Reader, ReadOptions, register

_SNIFF = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"(?:cells|metadata|nbformat|nbformat_minor|worksheets)"\s*:')
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_IPYTHON_HEADING = re.compile(r"\S.*\s+Traceback \(most recent call last\)\s*$")
TRACEBACK = "Traceback (most recent call last):"


def is_notebook(prefix: bytes) -> bool:
    """A JSON object whose first key is a notebook's and that holds ``"cells"`` or ``"worksheets"`` (nbformat 3)
    and ``"cell_type"`` or ``"nbformat"`` in its first bytes."""
    return _SNIFF.match(prefix) is not None and (b'"cells"' in prefix or b'"worksheets"' in prefix) and \
        (b'"cell_type"' in prefix or b'"nbformat"' in prefix)


class Places:
    """Lines of a notebook's text file -> their places in the notebook (``cell 7 [4], line 12``)."""

    def __init__(self) -> None:
        self.starts: list[int] = []      # the text's first line of each cell that printed
        self.cells: list[tuple[int, int | None]] = []  # (cell number, execution count)
        self.lines: list[int] = []       # lines each printed

    def add(self, start: int, cell: int, count: int | None, lines: int) -> None:
        self.starts.append(start)
        self.cells.append((cell, count))
        self.lines.append(lines)

    def __call__(self, line: int) -> str | None:
        """The place of line ``line`` of the text (None past the cells' text)."""
        at = bisect.bisect_right(self.starts, line) - 1
        if at < 0 or line - self.starts[at] >= self.lines[at]:
            return None
        cell, count = self.cells[at]
        number = "" if count is None else f" [{count}]"
        return f"cell {cell}{number}, line {line - self.starts[at] + 1}"


def _text(value: Any) -> str:
    """A stream's or a traceback's text: a string, or a list of strings joined (nbformat's multiline string)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    raise ReadError("a stream output's text is neither a string nor a list of strings")


def _traceback(output: dict) -> str:
    """An error output's traceback as a log holds a Python traceback (see the module); ANSI codes dropped."""
    frames = output.get("traceback")
    if not isinstance(frames, list) or not all(isinstance(f, str) for f in frames):
        ename, evalue = output.get("ename"), output.get("evalue")
        return f"{ename}: {evalue}\n" if isinstance(ename, str) and isinstance(evalue, str) else ""
    elements = [_ANSI.sub("", f).split("\n") for f in frames]
    lines = [line for element in elements for line in element]
    last = len(lines) - (len(elements[-1]) if elements else 0)  # the final element: "ename: evalue"
    heading = next((k for k, line in enumerate(lines[:last]) if _IPYTHON_HEADING.match(line)), None)
    if heading is not None:
        lines[heading] = TRACEBACK
        lines[heading + 1:last] = [line if not line or line[:1].isspace() else "  " + line
                                   for line in lines[heading + 1:last]]
    return "\n".join(lines) + "\n"


def _cell_text(cell: dict) -> str:
    """What a code cell printed: its streams (one after another as Jupyter shows them: a stream of another name
    or an error after a line that did not end starts a new line) and tracebacks, in output order."""
    outputs = cell.get("outputs")
    if not isinstance(outputs, list):
        return ""
    pieces: list[str] = []
    last_name = None
    for output in outputs:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            name = output.get("name")
            if name != last_name and pieces and not pieces[-1].endswith("\n"):
                pieces.append("\n")
            text = _text(output.get("text", ""))
            pieces.append(_ANSI.sub("", text) if "\x1b" in text else text)
            last_name = name
        elif kind == "error":
            if pieces and not pieces[-1].endswith("\n"):
                pieces.append("\n")
            pieces.append(_traceback(output))
            last_name = None
    text = "".join(pieces)
    return text if not text or text.endswith("\n") else text + "\n"


def _load(path: str) -> dict:
    """The notebook's JSON. Its bytes are decoded and dropped before the parse (json.loads of bytes holds both
    while it parses): a notebook costs its text and its objects at once, not its bytes too."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc), path=path) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReadError(f"a notebook that is not UTF-8 text ({exc.reason})", offset=exc.start) from None
    del data
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReadError(f"a notebook that is not valid JSON: {exc.msg}", line=exc.lineno, offset=exc.pos) from None
    except RecursionError:
        raise ReadError("a notebook nested too deeply to be one") from None
    if not isinstance(notebook, dict):
        raise ReadError("not a Jupyter notebook (not a JSON object)")
    if "worksheets" in notebook and "cells" not in notebook:
        raise ReadError(f"a Jupyter notebook of nbformat {notebook.get('nbformat', 3)}: memreport reads nbformat 4 "
                        "(`jupyter nbconvert --to notebook --nbformat 4` converts it)")
    version = notebook.get("nbformat", 4)
    if version != 4 or not isinstance(notebook.get("cells"), list):
        raise ReadError(f"not a Jupyter notebook memreport reads (nbformat {version!r}, or no list of cells): "
                        "memreport reads nbformat 4")
    return notebook


def write_text(notebook: dict, out: BinaryIO) -> Places:
    """Write what the notebook's code cells printed to ``out`` (UTF-8); where each cell's lines are."""
    places = Places()
    line = 1
    for number, cell in enumerate(notebook["cells"], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        text = _cell_text(cell)
        if not text:
            continue
        count = cell.get("execution_count")
        lines = text.count("\n")
        places.add(line, number, count if isinstance(count, int) and not isinstance(count, bool) else None, lines)
        out.write(text.encode("utf-8", "replace"))  # a lone surrogate JSON may hold: "?"
        line += lines
    return places


@contextmanager
def notebook_text(path: str) -> Iterator[tuple[str, Places]]:
    """The notebook at ``path`` as a temporary text file of its code cells' output, and the map back to the
    notebook; the file is removed afterwards."""
    notebook = _load(path)
    handle, text_path = tempfile.mkstemp(prefix="memreport-notebook-", suffix=".log")
    try:
        with os.fdopen(handle, "wb") as out:
            places = write_text(notebook, out)
        del notebook
        if not os.path.getsize(text_path):
            raise ReadError("a Jupyter notebook whose code cells printed nothing (no stream or error output)")
        yield text_path, places
    finally:
        os.unlink(text_path)


def read_notebook(path: str, prefix: bytes, options: ReadOptions) -> list:
    """Every memory report in what a notebook's code cells printed (the reader of :mod:`.poplar_text`)."""
    from .poplar_text import read_notebook_text  # that family reader imports this module's neighbours
    with notebook_text(path) as (text_path, places):
        return read_notebook_text(text_path, path, places, options)


READER = register(Reader("ipynb", "Jupyter notebook", is_notebook, read_notebook, (".ipynb",), decisive=True))
