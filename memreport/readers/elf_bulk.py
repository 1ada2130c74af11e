"""The bulk pass over many tile ELFs: a vectorised section-table scan and per-section columns.

At pod scale (94,208 tiles) a Python loop per section costs seconds, so
:func:`scan_many` reads the ELF headers, section tables and section-name
tables of a whole batch of members at once (a bytes slice each, read
through numpy record types) from the mapped archive, touching no code. Any member it cannot vouch for (a layout it does
not batch, or anything :func:`memreport.readers.elf.scan_elf` would reject)
is left to ``scan_elf``, the reference, so errors read exactly as in the
member-by-member scan. :func:`sections_report` turns the flat rows into the
model's columns with a few array operations, whatever the tile count.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import ReadError
from ..model import ARCH_BY_EFLAGS, Column, MemoryReport, SkippedMember, Target
from .elf import ELF_MAGIC, EM_GRAPHCORE_IPU, LAYOUTS, SHF_ALLOC, SHN_XINDEX, SHT_NOBITS, SHT_NULL

# The breakdown is dense (a column of every tile per section name), so its cells are bounded: at most
# MAX_CELLS (150 MB of values and presence flags); past MIN_CELLS (9 MB), at most CELLS_PER_ROW per
# section read, so it stays proportional to the input. Names on the fewest tiles fold into two columns.
MAX_CELLS = 1 << 24
MIN_CELLS = 1 << 20
CELLS_PER_ROW = 16
NOT_ALLOCATED = " (not allocated)"  # the suffix of a name's non-SHF_ALLOC column when it is both
OTHER_ALLOCATED, OTHER = "(other allocated sections)", "(other sections)"
_MAX_OFFSET = 1 << 40  # an offset or size beyond this is left to the reference scan (no int64 overflow)
_ELF_MAGIC = np.frombuffer(ELF_MAGIC, dtype=np.uint8)


class SectionNames:
    """Section names seen so far, each with a small integer id (shared by every batch of a file)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._ids: dict[str, int] = {}
        self.strtabs: dict[bytes, int] = {}   # section-name table contents -> id
        self._strtab_list: list[bytes] = []
        self._decoded: dict[int, int] = {}    # (strtab id << 32 | offset) -> name id

    def id(self, name: str) -> int:
        """The id of a section name, new names numbered in order of appearance."""
        found = self._ids.get(name)
        if found is None:
            found = self._ids[name] = len(self.names)
            self.names.append(name)
        return found

    def strtab_id(self, strtab: bytes) -> int:
        """The id of a section-name table's contents (one per distinct table)."""
        found = self.strtabs.get(strtab)
        if found is None:
            found = self.strtabs[strtab] = len(self._strtab_list)
            self._strtab_list.append(strtab)
        return found

    def name_at(self, strtab_id: int, offset: int) -> int:
        """The id of the NUL-terminated name at ``offset`` in a section-name table (offset checked by the caller)."""
        key = strtab_id << 32 | offset
        found = self._decoded.get(key)
        if found is None:
            strtab = self._strtab_list[strtab_id]
            end = strtab.find(b"\0", offset)
            found = self._decoded[key] = self.id(
                strtab[offset:end if end >= 0 else len(strtab)].decode("utf-8", "replace"))
        return found


@dataclass
class SectionRows:
    """Every counted section of many tiles as flat columns: one row per section."""

    tile: np.ndarray    # int64 tile index
    name: np.ndarray    # int64 id in SectionNames.names
    flags: np.ndarray   # uint64 sh_flags
    size: np.ndarray    # int64 sh_size

    @classmethod
    def empty(cls) -> "SectionRows":
        return cls(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.uint64), np.empty(0, np.int64))

    @classmethod
    def concat(cls, parts: Sequence["SectionRows"]) -> "SectionRows":
        if not parts:
            return cls.empty()
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("tile", "name", "flags", "size")))

    @classmethod
    def from_sections(cls, first_tile: int, tiles: Sequence, names: SectionNames) -> "SectionRows":
        """Rows from reference scans (``TileSections``), tiles numbered from ``first_tile``."""
        tile, name, flags, size = [], [], [], []
        for i, scanned in enumerate(tiles, first_tile):
            for sec_name, _, sec_flags, sec_size in scanned.sections:
                tile.append(i)
                name.append(names.id(sec_name))
                flags.append(sec_flags)
                size.append(sec_size)
        return cls(np.array(tile, dtype=np.int64), np.array(name, dtype=np.int64),
                   np.array(flags, dtype=np.uint64), np.array(size, dtype=np.int64))


