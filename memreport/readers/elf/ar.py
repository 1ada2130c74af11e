"""The ``ar`` reader: every tile ELF of an archive (``target.saveArchive``, docs/FORMATS.md §5), as one report.

The member table is walked by :mod:`.members` (GNU and BSD names, the
symbol index, the ``//`` name table, thin archives); a tile's id is its
member's position, not counting the index and the name table. The report
carries the member table (:class:`~memreport.model.values.ArchiveMembers`),
so the symbols pass (:mod:`.symbols`) finds a few tiles again without a
second walk, and the files a thin archive made it read.

A file truncated while it is read (a CI job rewriting it in place) is a
ReadError, never a SIGBUS: a large archive is mapped only under a read
lease, which keeps writers waiting until the reader lets go, and only in a
child process (:mod:`.isolated`: a reader stopped past the lease-break time
loses its lease, and the child's SIGBUS is then a FileChanged); it is
otherwise read in windows of :data:`BATCH_BYTES` with ``pread``
(:mod:`.fileview`); no address-space limit stands in the way either.
"""
from __future__ import annotations

import os
import signal
from collections.abc import Iterable

import numpy as np

from ...errors import FileChanged, ReadError
from ...model import MAX_TILES, MemoryReport, SkippedMember
from ...model.values import ArchiveMembers
from ..registry import Reader, ReadOptions, register
from . import isolated
from .bulk import scan_many
from .file import TileSections, scan_elf
from .fileview import FileView, LeasedMapping, ReadAhead
from .members import AR_MAGIC, THIN_MAGIC, Member, Walked, forget_name_table, iter_members, member_at, walk
from .sections import MAX_ROW_TILE, SectionNames, SectionRows, sections_report
from .thin import scan_thin_member

BATCH_MEMBERS = 4096   # members scanned at once; progress is reported after each full batch
BATCH_BYTES = 4 << 20  # the window of the archive copied at once (a larger member is read on its own)
MAPPED_BYTES = 16 << 20  # the window of a mapped archive scanned before its pages are released (half the
# peak of 32 MiB windows: a window is mapped whole while it is scanned; no slower: a pod is 120 windows)


