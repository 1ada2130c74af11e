"""A progress bar on stderr for inputs that take more than a second to read (terminals only), and the warnings
raised while reading, one line each on stderr; every name they quote as :func:`shown` (what stderr may show).

Readers report ``progress(done, total)`` through :class:`ReadOptions`
(the ar reader: bytes of the archive, every 4,096 members). The bar stays
hidden for the first second, so quick reads print nothing, and it never
appears when stderr is not a terminal (a pipe, a file, a CI log).
"""
from __future__ import annotations

import dataclasses
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
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
            self.bar = click.progressbar(length=total, label=shown(self.label), file=self.file, show_eta=True,
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


@contextmanager
def file_bars(stream: TextIO | None = None) -> Iterator[Callable[[str], ReadProgress | None]]:
    """For files read one after another (a run's logs): a callback giving each file its bar (None when ``stream``,
    stderr, is not a terminal), the previous file's closed first; the last is closed on the way out."""
    bars: list[ReadProgress] = []

    def progress(path: str) -> ReadProgress | None:
        while bars:  # the previous file's bar is done
            bars.pop().close()
        bar = file_progress(path, stream)
        if bar is not None:
            bars.append(bar)
        return bar

    try:
        yield progress
    finally:
        while bars:
            bars.pop().close()


@contextmanager
def reading(path: str, options: ReadOptions) -> Iterator[ReadOptions]:
    """Around one file's reading (a session's ``around``): a bar on stderr for slow reads (terminals only), the
    warnings raised one line each."""
    file_options, bar = with_progress(options, path)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield file_options
    finally:
        if bar is not None:
            bar.close()
    echo_warnings(caught)


def echo_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    """One line each on stderr, like errors (Python's format adds a source line), and each message once."""
    for message in dict.fromkeys(str(w.message) for w in caught):
        click.echo(f"memreport: warning: {shown(message)}", err=True)


def shown(message: str) -> str:
    """``message`` as stderr may show it: the names it quotes (a file's, a member's, a module's) with their control
    characters escaped (:func:`memreport.render.layout.visible`; issue 33 item 8)."""
    from .render.layout import visible  # analysis (numpy) loads with it: --help stays quick
    return visible(message)