@dataclass
class Batch:
    """What :func:`scan_many` made of a batch: rows and ELF header fields of the members it vouches for."""

    rows: SectionRows     # tile = index in the batch
    machine: np.ndarray   # per member (0 where not ok)
    e_flags: np.ndarray   # per member (0 where not ok)
    ok: np.ndarray        # bool per member: False = leave it to scan_elf


def _slices(buf, starts: np.ndarray, width: int) -> np.ndarray:
    """``width`` bytes at each offset in ``starts``, as a (len(starts), width) uint8 array.

    Slicing the buffer in a list is several times faster than a numpy gather
    with a (members x width) index array.
    """
    joined = b"".join([buf[a:a + width] for a in starts.tolist()])
    return np.frombuffer(joined, dtype=np.uint8).reshape(starts.size, width)


def scan_many(buf, bases: np.ndarray, lengths: np.ndarray, heads: np.ndarray, names: SectionNames) -> Batch:
    """Section tables of the ELF files at ``buf[bases[i]:bases[i] + lengths[i]]``.

    ``heads`` holds the first 64 bytes of every member (its ELF header).
    Members not marked ``ok`` have no rows.
    """
    k = bases.size
    machine = np.zeros(k, dtype=np.int64)
    e_flags = np.zeros(k, dtype=np.int64)
    ok = np.zeros(k, dtype=bool)
    parts: list[SectionRows] = []
    # Room for either ELF header; shorter members go to scan_elf.
    elf = (lengths >= 64) & (heads[:, :4] == _ELF_MAGIC).all(axis=1)
    for (cls, order), layout in LAYOUTS.items():
        members = np.flatnonzero(elf & (heads[:, 4] == cls) & (heads[:, 5] == order))
        if members.size:
            ehdr, shdr = layout.ehdr_dtype, layout.shdr_dtype
            header = np.ascontiguousarray(heads[members, :ehdr.itemsize]).view(ehdr).ravel()
            _scan_layout(buf, bases, lengths, members, header, shdr, names, machine, e_flags, ok, parts)
    return Batch(SectionRows.concat(parts), machine, e_flags, ok)


def _scan_layout(buf, bases, lengths, members, header, shdr, names, machine, e_flags, ok, parts) -> None:
    shoff = header["shoff"].astype(np.uint64)
    shnum = header["shnum"].astype(np.int64)
    shstrndx = header["shstrndx"].astype(np.int64)
    length = lengths[members]
    # Only the plain layout; scan_elf handles (or rejects) the rest: no section table, extended
    # numbering, an odd entry size, a table outside the file, a bad name-table index.
    good = ((shoff != 0) & (shoff < _MAX_OFFSET) & (header["shentsize"] == shdr.itemsize) & (shnum > 0)
            & (shstrndx != SHN_XINDEX) & (shstrndx > 0) & (shstrndx < shnum))
    shoff = shoff.astype(np.int64)
    good &= shoff + shnum * shdr.itemsize <= length
    counts = shnum[good]
    uniform = counts.size and (counts == counts[0]).all()  # the usual archive: one section count
    for count in ([int(counts[0])] if uniform else np.unique(counts).tolist()):
        group = np.flatnonzero(good & (shnum == count))
        who = members[group]
        table = _slices(buf, bases[who] + shoff[group], count * shdr.itemsize).view(shdr)  # (g, count)
        _rows(buf, bases[who], length[group], who, table, shstrndx[group], names, ok, parts)
        machine[who] = header["machine"][group]
        e_flags[who] = header["flags"][group]


