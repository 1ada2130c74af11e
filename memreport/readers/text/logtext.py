"""Logs as engineers hold them: any size, UTF-8 or UTF-16, launcher tags, colours and progress bars.

A run's log can be gigabytes, with what memreport wants (a memory summary,
an out-of-memory message, a compilation line) anywhere in it. Reading one is
two steps over a seekable file, so memory is bounded by a chunk and by what
is read around a hit, never by the file (docs/FORMATS.md §8):

1. :meth:`LogFile.find` scans the raw bytes for a few needles with
   ``bytes.find`` (C speed, a chunk at a time) and yields only the lines that
   hold one, with their line numbers;
2. :meth:`LogFile.lines` reads on, line by line, from any such line.

The line helpers at the end undo what terminals and launchers add to a line:
ANSI colour codes, progress-bar redraws (``\\r``), a tqdm bar glued to the
front of a log line, and mpirun/poprun's ``[1,0]<stdout>:`` tags.
"""
from __future__ import annotations

import codecs
import io
import os
import re
import shutil
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from ...errors import ReadError
from .. import compressed
from .needles import NeedleSearch
from .textstream import SplicedText, TextStream

CHUNK_BYTES = 1 << 20       # read and searched at once (a window that stays in the CPU's cache)
MAX_LINE_BYTES = 1 << 20    # a longer line is cut here (a log of one endless line still streams)
FIRST_READ_BYTES = 4 << 10  # what lines() reads first
PREFIX_BYTES = 4 << 10      # what is sniffed for compression and encoding
COUNT_BYTES = 1 << 18       # line ends are counted this much at a time (the comparison stays in the CPU's cache)
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
UTF8_BOM = codecs.BOM_UTF8


@dataclass(frozen=True)
class LogLine:
    """One line of a log: its 1-based number, the byte offset where it starts, its text without the line end."""

    no: int
    offset: int
    text: str


def decode_line(raw: bytes | bytearray | memoryview) -> str:
    """A line's text: UTF-8 (bytes that are not become U+FFFD), without ``\\r`` before its end, without the NULs
    before it (the hole logrotate's copytruncate leaves; a NUL inside a line stays, for the reader to refuse)
    and byte-order marks (logs concatenated or appended to: ``\\ufeffTarget:`` is still the Target heading)."""
    raw = bytes(raw)
    if raw[:1] == b"\x00":
        raw = raw.lstrip(b"\x00")
    if UTF8_BOM in raw:
        raw = raw.replace(UTF8_BOM, b"")
    return raw.decode("utf-8", "replace").rstrip("\r")


