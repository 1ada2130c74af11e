"""The symbols on a few tiles: each tile's ELF re-opened and its symbol table read.

The bulk scan (:mod:`.elf_bulk`) reads only section headers, fast enough for
a pod; symbols are wanted for a handful of tiles (the top tiles, tiles asked
for by id), so clarity wins here: every member is found again by its
position in the archive (thin archives too) and its tables read by
:mod:`.elf_symbols` (directly for the usual layout, else with pyelftools, the
reference ELF reader, which both agree with). Only symbols in ``SHF_ALLOC`` sections count (they are
the tile's memory); section and file symbols (``STT_SECTION``,
``STT_FILE``) name no object and are left out (docs/FORMATS.md §5).
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace

from ...errors import ReadError
from ...model import MemoryReport, Symbol, TileReport, TileSymbols
from ...model.symbols import symbol_order
from ...units import count
from . import demangle
from .ar import find_members
from .fileview import FileView
from .format import SHF_ALLOC
from .symtab import ElfTables, plain_tables, reference_tables
from .thin import read_thin_member

SYMBOL_FORMATS = ("archive", "thin-archive", "elf")
_SKIPPED_TYPES = {"STT_SECTION", "STT_FILE"}
_KINDS = {"STT_NOTYPE": "notype", "STT_OBJECT": "object", "STT_FUNC": "function", "STT_TLS": "tls",
          "STT_COMMON": "common", "STT_LOOS": "ifunc"}  # pyelftools names STT_GNU_IFUNC (10) STT_LOOS
_BINDINGS = {"STB_LOCAL": "local", "STB_GLOBAL": "global", "STB_WEAK": "weak", "STB_LOOS": "unique",
             "STB_GNU_UNIQUE": "unique"}  # pyelftools names STB_GNU_UNIQUE (10) STB_LOOS
_LINKED = {"ET_EXEC", "ET_DYN"}  # symbol values are addresses; in a relocatable object, offsets in the section


def has_symbols(report: MemoryReport) -> bool:
    """Whether ``report``'s tiles are ELF files whose symbol tables can be read (archives, ELF files)."""
    return isinstance(report, TileReport) and report.format in SYMBOL_FORMATS


def with_symbols(report: TileReport, tiles: Iterable[int], thin_root: str | None = None) -> TileReport:
    """``report`` holding the symbol tables of ``tiles`` too (those it already holds are kept); ``thin_root``
    is the directory a thin archive's members may lie under (by default the archive's own)."""
    wanted = [t for t in dict.fromkeys(int(t) for t in tiles) if t not in report.symbols]
    if not wanted:
        return report
    found = read_symbols(report, wanted, thin_root)
    return replace(report, symbols={**report.symbols, **found})


def read_symbols(report: TileReport, tiles: Iterable[int], thin_root: str | None = None) -> dict[int, TileSymbols]:
    """The symbol table of each of ``tiles``, read again from the report's source.

    Raises ReadError when the source is not an archive or ELF file, cannot be
    read, or is no longer the file the report was read from (a member's
    name or allocated bytes differ).
    """
    if not has_symbols(report):
        raise ReadError(f"{report.format_name}: holds no ELF symbol tables (only archives and ELF files do)",
                        path=report.source)
    wanted = sorted({int(t) for t in tiles})
    for tile in wanted:
        if not 0 <= tile < report.num_tiles:
            raise ReadError(f"no tile {tile} (tiles are 0..{report.num_tiles - 1})", path=report.source)
    skipped = {s.tile: s for s in report.skipped}
    found: dict[int, TileSymbols] = {}
    for tile in wanted:
        if tile in skipped:
            found[tile] = TileSymbols(tile, skipped[tile].member, {}, {}, has_symbol_table=None,
                                      notes=(f"member skipped as damaged: {skipped[tile].reason}",))
    members = _member_bytes(report, [t for t in wanted if t not in skipped], thin_root)
    for tile, (member, data) in members.items():
        expected = None if report.tile_names is None else report.tile_names[tile]
        if expected is not None and member != expected:
            raise ReadError(f"tile {tile} is member {member!r}, but the report read {expected!r} there: the "
                            "file changed since it was read", path=report.source)
        table = tile_symbols(tile, member, data)
        if table.has_symbol_table is not None and table.section_bytes != int(report.excluding_gaps[tile]):
            raise ReadError(f"member {member!r} now holds {table.section_bytes:,} B but the report read "
                            f"{int(report.excluding_gaps[tile]):,} B: the file changed since it was read",
                            path=report.source)
        found[tile] = table
    return {tile: found[tile] for tile in wanted}


def _member_bytes(report: TileReport, tiles: list[int], thin_root: str | None) -> dict[int, tuple[str, bytes]]:
    """(member name, ELF bytes) of each tile, found by position in the archive (or the ELF file itself).

    Read with ``pread`` (:class:`~.fileview.FileView`): a file truncated
    meanwhile is a ReadError, never a SIGBUS.
    """
    if not tiles:
        return {}
    path = report.source
    wanted = set(tiles)
    found: dict[int, tuple[str, bytes]] = {}
    try:
        with open(path, "rb") as f:
            view = FileView(f.fileno())
            if report.format == "elf":
                return {0: (os.path.basename(path), view[0:len(view)])}
            if not len(view):
                raise ReadError("the archive is empty now: the file changed since it was read", path=path)
            for position, member in find_members(view, wanted, report.members).items():
                if member.data_offset is None:
                    data = read_thin_member(path, member.name, thin_root)
                else:
                    data = view[member.data_offset:member.data_offset + member.size]
                found[position] = (member.name, data)
    except OSError as exc:
        raise ReadError(f"cannot read its symbols again: {exc.strerror or exc}", path=path) from None
    except ReadError as exc:
        raise exc.located(path) from None
    missing = sorted(wanted - set(found))
    if missing:
        raise ReadError(f"holds no tile {missing[0]} now: the file changed since it was read", path=path)
    return found