def _rows(buf, base, length, who, table, shstrndx, names, ok, parts) -> None:
    g = who.size
    strhdr = table[np.arange(g), shstrndx]
    str_off = strhdr["offset"].astype(np.uint64)
    str_size = strhdr["size"].astype(np.uint64)
    fine = (strhdr["type"] != SHT_NOBITS) & (str_off < _MAX_OFFSET) & (str_size < _MAX_OFFSET)
    str_off, str_size = str_off.astype(np.int64), str_size.astype(np.int64)
    fine &= str_off + str_size <= length
    offset = table["offset"].astype(np.uint64)
    size = table["size"].astype(np.uint64)
    sh_type = table["type"]
    counted = sh_type != SHT_NULL
    counted[:, 0] = False  # the null section heads every table
    huge = (offset >= _MAX_OFFSET) | (size >= _MAX_OFFSET)
    offset, size = offset.astype(np.int64), size.astype(np.int64)
    past_end = (sh_type != SHT_NOBITS) & (offset + size > length[:, None])
    bad_name = table["name"] >= str_size[:, None]
    fine &= ~(counted & (huge | past_end | bad_name)).any(axis=1)
    keep = np.flatnonzero(fine)
    if keep.size == 0:
        return
    sid = _strtab_ids(buf, base[keep] + str_off[keep], str_size[keep], names)
    mask = counted[keep]
    per_member = mask.sum(axis=1)
    name_offs = table["name"][keep]
    if (sid == sid[0]).all() and (name_offs == name_offs[0]).all() and (mask == mask[0]).all():
        # The usual archive: every tile has the same sections, named by the same table.
        first = [names.name_at(int(sid[0]), off) for off in name_offs[0][mask[0]].tolist()]
        name_ids = np.tile(np.array(first, dtype=np.int64), keep.size)
    else:
        keys = np.repeat(sid, per_member) << 32 | name_offs[mask].astype(np.int64)
        unique, inverse = np.unique(keys, return_inverse=True)
        ids = np.array([names.name_at(key >> 32, key & 0xFFFFFFFF) for key in unique.tolist()], dtype=np.int64)
        name_ids = ids[inverse.ravel()]
    parts.append(SectionRows(
        tile=np.repeat(who[keep], per_member), name=name_ids,
        flags=table["flags"][keep][mask].astype(np.uint64), size=size[keep][mask]))
    ok[who[keep]] = True


def _strtab_ids(buf, starts: np.ndarray, sizes: np.ndarray, names: SectionNames) -> np.ndarray:
    """The id of every member's section-name table: one comparison when they are all alike."""
    if (sizes == sizes[0]).all():
        width = int(sizes[0])
        tables = _slices(buf, starts, width)
        if (tables == tables[0]).all():
            return np.full(starts.size, names.strtab_id(tables[0].tobytes()), dtype=np.int64)
    known = names.strtabs
    ends = (starts + sizes).tolist()
    starts = starts.tolist()
    sid = [known.get(buf[a:b]) for a, b in zip(starts, ends)]
    if None in sid:
        sid = [names.strtab_id(bytes(buf[a:b])) if i is None else i for i, a, b in zip(sid, starts, ends)]
    return np.array(sid, dtype=np.int64)


def arch_of(machine: np.ndarray, e_flags: np.ndarray, tile_names: Sequence[str]) -> str | None:
    """The architecture every tile agrees on from ``e_machine``/``e_flags`` (None if not IPU ELF)."""
    if machine.size == 0:
        return None
    codes = list(ARCH_BY_EFLAGS)
    low = e_flags & 0xFF
    which = np.full(machine.size, -1, dtype=np.int64)
    for i, code in enumerate(codes):
        which[(low == code) & (machine == EM_GRAPHCORE_IPU)] = i
    differ = np.flatnonzero(which != which[0])
    name = [ARCH_BY_EFLAGS[c].name for c in codes] + [None]
    arch = name[which[0]]
    if differ.size:
        i = int(differ[0])
        this = name[which[i]]
        raise ReadError(f"member {tile_names[i]!r} is {this or 'not IPU code'} "
                        f"but member {tile_names[0]!r} is {arch or 'not IPU code'}")
    return arch