class _Tiles:
    """Tiles gathered so far: member names, ELF header fields and section rows."""

    def __init__(self, path: str, skip_bad_members: bool = False) -> None:
        self.path = path
        self.skip_bad_members = skip_bad_members
        self.skipped: list[SkippedMember] = []
        self.names: list[str] = []
        self.table = SectionNames()
        self.rows: list[SectionRows] = []
        self.machine: list[np.ndarray] = []
        self.e_flags: list[np.ndarray] = []
        self.cache: dict = {}
        self.files_read: list[str] = []  # a thin archive's members, resolved
        # Where each member lies (header, data, size: absolute offsets), for find_members; None once a
        # thin member (no data in the archive) is added.
        self.layout: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = []

    def add_batch(self, buf: bytes, walked: Walked, base: int) -> None:
        """Scan a batch with the vectorised scan; members it leaves go to scan_elf, in order. ``buf`` holds
        the archive from offset ``base`` on."""
        first = len(self.names)
        self.make_room(len(walked.names))
        if self.layout is not None:
            self.layout.append((walked.headers + base, walked.starts + base, walked.sizes))
        batch = scan_many(buf, walked.starts, walked.sizes, walked.elf_heads, self.table)
        batch.rows.tile += first
        self.rows.append(batch.rows)
        for i in np.flatnonzero(~batch.ok).tolist():
            try:
                tile = scan_elf(buf, int(walked.starts[i]), int(walked.sizes[i]), names_cache=self.cache)
            except ReadError as exc:
                if exc.offset is not None:
                    exc.offset += base
                if not self.skip_bad_members:
                    raise exc.located(member=walked.names[i], path=self.path) from None
                self.skipped.append(SkippedMember(first + i, walked.names[i], str(exc)))
                continue  # machine and e_flags stay 0: sections_report leaves skipped tiles out of the arch
            self.rows.append(SectionRows.from_sections(first + i, [tile], self.table))
            batch.machine[i], batch.e_flags[i] = tile.machine, tile.e_flags
        self.machine.append(batch.machine)
        self.e_flags.append(batch.e_flags)
        self.names.extend(walked.names)

    def add_member(self, view: FileView, member: Member, thin_root: str | None) -> None:
        """Scan one member the reference way (a thin archive's from its own file)."""
        if self.layout is not None:
            if member.data_offset is None:
                self.layout = None
            else:
                self.layout.append((np.array([member.header_offset], dtype=np.int64),
                                    np.array([member.data_offset], dtype=np.int64),
                                    np.array([member.size], dtype=np.int64)))
        try:
            if member.data_offset is None:
                tile = scan_thin_member(self.path, member.name, thin_root, self.cache, self.files_read)
            else:
                tile = scan_elf(view, member.data_offset, member.size, names_cache=self.cache)
        except ReadError as exc:
            if not self.skip_bad_members or isinstance(exc, FileChanged):  # a changed file spoils every member
                raise exc.located(member=member.name, path=self.path) from None
            self.skip(member.name, exc)
            return
        self.add(member.name, tile)

    def compact(self) -> None:
        """The rows, fields and member places gathered so far in one piece each (fewer objects to send)."""
        if len(self.rows) > 1:
            self.rows = [SectionRows.concat(self.rows)]
        for name in ("machine", "e_flags"):
            parts = getattr(self, name)
            if len(parts) > 1:
                setattr(self, name, [np.concatenate(parts)])
        if self.layout is not None and len(self.layout) > 1:
            headers, starts, sizes = (np.concatenate([part[i] for part in self.layout]) for i in range(3))
            self.layout = [(headers, starts, sizes)]

    def make_room(self, more: int) -> None:
        """Refuse an archive whose tile ids would outgrow the narrow rows (long past any IPU system's tiles)."""
        if len(self.names) + more > MAX_ROW_TILE:
            raise ReadError(f"more than {MAX_ROW_TILE:,} members: beyond any IPU system (at most {MAX_TILES:,} tiles)")

    def add(self, name: str, tile: TileSections) -> None:
        self.make_room(1)
        self.rows.append(SectionRows.from_sections(len(self.names), [tile], self.table))
        self.machine.append(np.array([tile.machine], dtype=np.int64))
        self.e_flags.append(np.array([tile.e_flags], dtype=np.int64))
        self.names.append(name)

    def skip(self, name: str, exc: ReadError) -> None:
        """Keep a damaged member's place (later tile ids must not shift) with no sections."""
        self.make_room(1)
        self.skipped.append(SkippedMember(len(self.names), name, str(exc)))
        self.machine.append(np.zeros(1, dtype=np.int64))
        self.e_flags.append(np.zeros(1, dtype=np.int64))
        self.names.append(name)

    def report(self, fmt: str, identity: tuple[int, ...]) -> MemoryReport:
        if self.skipped and len(self.skipped) == len(self.names):
            first = self.skipped[0]
            raise ReadError(f"no member could be read (member {first.member!r}: {first.reason})")
        machine, e_flags = _joined(self.machine), _joined(self.e_flags)
        members = None
        layout = self.layout
        if layout and sum(part[0].size for part in layout) == len(self.names):  # every member's place is known
            headers, starts, sizes = (_joined([part[i] for part in layout]) for i in range(3))
            members = ArchiveMembers(identity, tuple(self.names), headers, starts, sizes)
        return sections_report(self.path, fmt, self.names, machine, e_flags, SectionRows.concat(self.rows),
                               self.table.names, skipped=tuple(self.skipped), members=members,
                               files_read=tuple(dict.fromkeys(self.files_read)))


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    """The int64 parts in one array: a lone part (the mapped scan's, compacted) as it is, never copied."""
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def file_identity(fd: int) -> tuple[int, ...]:
    """What says an archive is unchanged since it was read: its device, inode, size and modification time."""
    st = os.fstat(fd)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def find_members(view: FileView, positions: Iterable[int], known: ArchiveMembers | None = None) -> dict[int, Member]:
    """The members at ``positions`` (tile ids: file members in order) of the archive ``view`` reads.

    When ``known`` (the report's member table) is that of this very file
    (:func:`file_identity`), it answers at once; otherwise the reference walk
    (:func:`iter_members`, which raises its errors) goes as far as the last
    position asked. Positions past the last member are left out.
    """
    wanted = set(positions)
    if not wanted:
        return {}
    if known is not None and known.identity == file_identity(view.fd):
        names, headers, starts, sizes = known.names, known.headers, known.starts, known.sizes
        return {p: Member(names[p], int(headers[p]), int(starts[p]), int(sizes[p])) for p in wanted if p < len(names)}
    found: dict[int, Member] = {}
    last = max(wanted)
    for position, member in enumerate(iter_members(view)):
        if position in wanted:
            found[position] = member
        if position >= last:
            break
    return found


def read_archive(path: str, prefix: bytes, options: ReadOptions) -> list:
    """Every tile ELF in an archive, as one report."""
    tiles = _Tiles(path, options.skip_bad_members)
    thin = prefix.startswith(THIN_MAGIC)
    with open(path, "rb") as f:
        view = FileView(f.fileno())
        identity = file_identity(f.fileno())
        try:
            offset, long_names = (8, b"") if thin else _read_windows(view, tiles, options.progress)
        finally:
            forget_name_table()
        # The reference path: thin archives, and whatever the fast walk left (it raises the errors).
        for member in iter_members(view, offset, long_names):
            tiles.add_member(view, member, options.thin_root)
            if options.progress is not None and len(tiles.names) % BATCH_MEMBERS == 0:
                options.progress(member.header_offset, len(view))
    if not tiles.names:
        raise ReadError("archive holds no members (an empty archive is not a report)")
    if options.progress is not None:
        options.progress(len(view), len(view))
    return [tiles.report("thin-archive" if thin else "archive", identity)]


