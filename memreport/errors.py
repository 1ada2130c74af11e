"""The one error hierarchy: library users catch :class:`MemreportError`."""
from __future__ import annotations

MAX_MESSAGE = 400  # characters of a ReadError message: a one-line error stays one readable line
MAX_NAME = 120     # characters of a name (an archive member's) quoted in a message


def shorten(text: str, limit: int = MAX_NAME) -> str:
    """``text``, or its two ends around ``[...]`` when longer than ``limit`` characters."""
    if len(text) <= limit:
        return text
    keep = (limit - 5) // 2
    return f"{text[:keep]}[...]{text[-keep:]}"


class MemreportError(Exception):
    """Base of every error memreport raises on purpose."""


class ReadError(MemreportError):
    """An input could not be read; carries where (file, member, line, offset)."""

    def __init__(self, message: str, *, path: str | None = None, member: str | None = None,
                 line: int | None = None, offset: int | None = None) -> None:
        message = " ".join(message.splitlines())  # one line on stderr, whatever a decoder said
        if len(message) > MAX_MESSAGE:  # a quoted line of a hostile file can be a megabyte long
            message = message[:MAX_MESSAGE - 80] + " [...] " + message[-73:]
        super().__init__(message)
        self.message = message
        self.path = path
        self.member = member
        self.line = line
        self.offset = offset

    def located(self, path: str | None = None, member: str | None = None) -> ReadError:
        """Fill in the file (and member) if the raiser did not know them."""
        if self.path is None and path is not None:
            self.path = path
        if self.member is None and member is not None:
            self.member = member
        return self

    def __str__(self) -> str:
        where = []
        if self.path is not None:
            where.append(self.path)
        if self.member is not None:
            where.append(f"member {shorten(self.member)!r}")
        if self.line is not None:
            where.append(f"line {self.line}")
        text = self.message
        if self.offset is not None:
            text += f" (at byte offset {self.offset})"
        return ": ".join(where + [text])


class UnrecognisedFormat(ReadError):
    """No reader recognises the file's content."""


class Truncated(ReadError):
    """The input ends before a structure it declares."""


class FileChanged(ReadError):
    """The input shrank while it was read (rewritten in place): nothing read from it can be trusted."""


class UnexpectedError(ReadError):
    """A reader failed in a way it does not anticipate (a memreport bug, or an input it does not guard
    against). The message names the original exception's type; ``__cause__`` holds it, traceback and all."""


class WriteError(MemreportError):
    """An output could not be written (a full disk, a closed stdout, a directory): nothing was written."""


class TileCountMismatch(MemreportError):
    """Two reports compared tile by tile are of programs with different tile counts."""


class UnsupportedOperation(MemreportError):
    """The request needs data the source does not hold (e.g. re-binning a text report)."""


class MissingDependency(MemreportError, ImportError):
    """An optional package a feature needs is not installed (pandas for ``to_dataframe``)."""


class ConfigError(MemreportError):
    """A budget file (``.memreport.toml``, pyproject.toml's ``[tool.memreport]``) that cannot be used: bad TOML,
    an unknown key or a bad value. Names the file, the line and the key (bad usage: exit 2 in the CLI)."""

    def __init__(self, message: str, *, path: str, line: int | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.message, self.path, self.line, self.key = message, path, line, key

    def __str__(self) -> str:
        where = [self.path] + ([f"line {self.line}"] if self.line else []) + ([self.key] if self.key else [])
        return ": ".join(where + [self.message])