class LogFile:
    """A log opened for searching: UTF-8 as it is; UTF-16 (PowerShell's ``>``) and compressed logs (gzip, xz,
    bz2, zstd: recognised by content) decoded as a stream, in bounded memory (:mod:`.textstream`).

    Use as a context manager. ``path`` must be a regular file; offsets and
    line numbers refer to the (UTF-8, decompressed) text. A compressed
    stream that is cut or damaged ends the text where it stops, and
    :attr:`cut` says where: :meth:`find` then raises a ReadError once it has
    yielded every line before the cut, unless ``keep_cut`` (the caller notes
    the cut itself, keeping what was read).
    """

    def __init__(self, path: str | os.PathLike, *, keep_cut: bool = False) -> None:
        self.path = os.fspath(path)
        self.keep_cut = keep_cut
        try:
            self._file: io.BufferedIOBase | TextStream | SplicedText = open(self.path, "rb")  # noqa: SIM115 - closed by close()
        except OSError as exc:
            raise ReadError(exc.strerror or str(exc), path=self.path) from None
        self.compression = compressed.kind(self._file.read(PREFIX_BYTES))
        self._file.seek(0)
        head = compressed.head(self._file, 4)
        self._file.seek(0)
        self.encoding = "utf-16" if head.startswith(UTF16_BOMS) else "utf-8"
        self.start = len(UTF8_BOM) if head.startswith(UTF8_BOM) else 0
        self._stream: TextStream | None = None
        self._spliced: SplicedText | None = None  # a UTF-16 text appended: from its byte-order mark on (find)
        self._size = os.fstat(self._file.fileno()).st_size
        self._appended = False  # whether the text may end in UTF-16 appended to it (find looks for where then)
        if not self.compression and self.encoding == "utf-8":
            self._file.seek(max(0, self._size - PREFIX_BYTES))
            self._appended = _may_end_in_utf16(self._file.read(PREFIX_BYTES))
            self._file.seek(0)
        if self.compression or self.encoding == "utf-16":
            self._file.close()  # the stream opens the file itself, each time it starts
            self._stream = self._file = TextStream(self.path, self.compression, self.encoding == "utf-16")

    @property
    def size(self) -> int:
        """The text's size in bytes. A stream's is known once read to its end: until then, what is decoded."""
        if self._spliced is not None:
            return self._spliced.end
        return self._size if self._stream is None else self._stream.end

    @property
    def utf16_from(self) -> int | None:
        """The text offset from which the text is transcoded from UTF-16 (its offsets are not the file's), if any:
        the start of a UTF-16 log, or where a UTF-16 text appended to a UTF-8 one begins (found by :meth:`find`)."""
        if self._spliced is not None:
            return self._spliced.at
        return self.start if self.encoding != "utf-8" else None

    @property
    def cut(self) -> str | None:
        """Why a compressed text stopped before its end (None: it did not, or it is not compressed)."""
        return None if self._stream is None else self._stream.cut

    def _progress(self, offset: int) -> tuple[int, int]:
        """(done, total) for a progress display, in the file's bytes (compressed ones for a compressed log)."""
        if self._stream is None:
            return min(offset, self._size), self._size
        return self._stream.raw_position, self._stream.raw_size

    def __enter__(self) -> LogFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._file.close()

    def find(self, needles: Sequence[bytes], *, progress=None,
             keep: Callable[[bytearray, int], bool] | None = None,
             sift: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> Iterator[LogLine]:
        """Every line holding at least one of ``needles``, once each, in file order.

        ``keep(buffer, at)``, when given, is asked of each occurrence of a
        needle (at ``buffer[at]``) whether it is worth the line: a line is
        found when one of its occurrences is, so a needle that many lines
        hold costs little more than the search (no line ``keep`` turns away
        is decoded). ``sift(window, offsets)``, when given with ``keep``,
        narrows the occurrences ``keep`` is asked about, all of a window at
        once (``window`` a uint8 array; it must return every offset ``keep``
        could accept). ``progress(done, total)`` is called after each chunk,
        in bytes.
        """
        search = NeedleSearch(needles)
        if not search.needles:
            return
        chunk, carried = CHUNK_BYTES, MAX_LINE_BYTES
        if self._stream is None and self.size - self.start < CHUNK_BYTES:  # fits in one read: no 2 MB buffer
            chunk, carried = self.size - self.start + 1, 0
        buf = bytearray(chunk + carried)
        view = memoryview(buf)
        scratch = np.empty(min(len(buf), COUNT_BYTES), bool)  # line_ends' comparison, reused
        f = self._file
        position = self.start  # of the next read: kept here, since the caller may read elsewhere between hits
        offset, no = self.start, 1  # of buf[0]
        filled = 0
        at_end = False
        while not at_end:
            f.seek(position)
            got = f.readinto(view[filled:filled + chunk]) or 0
            position += got
            at_end = not got
            appended = self._appended_utf16(buf, max(0, filled - 1), filled + got) if self._appended else -1
            filled += got
            if appended >= 0:  # a UTF-16 text from buf[appended] on: read on in its UTF-8 transcoding
                f = self._splice(offset + appended)
                position, filled, at_end = offset + appended, appended, False
                if len(buf) < CHUNK_BYTES + MAX_LINE_BYTES:  # the file fitted in one read; its transcoding may not
                    chunk, buf = CHUNK_BYTES, buf[:filled] + bytearray(CHUNK_BYTES + MAX_LINE_BYTES - filled)
                    view = memoryview(buf)
                continue
            if not filled:
                break
            # Search up to the last line end (all of it at the end of the file); carry the rest over.
            stop = filled if at_end else buf.rfind(b"\n", 0, filled) + 1
            if stop == 0 and filled >= MAX_LINE_BYTES:  # a line longer than any we keep: cut it here
                stop = filled
            if stop:
                counted, lines = yield from self._hits(buf, stop, search, offset, no, keep, sift, scratch)
                no += lines + line_ends(buf, counted, stop, scratch)
                offset += stop
                carry = filled - stop
                buf[:carry] = buf[stop:filled]  # same length: the buffer keeps its size
                filled = carry
            if progress is not None:
                progress(*self._progress(offset))
        if self.cut and not self.keep_cut:
            raise ReadError(f"{self.cut}: the rest of the log is missing", path=self.path)

    def _appended_utf16(self, buf: bytearray, start: int, stop: int) -> int:
        """Where in ``buf[start:stop]`` (raw bytes of a UTF-8 file) a UTF-16 text appended to it begins: its
        byte-order mark after a line end, with text after it as a log holds (-1: none). Bytes 0xFF and 0xFE are
        never in UTF-8, so the search costs two ``memchr`` passes."""
        firsts = [bom[:1] for bom in UTF16_BOMS]  # single bytes: memchr
        found = [buf.find(first, start, stop) for first in firsts]
        while max(found) >= 0:
            at = min(a for a in found if a >= 0)
            if buf[at:at + 2] in UTF16_BOMS and (at == 0 or buf[at - 1] == 0x0A) and \
                    _utf16_log(bytes(buf[at:min(stop, at + PREFIX_BYTES)])):
                return at
            found = [buf.find(first, at + 1, stop) if a == at else a for a, first in zip(found, firsts)]
        return -1

    def _splice(self, at: int) -> SplicedText:
        """Read the file's bytes from text offset ``at`` (a byte-order mark) on as UTF-16, transcoded."""
        assert isinstance(self._file, io.BufferedIOBase)
        self._spliced = SplicedText(self._file, self.path, at)
        self._file, self._appended = self._spliced, False
        return self._spliced

    @staticmethod
    def _hits(buf: bytearray, stop: int, search: NeedleSearch, offset: int, no: int,
              keep: Callable[[bytearray, int], bool] | None,
              sift: Callable[[np.ndarray, np.ndarray], np.ndarray] | None,
              scratch: np.ndarray) -> Generator[LogLine, None, tuple[int, int]]:
        """The lines of ``buf[:stop]`` (starting at file ``offset``, line ``no``) the search finds; returns how far
        line ends were counted, and how many there."""
        found = search.occurrences(buf, stop)
        if not found.size:
            return 0, 0
        if keep is not None and sift is not None:
            found = sift(np.frombuffer(buf, np.uint8, stop), found)
        line_end = -1
        counted, first = 0, no
        for at in found.tolist():
            if at < line_end or (keep is not None and not keep(buf, at)):
                continue  # on a line already found, or not worth its line
            line_start = buf.rfind(b"\n", 0, at) + 1
            end = buf.find(b"\n", at, stop)
            line_end = stop if end < 0 else end
            no += line_ends(buf, counted, line_start, scratch)
            counted = line_start
            text = decode_line(buf[line_start:min(line_end, line_start + MAX_LINE_BYTES)])
            yield LogLine(no, offset + line_start, text)
        return counted, no - first

    def lines(self, offset: int | None = None, no: int = 1) -> Iterator[LogLine]:
        """Lines from byte ``offset`` (the start of a line, numbered ``no``) to the end of the file.

        Lines longer than :data:`MAX_LINE_BYTES` are cut there. The file
        position is private to the iterator, so several may be read in turn.
        """
        position = self.start if offset is None else offset
        carry = b""
        size = FIRST_READ_BYTES  # grows to CHUNK_BYTES: reading a few lines after a hit stays cheap
        while True:
            self._file.seek(position)
            chunk = self._file.read(size)
            size = min(size * 4, CHUNK_BYTES)
            position += len(chunk)
            data = carry + chunk if carry else chunk
            if not chunk:
                if data:
                    yield LogLine(no, position - len(data), decode_line(data[:MAX_LINE_BYTES]))
                return
            start = 0
            base = position - len(data)
            while True:
                end = data.find(b"\n", start)
                if end < 0:
                    break
                yield LogLine(no, base + start, decode_line(data[start:min(end, start + MAX_LINE_BYTES)]))
                no += 1
                start = end + 1
            carry = data[start:]
            if len(carry) > MAX_LINE_BYTES:  # an endless line: keep its start, skip to its end
                yield LogLine(no, base + start, decode_line(carry[:MAX_LINE_BYTES]))
                skip = self._skip_line(position)
                if skip is None:
                    return
                no += 1
                position, carry = skip, b""

    def _skip_line(self, position: int) -> int | None:
        """The offset after the next line end at or after ``position`` (None at the end of the file)."""
        self._file.seek(position)
        while chunk := self._file.read(CHUNK_BYTES):
            end = chunk.find(b"\n")
            if end >= 0:
                return position + end + 1
            position += len(chunk)
        return None

    def lines_before(self, offset: int, no: int, *, floor: int | None = None, max_lines: int = 256,
                     max_bytes: int = 64 << 10) -> list[LogLine]:
        """Up to ``max_lines`` whole lines just before ``offset`` (the start of line ``no``), in file order.

        None start before ``floor`` (a line start; default the start of the
        text), and at most ``max_bytes`` are read: a line cut by that window
        is left out.
        """
        floor = self.start if floor is None else max(floor, self.start)
        begin = max(floor, offset - max_bytes)
        if begin >= offset:
            return []
        self._file.seek(begin)
        data = self._file.read(offset - begin)
        pieces = data.split(b"\n")
        pieces.pop()  # what follows the last line end: nothing, since offset starts a line
        if begin > floor:
            self._file.seek(begin - 1)
            if self._file.read(1) != b"\n":
                pieces = pieces[1:]  # the window starts mid-line
        pieces = pieces[-max_lines:] if max_lines > 0 else []
        out = []
        end = offset
        for k, raw in enumerate(reversed(pieces)):
            start = end - len(raw) - 1
            out.append(LogLine(no - 1 - k, start, decode_line(raw[:MAX_LINE_BYTES])))
            end = start
        out.reverse()
        return out

    def first_line_from(self, begin: int, offset: int, no: int, floor: int, max_lines: int
                        ) -> tuple[int, int] | None:
        """The first of the last ``max_lines`` lines starting at or after ``begin`` and before ``offset`` (the start
        of line ``no``), as (its offset, its number); None when there is none. ``floor``, a line start, is the
        first place a line may start."""
        back = 1 if begin > floor else 0
        self._file.seek(begin - back)
        data = self._file.read(offset - begin + back)
        first = data.find(b"\n") + 1 if back else 0  # after the line end before begin (or at begin)
        if first >= len(data) or max_lines <= 0:
            return None
        lines = data.count(b"\n", first)
        if lines > max_lines:
            end = len(data) - 1  # the last line's end
            for _ in range(max_lines):
                end = data.rfind(b"\n", 0, end)
            first, lines = end + 1, max_lines
        return begin - back + first, no - lines

    def read_lines(self, starts: Sequence[int], end: int) -> list[str]:
        """The texts of consecutive lines starting at ``starts`` (known from :meth:`lines`; ``end`` is the offset
        after the last one's line end), in one read: each as :meth:`lines` gives it."""
        if not starts:
            return []
        self._file.seek(starts[0])
        data = self._file.read(end - starts[0])
        base, texts = starts[0], []
        for k, begin in enumerate(starts):
            stop = starts[k + 1] - 1 if k + 1 < len(starts) else end
            raw = data[begin - base:stop - base]
            if k + 1 == len(starts) and raw.endswith(b"\n"):
                raw = raw[:-1]
            texts.append(decode_line(raw[:MAX_LINE_BYTES]))
        return texts

    def ends_unterminated(self, offset: int) -> bool:
        """Whether the line starting at ``offset`` is the file's last and has no line end (a file cut short)."""
        self._file.seek(offset)
        tail = self._file.read(MAX_LINE_BYTES + 2)
        return bool(tail) and len(tail) <= MAX_LINE_BYTES + 1 and b"\n" not in tail

    def copy_to(self, target: BinaryIO) -> None:
        """The whole (UTF-8) text into ``target``."""
        self._file.seek(self.start)
        shutil.copyfileobj(self._file, target, CHUNK_BYTES)


def line_ends(buf: bytearray, start: int, stop: int, scratch: np.ndarray | None = None) -> int:
    """How many ``\\n`` in ``buf[start:stop]``: numpy's vectorised count past 64 KB (four times bytes.count's
    speed: counting every chunk's lines is most of a scan's cost after the search itself), compared into
    ``scratch`` (a bool array, reused) a piece at a time when given."""
    if stop - start < 1 << 16:
        return buf.count(b"\n", start, stop)
    data = np.frombuffer(buf, np.uint8, stop - start, start)
    if scratch is None:
        scratch = np.empty(min(data.size, COUNT_BYTES), bool)
    step, total = scratch.size, 0
    for at in range(0, data.size, step):
        piece = data[at:at + step]
        total += int(np.count_nonzero(np.equal(piece, 10, out=scratch[:piece.size])))
    return total


def looks_like_text(prefix: bytes) -> bool:
    """Whether the first bytes of a file read as text: UTF-16 with its BOM, or mostly UTF-8 with NULs only in a
    few runs (the hole logrotate's copytruncate leaves); a UTF-16 text appended after a line end, with its BOM,
    is text too. A compressed file is judged by what it holds."""
    if compressed.kind(prefix):
        prefix = compressed.head(prefix)
        if not prefix:
            return True  # bz2 and zstd give nothing before a whole block: the stream will tell
    if not prefix:
        return False
    if prefix.startswith(UTF16_BOMS):
        return _utf16_text(prefix)
    for bom in UTF16_BOMS:
        at = prefix.find(b"\n" + bom)
        if at >= 0:
            return looks_like_text(prefix[:at + 1]) and _utf16_text(prefix[at + 1:])
    if b"\x00" in prefix:
        if len(_NUL_RUN.findall(prefix)) > MAX_NUL_RUNS:
            return False  # NULs scattered about: binary (or UTF-16 without its BOM)
        prefix = prefix.replace(b"\x00", b"")
        if not prefix:
            return True  # a hole and nothing else yet: the registry looks past it (see its read_prefix)
        text = prefix.decode("utf-8", "replace")  # NULs among control bytes or bytes not UTF-8: binary (a PNG)
        return text.count("\ufffd") + len(_CONTROL.findall(prefix)) <= len(text) // 100 + 1
    text = prefix.decode("utf-8", "replace")
    return text.count("\ufffd") <= len(text) // 100 + 2  # a cut multi-byte character at the end is fine


_NUL_RUN = re.compile(rb"\x00+")
_CONTROL = re.compile(rb"[\x01-\x06\x0e-\x1a\x1c-\x1f\x7f]")  # no text holds these (tabs, ESC, \b, \f do)
MAX_NUL_RUNS = 4  # NUL runs a text's first 4 KiB may hold: holes; a binary file has them everywhere


def _utf16_text(prefix: bytes) -> bool:
    """Whether UTF-16 bytes starting with their BOM read as text (a cut character at the end is fine)."""
    codec = "utf-16-le" if prefix.startswith(codecs.BOM_UTF16_LE) else "utf-16-be"
    text = prefix[2:len(prefix) // 2 * 2].decode(codec, "replace")
    return text.count("\ufffd") <= len(text) // 100 + 2 and "\x00" not in text


def _may_end_in_utf16(tail: bytes) -> bool:
    """Whether a UTF-8 file's last bytes may be UTF-16 appended to it (a text appended runs to the file's end):
    a UTF-16 byte-order mark in them, or NULs (a log's UTF-16 is an eighth ASCII at least, each with a NUL).
    Only then is the file searched for where it begins, which would cost a plain log a pass over its bytes."""
    return any(bom in tail for bom in UTF16_BOMS) or tail.count(b"\x00") * 32 >= len(tail) > 0


def _utf16_log(prefix: bytes) -> bool:
    """Whether UTF-16 bytes starting with their BOM read as a log's text: as text, and an eighth of it ASCII at
    least (line ends, digits, spaces; UTF-8 bytes read as UTF-16 make none: a unit from two bytes of UTF-8 text
    is U+0900 or above)."""
    codec = "utf-16-le" if prefix.startswith(codecs.BOM_UTF16_LE) else "utf-16-be"
    text = prefix[2:len(prefix) // 2 * 2].decode(codec, "replace")
    return _utf16_text(prefix) and sum(c < "\x80" for c in text) * 8 >= len(text) > 0


# -- what terminals and launchers add to a line -----------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
# mpirun --tag-output (poprun passes it on): "[1,0]<stdout>:"; PRRTE adds a space. A tag can arrive glued
# to a broken one ("[1,0[1,0]<stdout>:") when two processes write at once.
_TAG = re.compile(r"(?:\[[\d,]*)?\[(?P<job>\d+),(?P<rank>\d+)\]<(?P<stream>stdout|stderr)>: ?|"
                  r"<(?P<bare>stdout|stderr)>: ?")
# tqdm: "Graph compilation:  45%|████▌     | 45/100 [00:12<00:15]" (a bar may run into the next line).
_BAR = re.compile(r"^[^|\n]{0,80}?\d{1,3}%\|[^|]*\|\s*\d+/\d+\s*(?:\[[^\]]*\])?")


@dataclass(frozen=True)
class Tag:
    """The launcher tag of a line: which process and stream wrote it ("" and stream None when untagged)."""

    process: str
    stream: str | None


UNTAGGED = Tag("", None)


def clean(text: str) -> str:
    """What a terminal would show of a line: colour codes gone, only the last ``\\r`` redraw kept."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\r" in text:
        text = text.rsplit("\r", 1)[1] or text.rstrip("\r").rsplit("\r", 1)[-1]
    return text


def split_tag(text: str) -> tuple[Tag, str]:
    """A launcher tag at the start of a line, and the rest: ``[1,0]<stdout>: x`` -> (Tag("1,0", "stdout"), "x")."""
    match = _TAG.match(text)
    if match is None:
        return UNTAGGED, text
    if match["bare"]:
        return Tag("", match["bare"]), text[match.end():]
    return Tag(f"{match['job']},{match['rank']}", match["stream"]), text[match.end():]


def strip_progress_bar(text: str) -> str:
    """A line without a tqdm progress bar glued to its front (the bar alone is left as it is)."""
    match = _BAR.match(text)
    if match is None or match.end() == len(text):
        return text
    return text[match.end():]