def _read_windows(view: FileView, tiles: _Tiles, progress) -> tuple[int, bytes]:
    """The fast path: the archive a window at a time, each window's members scanned at once.

    Windows are of the mapped file while a read lease keeps every writer
    away (:class:`~.fileview.LeasedMapping`), scanned in a child process
    (:mod:`.isolated`: a truncation that beats the lease is a FileChanged,
    never a SIGBUS), else copies read with ``pread`` (the next read in a
    thread meanwhile). A member a window cuts short is read on its own, the
    reference way. Returns where the walk stopped, with the name table read
    so far: the end of the file, or a header the reference path must judge.
    """
    offset, long_names, stopped = 8, b"", False
    if len(view) > BATCH_BYTES and isolated.available():  # small: one pread is cheaper
        mapping = LeasedMapping.open(view.fd, len(view))
        if mapping is not None:
            try:
                offset, long_names, stopped = _mapped_in_child(view, mapping, tiles, progress)
            finally:
                mapping.close()
    if stopped:
        return offset, long_names
    return _copied_windows(view, tiles, progress, offset, long_names)


def _mapped_in_child(view: FileView, mapping: LeasedMapping, tiles: _Tiles, progress) -> tuple[int, bytes, bool]:
    """:func:`_mapped_windows` in a child process, its tiles then this process's."""
    def work(send):
        found = _mapped_windows(view, mapping, tiles, send if progress is not None else None)
        tiles.compact()
        return found, tiles.__dict__
    try:
        found, state = isolated.run(work, progress)
    except isolated.ChildDied as exc:
        if exc.signum != signal.SIGBUS:
            raise ReadError(f"the archive's scan ended unexpectedly ({exc})") from None
        raise FileChanged(f"the file changed while it was read ({view.sizes()}): was it rewritten in place?"
                          ) from None
    tiles.__dict__.update(state)
    return found


def _mapped_windows(view: FileView, mapping: LeasedMapping, tiles: _Tiles, progress) -> tuple[int, bytes, bool]:
    """The mapped archive scanned :data:`MAPPED_BYTES` at a time (each window's pages released after it), until
    the end, a header the reference path must judge (``stopped``) or a writer waiting (the lease broken)."""
    size = len(view)
    offset, long_names = 8, b""
    released = 0  # each window is released again with the next: the kernel maps pages around each fault
    while offset < size:  # (fault-around), so a window's first touches map the end of the one before anew
        if mapping.broken():  # a writer waits: let go of the mapping (and the lease), and copy what is left
            break
        start = offset
        offset, long_names, stopped = _scan_window(view, tiles, progress, mapping.mapped, 0, size,
                                                   min(start + MAPPED_BYTES, size), offset, long_names)
        if stopped:
            return offset, long_names, True
        mapping.release(released, offset)
        released = start
    mapping.release(0, offset)  # and whatever else the kernel mapped meanwhile, before the tiles are sent
    return offset, long_names, False


def _copied_windows(view: FileView, tiles: _Tiles, progress, offset: int, long_names: bytes) -> tuple[int, bytes]:
    """The archive from ``offset`` on, copied a window of :data:`BATCH_BYTES` at a time."""
    size = len(view)
    start = offset
    windows = ReadAhead(view, BATCH_BYTES)
    try:
        while offset < size:
            buf = windows.read(start)
            end = start + len(buf)
            offset, long_names, stopped = _scan_window(view, tiles, progress, buf, start, end, end, offset,
                                                       long_names)
            if stopped:
                return offset, long_names
            start = end if offset < end + BATCH_BYTES else offset  # the next window, read ahead, if it helps
    finally:
        windows.close()
    return offset, long_names


def _scan_window(view: FileView, tiles: _Tiles, progress, buf, base: int, end: int, limit: int, offset: int,
                 long_names: bytes) -> tuple[int, bytes, bool]:
    """The members of ``buf`` (the archive from ``base`` to ``end``) whose headers start before ``limit``,
    from ``offset`` on, a batch at a time: (where the walk got to, the name table so far, whether the
    reference path must judge the header there)."""
    size = len(view)
    while offset < limit:
        room = BATCH_MEMBERS - len(tiles.names) % BATCH_MEMBERS
        walked = walk(buf, offset - base, long_names, room, end - base, end >= size, limit - base)
        if walked.names:
            tiles.add_batch(buf, walked, base)
            if progress is not None and len(tiles.names) % BATCH_MEMBERS == 0:
                progress(base + int(walked.headers[-1]), size)
        if walked.stopped:
            return base + walked.offset, walked.long_names, True
        offset, long_names = base + walked.offset, walked.long_names
        if walked.cut:  # the member at offset runs past the window (perhaps past many): read it alone
            member, offset, long_names = member_at(view, offset, long_names, thin=False)
            if member is not None:
                tiles.add_member(view, member, None)
    return offset, long_names, False


register(Reader("ar", "ar archive of tile ELF files",
                lambda prefix: prefix.startswith((AR_MAGIC, THIN_MAGIC)),
                read_archive, (".a",)))
