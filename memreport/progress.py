"""A progress bar on stderr for inputs that take more than a second to read (terminals only).

Readers report ``progress(done, total)`` through :class:`ReadOptions`
(the ar reader: bytes of the archive, every 4,096 members). The bar stays
hidden for the first second, so quick reads print nothing, and it never
appears when stderr is not a terminal (a pipe, a file, a CI log).
"""
from __future__ import annotations

import dataclasses
import sys
import time
from typing import Any, Callable, TextIO

import click

from .readers import ReadOptions

DELAY_SECONDS = 1.0


class ReadProgress:
    """A ``ReadOptions.progress`` callback drawing a click progress bar once ``delay`` seconds have passed."""

    def __init__(self, label: str, file: TextIO, *, delay: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.label, self.file, self.clock = label, file, clock
        self.delay = DELAY_SECONDS if delay is None else delay
        self.start = clock()
        self.bar: Any = None  # a click progress bar, once drawn

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if total <= 0 or self.clock() - self.start < self.delay:
                return
            from .render.layout import visible  # a file's name as stderr shows it (issue 33 item 8)
            self.bar = click.progressbar(length=total, label=visible(self.label), file=self.file, show_eta=True,
                                         show_percent=True)
            self.bar.__enter__()
        self.bar.update(max(0, min(done, total) - self.bar.pos))

    def close(self) -> None:
        """Finish the bar's line (if it was drawn) so what follows starts on its own."""
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def with_progress(options: ReadOptions, label: str,
                  stream: TextIO | None = None) -> tuple[ReadOptions, ReadProgress | None]:
    """``options`` with a progress bar on ``stream`` (stderr) when it is a terminal; else as they were."""
    stream = sys.stderr if stream is None else stream
    if options.progress is not None or not _is_terminal(stream):
        return options, None
    bar = ReadProgress(label, stream)
    return dataclasses.replace(options, progress=bar), bar


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def file_progress(label: str, stream: TextIO | None = None) -> ReadProgress | None:
    """A progress bar for reading one file on ``stream`` (stderr) when it is a terminal; else None."""
    stream = sys.stderr if stream is None else stream
    return ReadProgress(label, stream) if _is_terminal(stream) else None
