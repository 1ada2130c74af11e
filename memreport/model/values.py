"""The small records reports are made of: per-tile columns, printed figures, histogram bins."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .programs import FilePrograms

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np  # imported where used: `memreport --version` and `--help` need no numpy


@dataclass(frozen=True, eq=False)
class Column:
    """One per-tile breakdown item (an ELF section, a profile category).

    ``present`` is False where a tile lacks the item (an ELF without that
    section); None means every tile has it. ``counted`` says whether the item
    is part of the tile's memory (SHF_ALLOC sections, profile categories).
    """

    values: np.ndarray
    present: np.ndarray | None = None
    counted: bool = True

    def __post_init__(self) -> None:
        check_bytes_array("column", self.values)
        if self.present is not None and (self.present.dtype != bool or self.present.shape != self.values.shape):
            raise ValueError("present must be a bool array shaped like values")

    def get(self, tile: int) -> int | None:
        """The item's bytes on one tile, or None where the tile lacks it."""
        if self.present is not None and not self.present[tile]:
            return None
        return int(self.values[tile])


# A view of the bytes (liveness, overlapped bytes: ``counted`` False) never displaces a source's own item of the
# same name: it takes this suffix instead, as often as needed.
NOT_COUNTED = " (not counted)"


def add_view(breakdown: dict[str, Column], name: str, column: Column) -> None:
    """Put the not-counted ``column`` into ``breakdown`` as ``name``, or ``name (not counted)`` if that is taken."""
    while name in breakdown:
        name += NOT_COUNTED
    breakdown[name] = column


def find_view(breakdown: Mapping[str, Column], name: str) -> Column | None:
    """The not-counted column :func:`add_view` put in as ``name``, or None."""
    while name in breakdown:
        if not breakdown[name].counted:
            return breakdown[name]
        name += NOT_COUNTED
    return None


@dataclass(frozen=True)
class TileDetail:
    """What a source printed about one tile (a text report's detailed tiles)."""

    tile: int
    including_gaps: int | None
    excluding_gaps: int | None
    breakdown: Mapping[str, int] = field(default_factory=dict)
    regions: Mapping[str, int] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TileBytes:
    """A tile and a byte count (the Maximum lines)."""

    tile: int
    bytes: int


@dataclass(frozen=True)
class Bin:
    """One histogram row: ``count`` tiles in ``[low_kib, high_kib)`` KiB."""

    low_kib: int
    high_kib: int
    count: int


@dataclass(frozen=True)
class Histogram:
    """Tiles per KiB bin; every bin has the width ``bin_kib``.

    ``elided_before`` lists the positions in ``bins`` before which the source
    left rows out (a pasted histogram's ``.`` lines, docs/FORMATS.md §8.2);
    ``len(bins)`` means after the last row. The rows left out are unknown:
    they are never invented, and renderers show an elision line there.
    """

    bin_kib: int
    bins: tuple[Bin, ...]
    elided_before: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if any(not 0 <= i <= len(self.bins) for i in self.elided_before) or \
                list(self.elided_before) != sorted(set(self.elided_before)):
            raise ValueError(f"elided_before must be distinct positions of 0..{len(self.bins)}, in order")

    @property
    def total(self) -> int:
        return sum(b.count for b in self.bins)


@dataclass(frozen=True)
class PrintedSummary:
    """Figures a source printed itself (text reports): kept, never recomputed."""

    histogram: Histogram | None = None
    max_including_gaps: TileBytes | None = None
    max_excluding_gaps: TileBytes | None = None
    tiles_out_of_memory: int | None = None
    including_gaps: int | None = None
    excluding_gaps: int | None = None


# What an out-of-memory message can be (docs/FORMATS.md §8.6); see OutOfMemoryMessage.
OOM_KINDS = ("tile-memory", "variables", "profile-saved", "report-saved", "exchange", "code", "host-stream")