def tile_symbols(tile: int, member: str | None, data: bytes) -> TileSymbols:
    """The allocated symbols of one tile ELF (``data``), largest first, and the bytes they cover.

    A damaged symbol table gives a report with a note, not an error: the
    tile's bytes were read already and stand.
    """
    try:
        elf = plain_tables(data) or reference_tables(data)
        sections = _allocated_sections(elf)
        symbols, unsized, notes, has_table = _symbols(elf, sections)
    except Exception as exc:
        if not _damaged(exc):
            raise
        detail = " ".join(str(exc).split()) or type(exc).__name__
        return TileSymbols(tile, member, {}, {}, has_symbol_table=None,
                           notes=(f"the symbol table cannot be read ({detail})",))
    sizes: dict[str, int] = {}
    covered: dict[str, int] = {}
    for section in sections.values():
        sizes[section.name] = sizes.get(section.name, 0) + section.size
        covered[section.name] = covered.get(section.name, 0) + section.covered()
    listed = sorted(symbols, key=symbol_order)
    names, kept = demangle.demangle_all(s.name for s in listed + unsized)
    if any(demangle.is_mangled(s.name) for s in listed + unsized) and not demangle.available():
        notes.append("C++ names are shown mangled: no C++ runtime (__cxa_demangle) could be loaded")
    if kept:
        name, why = next(iter(kept.items()))
        shown = name if len(name) <= 80 else name[:77] + "..."
        notes.append(f"{count(len(kept), 'C++ name')} kept mangled, past the {demangle.SHOWN_CHARS:,} characters a "
                     f"name may have: {shown}: {why}" + (f" (and {len(kept) - 1:,} more)" if len(kept) > 1 else ""))
    if names:
        listed = [replace(s, demangled=names.get(s.name)) for s in listed]
        unsized = [replace(s, demangled=names.get(s.name)) for s in unsized]
    if not has_table:
        notes.insert(0, "the ELF has no symbol table (stripped): no byte is attributed to a symbol")
    return TileSymbols(tile, member, sizes, covered, tuple(listed), tuple(sorted(unsized, key=symbol_order)),
                       has_symbol_table=has_table, notes=tuple(notes))


def _damaged(exc: Exception) -> bool:
    """Whether ``exc`` is pyelftools (or the construct library it bundles) failing on a damaged ELF."""
    import struct
    if isinstance(exc, (ValueError, KeyError, IndexError, AssertionError, OverflowError, struct.error)):
        return True
    return type(exc).__module__.split(".")[0] == "elftools"


class _Section:
    """One allocated section and the address ranges its sized symbols cover."""

    __slots__ = ("base", "name", "ranges", "size")

    def __init__(self, name: str, size: int, base: int) -> None:
        self.name, self.size, self.base = name, size, base
        self.ranges: list[tuple[int, int]] = []

    def add(self, value: int, size: int) -> None:
        start = max(value - self.base, 0)
        end = min(value - self.base + size, self.size)
        if end > start:
            self.ranges.append((start, end))

    def covered(self) -> int:
        """Bytes inside the section some range covers, overlaps counted once."""
        total, reach = 0, 0
        for start, end in sorted(self.ranges):
            start = max(start, reach)
            if end > start:
                total += end - start
                reach = end
        return total


def _allocated_sections(elf: ElfTables) -> dict[int, _Section]:
    """Section index -> the allocated sections (SHF_ALLOC, NOBITS included: they occupy the tile).

    Entry 0 of the section table is never a section, whatever its type and
    flags say (it holds extended numbering, if anything): the section scans
    skip it, as BFD (``size -A``) does.
    """
    return {index: _Section(name, size, addr if elf.linked else 0)
            for index, name, null, flags, size, addr in elf.sections if index and not null and flags & SHF_ALLOC}


def _symbols(elf: ElfTables, sections: Mapping[int, _Section]) -> tuple[list[Symbol], list[Symbol], list[str], bool]:
    """(sized symbols, unsized symbols, notes, whether the ELF has a symbol table)."""
    notes: list[str] = []
    if elf.table is None:
        return [], [], notes, False
    if not elf.symtab:  # only the dynamic symbols: fewer than the full table, but real ones
        notes.append(f"no .symtab: symbols are from {elf.table} (dynamic symbols only)")
    sized: list[Symbol] = []
    unsized: list[Symbol] = []
    elsewhere = 0
    for name, kind, bind, index, value, size in elf.symbols:
        if kind in _SKIPPED_TYPES:
            continue
        if not isinstance(index, int):  # undefined, absolute, common: not in a section of the tile
            if index == "SHN_COMMON":
                elsewhere += 1
            continue
        section = sections.get(index)
        if section is None or (not name and size == 0):
            continue
        record = Symbol(name=name, section=section.name, size=size, address=value,
                        kind=_KINDS.get(kind, str(kind).lower()), binding=_BINDINGS.get(bind, str(bind).lower()))
        if record.size:
            sized.append(record)
            section.add(record.address, record.size)
        else:
            unsized.append(record)
    if elsewhere:
        notes.append(f"{elsewhere:,} common symbol(s) are in no section yet (a relocatable object): not counted")
    return sized, unsized, notes, True
