"""What one text summary printed, as the parser collects it (before it becomes a MemoryReport)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ....model import Bin, TileBytes
from .values import snake


@dataclass
class Scope:
    """One ``Including Gaps`` / ``Excluding Gaps`` breakdown, under an optional label (``Total``)."""

    label: str | None
    including_gaps: int | None = None
    excluding_printed: int | None = None
    regions: dict[str, int] = field(default_factory=dict)
    data_types: dict[str, int] = field(default_factory=dict)
    vertex_data: int | None = None
    vertex_by_category: dict[str, int] = field(default_factory=dict)
    vertex_by_type: dict[str, int] = field(default_factory=dict)
    other: dict[str, dict[str, Any]] = field(default_factory=dict)
    elided: list[str] = field(default_factory=list)

    def empty(self) -> bool:
        return self.including_gaps is None and not (self.regions or self.data_types or self.other) \
            and self.vertex_data is None and self.excluding_printed is None

    def empty_of_figures(self) -> bool:
        """No Poplar figure (only unknown items, which any program's "Memory Usage:" might print)."""
        return self.including_gaps is None and self.excluding_printed is None and not self.regions \
            and not self.data_types and self.vertex_data is None

    def excluding_gaps(self) -> int | None:
        """As printed, else the sum of the regions (unless rows were elided)."""
        if self.excluding_printed is not None:
            return self.excluding_printed
        if not self.regions or "By Memory Region" in self.elided:
            return None
        return sum(self.regions.values())

    def vertex(self) -> dict[str, Any]:
        return {"bytes": self.vertex_data, "by_category": dict(self.vertex_by_category),
                "by_type": dict(self.vertex_by_type)}

    def extras(self) -> dict[str, Any]:
        """Vertex data, unknown groups and elided items: only those the scope printed."""
        extra: dict[str, Any] = {}
        if self.vertex_data is not None:
            extra["vertex_data"] = self.vertex()
        if self.other:
            extra["other"] = {k: dict(v) for k, v in self.other.items()}
        if self.elided:
            extra["elided"] = list(self.elided)
        return extra

    def as_info(self) -> dict[str, Any]:
        return {"label": self.label, "including_gaps": self.including_gaps,
                "excluding_gaps": self.excluding_gaps(),
                "regions": {snake(k): v for k, v in self.regions.items()},
                "by_data_type": dict(self.data_types), **self.extras()}


@dataclass
class Block:
    """One ``Memory Usage:`` block: the whole program's, or one detailed tile's."""

    line: int
    indent: int
    scopes: list[Scope] = field(default_factory=list)
    indented: bool | None = None  # do its items sit deeper than its heading? (None: no item yet)


@dataclass
class TileBlock:
    tile: int
    line: int
    memory: Block | None = None


@dataclass
class Summary:
    target: dict[str, Any] | None = None
    target_line: int = 0
    graph: dict[str, Any] = field(default_factory=dict)
    graph_line: int = 0
    memory: Block | None = None
    tiles: list[TileBlock] = field(default_factory=list)
    by_tile_line: int = 0
    bins: list[tuple[Bin, int]] = field(default_factory=list)
    elided_before: list[int] = field(default_factory=list)  # positions in bins where rows were left out
    maxima: dict[str, tuple[TileBytes, int]] = field(default_factory=dict)
    out_of_memory: int | None = None
    old: dict[str, Any] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    first_line: int = 0  # of its first heading

    @property
    def rows_elided(self) -> bool:
        return bool(self.elided_before)

    def elide_before(self, index: int) -> None:
        if index not in self.elided_before:
            self.elided_before.append(index)

    def empty(self) -> bool:
        """Nothing read yet (a new ``Target:`` may start it)."""
        return self.target is None and not (self.graph_line or self.memory or self.by_tile_line or self.tiles
                                            or self.maxima or self.old or self.skipped) \
            and self.out_of_memory is None

    def has_figures(self) -> bool:
        """Whether it holds a memory figure Poplar prints (a Target alone, or a block of someone else's
        "Memory Usage:" with no Poplar item, is not a memory report)."""
        blocks = ([self.memory] if self.memory else []) + [t.memory for t in self.tiles if t.memory]
        return bool(self.bins or self.maxima or self.out_of_memory is not None or self.old
                    or any(not sc.empty_of_figures() for b in blocks for sc in b.scopes))

