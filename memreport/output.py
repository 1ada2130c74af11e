"""Write an output whole or not at all: a temporary file beside the target, then a rename.

The target is the real file behind any symlink, and an existing file keeps
its mode; devices and FIFOs are written in place, never replaced.
"""
from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile

from .errors import MemreportError


def write_output(path: str, data: str | bytes) -> None:
    """Write ``data`` to ``path`` (``-`` is stdout) atomically."""
    if path == "-":
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(data)
            sys.stdout.flush()
        return
    payload = data.encode("utf-8") if isinstance(data, str) else data
    # A symlinked -o is written through: the link stays a link and its target gets the report.
    real = os.path.realpath(path)
    try:
        existing = os.stat(real)
    except FileNotFoundError:
        existing = None
    except OSError as exc:  # a symlink loop, a path through a file...
        raise MemreportError(f"{path}: cannot write: {exc.strerror or exc}") from None
    if existing is not None and not stat.S_ISREG(existing.st_mode) and not stat.S_ISDIR(existing.st_mode):
        # A device or FIFO (-o /dev/null, a pipe): renaming over it would replace it with a file.
        try:
            with open(real, "wb") as f:
                f.write(payload)
        except OSError as exc:
            raise MemreportError(f"{path}: cannot write: {exc.strerror or exc}") from None
        return
    # An existing file keeps its permissions (a report kept private stays private); a new one gets the umask's.
    mode = stat.S_IMODE(existing.st_mode) if existing is not None and stat.S_ISREG(existing.st_mode) \
        else 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=".memreport-", suffix=".tmp", dir=os.path.dirname(real))
    except OSError as exc:
        raise MemreportError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise MemreportError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
