"""A text that exists only as a stream (a compressed log, a UTF-16 log), read like a file in bounded memory.

:class:`~memreport.readers.text.logtext.LogFile` reads a log a window at a
time and, around each hit, a few lines before and after it. A plain file
gives that by seeking; a gzip stream (or a UTF-16 text, which must be
transcoded) only goes forward. :class:`TextStream` decodes forward a chunk at
a time and keeps the last :data:`KEEP_BYTES` of text, so reading near where
the scan is (the window, the lines before a hit, a summary after it) costs a
copy; a read further back starts the stream again (counted in
:attr:`TextStream.rewinds`: the scan never needs one, a caller reading far
back may). Memory is bounded by what is kept, whatever the size of the text:
nothing is spooled to disk (``$TMPDIR`` is often memory).

A cut or damaged stream ends the text where it stops: :attr:`TextStream.cut`
then says where, and the reader decides what to make of what was read.
"""
from __future__ import annotations

import codecs
import io
import os
import queue
import threading
from collections.abc import Generator, Iterator

from ..compressed import MissingDecoder, open_stream, stream_errors

CHUNK_BYTES = 1 << 20      # decoded at once
KEEP_BYTES = 16 << 20      # of text kept behind the furthest point decoded (several windows and their context)
AHEAD = 3                  # chunks decoded ahead of the reader, by the decoding thread


def utf8_chunks(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """UTF-16 text (with its byte-order mark) as UTF-8, a chunk at a time (bytes that are not UTF-16 become
    U+FFFD)."""
    decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
    for chunk in chunks:
        out = decoder.decode(chunk).encode("utf-8", "replace")
        if out:
            yield out
    tail = decoder.decode(b"", final=True).encode("utf-8", "replace")
    if tail:
        yield tail


class _SeekableText(io.RawIOBase):
    """What a text read as a file shares: a position, ``seek`` (to the end: :meth:`_length`), ``read``."""

    _pos = 0

    def _length(self) -> int:
        raise NotImplementedError

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_CUR:
            offset += self._pos
        elif whence == io.SEEK_END:
            offset += self._length()
        self._pos = max(0, offset)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            out = bytearray()
            while chunk := self.read(CHUNK_BYTES):
                out += chunk
            return bytes(out)
        buffer = bytearray(size)
        return bytes(buffer[:self.readinto(buffer)])


class TextStream(_SeekableText):
    """A file-like view (``seek``, ``read``, ``readinto``) of the UTF-8 text a forward-only source decodes.

    ``path`` is opened afresh each time the stream starts; ``compression``
    (a :mod:`~memreport.readers.compressed` name, or None) is undone and,
    when ``utf16``, the text transcoded from UTF-16.
    """

    def __init__(self, path: str, compression: str | None, utf16: bool, raw_start: int = 0) -> None:
        super().__init__()
        self.path, self.compression, self.utf16, self.raw_start = path, compression, utf16, raw_start
        self.raw_size = os.stat(path).st_size  # compressed bytes: what progress is counted in
        self.rewinds = 0
        self.cut: str | None = None   # where and why the stream stopped early (None: it ended properly)
        self._raw_position = 0
        self._pos = 0
        self._thread: threading.Thread | None = None
        self._start()

    # -- the decoded chunks ---------------------------------------------------------------------------

    def _start(self) -> None:
        """Decode from the start: a thread decompresses up to :data:`AHEAD` chunks ahead of the reader (zlib,
        lzma and bz2 let go of the GIL while they work: the scan and the decompression share two cores)."""
        self._stop()
        self._queue: queue.Queue = queue.Queue(maxsize=AHEAD)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._produce, args=(self._queue, self._stopping),
                                        name="memreport-decompress", daemon=True)
        self._thread.start()
        self._kept: list[tuple[int, bytes]] = []  # (offset, chunk), in order
        self._kept_bytes = 0
        self.end = 0          # offset after the last byte decoded
        self.done = False     # every byte is decoded (self.end is the text's size)

    def _produce(self, out: queue.Queue, stopping: threading.Event) -> None:
        """The decoding thread: every chunk into ``out``, then None (or the exception that stopped it)."""
        def put(item: object) -> bool:
            while not stopping.is_set():
                try:
                    out.put(item, timeout=0.05)
                    return True
                except queue.Full:
                    continue
            return False
        chunks = self._chunks()
        try:
            for chunk in chunks:
                if not put(chunk):
                    return
            put(None)
        except BaseException as exc:  # an I/O error (or a bug) is the reader's to raise  # noqa: BLE001
            put(exc)
        finally:
            chunks.close()

    def _stop(self) -> None:
        """Stop the decoding thread, if any, and wait for it (it closes the file)."""
        thread = getattr(self, "_thread", None)
        if thread is None:
            return
        self._stopping.set()
        thread.join()
        self._thread = None

    def _chunks(self) -> Generator[bytes, None, None]:
        with open(self.path, "rb") as raw:
            raw.seek(self.raw_start)
            chunks = self._decompressed(raw) if self.compression else iter(lambda: raw.read(CHUNK_BYTES), b"")
            yield from utf8_chunks(chunks) if self.utf16 else chunks

    def _decompressed(self, raw) -> Iterator[bytes]:
        assert self.compression is not None
        errors = stream_errors()
        text = 0
        try:
            stream = open_stream(raw, self.compression)
        except MissingDecoder as exc:
            self.cut = str(exc)
            return
        read = getattr(stream, "read1", stream.read)  # read() of a buffered stream loses its data at a cut
        pieces: list[bytes] = []
        held = 0
        with stream:
            while True:
                try:
                    piece = read(CHUNK_BYTES)
                except EOFError:
                    self.cut = (f"the {self.compression} stream is cut short: it ends at compressed byte "
                                f"{raw.tell():,} without its end marker, after {text + held:,} bytes of text")
                    piece = b""
                except errors as exc:
                    detail = " ".join(str(exc).split()) or type(exc).__name__
                    self.cut = (f"the {self.compression} stream is damaged before compressed byte {raw.tell():,} "
                                f"({detail}), after {text + held:,} bytes of text")
                    piece = b""
                if piece:
                    pieces.append(piece)
                    held += len(piece)
                if held >= CHUNK_BYTES or (not piece and held):  # pieces of a few KiB joined into a chunk
                    self._raw_position = raw.tell()
                    text += held
                    yield pieces[0] if len(pieces) == 1 else b"".join(pieces)
                    pieces, held = [], 0
                if not piece:
                    return

    def _decode_more(self) -> bool:
        """Decode the next chunk (False at the end of the text), dropping what falls out of :data:`KEEP_BYTES`."""
        if self.done:
            return False
        chunk = self._queue.get()
        if isinstance(chunk, BaseException):
            self.done = True
            raise chunk
        if chunk is None:
            self.done = True
            return False
        self._kept.append((self.end, chunk))
        self.end += len(chunk)
        self._kept_bytes += len(chunk)
        drop = 0
        while self._kept_bytes - len(self._kept[drop][1]) >= KEEP_BYTES:
            self._kept_bytes -= len(self._kept[drop][1])
            drop += 1
        if drop:
            del self._kept[:drop]
        return True

    @property
    def raw_position(self) -> int:
        """How far into the compressed file the decoding is (the file's size once done)."""
        return self.raw_size if self.done else min(self._raw_position, self.raw_size)

    # -- the file interface ---------------------------------------------------------------------------

    def _length(self) -> int:
        while self._decode_more():
            pass
        return self.end

    def readinto(self, buffer) -> int:
        view = memoryview(buffer).cast("B")
        want, done = len(view), 0
        if (self._kept and self._pos < self._kept[0][0]) or (not self._kept and self._pos < self.end):
            self.rewinds += 1  # before what is kept: decode from the start again
            self._start()
        while done < want:
            at = self._pos + done
            if at >= self.end:
                if not self._decode_more():
                    break
                continue
            for offset, chunk in self._kept:  # a few chunks: the one holding `at` (copied before it may go)
                if offset <= at < offset + len(chunk):
                    piece = min(offset + len(chunk) - at, want - done)
                    view[done:done + piece] = chunk[at - offset:at - offset + piece]
                    done += piece
                    break
        self._pos += done
        return done

    def close(self) -> None:
        self._stop()
        super().close()