@dataclass(frozen=True)
class OutOfMemoryMessage:
    """An out-of-memory error message found in a log, with what it states and nothing more.

    ``kind`` is one of :data:`OOM_KINDS`: ``tile-memory`` ("Out of memory on
    tile T: U bytes used but tiles only have C bytes of memory"),
    ``variables`` ("Cannot fit all variable data onto one or more tiles",
    perhaps with "Profile saved to: P"), ``profile-saved`` (PopTorch's "the
    graph profile is available here: P"), ``report-saved`` (TensorFlow's "The
    out of memory summary ... report saved to P"), ``exchange`` ("Tile T
    receives more data than it has total memory in exchange 'E'"), ``code``
    ("tile T _poplar_start must be 0 not B bytes from the start of memory")
    and ``host-stream`` ("Single stream of length N in bufferIndex K": host
    memory, not tile memory). ``bytes_used`` is the figure the message calls
    "bytes used", which Poplar does not define further (neither "including"
    nor "excluding gaps"); ``bytes_per_tile`` the capacity it states.
    ``archive`` is an ``archive.a`` found beside a saved profile. ``place``
    is where the message is in a notebook (``cell 7 [4], line 12``; None in
    a plain log, where ``line`` says it): :attr:`where` gives either.
    """

    kind: str
    line: int
    text: str
    tile: int | None = None
    bytes_used: int | None = None
    bytes_per_tile: int | None = None
    exchange: str | None = None
    code_offset: int | None = None
    stream_bytes: int | None = None
    buffer_index: int | None = None
    saved_path: str | None = None
    archive: str | None = None
    place: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in OOM_KINDS:
            raise ValueError(f"kind must be one of {', '.join(OOM_KINDS)}, not {self.kind!r}")
        for name in ("tile", "bytes_used", "bytes_per_tile", "code_offset", "stream_bytes", "buffer_index"):
            value = getattr(self, name)
            if value is not None and not 0 <= value < 2 ** 63:
                raise ValueError(f"{name} must be in 0..2**63-1, not {value}")
        if self.line < 1:
            raise ValueError(f"line must be >= 1, not {self.line}")

    @property
    def names_tile(self) -> bool:
        """Whether it names a tile that does not fit (tile memory, an exchange, code)."""
        return self.tile is not None and self.kind in ("tile-memory", "exchange", "code")

    @property
    def tile_memory(self) -> bool:
        """Whether it is about tile memory (every kind but a host stream buffer)."""
        return self.kind != "host-stream"

    @property
    def where(self) -> str:
        """Its place as a reader shows it: ``line 1,234``, or in a notebook ``cell 7 [4], line 12``."""
        return self.place or f"line {self.line:,}"


@dataclass(frozen=True)
class LogRun:
    """The run (one program, one process) of a log that a report comes from (issue #23).

    ``index`` is its place among the log's ``count`` runs (1-based, in order
    of their first lines); ``first_line`` and ``last_line`` the lines of it
    the reader saw (a launch line, memory text, the error that ended it);
    ``process`` the launcher tag's ``job,rank`` (None untagged); ``failure``
    what ended it (an uncaught C++ exception, a Python error), None when no
    error was seen.
    """

    index: int
    count: int
    first_line: int
    last_line: int
    process: str | None = None
    failure: str | None = None

    def __post_init__(self) -> None:
        if not (1 <= self.index <= self.count and 1 <= self.first_line <= self.last_line):
            raise ValueError(f"a log run needs 1 <= index <= count and 1 <= first_line <= last_line, not {self}")

    @property
    def failed(self) -> bool:
        return self.failure is not None


