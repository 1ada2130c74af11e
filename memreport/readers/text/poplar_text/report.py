"""A parsed summary as a MemoryReport: partial per tile, keeping the figures as printed.

The out-of-memory messages a log holds before a summary are attached to it
(docs/FORMATS.md §8.6); messages with no summary after them make a report
of their own that holds nothing else.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from ....errors import ReadError
from ....model import (
    ARCHES,
    COMPILE_LOG_FORMAT,
    MAX_TILES,
    OOM_MESSAGES_FORMAT,
    CompileTarget,
    Histogram,
    OutOfMemoryMessage,
    PrintedSummary,
    StatedTarget,
    SummaryReport,
    Target,
    TileDetail,
    min_ipus,
    resolve_target,
)
from .summary import Scope, Summary, TileBlock
from .values import snake

FORMAT = "poplar-text"
MESSAGES_FORMAT = OOM_MESSAGES_FORMAT


def _histogram(s: Summary) -> Histogram | None:
    if not s.bins:
        return None
    first = s.bins[0][0]
    return Histogram(first.high_kib - first.low_kib, tuple(b for b, _ in s.bins), tuple(sorted(s.elided_before)))


def stated_capacity(messages: Sequence[OutOfMemoryMessage]) -> int | None:
    """The bytes per tile the messages state, when they state one and agree on it."""
    stated = {m.bytes_per_tile for m in messages if m.bytes_per_tile is not None}
    return stated.pop() if len(stated) == 1 else None


def _stated_target(s: Summary, histogram: Histogram | None, messages: Sequence[OutOfMemoryMessage]
                   ) -> tuple[StatedTarget, list[str]]:
    """What the Target section says, with the notes on what a summary without one leaves unknown.

    With no Target, the tile count is the histogram's total when every row
    was printed (unknown otherwise: 0), and bytes per tile the capacity the
    attached out-of-memory messages state, if any.
    """
    t = s.target or {}
    notes: list[str] = []
    num_tiles = t.get("total_tiles", 0)
    bytes_per_tile, kind = t.get("memory_per_tile_bytes"), "summary"
    if s.target is None:
        if histogram is not None and not histogram.elided_before:
            num_tiles = histogram.total
            notes.append(f"the summary has no Target section: the tile count is its histogram's total, "
                         f"{num_tiles:,}")
        elif histogram is not None:
            notes.append(f"the summary has no Target section: the tile count is unknown (the histogram's printed "
                         f"rows count {histogram.total:,} tiles; others were left out)")
        else:
            notes.append("the summary has no Target section: the tile count is unknown")
        capacity = stated_capacity(messages)
        if capacity is not None:
            bytes_per_tile, kind = capacity, "out-of-memory message"
    reason = "the summary has no Target section" if s.target is None else None
    return StatedTarget(num_tiles=num_tiles, num_ipus=t.get("num_ipus"), tiles_per_ipu=t.get("tiles_per_ipu"),
                        bytes_per_tile=bytes_per_tile, clock_hz=t.get("clock_hz"), source_kind=kind,
                        bytes_unknown_reason=reason, infer_arch=s.target is not None), notes


def _check_tile(tile: int, num_tiles: int, line: int, what: str) -> None:
    if num_tiles and tile >= num_tiles:
        raise ReadError(f"{what} names tile {tile}, but the Target has {num_tiles:,} tiles", line=line)


def _detail(block: TileBlock) -> TileDetail:
    assert block.memory is not None
    scopes = block.memory.scopes
    scope = scopes[0] if scopes else Scope(None)
    extra: dict[str, Any] = {"memory_scope": scope.label, **scope.extras()}
    if len(scopes) > 1:
        extra["memory_scopes"] = [sc.as_info() for sc in scopes]
    return TileDetail(tile=block.tile, including_gaps=scope.including_gaps, excluding_gaps=scope.excluding_gaps(),
                      breakdown=dict(scope.data_types), regions={snake(k): v for k, v in scope.regions.items()},
                      extra=extra)


def _info(s: Summary) -> dict[str, Any]:
    info: dict[str, Any] = {}
    if s.target is not None:
        info["target"] = {k: v for k, v in s.target.items() if "replica" not in k}
        replicas = {k: v for k, v in s.target.items() if "replica" in k}
        if replicas:
            info["replicas"] = replicas
    if s.graph:
        info["graph"] = dict(s.graph)
    scopes = s.memory.scopes if s.memory else []
    if scopes:
        main = scopes[0].as_info()
        info["memory_scope"] = main.pop("label")
        info["memory_by_region"] = main.pop("regions")
        info["memory_by_data_type"] = main.pop("by_data_type")
        info.update({f"memory_{k}" if k in ("other", "elided") else k: v for k, v in main.items()})
        if len(scopes) > 1:
            info["memory_scopes"] = [sc.as_info() for sc in scopes]
    if s.old:
        info["old_layout"] = dict(s.old)
    if s.skipped:
        info["skipped_sections"] = list(s.skipped)
    return info


def _message_notes(s: Summary, messages: Sequence[OutOfMemoryMessage]) -> list[str]:
    """Where the messages and the summary they precede disagree (they may be of different compiles)."""
    notes = []
    printed = (s.target or {}).get("memory_per_tile_bytes")
    for m in messages:
        if printed is not None and m.bytes_per_tile is not None and m.bytes_per_tile != printed:
            notes.append(f"the out-of-memory message at line {m.line:,} states {m.bytes_per_tile:,} B per tile; "
                         f"the summary's Target {printed:,} B")
            break
    named = {m.tile for m in messages if m.names_tile}
    if s.out_of_memory is not None and len(named) > s.out_of_memory:
        notes.append(f"the out-of-memory messages name {len(named):,} tile(s), but the summary printed "
                     f"{s.out_of_memory:,} tile(s) out of memory: they may come from another compile")
    return notes


def fits(messages: Sequence[OutOfMemoryMessage], num_tiles: int) -> bool:
    """Whether every tile the messages name is a tile of a target of ``num_tiles`` (0: unknown)."""
    return not num_tiles or all(m.tile is None or m.tile < num_tiles for m in messages)


def summary_report(s: Summary, source: str, module: str | None = None, extra_info: dict[str, Any] | None = None,
                   messages: Sequence[OutOfMemoryMessage] = (), extra_notes: Sequence[str] = ()
                   ) -> list[SummaryReport]:
    """The report of a summary, with the messages before it; two reports when the messages name tiles
    the summary's target does not have (then they are of another program: a report of their own)."""
    histogram = _histogram(s)
    stated, notes = _stated_target(s, histogram, messages)
    try:
        target = resolve_target(stated)[0]
    except ValueError as exc:
        raise ReadError(f"Target: {exc}", line=s.target_line or None) from None
    n = target.num_tiles
    apart: list[SummaryReport] = []
    if messages and not fits(messages, n):
        apart, messages = [messages_report(messages, source, extra_notes)], ()
        stated, notes = _stated_target(s, histogram, messages)
        target = resolve_target(stated)[0]
    notes = list(s.notes) + notes + _message_notes(s, messages) + ([] if apart else list(extra_notes))
    for block in s.tiles:
        _check_tile(block.tile, n, block.line, f"'Tile # {block.tile} memory usage:'")
    for peak, line in s.maxima.values():
        _check_tile(peak.tile, n, line, "the Maximum line")
    if histogram is not None:
        if s.target is not None and n and histogram.total != n and not histogram.elided_before:
            message = (f"{source}: the By Tile histogram (line {s.by_tile_line}) counts {histogram.total:,} tiles "
                       f"but the Target has {n:,}")
            warnings.warn(message, stacklevel=4)
            notes.append(message.split(": ", 1)[1])
        if histogram.elided_before:
            notes.append("the source elides some histogram rows; only the printed bins are kept")
    main = s.memory.scopes[0] if s.memory and s.memory.scopes else None
    printed = PrintedSummary(
        histogram=histogram,
        max_including_gaps=s.maxima["including_gaps"][0] if "including_gaps" in s.maxima else None,
        max_excluding_gaps=s.maxima["excluding_gaps"][0] if "excluding_gaps" in s.maxima else None,
        tiles_out_of_memory=s.out_of_memory,
        including_gaps=main.including_gaps if main else None,
        excluding_gaps=main.excluding_gaps() if main else None)
    details = tuple(_detail(block) for block in s.tiles)
    known = "known only through the histogram" if histogram else "not known individually"
    if details:
        shown = ", ".join(str(d.tile) for d in details)
        notes.insert(0, f"per-tile values: only the {len(details)} detailed tile(s) ({shown}) were printed; "
                        f"the other tiles are {known}")
    else:
        notes.insert(0, f"per-tile values: no tile is detailed; tiles are {known}")
    if s.old:
        notes.append("old (0.x) layout: its total and largest tile are kept in info['old_layout']")
    report = SummaryReport(
        source=source, format=FORMAT, target=target, detailed_tiles=details, printed=printed,
        breakdown_kind="data type", module=module, info={**_info(s), **(extra_info or {})}, notes=tuple(notes),
        stated=stated, oom_messages=tuple(messages))
    return apart + [report]


