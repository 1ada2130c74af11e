"""Signals at the command line: SIGTERM and SIGHUP unwind the run like an exception, so every temporary file
is removed on the way out (their default action kills the process where it stands); the command then
exits 128 + the signal, as a shell reports a process a signal ended."""
from __future__ import annotations

import contextlib
import signal
import threading

SIGPIPE = getattr(signal, "SIGPIPE", 13)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (removing temporary files), then exit 128 + the signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum, frame):
    raise Terminated(signum)


@contextlib.contextmanager
def signals_end_the_run():
    """SIGTERM and SIGHUP raise :class:`Terminated` (their default kills the process where it stands, temporary
    files left behind); the handlers before are restored after. Only the main thread can set handlers."""
    wanted = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {signum: signal.signal(signum, _terminate) for signum in wanted}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
