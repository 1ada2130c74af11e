"""Byte ranges of a file read on demand, never mapped: a file that shrinks while it is read is a ReadError.

A mapped file (``mmap``) that another process truncates (a CI job
rewriting ``archive.a`` in place) kills the reading process with SIGBUS on
the first page past the new end, and mapping a file larger than the
address space allows (``ulimit -v``) fails outright. Reading ranges with
``pread`` has neither problem: a read that returns less than the file held
when it was opened says the file changed, and only the ranges asked for
take memory.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import FileChanged, ReadError

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Future, ThreadPoolExecutor


class FileView:
    """The first ``size`` bytes of an open file, sliced like ``bytes`` (each slice one ``pread``).

    ``size`` is the file's size when it was opened; bytes appended later are
    not seen, and a slice the file no longer holds raises a ReadError.
    """

    __slots__ = ("fd", "size")

    def __init__(self, fd: int, size: int | None = None) -> None:
        self.fd = fd
        self.size = os.fstat(fd).st_size if size is None else size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, key: slice) -> bytes:
        if not isinstance(key, slice) or key.step not in (None, 1):
            raise TypeError("a FileView takes slices [start:stop] only")
        start = 0 if key.start is None else key.start
        stop = self.size if key.stop is None else key.stop
        if start < 0 or stop < 0:
            raise TypeError("a FileView takes no negative offsets")
        return self.read(start, stop - start)

    def _shrank(self, at: int) -> FileChanged:
        try:
            now = f"{os.fstat(self.fd).st_size:,} bytes now"
        except OSError:
            now = "fewer now"
        return FileChanged(f"the file shrank while it was read ({self.size:,} bytes when opened, {now}): was it "
                         "rewritten in place?", offset=at)

    def read(self, offset: int, count: int) -> bytes:
        """``count`` bytes from ``offset``, fewer only where the file (as opened) ends."""
        count = max(0, min(count, self.size - offset))
        if count == 0:
            return b""
        try:
            data = os.pread(self.fd, count, offset)
        except OSError as exc:
            raise ReadError(f"cannot read {count:,} bytes: {exc.strerror or exc}", offset=offset) from None
        while len(data) < count:  # a pread may return less than asked at once; only 0 means the end
            try:
                more = os.pread(self.fd, count - len(data), offset + len(data))
            except OSError as exc:
                raise ReadError(f"cannot read {count:,} bytes: {exc.strerror or exc}", offset=offset) from None
            if not more:
                raise self._shrank(offset + len(data))
            data += more
        return data


class ReadAhead:
    """Windows of a file, each read in a thread while the one before is scanned (two cores read an archive
    about as fast as a mapping would, without its SIGBUS when the file shrinks). A window asked for where
    the last one ended is the one read ahead."""

    def __init__(self, view: FileView, width: int) -> None:
        self.view, self.width = view, width
        self.pool: ThreadPoolExecutor | None = None
        self.ahead: tuple[int, Future[bytes]] | None = None  # (offset, the read of the window there)

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def read(self, offset: int) -> bytes:
        """The window at ``offset``; the next one is read meanwhile."""
        if self.ahead is not None and self.ahead[0] == offset:
            data = self.ahead[1].result()
        else:
            data = self.view.read(offset, self.width)
        after = offset + len(data)
        self.ahead = None
        if after < len(self.view):
            if self.pool is None:
                from concurrent.futures import ThreadPoolExecutor
                self.pool = ThreadPoolExecutor(1, thread_name_prefix="memreport-read")
            self.ahead = (after, self.pool.submit(self.view.read, after, self.width))
        return data