def messages_report(messages: Sequence[OutOfMemoryMessage], source: str,
                    extra_notes: Sequence[str] = ()) -> SummaryReport:
    """A report of out-of-memory messages alone: what they state, and nothing else (docs/FORMATS.md §8.6)."""
    capacity = stated_capacity(messages)
    stated = StatedTarget(num_tiles=0, bytes_per_tile=capacity, source_kind="out-of-memory message",
                          bytes_unknown_reason=None if capacity is not None else "no message states it",
                          infer_arch=True)
    target = resolve_target(stated)[0]
    notes = ["per-tile values: none; the log holds no memory summary, only out-of-memory messages, and they "
             "state at most one tile's bytes each", "the tile count is unknown", *_spans(messages, target),
             *extra_notes]
    return SummaryReport(source=source, format=MESSAGES_FORMAT, target=target, breakdown_kind="data type",
                         notes=tuple(notes), stated=stated, oom_messages=tuple(messages))


def _spans(messages: Sequence[OutOfMemoryMessage], target: Target) -> list[str]:
    """What the highest tile the messages name implies: a tile past one IPU's means more IPUs."""
    tiles = [m.tile for m in messages if m.names_tile and m.tile is not None]
    per_ipu = target.tiles_per_ipu
    if not tiles or not per_ipu or max(tiles) < per_ipu:
        return []
    return [f"tile {max(tiles):,} is past one {target.arch or 'IPU'}'s {per_ipu:,} tiles: the program spans at least "
            f"{min_ipus(max(tiles), per_ipu):,} IPUs"]


