"""The device a report was compiled for, and the one rule that settles it.

A source states what it knows (:class:`StatedTarget`): an archive its
architecture (from ``e_flags``) and tile count, a profile or summary its
figures, a tensor map only its highest tile. :func:`resolve_target` turns
that, with the user's ``--arch`` / ``--tile-memory`` (``arch=`` /
``tile_memory=`` in Python), into the :class:`Target` every figure uses.
It is the only place the override rule lives (docs/ARCHITECTURE.md).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

KIB = 1024


@dataclass(frozen=True)
class Arch:
    """Nominal figures of one IPU architecture (docs/FORMATS.md §5-6)."""

    name: str
    tiles_per_ipu: int
    bytes_per_tile: int
    e_flags: int


ARCHES: Mapping[str, Arch] = MappingProxyType({
    "ipu1": Arch("ipu1", 1216, 256 * KIB, 0x1),
    "ipu2": Arch("ipu2", 1472, 624 * KIB, 0x2),
    "ipu21": Arch("ipu21", 1472, 624 * KIB, 0x21),
})
ARCH_BY_EFLAGS: Mapping[int, Arch] = MappingProxyType({a.e_flags: a for a in ARCHES.values()})
# Past any one Poplar graph (a Bow Pod1024 as one graph would have 1,507,328 tiles; a Bow Pod256 has
# 376,832): a larger count is a damaged file. A tensor map's tile count comes from its largest tile id,
# so this also bounds what a tiny file can make memreport draw and write (a row per tile in CSV).
MAX_TILES = 1 << 21


@dataclass(frozen=True)
class Target:
    """The device a report was compiled for; unknown values are None."""

    num_tiles: int
    arch: str | None = None
    num_ipus: int | None = None
    tiles_per_ipu: int | None = None
    bytes_per_tile: int | None = None
    clock_hz: float | None = None
    type: str | None = None

    def __post_init__(self) -> None:
        if self.num_tiles < 0:
            raise ValueError(f"num_tiles must be >= 0, not {self.num_tiles}")
        if self.num_tiles > MAX_TILES:
            raise ValueError(f"{self.num_tiles:,} tiles is beyond any IPU system (at most {MAX_TILES:,})")
        for name in ("num_ipus", "tiles_per_ipu", "bytes_per_tile"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, not {value}")
            if value is not None and value >= 2 ** 63:
                raise ValueError(f"{name} must be below 2**63, not a {int(value).bit_length()}-bit number")
        if self.arch is not None and self.arch not in ARCHES:
            raise ValueError(f"unknown arch {self.arch!r}")

    @classmethod
    def for_arch(cls, arch: str | None, num_tiles: int, bytes_per_tile: int | None = None) -> Target:
        """A target from an architecture name (or None) and a tile count."""
        return resolve_target(StatedTarget(num_tiles, arch=arch), tile_memory=bytes_per_tile)[0]

    def ipu_of(self, tile: int) -> int | None:
        """The IPU holding a global tile id, or None when tiles per IPU is unknown."""
        return None if not self.tiles_per_ipu else int(tile) // self.tiles_per_ipu


@dataclass(frozen=True)
class StatedTarget:
    """What a source itself says about its target, before any override.

    ``arch_basis`` says where a stated arch comes from ("named by the ELF flags"),
    for the note an override leaves. ``whole_ipus`` marks a tile count that
    is only the highest tile used + 1 (a tensor map): an arch rounds it up
    to whole IPUs. ``bytes_unknown_reason`` is said in a note when bytes per
    tile stays unknown after the overrides. ``infer_arch`` lets a source that
    names no arch but states tiles per IPU and bytes per tile (a text
    summary's Target) be given the arch with exactly those figures, with a
    note that it was inferred. A tile count of 0 means the source does not
    give one (a lone detailed tile, out-of-memory messages).
    """

    num_tiles: int
    arch: str | None = None
    arch_basis: str | None = None
    num_ipus: int | None = None
    tiles_per_ipu: int | None = None
    bytes_per_tile: int | None = None
    clock_hz: float | None = None
    type: str | None = None
    whole_ipus: bool = False
    bytes_unknown_reason: str | None = None
    source_kind: str = "source"  # for notes: "the profile's 638,976"
    # The overrides a saved report (memreport/1 JSON) was made with: they apply again when read back,
    # each unless the user gives that override anew.
    given_tile_memory: int | None = None
    given_arch: str | None = None
    infer_arch: bool = False


@dataclass(frozen=True)
class OptionNames:
    """How the user spells the overrides, for notes: the command line's or Python's."""

    tile_memory: str = "--tile-memory"
    arch: str = "--arch"
    python: bool = False

    def arch_value(self, arch: str) -> str:
        """The arch setting as the user would write it: ``--arch ipu1`` or ``arch='ipu1'``."""
        return f"{self.arch}{arch!r}" if self.python else f"{self.arch} {arch}"


CLI_NAMES = OptionNames()
_BYTES_RULE = "262,144 B per tile is ipu1 (Mk1), 638,976 B ipu2 (Mk2, Bow)"
PYTHON_NAMES = OptionNames("tile_memory=", "arch=", python=True)


def inferred_arch(tiles_per_ipu: int | None, bytes_per_tile: int | None) -> str | None:
    """The first arch (ipu1, then ipu2) with exactly these nominal figures; None when none has them.

    With tiles per IPU unknown, bytes per tile alone decide: 262,144 B is
    ipu1, 638,976 B ipu2 (Mk2 and Bow). ipu2 and ipu21 share their figures
    (docs/FORMATS.md §6): ipu2 is named.
    """
    if bytes_per_tile is None:
        return None
    return next((a.name for a in ARCHES.values()
                 if a.bytes_per_tile == bytes_per_tile and tiles_per_ipu in (None, a.tiles_per_ipu)), None)


def min_ipus(tile: int, tiles_per_ipu: int) -> int:
    """The IPUs a program using tile ``tile`` (a global id) spans at least: ceil((tile + 1) / tiles per IPU)."""
    return -(-(tile + 1) // tiles_per_ipu)


def resolve_target(stated: StatedTarget, *, tile_memory: int | None = None, arch: str | None = None,
                   names: OptionNames = CLI_NAMES) -> tuple[Target, list[str]]:
    """The target of a report and the notes the overrides leave.

    ``arch`` replaces the architecture a source names (with a note); the
    figures a source states itself (tiles per IPU, bytes per tile) win over
    an architecture's nominal ones, which only fill what it does not say.
    ``tile_memory`` overrides bytes per tile from every source (with a note
    when the source stated another figure). The overrides a saved report
    was made with (``stated.given_*``) stand in for those not given. Raises
    ValueError for a target no IPU system has.
    """
    arch = stated.given_arch if arch is None else arch
    tile_memory = stated.given_tile_memory if tile_memory is None else tile_memory
    notes: list[str] = []
    name = stated.arch
    if arch is None and name is None and stated.infer_arch:
        name = inferred_arch(stated.tiles_per_ipu, stated.bytes_per_tile)
        if name is not None and stated.tiles_per_ipu is None:
            notes.append(f"arch {name} inferred from the {stated.source_kind}'s {stated.bytes_per_tile:,} B per tile "
                         f"(it names no arch; {_BYTES_RULE})")
        elif name is not None:
            notes.append(f"arch {name} inferred from the {stated.source_kind}'s {stated.tiles_per_ipu:,} tiles per "
                         f"IPU x {stated.bytes_per_tile:,} B per tile (it names no arch)")
    if arch is not None:
        if stated.arch is not None and stated.arch != arch:
            notes.append(f"{names.arch_value(arch)} overrides the {stated.arch} "
                         f"{stated.arch_basis or 'named by the ' + stated.source_kind}")
        name = arch
    spec = ARCHES.get(name) if name else None
    num_tiles = stated.num_tiles
    if stated.whole_ipus and spec is not None and num_tiles:
        num_tiles = math.ceil(num_tiles / spec.tiles_per_ipu) * spec.tiles_per_ipu
    elif stated.whole_ipus:
        notes.append(f"the tile count is the highest mapped tile + 1 (give {names.arch} to round up to whole IPUs)")
    tiles_per_ipu = stated.tiles_per_ipu or (spec.tiles_per_ipu if spec else None)
    bytes_per_tile = stated.bytes_per_tile or (spec.bytes_per_tile if spec else None)
    if tile_memory is not None:
        if stated.bytes_per_tile is not None and stated.bytes_per_tile != tile_memory:
            notes.append(f"bytes per tile {tile_memory:,} (given) overrides the {stated.source_kind}'s "
                         f"{stated.bytes_per_tile:,}")
        bytes_per_tile = tile_memory
    num_ipus = stated.num_ipus
    if num_ipus is None and tiles_per_ipu and (num_tiles or not stated.infer_arch):  # 0 tiles: unknown, not 1 IPU
        num_ipus = max(1, math.ceil(num_tiles / tiles_per_ipu))
    target = Target(num_tiles=num_tiles, arch=name, num_ipus=num_ipus, tiles_per_ipu=tiles_per_ipu,
                    bytes_per_tile=bytes_per_tile, clock_hz=stated.clock_hz, type=stated.type)
    if bytes_per_tile is None and stated.bytes_unknown_reason:
        notes.append(f"bytes per tile unknown ({stated.bytes_unknown_reason}): give {names.tile_memory} or "
                     f"{names.arch} to count out-of-memory tiles")
    return target, notes


def overrides_of(stated: StatedTarget, target: Target) -> tuple[int | None, str | None]:
    """``(tile_memory, arch)`` overrides that turn ``stated`` into ``target`` (None where none is needed).

    A report does not remember the options it was read with; what they did is
    what matters for reading it back, and :func:`resolve_target` with these
    gives ``target`` again.
    """
    from dataclasses import replace
    source = replace(stated, given_tile_memory=None, given_arch=None)
    alone, _ = resolve_target(source)  # what the source resolves to by itself (an inferred arch included)
    arch = target.arch if target.arch != alone.arch else None
    nominal, _ = resolve_target(source, arch=arch)
    tile_memory = target.bytes_per_tile if target.bytes_per_tile != nominal.bytes_per_tile else None
    return tile_memory, arch