@dataclass(frozen=True)
class ReportPosition:
    """Where a report lies in the file that holds it: its first line and its place among the file's reports;
    for a log of several runs (or a failed one), the run it comes from.

    ``program`` is the 1-based index of the compilation it belongs to among
    the file's compilations (the order ``memreport compiles`` lists them;
    None when the log has no compile lines); ``programs`` the record of all
    the file's programs (:class:`~.programs.FilePrograms`), the same for
    every report of that file; ``place`` its first line's place in a
    notebook (``cell 7 [4], line 12``; None in a plain log).
    """

    line: int   # 1-based line of the report's first line
    index: int  # 1-based, in file order
    count: int  # how many reports the file holds
    run: LogRun | None = None
    program: int | None = None
    programs: FilePrograms | None = None
    place: str | None = None

    @property
    def where(self) -> str:
        """Its first line as a reader shows it: ``line 12,345``, or in a notebook ``cell 7 [4], line 12``."""
        return self.place or f"line {self.line:,}"

    def __post_init__(self) -> None:
        if not (self.line >= 1 and 1 <= self.index <= self.count):
            raise ValueError(f"a report position needs line >= 1 and 1 <= index <= count, not {self}")
        if self.program is not None and (self.program < 1 or (self.programs is not None and
                                                              self.program > self.programs.count)):
            raise ValueError(f"a report's program is 1-based among its file's programs, not {self.program}")


@dataclass(frozen=True)
class SkippedMember:
    """A damaged archive member left out by ``skip_bad_members``: its tile's bytes are unknown."""

    tile: int
    member: str
    reason: str


@dataclass(frozen=True, eq=False)
class ArchiveMembers:
    """Where every member of the archive a report was read from lies (its tile ids are the positions), so
    reading a few tiles' symbols again need not walk a pod's 94,208 headers twice.

    ``identity`` (device, inode, size, modification time) says which file
    this is: a table is used only while the archive is still that file.
    """

    identity: tuple[int, ...]
    names: tuple[str, ...]
    headers: np.ndarray   # absolute offset of each member's header
    starts: np.ndarray    # absolute offset of each member's data
    sizes: np.ndarray     # each member's data size


def check_bytes_array(name: str, arr: np.ndarray, n: int | None = None) -> None:
    """A ValueError/TypeError unless ``arr`` is a 1-D integer array of non-negative sizes (``n`` long)."""
    import numpy as np
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be a 1-D integer numpy array")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} values for {n} tiles")
    if arr.size and arr.dtype.kind == "i" and int(arr.min()) < 0:
        raise ValueError(f"{name} holds a negative size")


INT64_LIMIT = 2 ** 63


def exact_sum(values: np.ndarray) -> int:
    """The exact sum of an integer array as a Python int: numpy's int64 sum wraps past 2**63 without a word
    (two tiles of 2**62 summed to a negative total)."""
    import numpy as np
    if values.size == 0:
        return 0
    values = np.asarray(values, dtype=np.int64)
    peak = max(abs(int(values.max())), abs(int(values.min())))
    if peak * values.size < INT64_LIMIT:  # the usual case: no partial sum can leave int64
        return int(values.sum(dtype=np.int64))
    if values.size >= 1 << 31:
        return sum(exact_sum(values[i:i + (1 << 30)]) for i in range(0, values.size, 1 << 30))
    low, high = values & 0xFFFFFFFF, values >> 32  # each part sums inside int64 for fewer than 2**31 values
    return int(low.sum(dtype=np.int64)) + (int(high.sum(dtype=np.int64)) << 32)


def sums_by(index: np.ndarray, values: np.ndarray, n: int, what: str = "bin") -> np.ndarray:
    """Per-bin int64 sums of non-negative ``values`` by ``index`` (``n`` bins), exact: an OverflowError
    (:func:`check_sums`) where a bin's sum reaches 2**63, which ``np.add.at`` would wrap to a negative."""
    import numpy as np
    check_sums(index, values, n, what)
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, index, values)
    return out


def check_sums(index: np.ndarray, values: np.ndarray, n: int, what: str = "bin") -> None:
    """An OverflowError naming the first bin (``what`` N) whose non-negative ``values`` sum to 2**63 or more;
    free unless the largest value times their number reaches 2**63."""
    import numpy as np
    if not values.size or int(values.max()) * values.size < INT64_LIMIT:
        return
    approx = np.bincount(index, weights=values.astype(np.float64), minlength=n)
    for b in np.flatnonzero(approx >= INT64_LIMIT / 4).tolist():  # few: summed exactly, in Python ints
        total = sum(values[index == b].tolist())
        if total >= INT64_LIMIT:
            raise OverflowError(f"{what} {b:,} sum to {total:,}: 2**63 or more")