def stated_report(count: int | None, text: str | None, line: int, target: CompileTarget | None,
                  source: str) -> SummaryReport:
    """What a compile log states of one compilation, as a report: Poplar's ``Graph compilation finished:
    zero tiles overflowed.`` (or ``N tiles overflowed``: its printed out-of-memory count; None when the
    wording is another) and its ``Target info: arch: "ipu2", IPUs: 1, tiles per IPU: 1472`` line
    (docs/FORMATS.md §8.8). Nothing else: no tile's bytes."""
    arch = target.arch if target is not None and target.arch in ARCHES else None
    ipus = target.ipus if target is not None else None
    per_ipu = target.tiles_per_ipu if target is not None else None
    notes = [f"per-tile values: none; the log states only the outcome of the compilation ('Graph compilation "
             f"finished: {text}' at line {line:,}), no memory summary"]
    if ipus is None or per_ipu is None or not 0 < ipus * per_ipu <= MAX_TILES:
        ipus = per_ipu = None
    if target is None:
        notes.append("the tile count is unknown (no 'Target info:' line before it)")
    elif ipus is None:
        notes.append("the tile count is unknown (the 'Target info:' line does not state a usable one)")
    if count is None:
        notes.append(f"how many tiles overflowed is not stated in a wording memreport knows ('{text}')")
    stated = StatedTarget(num_tiles=ipus * per_ipu if ipus and per_ipu else 0, arch=arch,
                          arch_basis="named by Poplar's Target info line" if arch else None, num_ipus=ipus,
                          tiles_per_ipu=per_ipu, source_kind="Target info line",
                          bytes_unknown_reason=None if arch else "the log names no known arch")
    return SummaryReport(source=source, format=COMPILE_LOG_FORMAT, target=resolve_target(stated)[0],
                         printed=PrintedSummary(tiles_out_of_memory=count), breakdown_kind="data type",
                         notes=tuple(notes), stated=stated)
