"""Thin archives' members (``!<thin>``, docs/FORMATS.md §5): files the archive names instead of holding.

A thin archive is a list of paths, whoever wrote it: a member is read only
if its path stays inside the archive's directory (or the ``thin_root`` a
user gives), only as far as its section table, and nothing of it is ever
quoted in a message.
"""
from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator

from ...errors import ReadError
from .file import TileSections, scan_elf
from .fileview import FileView


def thin_member_path(archive: str, name: str, root: str | None = None) -> str:
    """Where a thin archive's member lives, symbolic links resolved: ``name`` relative to the archive's
    directory, which it may not leave (nor ``root``, when given, the directory it may lie anywhere under
    instead).

    The check is on the resolved path (every symbolic link followed, ``..``
    taken after the link it follows), so neither a hostile archive nor a link
    beside it can make memreport open ``/etc/passwd`` or
    ``../../proc/self/environ``; links that stay inside are followed.
    """
    if "\0" in name:
        raise ReadError("a thin archive member's path cannot hold a NUL byte")
    base = os.path.dirname(os.path.abspath(archive))
    given = os.path.abspath(root) if root is not None else base
    allowed = os.path.realpath(given)
    path = os.path.realpath(os.path.join(base, name))
    if os.path.commonpath([allowed, path]) != allowed:
        lexical = os.path.normpath(os.path.join(base, name))
        inside = os.path.commonpath([given, lexical]) == given
        kind = ("a symbolic link to a path" if inside else "an absolute path" if os.path.isabs(name)
                else "a path")
        where = f"the thin root {given}" if root is not None else f"the archive's directory ({given})"
        raise ReadError(f"thin archive member is {kind} outside {where}: memreport reads thin members only "
                        "there (--thin-root DIR widens it)")
    return path


@contextlib.contextmanager
def _member_view(archive: str, name: str, root: str | None, read: list[str] | None = None) -> Iterator[FileView]:
    """The member's own file, confined (:func:`thin_member_path`), opened without blocking, a regular file;
    its resolved path is added to ``read`` before it is opened."""
    path = thin_member_path(archive, name, root)
    if read is not None:
        read.append(path)
    try:
        # A FIFO must not block the open; the path is resolved, so a link now at its end was put there since.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise ReadError(f"thin archive member cannot be read: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ReadError("thin archive member is not a regular file")
        yield FileView(fd, info.st_size)
    finally:
        os.close(fd)


def scan_thin_member(archive: str, name: str, root: str | None = None,
                     names_cache: dict | None = None, read: list[str] | None = None) -> TileSections:
    """The sections of a thin archive's member, read from its own file only as far as the scan needs (its
    resolved path added to ``read``: every file memreport reads is an input, never an output).

    Whatever the archive declares, no more of the file than the ELF header,
    the section table and the section names is read, and none of it is
    quoted in an error: the path comes from the archive, whoever wrote it.
    """
    with _member_view(archive, name, root, read) as view:
        try:
            return scan_elf(view, 0, len(view), names_cache=names_cache, quote=False)
        except ReadError as exc:
            exc.offset = None  # an offset into the member's own file would read as one into the archive
            raise


def read_thin_member(archive: str, name: str, root: str | None = None) -> bytes:
    """A thin archive's member whole (its symbol table is wanted), confined as :func:`scan_thin_member` is."""
    with _member_view(archive, name, root) as view:
        return view[0:len(view)]
