"""A parsed summary as a MemoryReport: partial per tile, keeping the figures as printed."""
from __future__ import annotations

import warnings
from typing import Any

from ...errors import ReadError
from ...model import Histogram, PrintedSummary, StatedTarget, SummaryReport, TileDetail, resolve_target
from .parser import Parser
from .summary import Scope, Summary, TileBlock
from .values import Line, clean_name, snake

FORMAT = "poplar-text"


def _stated_target(s: Summary) -> StatedTarget:
    """What the Target section says (a summary with none states no tile count: 0)."""
    t = s.target or {}
    return StatedTarget(num_tiles=t.get("total_tiles", 0), num_ipus=t.get("num_ipus"),
                        tiles_per_ipu=t.get("tiles_per_ipu"), bytes_per_tile=t.get("memory_per_tile_bytes"),
                        clock_hz=t.get("clock_hz"), source_kind="summary")


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


def _report(s: Summary, source: str, module: str | None, extra_info: dict[str, Any],
            end_line: int) -> SummaryReport:
    if not s.has_memory():
        raise ReadError("no memory figures found (expected a Memory Usage or By Tile section)", line=end_line)
    stated = _stated_target(s)
    try:
        target = resolve_target(stated)[0]
    except ValueError as exc:
        raise ReadError(f"Target: {exc}", line=s.target_line or None) from None
    n = target.num_tiles
    notes = list(s.notes)
    if s.target is None:
        notes.append("the summary has no Target section: the tile count is unknown")
    for block in s.tiles:
        _check_tile(block.tile, n, block.line, f"'Tile # {block.tile} memory usage:'")
    for peak, line in s.maxima.values():
        _check_tile(peak.tile, n, line, "the Maximum line")
    histogram = None
    if s.bins:
        first = s.bins[0][0]
        histogram = Histogram(first.high_kib - first.low_kib, tuple(b for b, _ in s.bins))
        if n and histogram.total != n:
            message = (f"{source}: the By Tile histogram (line {s.by_tile_line}) counts {histogram.total:,} tiles "
                       f"but the Target has {n:,}")
            warnings.warn(message, stacklevel=4)
            notes.append(message.split(": ", 1)[1])
        if s.rows_elided:
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
    return SummaryReport(
        source=source, format=FORMAT, target=target, detailed_tiles=details, printed=printed,
        breakdown_kind="data type", module=module, info={**_info(s), **extra_info}, notes=tuple(notes),
        stated=stated)


def summaries(lines: list[Line], source: str, module: str | None = None,
              extra_info: dict[str, Any] | None = None) -> list[SummaryReport]:
    """Every summary in a run of lines: each ``Target:`` heading after the first starts another."""
    starts = [i for i, ln in enumerate(lines) if clean_name(ln.text.rstrip(":")).casefold() == "target"
              and ln.text.endswith(":")][1:]
    bounds = [0, *starts, len(lines)]
    end_line = lines[-1].no if lines else 1
    return [_report(Parser(lines[a:b]).run(), source, module, dict(extra_info or {}),
                    lines[b - 1].no if b > a else end_line)
            for a, b in zip(bounds, bounds[1:])]

