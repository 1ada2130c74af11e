"""Poplar's out-of-memory messages, found anywhere in a log line (docs/FORMATS.md §8.6).

The messages are matched inside a line, whatever wraps them: PopART's
``Memory allocation error : ``, a C++ ``what():  ``, a Python traceback's
``popart_core.popart_exception: ``, PopTorch's ``In file:line: 'type': ``,
TensorFlow's ``[Poplar][Compile engine] graph_memory_allocation_error: ``,
and a logger header. Each becomes an :class:`~memreport.model.OutOfMemoryMessage`
holding what the message states, and nothing more. Numbers are plain
integers in every seen message; thousands separators are accepted too.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator

from ....errors import ReadError
from ....model import OutOfMemoryMessage
from .values import INT, whole

MAX_TEXT = 300  # characters of a message's line kept for display

_PATH = r"(?P<path>[^\s'\"]+)"
# (kind, a word the message must hold, its pattern): the word is looked for first, at C speed.
_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("tile-memory", "bytes used", re.compile(rf"Out of memory on tile (?P<tile>{INT}): (?P<used>{INT}) bytes used "
                                             rf"but tiles only have (?P<capacity>{INT}) bytes of memory")),
    ("variables", "Cannot fit", re.compile(rf"Out of memory: Cannot fit all variable data onto one or more tiles\.?"
                                           rf"(?:\s*Profile saved to:\s*{_PATH})?")),
    ("profile-saved", "available here", re.compile(rf"Out of memory, the graph profile is available here:\s*{_PATH}")),
    # SDK 1.2 and 1.3 spell it "ouf of memory".
    ("report-saved", "report saved", re.compile(rf"The ou[tf] of memory summary (?:text|CBOR|JSON) report saved to "
                                                rf"{_PATH}")),
    ("exchange", "receives more data", re.compile(rf"Tile (?P<tile>{INT}) receives more data than it has total memory "
                                                  r"in exchange '(?P<exchange>[^']*)'")),
    ("code", "_poplar_start", re.compile(rf"tile (?P<tile>{INT}) _poplar_start must be 0 not (?P<offset>{INT}) bytes "
                                         r"from the start of memory")),
    ("host-stream", "Out of memory.", re.compile(rf"Out of memory\. (?:Single stream of length (?P<stream>{INT}) in "
                                                 rf"bufferIndex (?P<index>{INT})|Data-stream is larger than remaining "
                                                 rf"host buffer (?P<buffer>{INT}) memory)")),
)


def _number(match: re.Match[str], group: str, line: int) -> int | None:
    text = match.group(group) if group in match.re.groupindex else None
    if text is None:
        return None
    value = whole(text, line, "out-of-memory message")
    if value >= 2 ** 63:
        raise ReadError(f"out-of-memory message: {text} is too large (2**63 or more)", line=line)
    return value


def _path(match: re.Match[str]) -> str | None:
    if "path" not in match.re.groupindex or match["path"] is None:
        return None
    return match["path"].rstrip(".,;:)") or None


class Unread:
    """Out-of-memory messages not read (a number out of range): the first few notes, and how many more."""

    KEPT = 8

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.more = 0

    def append(self, note: str) -> None:
        if len(self.kept) < self.KEPT:
            self.kept.append(note)
        else:
            self.more += 1

    def notes(self) -> list[str]:
        return [*self.kept, *([f"{self.more:,} more out-of-memory message(s) not read"] if self.more else [])]


def find_messages(text: str, line: int, source_dir: str | None = None,
                  refused: Unread | list[str] | None = None) -> Iterator[OutOfMemoryMessage]:
    """Every out-of-memory message in one line's ``text`` (line number ``line``), in order.

    ``source_dir`` is the log's directory: a saved profile's path is looked
    for relative to the working directory, then to it, to find an
    ``archive.a`` beside the profile. A message holding a number out of
    range (20 digits and more, or 2**63 and more, as the summary parser
    bounds them) is not read: with ``refused``, a note saying which line and
    why is added to it and the rest of the log is read; without, it is a
    ReadError.
    """
    if "emory" not in text:
        return
    found = []
    for kind, word, pattern in _PATTERNS:
        if word not in text:
            continue
        for match in pattern.finditer(text):
            found.append((match.start(), kind, match))
    shown = text.strip()
    shown = shown if len(shown) <= MAX_TEXT else shown[:MAX_TEXT - 3] + "..."
    for _, kind, match in sorted(found, key=lambda f: f[0]):
        try:
            message = _message(kind, match, line, shown, source_dir)
        except ReadError as exc:
            if refused is None:
                raise
            why = exc.message.removeprefix("out-of-memory message: ")
            refused.append(f"the out-of-memory message at line {line:,} is not read: {why}")
            continue
        yield message


def _message(kind: str, match: re.Match[str], line: int, shown: str, source_dir: str | None) -> OutOfMemoryMessage:
    """What one matched message states; a ReadError when a number in it is out of range."""
    path = _path(match)
    buffer = _number(match, "buffer", line)
    return OutOfMemoryMessage(
        kind=kind, line=line, text=shown, tile=_number(match, "tile", line),
        bytes_used=_number(match, "used", line), bytes_per_tile=_number(match, "capacity", line),
        exchange=match["exchange"] if "exchange" in match.re.groupindex else None,
        code_offset=_number(match, "offset", line), stream_bytes=_number(match, "stream", line),
        buffer_index=_number(match, "index", line) if buffer is None else buffer, saved_path=path,
        archive=archive_beside(path, source_dir) if kind in ("variables", "profile-saved") else None)


def archive_beside(path: str | None, source_dir: str | None) -> str | None:
    """``archive.a`` in the directory of a saved profile (as a path to run memreport on), if it is there.

    The profile's path is as the failed run printed it, relative to that
    run's working directory, which is unknown: it is tried relative to the
    working directory, then to the log's directory. Nothing is read.
    """
    if not path:
        return None
    folder = path if not os.path.splitext(path)[1] else os.path.dirname(path)
    candidates = [os.path.join(folder, "archive.a")]
    if source_dir and not os.path.isabs(folder):
        candidates.append(os.path.join(source_dir, folder, "archive.a"))
    for candidate in candidates:
        try:
            if os.path.isfile(candidate):
                return os.path.normpath(candidate) if candidate != candidates[0] else candidate
        except (OSError, ValueError):  # a path a hostile log made up (a NUL, too long): not there
            continue
    return None
