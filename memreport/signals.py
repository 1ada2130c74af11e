"""How a command-line run ends: SIGTERM and SIGHUP unwind it like an exception, so every temporary file is
removed on the way out (their default action kills the process where it stands), and the command exits
128 + the signal, as a shell reports a process a signal ended; a closed pipe ends it quietly, running out of
memory or a bug in one line (:func:`run_ends`); and how a process runs the command (:func:`command_line`)."""
from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator

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


def unexpected(exc: BaseException) -> str:
    """A bug's one line: the exception, its message and where it was raised, so it can be reported."""
    import traceback
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    detail = " ".join(str(exc).split())
    detail = detail if len(detail) <= 200 else detail[:197] + "..."
    return (f"unexpected {type(exc).__name__}{where} ({detail}); this is a memreport bug: please report it with "
            "the command and its inputs")


@contextlib.contextmanager
def run_ends(fail: Callable[[str], object], keep: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """Around a command: a signal (SIGTERM, SIGHUP, SIGINT) or a closed pipe (``| head``) ends it with 128 + N,
    temporary files removed; running out of memory, or any other exception (a bug), is one line through
    ``fail``, never a traceback; the ``keep`` exceptions (the command line's own exits) pass as they are."""
    with signals_end_the_run():
        try:
            yield
        except Terminated as exc:  # the stack has unwound: every temporary file is gone
            sys.exit(128 + exc.signum)
        except KeyboardInterrupt:
            sys.exit(128 + signal.SIGINT)
        except BrokenPipeError:  # the reader of stdout has gone (| head): end quietly, as SIGPIPE would
            with contextlib.suppress(OSError, ValueError, AttributeError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
            sys.exit(128 + SIGPIPE)
        except keep:
            raise
        except MemoryError:  # outside the readers, which say so themselves: rendering a pod, say
            fail("out of memory (MemoryError): the run needs more memory than this process may use")
        except Exception as exc:  # noqa: BLE001 - the last resort: one line, never a traceback
            fail(unexpected(exc))


def command_line(main: Callable[..., object]) -> None:
    """``main`` (the ``memreport`` group) as its console script runs it, then an exit that skips the cyclic
    collector's last pass over every object the run made. The process's end frees them all anyway; after
    ``--png`` (matplotlib's 80,000 objects) that pass took 0.1 s.

    memreport does no linear algebra, so numpy's OpenBLAS gets one thread unless the environment says
    otherwise: its pool of spinning threads cost 0.1 s of CPU at every start. Only here, never in ``main``,
    which tests and other programs (a notebook's numpy) call in their own processes."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported (the command does not import it)
    try:
        main(prog_name="memreport")
    finally:
        gc.freeze()
