"""Tile sections -> the model: one column per section name, the architecture from the ELF flags.

Both scans of tile ELFs (:mod:`.elf`, member by member, and :mod:`.elf_bulk`,
a batch at once) produce :class:`SectionRows`; :func:`sections_report` turns
them into a :class:`~memreport.model.TileReport` with a few array
operations, whatever the tile count. A tile's memory is the sum of its
SHF_ALLOC sections, NOBITS included (docs/FORMATS.md §5).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import ReadError
from ...model import (
    ARCH_BY_EFLAGS,
    Column,
    MemoryReport,
    SkippedMember,
    StatedTarget,
    TileReport,
    check_sums,
    resolve_target,
    sums_by,
)
from .format import EM_GRAPHCORE_IPU, SHF_ALLOC

# The breakdown is dense (a column of every tile per section name), so its cells are bounded: at most
# MAX_CELLS (150 MB of values and presence flags); past MIN_CELLS (9 MB), at most CELLS_PER_ROW per
# section read, so it stays proportional to the input. Names on the fewest tiles fold into two columns.
MAX_CELLS = 1 << 24
MIN_CELLS = 1 << 20
CELLS_PER_ROW = 16
NOT_ALLOCATED = " (not allocated)"  # the suffix of a name's non-SHF_ALLOC column when it is both
OTHER_ALLOCATED, OTHER = "(other allocated sections)", "(other sections)"
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


# Rows are kept until every tile is read (a pod's 94,208 tiles have 750,000 of them), so they are narrow: 17 bytes.
TILE_ID, NAME_ID = np.int32, np.int32
MAX_ROW_TILE = np.iinfo(TILE_ID).max  # far past MAX_TILES, which the report refuses


@dataclass
class SectionRows:
    """Every counted section of many tiles as flat columns: one row per section."""

    tile: np.ndarray    # TILE_ID tile index
    name: np.ndarray    # NAME_ID id in SectionNames.names
    alloc: np.ndarray   # bool: SHF_ALLOC is set (the section occupies the tile)
    size: np.ndarray    # int64 sh_size

    @classmethod
    def empty(cls) -> SectionRows:
        return cls(np.empty(0, TILE_ID), np.empty(0, NAME_ID), np.empty(0, bool), np.empty(0, np.int64))

    @classmethod
    def concat(cls, parts: Sequence[SectionRows]) -> SectionRows:
        """The parts' rows in one, sharing a lone part's columns (a pod's 13 MB of rows is never copied whole)."""
        if not parts:
            return cls.empty()
        if len(parts) == 1:
            return parts[0]
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("tile", "name", "alloc", "size")))

    @classmethod
    def from_sections(cls, first_tile: int, tiles: Sequence, names: SectionNames) -> SectionRows:
        """Rows from reference scans (``TileSections``), tiles numbered from ``first_tile``."""
        tile, name, alloc, size = [], [], [], []
        for i, scanned in enumerate(tiles, first_tile):
            for sec_name, _, sec_flags, sec_size in scanned.sections:
                tile.append(i)
                name.append(names.id(sec_name))
                alloc.append(bool(sec_flags & SHF_ALLOC))
                size.append(sec_size)
        return cls(np.array(tile, dtype=TILE_ID), np.array(name, dtype=NAME_ID),
                   np.array(alloc, dtype=bool), np.array(size, dtype=np.int64))


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
                    e_flags: np.ndarray, rows: SectionRows, names: Sequence[str],
                    skipped: Sequence[SkippedMember] = (), **extra: Any) -> MemoryReport:
    """The per-tile model from every tile's sections: one column per section name.

    ``skipped`` tiles (damaged members) have no rows; they take no part in the architecture. ``extra``
    fields go to the report as they are (an archive's member table, the files it read).
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
    stated = StatedTarget(num_tiles=n, arch=arch, arch_basis="named by the ELF flags", source_kind="archive",
                          bytes_unknown_reason="not IPU ELF")
    try:
        target, _ = resolve_target(stated)
    except ValueError as exc:  # more members than any IPU system has tiles
        raise ReadError(f"{exc}") from None
    alloc = rows.alloc
    try:  # sections of up to a TiB each, in any number (extended numbering): a tile's sum may pass int64
        excluding = sums_by(rows.tile[alloc], rows.size[alloc], n, "tile")
        check_sums(rows.tile, rows.size, n, "tile")  # every column's cells, allocated or not, fit too
    except OverflowError as exc:
        raise ReadError(f"the sections of {exc}: no tile memory is that large") from None
    breakdown, folded, wanted = _breakdown(rows, alloc, names, n)
    if folded:
        notes.append(f"{folded:,} of {len(names):,} section names (those on the fewest tiles) are summed per "
                     f"tile into '{OTHER_ALLOCATED}' and '{OTHER}': a column for every name over {n:,} tiles "
                     f"would take {wanted * 9 / 2**20:,.0f} MiB")
    return TileReport(source=source, format=fmt, target=target, excluding_gaps=excluding,
                      breakdown=breakdown, breakdown_kind="section", tile_names=list(tile_names),
                      notes=tuple(notes), info={"members": n}, skipped=tuple(skipped), stated=stated, **extra)


def _breakdown(rows: SectionRows, alloc: np.ndarray, names: Sequence[str],
               n: int) -> tuple[dict[str, Column], int, int]:
    """The section columns, how many names were folded into the "other" columns, and the cells unfolded.

    Each column is counted on every tile or on none: a name that is SHF_ALLOC on
    some tiles and not on others (or both on one tile) takes two columns, the
    name (its allocated bytes) and the name with :data:`NOT_ALLOCATED`.
    Allocated columns come first, then by name.
    """
    k = len(names)
    # ids 0..k-1 allocated, k..2k-1 not; 2k and 2k+1 the others: NAME_ID wide, as the rows (a pod's 750,000)
    column = np.where(alloc, rows.name, rows.name + NAME_ID(k))
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
        tiles_with = np.bincount(np.unique(column.astype(np.int64) * n + rows.tile) // n, minlength=2 * k)
        by_reach = sorted(used, key=lambda c: (-tiles_with[c], c >= k, labels[c]))
        room = max(budget // n - 2, 0)
        keep = np.zeros(2 * k + 2, dtype=bool)
        keep[by_reach[:room]] = True
        folded = len({c % k for c in by_reach[room:]})
        column = np.where(keep[column], column, np.where(column < k, 2 * k, 2 * k + 1))
        used = np.flatnonzero(np.bincount(column, minlength=2 * k + 2)).tolist()
        labels[2 * k], labels[2 * k + 1] = _unique(OTHER_ALLOCATED, taken), _unique(OTHER, taken)
    order = sorted(used, key=lambda c: (c >= k and c != 2 * k, c >= 2 * k, labels[c]))
    slot = np.full(2 * k + 2, -1, dtype=NAME_ID)  # row_slot below is a row's column: as narrow as the rows
    slot[order] = np.arange(len(order))
    values = np.zeros((len(order), n), dtype=np.int64)
    present = np.zeros((len(order), n), dtype=bool)
    row_slot = slot[column]
    np.add.at(values, (row_slot, rows.tile), rows.size)
    present[row_slot, rows.tile] = True
    everywhere = np.asarray(present.all(axis=1))
    breakdown = {labels[c]: Column(values[i], None if everywhere[i] else present[i], counted=c < k or c == 2 * k)
                 for i, c in enumerate(order)}
    return breakdown, folded, wanted


def _unique(label: str, taken: set[str]) -> str:
    """``label``, lengthened with :data:`NOT_ALLOCATED` while a section already has that name (added to ``taken``)."""
    while label in taken:
        label += NOT_ALLOCATED
    taken.add(label)
    return label
