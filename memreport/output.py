"""Write every output whole, or none: temporary files beside their targets, renamed once all are written; and the
width and colour of text going to an output (a terminal's width, ``COLUMNS``, ``NO_COLOR``).

The target is the real file behind any symlink, and an existing file keeps
its mode; devices and FIFOs are written in place, never replaced, and so is
a path that names one of this process's open files (``/dev/stdout``,
``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N``): it is written through
that descriptor, so ``-o /dev/stdout >> ci.log`` appends and a pipe works. Text goes
to files as UTF-8, and to stdout in its own encoding; bytes a file name held
that were not UTF-8 come out as they were, and a character stdout cannot
encode is written as a backslash escape, never a crash.
"""
from __future__ import annotations

import codecs
import contextlib
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from .errors import MemreportError, WriteError

STDOUT = "-"
TEMPORARY = (".memreport-", ".tmp")  # prefix and suffix of the temporary files


def _on_unencodable(exc: UnicodeError) -> tuple[str | bytes, int]:
    """The error handler for stdout: undecodable file-name bytes back as they were, other characters escaped."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start:exc.end]
    if all("\udc80" <= c <= "\udcff" for c in text):  # surrogateescape's stand-ins for bytes
        return bytes(ord(c) - 0xDC00 for c in text), exc.end
    return text.encode("ascii", "backslashreplace").decode("ascii"), exc.end


codecs.register_error("memreport.output", _on_unencodable)


def write_output(path: str, data: str | bytes) -> None:
    """Write ``data`` to ``path`` (``-`` is stdout), whole or not at all."""
    write_outputs([(path, data)])


@dataclass
class _Staged:
    path: str    # as given
    real: str    # the file it names (symlinks resolved)
    temp: str    # the temporary file beside it
    mode: int


def write_outputs(outputs: Sequence[tuple[str, str | bytes]]) -> None:
    """Write every ``(path, data)``, or none: a :class:`~memreport.errors.WriteError` leaves no file changed.

    Files are written to temporary files first; then stdout, devices and
    FIFOs (which cannot be taken back) are written; then the temporary files
    are renamed over their targets. An exception at any point, a signal's
    included, removes every temporary file not yet renamed, but for a closed
    pipe: when the reader of stdout leaves early (``| head -1``), every file
    is already written whole and is renamed into place before the
    :class:`BrokenPipeError` goes on (the command ends quietly, 141).
    """
    staged: list[_Staged] = []
    try:
        direct: list[tuple[str, str | int | None, str | bytes]] = []  # stdout (None), a descriptor, a device
        for path, data in outputs:
            if path == STDOUT:
                direct.append((path, None, data))
                continue
            descriptor = _descriptor(path)
            if descriptor is not None:  # written through the descriptor: its offset and O_APPEND stand
                direct.append((path, descriptor, data))
                continue
            real, existing = _target(path)
            if existing is not None and not stat.S_ISREG(existing.st_mode):
                direct.append((path, real, data))  # a device or FIFO: renaming over it would replace it
                continue
            mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
            _stage(staged, path, real, mode, data)
        try:
            for path, device, data in direct:
                if device is None:
                    _write_stdout(data)
                elif isinstance(device, int):
                    _write_descriptor(path, device, data)
                else:
                    _write_in_place(path, device, data)
        except BrokenPipeError:  # the reader left (| head -1): the files asked for are whole, so they stand
            _rename(staged)
            raise
        _rename(staged)
    finally:
        for entry in staged:
            with contextlib.suppress(OSError):
                os.unlink(entry.temp)


def _rename(staged: list[_Staged]) -> None:
    """Rename each staged file over its target, taking it off ``staged`` once it is there."""
    while staged:
        entry = staged[0]
        try:
            os.replace(entry.temp, entry.real)
        except OSError as exc:
            raise WriteError(f"{entry.path}: cannot write: {exc.strerror or exc}") from None
        staged.pop(0)


_STANDARD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_DESCRIPTOR = re.compile(r"/dev/fd/(\d+)|/proc/(?:self|thread-self|(\d+)(?:/task/\d+)?)/fd/(\d+)")


def _descriptor(path: str) -> int | None:
    """The descriptor of this process that ``path`` names (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``,
    ``/proc/PID/fd/N`` with this PID, or a symlink to one of them), or None.

    ``realpath`` would follow ``/proc/self/fd/1`` to the file stdout was
    opened on (or to ``pipe:[...]``, no path at all), and replacing that
    file would undo a ``>>``; so the last name is followed a link at a time,
    and resolution stops at a descriptor.
    """
    current = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on links followed
        head, tail = os.path.split(current)
        current = os.path.join(os.path.realpath(head), tail)  # /dev/fd/1 -> /proc/PID/fd/1
        if current in _STANDARD:
            return _STANDARD[current]
        match = _DESCRIPTOR.fullmatch(current)
        if match is not None:
            fd, pid, number = match.groups()
            if fd is not None:
                return int(fd)
            if pid is None or int(pid) == os.getpid():
                return int(number)
        try:
            link = os.readlink(current)
        except OSError:  # not a link, or nothing there: an ordinary path
            return None
        current = os.path.normpath(os.path.join(os.path.dirname(current), link))
    return None


def _target(path: str) -> tuple[str, os.stat_result | None]:
    """The real file ``path`` names, and its status (None when it does not exist yet)."""
    if not path:
        raise WriteError("an empty path names no file")
    if path.endswith(("/", os.sep)) or os.path.isdir(path):
        raise WriteError(f"{path}: is a directory: give a file name")
    # A symlinked output is written through: the link stays a link and its target gets the output.
    real = os.path.realpath(path)
    try:
        return real, os.stat(real)
    except FileNotFoundError:
        return real, None
    except OSError as exc:  # a symlink loop, a path through a file...
        raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _stage(staged: list[_Staged], path: str, real: str, mode: int, payload: str | bytes) -> None:
    """``payload`` (text as UTF-8) in a new temporary file beside ``real``, listed in ``staged`` before it
    exists, so whatever interrupts this leaves nothing the caller does not know to remove."""
    directory = os.path.dirname(real)
    while True:
        temp = os.path.join(directory, f"{TEMPORARY[0]}{os.urandom(6).hex()}{TEMPORARY[1]}")
        staged.append(_Staged(path, real, temp, mode))
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        except FileExistsError:
            staged.pop()
            continue
        except OSError as exc:
            staged.pop()
            raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from None
        break
    try:
        with os.fdopen(fd, "wb", buffering=0) as f:
            _write_fully(f.write, payload)
        os.chmod(temp, mode)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise


def _write_in_place(path: str, real: str, payload: str | bytes) -> None:
    try:
        with open(real, "wb", buffering=0) as f:
            _write_fully(f.write, payload)
    except OSError as exc:
        raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _write_descriptor(path: str, fd: int, payload: str | bytes) -> None:
    """``payload`` (text as UTF-8, as to any file) written through this process's descriptor ``fd``."""
    for stream in (sys.stdout, sys.stderr):  # what Python buffered for it goes first
        with contextlib.suppress(AttributeError, OSError, ValueError):
            if stream is not None and stream.fileno() == fd:
                stream.flush()
    try:
        _write_fully(lambda chunk: os.write(fd, chunk), payload)
    except BrokenPipeError:
        raise  # the reader has gone (| head): the command line ends quietly
    except OSError as exc:
        raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _write_stdout(data: str | bytes) -> None:
    stream = sys.stdout
    if stream is None:
        raise WriteError("stdout: cannot write: it is closed")
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is None:  # a stream of text only (some notebook front ends)
            stream.write(data if isinstance(data, str) else data.decode("utf-8", "replace"))
            stream.flush()
            return
        stream.flush()
        encoding = getattr(stream, "encoding", None)
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):  # not a file (a test's capture)
            _write_fully(buffer.write, data, encoding)
            buffer.flush()
        else:  # straight to the file: a failed write leaves nothing buffered to fail again at exit
            _write_fully(lambda chunk: os.write(fd, chunk), data, encoding)
    except BrokenPipeError:
        raise  # the reader has gone (| head): the command line ends quietly
    except (OSError, ValueError) as exc:  # ValueError: a closed file
        raise WriteError(f"stdout: cannot write: {getattr(exc, 'strerror', None) or exc}") from None


