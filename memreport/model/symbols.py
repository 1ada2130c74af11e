"""What a tile's ELF symbol table says about the bytes on the tile (docs/FORMATS.md §5).

A :class:`TileSymbols` is read for a handful of tiles (the top tiles, or
tiles asked for by id), never for a pod's every tile: per-tile memory stays
in the report's arrays. Sizes are the symbol table's ``st_size`` as written;
a symbol without one (``st_size`` 0) is listed apart, never given a guessed
size, and the bytes of the allocated sections no sized symbol covers are
*unattributed*.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Symbol:
    """One symbol in an allocated section of a tile ELF.

    ``name`` is as the symbol table spells it; ``demangled`` the C++ name
    when ``name`` is a mangled one that could be demangled (None otherwise).
    ``address`` is ``st_value``; ``kind`` and ``binding`` are the ELF symbol
    type and binding in lower case ("function", "object", "notype"...;
    "global", "local", "weak").
    """

    name: str
    section: str
    size: int
    address: int = 0
    kind: str = "notype"
    binding: str = "global"
    demangled: str | None = None

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError(f"symbol {self.name!r} has a negative size")

    @property
    def display_name(self) -> str:
        """The demangled name where there is one, else the name as written."""
        return self.demangled or self.name


@dataclass(frozen=True)
class TileSymbols:
    """The allocated symbols of one tile's ELF, largest first.

    ``sections`` are the tile's allocated (``SHF_ALLOC``) sections and their
    sizes; ``attributed`` how many bytes of each some sized symbol covers
    (overlapping symbols counted once). ``symbols`` lists sized symbols
    largest first (ties by name); ``num_symbols`` and ``symbol_bytes`` count
    every sized symbol the table holds, so a saved report that kept only
    the largest stays honest about the rest. ``unsized`` are symbols whose
    table gives no size. ``has_symbol_table`` is False for a stripped ELF
    (then nothing is attributed), None when the table could not be read. ``notes`` say what could not be read.
    """

    tile: int
    member: str | None
    sections: Mapping[str, int]
    attributed: Mapping[str, int]
    symbols: tuple[Symbol, ...] = ()
    unsized: tuple[Symbol, ...] = ()
    has_symbol_table: bool | None = True
    num_symbols: int | None = None
    symbol_bytes: int | None = None
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.num_symbols is None:
            object.__setattr__(self, "num_symbols", len(self.symbols))
        if self.symbol_bytes is None:
            object.__setattr__(self, "symbol_bytes", sum(s.size for s in self.symbols))
        if (self.num_symbols or 0) < len(self.symbols):
            raise ValueError("num_symbols is below the symbols listed")
        for name, covered in self.attributed.items():
            if name not in self.sections or not 0 <= covered <= self.sections[name]:
                raise ValueError(f"attributed bytes of {name!r} outside 0..its section size")

    @property
    def section_bytes(self) -> int:
        """Bytes of the tile's allocated sections."""
        return sum(self.sections.values())

    @property
    def attributed_bytes(self) -> int:
        """Bytes of the allocated sections that some sized symbol covers."""
        return sum(self.attributed.values())

    @property
    def unattributed_bytes(self) -> int:
        """Bytes of the allocated sections no sized symbol covers."""
        return self.section_bytes - self.attributed_bytes

    @property
    def unattributed(self) -> dict[str, int]:
        """Per allocated section, the bytes no sized symbol covers (sections with none left out)."""
        gaps = {name: size - self.attributed.get(name, 0) for name, size in self.sections.items()}
        return {name: gap for name, gap in gaps.items() if gap}

    @property
    def omitted(self) -> int:
        """Sized symbols the table holds that are not listed (a saved report kept only the largest)."""
        return int(self.num_symbols or 0) - len(self.symbols)

    def largest(self, n: int | None) -> TileSymbols:
        """A copy listing only the ``n`` largest symbols (every one when None); the counts stay whole."""
        if n is None or n >= len(self.symbols):
            return self
        return replace(self, symbols=self.symbols[:n])

    def by_name(self) -> dict[str, tuple[str, int]]:
        """Display name -> (section, bytes) over the listed symbols; a name held twice sums its sizes."""
        found: dict[str, tuple[str, int]] = {}
        for s in self.symbols:
            section, size = found.get(s.display_name, (s.section, 0))
            found[s.display_name] = (section, size + s.size)
        return found


def symbol_order(symbol: Symbol) -> tuple:
    """The order symbols are listed in: largest first, then by name, section and address."""
    return (-symbol.size, symbol.name, symbol.section, symbol.address)
