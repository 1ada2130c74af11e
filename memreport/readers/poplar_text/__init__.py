"""Poplar text summaries (printProfileSummary) and TensorFlow ``.rep`` event traces (docs/FORMATS.md §1).

A summary is read line by line by a small state machine: headings are
matched by their text, never their column, because documents that quote a
report re-indent it. Indentation is used only as a hint to tell where a
``Memory Usage:`` block ends when an unknown line follows it. A text summary
prints only bins, maxima, the out-of-memory count and a few detailed tiles,
so every report it yields is partial and keeps those figures as printed.

``values`` reads the text's lines and numbers, ``parser`` is the state
machine, ``summary`` what it collects, ``report`` turns that into a
MemoryReport and ``rep`` unwraps TensorFlow's event trace; this module
reads files, sniffs and registers the reader.
"""
from __future__ import annotations

import re

from ...errors import ReadError, Truncated
from ...model import MemoryReport
from ..registry import PREFIX_BYTES, Reader, ReadOptions, register, resolve
from .rep import REP_EVENT, read_rep
from .report import FORMAT, summaries
from .values import decode, split_lines


def parse_text(text: str, source: str = "<text>", options: ReadOptions | None = None) -> list[MemoryReport]:
    """Every report in a summary or ``.rep`` trace already decoded to text, resolved with ``options``
    (a convenience for text already in memory; files go through :func:`memreport.readers.read_path`)."""
    return [resolve(r, options or ReadOptions(), source) for r in _reports(text, source)]


def _reports(text: str, source: str) -> list[MemoryReport]:
    text = text.removeprefix("\ufeff")
    events = list(REP_EVENT.finditer(text))
    if events:
        return read_rep(text, events, source)
    return list(summaries(split_lines(text), source))


def read_poplar_text(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """The reports of a text summary (one, or several concatenated) or of a ``.rep`` trace."""
    with open(path, "rb") as f:
        data = f.read()
    text = decode(data)
    try:
        return _reports(text, path)
    except ReadError as exc:
        # Poplar ends every line: a failure on an unended last line is a file cut short (a download, a log
        # still being written), and saying so beats "does not parse".
        last = text.count("\n") + 1
        if isinstance(exc, Truncated) or text.endswith("\n") or exc.line != last:
            raise
        raise Truncated(f"the file ends mid-line (cut short?): {exc.message}", line=exc.line,
                        offset=exc.offset) from None


_SNIFF_HEADING = re.compile(r"^[ \t]*(?:Target|Memory Usage ?|By Tile \(Excluding Gaps\)|"
                            r"Tile ?# ?[\d,]+ memory usage)[ \t]*:[ \t]*\r?$", re.MULTILINE | re.IGNORECASE)
_SNIFF_REP = re.compile(r"^[ \t]*-{70,}[ \t]*\r?\n[ \t]*=> @ ", re.MULTILINE)
_BINARY_MAGIC = (b"!<arch>", b"!<thin>", b"\x7fELF", b"\xd9\xd9\xf7")


def accept(prefix: bytes) -> bool:
    """A summary heading or a ``.rep`` event among the first bytes; never binary, JSON or CBOR."""
    if prefix.startswith(_BINARY_MAGIC) or b"\x00" in prefix[:PREFIX_BYTES]:
        return False
    text = prefix[:PREFIX_BYTES].decode("utf-8", errors="replace").removeprefix("\ufeff")
    # JSON objects are never summaries. A "[" start is left to the heading test: JSON quotes its
    # strings, so it never holds a bare heading line, while logs often start "[timestamp] ...".
    if text.lstrip()[:1] == "{":
        return False
    if text.count("\ufffd") > len(text) // 100 + 2:  # mostly undecodable: binary (e.g. CBOR)
        return False
    return bool(_SNIFF_REP.search(text) or _SNIFF_HEADING.search(text))


READER = register(Reader(FORMAT, "Poplar text summary or TensorFlow .rep trace", accept, read_poplar_text,
                         (".txt", ".rep", ".log")))