def sections_report(source: str, fmt: str, tile_names: Sequence[str], machine: np.ndarray,
                    e_flags: np.ndarray, rows: SectionRows, names: Sequence[str], options,
                    skipped: Sequence[SkippedMember] = ()) -> MemoryReport:
    """The per-tile model from every tile's sections: one column per section name.

    ``skipped`` tiles (damaged members) have no rows; they take no part in the architecture.
    """
    n = len(tile_names)
    if skipped:
        read = np.ones(n, dtype=bool)
        read[[s.tile for s in skipped]] = False
        read = np.flatnonzero(read)
        arch = arch_of(machine[read], e_flags[read], [tile_names[i] for i in read.tolist()])
    else:
        arch = arch_of(machine, e_flags, tile_names)
    notes = ["an ELF archive holds no gap information: including gaps is unknown"]
    if skipped:
        listed = "; ".join(f"tile {s.tile} ({s.member!r}: {s.reason})" for s in skipped[:5])
        more = f"; and {len(skipped) - 5:,} more (listed in the JSON's skipped_members)" if len(skipped) > 5 else ""
        notes.append(f"{len(skipped):,} damaged member(s) skipped (--skip-bad-members): their tiles' bytes are "
                     f"unknown and counted in no figure; later tile ids are unchanged: {listed}{more}")
    if options.arch and options.arch != arch:
        if arch:
            notes.append(f"--arch {options.arch} overrides the {arch} named by the ELF flags")
        arch = options.arch
    try:
        target = Target.for_arch(arch, n, options.tile_memory)
    except ValueError as exc:  # more members than any IPU system has tiles
        raise ReadError(f"{exc}") from None
    if target.bytes_per_tile is None:
        notes.append("bytes per tile unknown (not IPU ELF): give --tile-memory or --arch to count "
                     "out-of-memory tiles")
    alloc = (rows.flags & np.uint64(SHF_ALLOC)) != 0
    excluding = np.zeros(n, dtype=np.int64)
    np.add.at(excluding, rows.tile[alloc], rows.size[alloc])
    breakdown, folded, wanted = _breakdown(rows, alloc, names, n)
    if folded:
        notes.append(f"{folded:,} of {len(names):,} section names (those on the fewest tiles) are summed per "
                     f"tile into '{OTHER_ALLOCATED}' and '{OTHER}': a column for every name over {n:,} tiles "
                     f"would take {wanted * 9 / 2**20:,.0f} MiB")
    return MemoryReport(source=source, format=fmt, target=target, excluding_gaps=excluding,
                        breakdown=breakdown, breakdown_kind="section", tile_names=list(tile_names),
                        notes=tuple(notes), info={"members": n}, skipped=tuple(skipped))


def _breakdown(rows: SectionRows, alloc: np.ndarray, names: Sequence[str],
               n: int) -> tuple[dict[str, Column], int, int]:
    """The section columns, how many names were folded into the "other" columns, and the cells unfolded.

    Each column is counted on every tile or on none: a name that is SHF_ALLOC on
    some tiles and not on others (or both on one tile) takes two columns, the
    name (its allocated bytes) and the name with :data:`NOT_ALLOCATED`.
    Allocated columns come first, then by name.
    """
    k = len(names)
    column = rows.name + np.where(alloc, 0, k)  # ids 0..k-1 allocated, k..2k-1 not; 2k and 2k+1 the others
    used = np.flatnonzero(np.bincount(column, minlength=2 * k + 2)).tolist()
    labels = {c: names[c % k] for c in used}
    taken = set(labels.values())
    for c in used:
        if c >= k and c - k in labels:
            labels[c] = _unique(names[c - k] + NOT_ALLOCATED, taken)
    wanted = len(used) * n
    budget = min(MAX_CELLS, max(MIN_CELLS, CELLS_PER_ROW * column.size))
    folded = 0
    if wanted > budget:
        tiles_with = np.bincount(np.unique(column * n + rows.tile) // n, minlength=2 * k)
        by_reach = sorted(used, key=lambda c: (-tiles_with[c], c >= k, labels[c]))
        room = max(budget // n - 2, 0)
        keep = np.zeros(2 * k + 2, dtype=bool)
        keep[by_reach[:room]] = True
        folded = len({c % k for c in by_reach[room:]})
        column = np.where(keep[column], column, np.where(column < k, 2 * k, 2 * k + 1))
        used = np.flatnonzero(np.bincount(column, minlength=2 * k + 2)).tolist()
        labels[2 * k], labels[2 * k + 1] = _unique(OTHER_ALLOCATED, taken), _unique(OTHER, taken)
    order = sorted(used, key=lambda c: (c >= k and c != 2 * k, c >= 2 * k, labels[c]))
    slot = np.full(2 * k + 2, -1, dtype=np.int64)
    slot[order] = np.arange(len(order))
    values = np.zeros((len(order), n), dtype=np.int64)
    present = np.zeros((len(order), n), dtype=bool)
    row_slot = slot[column]
    np.add.at(values, (row_slot, rows.tile), rows.size)
    present[row_slot, rows.tile] = True
    everywhere = present.all(axis=1)
    breakdown = {labels[c]: Column(values[i], None if everywhere[i] else present[i], counted=c < k or c == 2 * k)
                 for i, c in enumerate(order)}
    return breakdown, folded, wanted


def _unique(label: str, taken: set[str]) -> str:
    """``label``, lengthened with :data:`NOT_ALLOCATED` while a section already has that name (added to ``taken``)."""
    while label in taken:
        label += NOT_ALLOCATED
    taken.add(label)
    return label