_TEXT_CHUNK = 1 << 20  # characters encoded at once: a pod's JSON is never held twice, as text and as bytes


def _write_fully(write, data: str | bytes, encoding: str | None = None) -> None:
    """Call ``write`` until all of ``data`` is written, text encoded a chunk at a time (:func:`_encoded`). A
    buffered write that fails part way returns the bytes it wrote and keeps the error (a full disk, a closed
    pipe) for the next call: taken at its word, a temporary file would be renamed into place cut short."""
    total = 0
    chunks = [data] if isinstance(data, bytes) else _encoded(data, encoding)
    for chunk in chunks:
        with memoryview(chunk) as view:
            done = 0
            while done < len(view):
                written = write(view[done:])
                if not written:  # None: a non-blocking stream that would block
                    raise OSError(f"wrote {total + done:,} bytes, then none")
                done += written
        total += done


def _encoded(text: str, encoding: str | None) -> Iterator[bytes]:
    """``text`` in ``encoding`` (UTF-8 for files), with the output error handler, a chunk at a time (an
    incremental encoder: a byte-order mark, where the encoding has one, comes once)."""
    encoder = codecs.getincrementalencoder(encoding or "utf-8")("memreport.output")
    for at in range(0, len(text), _TEXT_CHUNK):
        yield encoder.encode(text[at:at + _TEXT_CHUNK], final=at + _TEXT_CHUNK >= len(text))


