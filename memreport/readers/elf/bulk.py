"""The bulk pass over many tile ELFs: a vectorised section-table scan and per-section columns.

At pod scale (94,208 tiles) a Python loop per section costs seconds, so
:func:`scan_many` reads the ELF headers, section tables and section-name
tables of a whole batch of members at once (a bytes slice each, read
through numpy record types) from the mapped archive, touching no code. Any member it cannot vouch for (a layout it does
not batch, or anything :func:`memreport.readers.elf.file.scan_elf` would reject)
is left to ``scan_elf``, the reference, so errors read exactly as in the
member-by-member scan. :func:`.sections.sections_report` turns the flat rows
into the model's columns.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .format import ELF_MAGIC, LAYOUTS, SHF_ALLOC, SHN_XINDEX, SHT_NOBITS, SHT_NULL
from .sections import NAME_ID, TILE_ID, SectionNames, SectionRows

_MAX_OFFSET = 1 << 40  # an offset or size beyond this is left to the reference scan (no int64 overflow)
_ELF_MAGIC = np.frombuffer(ELF_MAGIC, dtype=np.uint8)


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
        tile=np.repeat(who[keep], per_member).astype(TILE_ID), name=name_ids.astype(NAME_ID),
        alloc=(table["flags"][keep][mask] & SHF_ALLOC) != 0, size=size[keep][mask]))
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


