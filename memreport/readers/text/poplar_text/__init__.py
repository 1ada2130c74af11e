"""Poplar's memory text, wherever it is: summaries, ``.rep`` traces, logs, excerpts, out-of-memory messages.

Any text file no other reader claims is read here (docs/FORMATS.md §1, §8):
a summary alone, one or many inside a run log of any size (after launcher
tags, logger headers and progress bars), an excerpt pasted into a document
(re-indented, cut with ``.`` lines, between prose), TensorFlow's ``.rep``
event trace, or only Poplar's out-of-memory messages. The file is searched,
never read whole (:mod:`.scan`), so memory is bounded by the largest summary
and time is linear. A Git LFS pointer is named as such (§10.4).

A summary is read line by line by a small state machine (:mod:`.parser`):
headings are matched by their text, never their column. A text summary
prints only bins, maxima, the out-of-memory count and a few detailed tiles,
so every report it yields is partial and keeps those figures as printed.

``values`` reads the text's lines and numbers, ``parser`` is the state
machine, ``summary`` what it collects, ``report`` turns that into a
MemoryReport, ``prefixes`` takes a log line apart, ``messages`` finds the
out-of-memory messages, ``scan`` reads a log and ``rep`` a ``.rep`` trace;
this module sniffs, opens files and registers the reader.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from ....errors import ReadError
from ....model import MemoryReport
from ...registry import PREFIX_BYTES, Reader, ReadOptions, register
from ..logtext import UTF8_BOM, LogFile, looks_like_text
from .rep import REP_EVENT, read_rep
from .report import FORMAT
from .scan import LogScan

_BINARY_MAGIC = (b"!<arch>", b"!<thin>", b"\x7fELF", b"\xd9\xd9\xf7")
_LFS = re.compile(rb"version https://(?:git-lfs\.github\.com|hawser\.github\.com)/spec/v1\r?\n")
_LFS_SIZE = re.compile(rb"^size (\d{1,20})\r?$", re.MULTILINE)
_LFS_OID = re.compile(rb"^oid (\w+:[0-9a-f]{8})[0-9a-f]*\r?$", re.MULTILINE)


def accept(prefix: bytes) -> bool:
    """Text (UTF-8, or UTF-16 with its BOM) that is neither binary nor a JSON object."""
    if prefix.startswith(_BINARY_MAGIC) or not looks_like_text(prefix[:PREFIX_BYTES]):
        return False
    # JSON objects belong to the JSON reader. A "[" start stays: logs often start "[timestamp] ...".
    body = prefix[len(UTF8_BOM):] if prefix.startswith(UTF8_BOM) else prefix
    return body.lstrip()[:1] != b"{"


def lfs_pointer(prefix: bytes) -> str | None:
    """What a Git LFS pointer says of the file it stands for (None when ``prefix`` is no pointer)."""
    if not _LFS.match(prefix) or len(prefix) > 1024:
        return None
    size, oid = _LFS_SIZE.search(prefix), _LFS_OID.search(prefix)
    facts = [f"{int(size[1]):,} bytes" if size else None, f"oid {oid[1].decode()}..." if oid else None]
    return ", ".join(f for f in facts if f)


def read_poplar_text(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """Every report in a text file: its summaries (in file order), its out-of-memory messages, or a ``.rep``
    trace's compile reports."""
    pointer = lfs_pointer(prefix)
    if pointer is not None:
        raise ReadError(f"a Git LFS pointer, not the file itself (the real file: {pointer}): fetch it with "
                        "`git lfs pull`")
    with LogFile(path, keep_cut=True) as log:
        try:
            if log.encoding == "utf-8" and REP_EVENT.search(prefix[:PREFIX_BYTES].decode("utf-8", "replace")):
                reports = read_rep(log, path, options.progress)
            else:
                reports = LogScan(log, path, options.progress).run()
        except ReadError as exc:
            if log.cut:  # what went wrong is most likely the cut
                raise ReadError(f"{log.cut}; {exc.message}", line=exc.line, offset=exc.offset) from None
            raise
        if log.cut:  # a compressed log cut short: what was read stands, and says so (a ReadError if nothing)
            if not reports:
                raise ReadError(log.cut)
            reports = [r.evolve(notes=r.notes + (f"{log.cut}: what follows is missing",)) for r in reports]
        return reports


def read_notebook_text(text_path: str, source: str, places: Callable[[int], str | None],
                       options: ReadOptions) -> list[MemoryReport]:
    """The reports in the text a notebook's cells printed (written to ``text_path`` by ..ipynb), named after
    the notebook (``source``), their lines placed in it (``places``: ``cell 7 [4], line 12``)."""
    with LogFile(text_path) as log:
        return LogScan(log, source, options.progress, places=places, all_frames=True).run()


READER = register(Reader(FORMAT, "text: a Poplar summary, a TensorFlow .rep trace or a log", accept,
                         read_poplar_text, (".txt", ".rep", ".log"), compressed=True))