def temporary_files(directory: str) -> Iterator[str]:
    """Temporary files this module leaves only if killed outright (SIGKILL): for tests and clean-ups."""
    prefix, suffix = TEMPORARY
    return (name for name in os.listdir(directory) if name.startswith(prefix) and name.endswith(suffix))


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: the same inode when both exist, else the same real path."""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def check_outputs(inputs: Sequence[str], outputs: Sequence[tuple[str, str]],
                  stdin_file: tuple[int, int] | None = None) -> None:
    """A :class:`MemreportError` (bad usage) when an output (``(option, path)``) is an input or another output.

    An input is never written over, and two outputs of one run never write
    one file. Devices (``/dev/null``) may take several outputs. ``inputs``
    are every file read, a thin archive's members too (``files_read`` of a
    report): each is looked at once, however many there are. ``stdin_file``
    is the device and inode of the regular file standard input was
    redirected from (``memreport - -o run.log < run.log``), read through a
    spool file whose own name says nothing of it.
    """
    files = [(option, path) for option, path in outputs if path != STDOUT]
    for option, path in files:
        if not path:
            raise MemreportError(f"{option} '': an empty path names no file")
        if path.endswith(("/", os.sep)) or os.path.isdir(path):
            raise MemreportError(f"{option} {path} is a directory: give a file name")
    if files:
        read = _identities(source for source in inputs if source != STDOUT)
        if stdin_file is not None:
            read.setdefault(("file", *stdin_file), "<stdin>")
        for option, path in files:
            source = read.get(_identity(path))
            if source is not None:
                raise MemreportError(f"{option} {path} is the input {source}: memreport never writes over its "
                                     "inputs")
    for i, (option, path) in enumerate(files):
        for other_option, other in files[i + 1:]:
            if same_file(path, other) and not _is_device(path):
                raise MemreportError(f"{option} {path} and {other_option} {other} name the same file: each output "
                                     "needs its own")


def _identity(path: str) -> tuple:
    """What :func:`same_file` compares: the device and inode of a file that exists, else its real path."""
    try:
        st = os.stat(path)
    except OSError:
        return ("path", os.path.normcase(os.path.realpath(path)))
    return ("file", st.st_dev, st.st_ino)


def _identities(paths: Iterable[str]) -> dict[tuple, str]:
    """Each path's :func:`_identity`, the first path to have it named."""
    found: dict[tuple, str] = {}
    for path in paths:
        found.setdefault(_identity(path), path)
    return found


def _is_device(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


WIDTH_FLOOR = 40  # no text is laid out narrower: a COLUMNS of 10 gets 40 columns
DEFAULT_WIDTH = 100  # text not going to a terminal, without COLUMNS (render/layout.py WIDTH)


def text_width(to_terminal: bool) -> int:
    """The columns text fits: ``COLUMNS`` when set to a positive whole number, the terminal's width when
    writing to one, 100 otherwise; never below :data:`WIDTH_FLOOR`. A bad ``COLUMNS`` (``abc``, ``0``) is
    ignored."""
    import shutil
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return max(WIDTH_FLOOR, columns)
    if to_terminal:
        return max(WIDTH_FLOOR, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)
    return DEFAULT_WIDTH


def _to_terminal(output: str) -> bool:
    try:
        return output == STDOUT and sys.stdout.isatty()
    except (ValueError, OSError, AttributeError):  # a closed stdout (None): the write says so (exit 4)
        return False


def output_width(output: str, fmt: str) -> int | None:
    """The width of ``--format text`` written to ``output`` (:func:`text_width`); None for the other formats
    (Markdown, JSON and CSV are not laid out for a terminal)."""
    return text_width(_to_terminal(output)) if fmt == "text" else None


def terminal_options(output: str, color: str) -> tuple[int, bool]:
    """The text's width (:func:`text_width`) and colour: colour when stdout is a terminal and the text goes
    there. ``--color always`` colours files too; ``never``, or ``NO_COLOR`` set to anything but empty with
    ``auto``, turns it off."""
    to_terminal = _to_terminal(output)
    on = color == "always" or (color == "auto" and to_terminal and not os.environ.get("NO_COLOR"))
    return text_width(to_terminal), on
