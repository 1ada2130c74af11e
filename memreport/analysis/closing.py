"""The closing table of a text with several reports: a row per report or run, chosen here for the renderer.

``memreport logs/*`` or a log of many runs shows one report after another;
the closing table puts them side by side (issue #23): where each comes from,
its target, its largest tile and how many tiles are out of memory.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..model import MemoryReport, TileBytes, min_ipus
from .verdict import OutOfMemoryCount, Verdict


@dataclass(frozen=True)
class TilesAtLeast:
    """What a report without a tile count still implies about it: at least ``ipus`` IPUs of ``tiles_per_ipu``
    tiles (its arch's), so at least ``tiles`` tiles; ``tile`` is the highest tile it names (None: none, and the
    bound is one IPU)."""

    tiles: int
    ipus: int
    tiles_per_ipu: int
    tile: int | None


def tiles_at_least(report: MemoryReport) -> TilesAtLeast | None:
    """A lower bound on the tile count of a report whose source does not give one (out-of-memory messages alone,
    a lone ``Tile # N`` block), from its tiles per IPU (stated, or its arch's) and the highest tile it names:
    whole IPUs, ceil((tile + 1) / tiles per IPU) of them, at least one (issue #23). None when the tile count is
    known or tiles per IPU are not."""
    per_ipu = report.target.tiles_per_ipu
    if report.num_tiles_known or not per_ipu:
        return None
    named = [m.tile for m in report.oom_messages if m.names_tile and m.tile is not None]
    top = max([*named, *(d.tile for d in report.detailed_tiles)], default=None)
    ipus = max(1, report.target.num_ipus or 1, min_ipus(top, per_ipu) if top is not None else 1)
    return TilesAtLeast(ipus * per_ipu, ipus, per_ipu, top)


@dataclass(frozen=True)
class ClosingRow:
    """One report: its ``source`` (with ``#N`` or its module when its file holds several), the ``line`` it starts
    on (None for a whole file), its ``run`` of the log (``"2/16"``; None outside runs), ``arch`` and ``tiles``
    (None when the source does not say; then ``tiles_at_least``, a lower bound, when one is known), the
    ``worst`` tile excluding gaps and its bytes, or when the report has no such figures the tile whose
    out-of-memory message states the most bytes used (``worst_from_message``), and ``out_of_memory``, the
    verdict's count."""

    source: str
    line: int | None
    run: str | None
    arch: str | None
    tiles: int | None
    worst: TileBytes | None
    out_of_memory: OutOfMemoryCount
    worst_from_message: bool = False
    tiles_at_least: int | None = None


def closing_row(report: MemoryReport, verdict: Verdict) -> ClosingRow:
    """A report's row, from its verdict (the text shows the table when there are several reports:
    ``Summary.closing_row``)."""
    p = report.position
    source = report.source
    if report.module:
        source += f" (module {report.module})"
    elif p is not None and p.count > 1:
        source += f"#{p.index}"
    run = None if p is None or p.run is None else f"{p.run.index}/{p.run.count}"
    stated = [TileBytes(m.tile, m.bytes_used) for m in (w.message for w in verdict.messages)
              if m.tile is not None and m.bytes_used is not None]
    worst = verdict.worst
    if worst is None and stated:  # a message's "bytes used": its own measure, marked as such
        worst = max(stated, key=lambda t: t.bytes)
    bound = tiles_at_least(report)
    return ClosingRow(source=source, line=p.line if p is not None else None, run=run, arch=report.target.arch,
                      tiles=report.target.num_tiles if report.num_tiles_known else None, worst=worst,
                      out_of_memory=verdict.count, worst_from_message=verdict.worst is None and worst is not None,
                      tiles_at_least=bound.tiles if bound is not None else None)


@dataclass(frozen=True)
class Closing:
    """The reports of a text of several, a row each: the closing table and the verdict over them all."""

    rows: tuple[ClosingRow, ...]

    @property
    def over(self) -> int:
        """Reports known to have tiles out of memory ("at least" counts too)."""
        return sum(1 for r in self.rows if r.out_of_memory.at_least)

    @property
    def unknown(self) -> int:
        """Reports that cannot say whether any tile is out of memory."""
        return sum(1 for r in self.rows if r.out_of_memory.count is None and not r.out_of_memory.at_least)

    @property
    def verdict(self) -> str:
        """One line for the text's last line: how many reports have tiles out of memory, and how many cannot
        say."""
        over, unknown = self.over, self.unknown
        line = f"{over:,} of {len(self.rows):,} reports {'has' if over == 1 else 'have'} tiles out of memory"
        return line + (f" ({unknown:,} cannot say)" if unknown else "")
