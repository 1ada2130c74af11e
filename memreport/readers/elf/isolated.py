"""Work on a mapped file in a child process, so that a SIGBUS there is an error here, never a crash.

A read lease keeps writers away from a mapped archive only while its reader
runs: a reader stopped (Ctrl-Z, SIGSTOP, a frozen CI job) for longer than
the kernel's lease-break time (``/proc/sys/fs/lease-break-time``, 45 s by
default) loses its lease, a writer truncates the file, and the next touch of
a page past the new end raises SIGBUS, which no Python code can catch (a
handler runs only after the faulting instruction, which faults again). So
the mapped scan runs in a forked child (:func:`run`): it sends its progress
and then its result through a pipe, and its death by SIGBUS is
:class:`ChildDied` here, which the reader turns into a "changed while read"
error. Where forking is not safe (another thread runs: it may hold a lock the
child would wait for) or not there, :func:`available` says so and the
reader copies the file with ``pread`` instead.

A frame's value is pickled with its arrays' memory out of band (pickle
protocol 5): each array is written from where it lies and read into the
buffer it is rebuilt over, so neither side holds a pickled copy of the tiles
(a pod archive's 20 MB of section rows) beside the tiles themselves.
"""
from __future__ import annotations

import os
import pickle
import signal
import struct
import threading
from typing import Any, Callable

_FRAME = struct.Struct("<cQI")  # kind, pickle length, out-of-band buffers; then each buffer's length (_LENGTH)
_LENGTH = struct.Struct("<Q")
_PROGRESS, _RESULT, _ERROR = b"p", b"r", b"e"


class ChildDied(Exception):
    """The child ended without a result: killed by ``signum`` (0: it exited without one)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name if signum else "no result")
        self.signum = signum


def available() -> bool:
    """Whether :func:`run` may fork: a POSIX system, and no other thread in this process."""
    return hasattr(os, "fork") and threading.active_count() == 1


def run(work: Callable[[Callable[..., None]], Any], on_progress: Callable[..., None] | None) -> Any:
    """``work(send)`` in a forked child: what it returns is returned here and what it raises is raised here
    (pickled); each ``send(*args)`` calls ``on_progress(*args)`` here. Raises :class:`ChildDied` when the
    child dies first (of SIGBUS, say). An exception here (Ctrl-C) kills the child."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child: coverage is not measured there)
        _child(read_end, write_end, work)
    os.close(write_end)
    kind, message, status = None, None, None
    try:
        with os.fdopen(read_end, "rb") as pipe:
            while kind is None:
                received = _receive(pipe)
                if received is None:
                    break
                frame, value = received
                if frame == _PROGRESS:
                    if on_progress is not None:
                        on_progress(*value)
                else:
                    kind, message = frame, value
        status = os.waitpid(pid, 0)[1]
    finally:
        if status is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    if kind == _RESULT:
        return message
    if kind == _ERROR and isinstance(message, BaseException):
        raise message
    raise ChildDied(os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0)


def frames(frame: bytes, value: Any) -> list[Any]:
    """What is written for ``value``: the head (kind, lengths), the pickle, then each array's memory as it lies
    (read-only views of it, never copies)."""
    buffers: list[pickle.PickleBuffer] = []
    payload = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
    raw = [buffer.raw() for buffer in buffers]
    head = _FRAME.pack(frame, len(payload), len(raw)) + b"".join(_LENGTH.pack(r.nbytes) for r in raw)
    return [head, payload, *raw]


def _receive(pipe: Any) -> tuple[bytes, Any] | None:
    """The next frame's kind and value, each out-of-band buffer read into the memory its array keeps; None at
    the end of the pipe or a frame cut short (the child died writing it)."""
    head = pipe.read(_FRAME.size)
    if len(head) < _FRAME.size:
        return None
    frame, length, count = _FRAME.unpack(head)
    lengths = pipe.read(_LENGTH.size * count)
    payload = pipe.read(length)
    if len(lengths) < _LENGTH.size * count or len(payload) < length:
        return None
    buffers = []
    for (size,) in _LENGTH.iter_unpack(lengths):
        buffer = bytearray(size)
        if pipe.readinto(buffer) < size:  # a buffered reader fills it unless the pipe ends
            return None
        buffers.append(buffer)
    return frame, pickle.loads(payload, buffers=buffers)


def _child(read_end: int, write_end: int, work: Callable[[Callable[..., None]], Any]) -> None:  # pragma: no cover
    """Run ``work`` and send what comes of it; never return (``os._exit``: the parent's clean-ups, buffers and
    exit handlers are the parent's alone)."""
    try:
        os.close(read_end)

        def send(frame: bytes, value: Any) -> None:
            for part in frames(frame, value):
                data = memoryview(part)
                while data:
                    data = data[os.write(write_end, data):]

        try:
            result = (_RESULT, work(lambda *args: send(_PROGRESS, args)))
        except BaseException as exc:  # noqa: BLE001 - Ctrl-C and signals too: the parent raises them again
            result = (_ERROR, exc)
        try:
            send(*result)
        except Exception:  # noqa: BLE001 - an exception that cannot be pickled: its words
            send(_ERROR, RuntimeError(f"{type(result[1]).__name__}: {result[1]}"))
    finally:
        os._exit(0)
