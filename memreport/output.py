"""Write an output whole or not at all: a temporary file beside the target, then a rename."""
from __future__ import annotations

import os
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
    if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):
        # A device or FIFO (-o /dev/null, a pipe): renaming over it would replace it with a file.
        try:
            with open(path, "wb") as f:
                f.write(payload)
        except OSError as exc:
            raise MemreportError(f"{path}: cannot write: {exc.strerror or exc}") from None
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".memreport-", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise MemreportError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise MemreportError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