class SplicedText(_SeekableText):
    """A UTF-8 file to which a UTF-16 text was appended (its byte-order mark at ``at``, after a line end): its
    bytes before ``at`` as they are, the rest transcoded to UTF-8 as a :class:`TextStream`. Offsets from ``at``
    on are the transcoded text's."""

    def __init__(self, head: io.BufferedIOBase, path: str, at: int) -> None:
        super().__init__()
        self.head, self.at = head, at
        self.tail = TextStream(path, None, True, raw_start=at)
        self._pos = 0

    @property
    def end(self) -> int:
        """Offset after the last byte decoded (the text's size once :attr:`TextStream.done`)."""
        return self.at + self.tail.end

    def _length(self) -> int:
        return self.at + self.tail.seek(0, io.SEEK_END)

    def readinto(self, buffer) -> int:
        view = memoryview(buffer).cast("B")
        done = 0
        if self._pos < self.at:
            self.head.seek(self._pos)
            done = self.head.readinto(view[:min(len(view), self.at - self._pos)]) or 0
        if done < len(view) and self._pos + done >= self.at:
            self.tail.seek(self._pos + done - self.at)
            done += self.tail.readinto(view[done:])
        self._pos += done
        return done

    def close(self) -> None:
        self.head.close()
        self.tail.close()
        super().close()


def describe(compression: str | None, utf16: bool) -> str:
    """How a stream's text is had, for notes: "gzip-compressed", "UTF-16", "gzip-compressed UTF-16"."""
    parts = [f"{compression}-compressed"] if compression else []
    return " ".join(parts + (["UTF-16"] if utf16 else []))


__all__ = ["CHUNK_BYTES", "KEEP_BYTES", "SplicedText", "TextStream", "describe", "utf8_chunks"]
