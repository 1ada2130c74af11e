"""Byte ranges of a file read safely: a file that shrinks while it is read is a ReadError, never a crash.

A mapped file (``mmap``) that another process truncates (a CI job
rewriting ``archive.a`` in place) kills the reading process with SIGBUS on
the first page past the new end, and mapping a file larger than the
address space allows (``ulimit -v``) fails outright. Reading ranges with
``pread`` has neither problem: a read that returns less than the file held
when it was opened says the file changed, and only the ranges asked for
take memory. Copying costs time, though, so a large archive is mapped
where a read lease guarantees no process can change it meanwhile
(:class:`LeasedMapping`).
"""
from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from ...errors import FileChanged, ReadError

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

    def sizes(self) -> str:
        """The file's size when opened and now, in words."""
        try:
            now = f"{os.fstat(self.fd).st_size:,} bytes now"
        except OSError:
            now = "its size now unknown"
        return f"{self.size:,} bytes when opened, {now}"

    def _shrank(self, at: int) -> FileChanged:
        return FileChanged(f"the file shrank while it was read ({self.sizes()}): was it rewritten in place?",
                           offset=at)

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
    """Windows of a file, each read in a thread while the one before is scanned (so two cores copy and scan
    at once). A window asked for where the last one ended is the one read ahead; :meth:`close` waits for a
    read under way."""

    def __init__(self, view: FileView, width: int) -> None:
        self.view, self.width = view, width
        self.pool: ThreadPoolExecutor | None = None
        self.ahead: tuple[int, Future[bytes]] | None = None  # (offset, the read of the window there)

    def close(self) -> None:
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


class LeasedMapping:
    """A file mapped whole under a read lease (Linux): the windows of a large archive without copying them.

    A mapped file that another process truncates kills the reader with
    SIGBUS. A read lease makes any process that opens the file to write it,
    or truncates it, wait until the lease is released (at most
    ``/proc/sys/fs/lease-break-time``, 45 s by default); :meth:`broken` says
    one is waiting, and the reader then stops using the mapping and closes it,
    which releases the lease, well within that time. A reader stopped for
    longer (Ctrl-Z, SIGSTOP) loses its lease and may find the file shorter:
    so the mapping is touched only in a child process (:mod:`.isolated`),
    whose SIGBUS is then a FileChanged. :meth:`open` returns
    None where no lease can be had (another system, another user's file, a
    file open for writing, a file system without leases) or the file cannot
    be mapped (``ulimit -v``): the reader then copies windows with ``pread``.
    """

    def __init__(self, fd: int, mapped) -> None:
        self.fd, self.mapped = fd, mapped

    @classmethod
    def open(cls, fd: int, size: int) -> LeasedMapping | None:
        try:
            import fcntl
            import mmap
            import signal
            set_lease, set_signal = fcntl.F_SETLEASE, fcntl.F_SETSIG
        except (ImportError, AttributeError):
            return None
        try:
            # The kernel tells of a lease break with SIGIO, whose default action ends the process: SIGURG's
            # default is to ignore it, and the reader polls broken() instead.
            fcntl.fcntl(fd, set_signal, signal.SIGURG)
            fcntl.fcntl(fd, set_lease, fcntl.F_RDLCK)
        except OSError:
            return None
        try:
            mapped = mmap.mmap(fd, size, access=mmap.ACCESS_READ)
        except (OSError, ValueError, OverflowError):  # no address space for it (ulimit -v), say
            cls._unlease(fd)
            return None
        return cls(fd, mapped)

    def broken(self) -> bool:
        """Whether a process waits to write the file (its lease is being broken)."""
        import fcntl
        try:
            return fcntl.fcntl(self.fd, fcntl.F_GETLEASE) != fcntl.F_RDLCK
        except OSError:
            return True

    def release(self, start: int, stop: int) -> None:
        """Let the kernel drop the pages already read, so the mapping never counts whole towards memory use."""
        import mmap
        advice = getattr(mmap, "MADV_DONTNEED", None)
        start -= start % mmap.PAGESIZE
        if advice is not None and stop > start:
            with contextlib.suppress(OSError, ValueError):
                self.mapped.madvise(advice, start, stop - start)

    def close(self) -> None:
        self.mapped.close()
        self._unlease(self.fd)

    @staticmethod
    def _unlease(fd: int) -> None:
        import fcntl
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
