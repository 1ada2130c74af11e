"""PopVision ``profile.pop`` files (SDK 2.1 and later), read through Graphcore's libpva (``import pva``).

A ``profile.pop`` is an SQLite database whose layout Graphcore does not
publish; their libpva Python module (shipped with the Poplar SDK, not on
PyPI) is the documented way to read it. When ``pva`` can be imported this
reader asks it for what memreport models, by the attribute paths
Graphcore's own code uses (research notes, issue 13 §1):

- ``report.compilation.target``: ``numTiles``, ``tilesPerIpu``, ``numIPUs``,
  ``bytesPerTile``, ``clockFrequency``, ``type``, ``architecture`` (and
  ``bytesPerIPU``, ``totalMemory``, ``numReplicas``... into ``info``).
- ``report.compilation.tiles[i].memory``: ``total.excludingGaps`` /
  ``includingGaps``; ``category.<name>`` with its ``nonInterleaved``,
  ``interleaved``, ``overflowed`` regions (``.nonOverlapped``,
  ``.overlapped``) where libpva gives them, else ``.total``;
  ``alwaysLiveBytes`` and ``notAlwaysLiveBytes``.
- ``report.compilation.livenessProgramSteps``: ``notAlwaysLiveMemory.bytes``
  and ``program.name`` per step.

It has not been run against a real SDK here (none can be installed): the
tests use a stand-in module exposing those attributes. Without ``pva`` the
error says so and names what memreport reads instead.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import ReadError
from ...model import (
    ALWAYS_LIVE,
    ARCHES,
    MAX_TILES,
    NOT_ALWAYS_LIVE,
    Column,
    MemoryReport,
    ProgramLiveness,
    StatedTarget,
    TileReport,
    resolve_target,
)
from ..registry import Reader, ReadOptions, register

SQLITE_MAGIC = b"SQLite format 3\0"
NO_PVA = ("a PopVision profile.pop (SDK 2.1+) needs Graphcore's libpva module 'pva' (in the Poplar SDK, not on "
          "PyPI), which cannot be imported here{why}: read the archive instead (target.saveArchive, or "
          "autoReport.outputArchive), or the printed summary, or run 'memreport export profile.pop -o memory.json' "
          "where the SDK is installed")
# docs/FORMATS.md §2's storage categories, in its order; libpva spells them the same (`constant`, singular).
CATEGORIES = ("variable", "constant", "controlCode", "controlId", "controlTable", "copyDescriptor",
              "globalExchangeCode", "hostExchangeCode", "internalExchangeCode", "hostExchangePacketHeader",
              "globalExchangePacketHeader", "instrumentationResults", "stack", "vertexCode", "vertexFieldData",
              "vectorListDescriptor", "vertexInstanceState")
REGIONS = {"nonInterleaved": "non_interleaved", "interleaved": "interleaved", "overflowed": "overflowed"}
TYPES = {"Ipu": "IPU", "IpuModel": "IPU_MODEL", "Cpu": "CPU"}
ARCH_NAMES = {"Ipu1": "ipu1", "Ipu2": "ipu2", "Ipu21": "ipu21"}
TARGET_EXTRAS = {"bytesPerIPU": "bytes_per_ipu", "totalMemory": "total_memory", "numReplicas": "num_replicas",
                 "ipusPerReplica": "ipus_per_replica", "tilesPerReplica": "tiles_per_replica",
                 "memoryPerReplica": "memory_per_replica"}
GRAPH_COUNTS = {"numVertices": "num_vertices", "numEdges": "num_edges", "numVars": "num_vars",
                "numComputeSets": "num_compute_sets"}
_MISSING = object()


def looks_like_sqlite(prefix: bytes) -> bool:
    return prefix.startswith(SQLITE_MAGIC)


def read_pop(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """A profile.pop, through libpva."""
    try:
        import pva  # type: ignore[import-not-found]
    except ImportError as exc:  # not installed, or installed and broken (a missing shared library): say which
        why = "" if isinstance(exc, ModuleNotFoundError) and exc.name == "pva" else f" ({str(exc)[:60]})"
        raise ReadError(NO_PVA.format(why=why)) from None
    try:
        opened = pva.openReport(path)
    except Exception as exc:  # noqa: BLE001 - libpva's own exception types are not public
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise ReadError(f"libpva cannot open it as a PopVision profile: {detail}") from None
    return [report_from_pva(pva, opened, path)]


def _attr(obj: Any, path: str, where: str, default: Any = _MISSING) -> Any:
    """``obj.a.b.c`` for ``path`` "a.b.c"; a ReadError naming ``where.path`` if missing (``default`` otherwise)."""
    for name in path.split("."):
        value = getattr(obj, name, _MISSING)
        if value is _MISSING:
            if default is not _MISSING:
                return default
            raise ReadError(f"libpva gives no {where}.{path} (is this libpva older than SDK 2.1?)")
        obj = value
    return obj


def _count(value: Any, where: str, positive: bool = False) -> int:
    if isinstance(value, bool) or (not isinstance(value, (int, np.integer)) and not (
            isinstance(value, float) and value.is_integer())):
        raise ReadError(f"libpva's {where} is {value!r}, not a whole number")
    number = int(value)
    if number < 0 or (positive and number == 0) or number >= 2 ** 63:
        raise ReadError(f"libpva's {where} is {number:,}: not a byte or tile count")
    return number


def _enum_name(value: Any, names: dict[str, str]) -> str | None:
    """A libpva enum value's name mapped through ``names`` (``Type.Ipu`` -> "IPU"); None when unknown."""
    if value is None:
        return None
    name = getattr(value, "name", None) or str(value).rsplit(".", 1)[-1]
    return names.get(str(name))


def report_from_pva(pva: Any, report: Any, source: str) -> TileReport:
    """The per-tile report of a libpva ``Report`` (``pva`` is the module, for its enums)."""
    compilation = _attr(report, "compilation", "report")
    target = _attr(compilation, "target", "report.compilation")
    where = "report.compilation.target"
    tiles = list(_attr(compilation, "tiles", "report.compilation"))
    num_tiles = len(tiles)
    if num_tiles > MAX_TILES:
        raise ReadError(f"{num_tiles:,} tiles is beyond any IPU system (at most {MAX_TILES:,})")
    notes = []
    stated_tiles = _attr(target, "numTiles", where, None)
    if stated_tiles is not None and _count(stated_tiles, f"{where}.numTiles") != num_tiles:
        notes.append(f"{where}.numTiles is {int(stated_tiles):,} but report.compilation.tiles lists {num_tiles:,}: "
                     "the tiles listed are reported")
    columns = _tile_columns(tiles)
    excluding = columns.pop("excluding")
    including = columns.pop("including")
    breakdown, regions, category_notes = _categories(columns, num_tiles)
    notes += category_notes
    for name, key in ((ALWAYS_LIVE, "alwaysLiveBytes"), (NOT_ALWAYS_LIVE, "notAlwaysLiveBytes")):
        if key in columns:
            breakdown[name] = Column(columns[key], counted=False)
    if ("alwaysLiveBytes" in columns) != ("notAlwaysLiveBytes" in columns):
        notes.append("libpva gives only one of alwaysLiveBytes and notAlwaysLiveBytes per tile")
    if breakdown and any(c.counted for c in breakdown.values()):
        counted = sum((c.values for c in breakdown.values() if c.counted), np.zeros(num_tiles, dtype=np.int64))
        if not np.array_equal(counted, excluding):
            differ = int(np.count_nonzero(counted != excluding))
            notes.append(f"the categories do not sum to memory.total.excludingGaps on {differ:,} tile(s)")
    stated = _stated(pva, target, where, num_tiles)
    info = {"target": _numbers(target, TARGET_EXTRAS, where),
            "graph": _numbers(_attr(compilation, "graph", "report.compilation", None), GRAPH_COUNTS,
                              "report.compilation.graph"),
            "poplar_version": _attr(report, "poplarVersion.string", "report", None)}
    steps = _steps(_attr(compilation, "livenessProgramSteps", "report.compilation", None))
    try:
        return TileReport(source=source, format="pop-profile", target=resolve_target(stated)[0],
                          excluding_gaps=excluding, including_gaps=including, breakdown=breakdown,
                          breakdown_kind="category", regions=regions, info=info, notes=tuple(notes), stated=stated,
                          liveness_steps=steps)
    except (TypeError, ValueError) as exc:
        raise ReadError(f"inconsistent libpva report: {exc}") from None


def _tile_columns(tiles: list) -> dict[str, Any]:
    """Per-tile figures, tile by tile (libpva gives a Python object per tile anyway)."""
    excluding, including = [], []
    liveness: dict[str, list[int]] = {"alwaysLiveBytes": [], "notAlwaysLiveBytes": []}
    categories: dict[str, dict[str, list[int]]] = {}
    for i, tile in enumerate(tiles):
        where = f"report.compilation.tiles[{i}].memory"
        memory = _attr(tile, "memory", f"report.compilation.tiles[{i}]")
        excluding.append(_count(_attr(memory, "total.excludingGaps", where), f"{where}.total.excludingGaps"))
        including.append(_count(_attr(memory, "total.includingGaps", where), f"{where}.total.includingGaps"))
        for key, values in liveness.items():
            value = _attr(memory, key, where, None)
            if value is not None:
                values.append(_count(value, f"{where}.{key}"))
        category = _attr(memory, "category", where, None)
        if category is None:
            continue
        for name in _category_names(category):
            node = getattr(category, name)
            parts = categories.setdefault(name, {})
            for part, value in _category_parts(node, f"{where}.category.{name}").items():
                parts.setdefault(part, []).append(value)
    n = len(tiles)
    found: dict[str, Any] = {"excluding": np.array(excluding, dtype=np.int64),
                             "including": np.array(including, dtype=np.int64)}
    for key, values in liveness.items():
        if len(values) == n and n:
            found[key] = np.array(values, dtype=np.int64)
    found["categories"] = categories
    return found


def _category_names(category: Any) -> list[str]:
    """The known categories libpva has, in FORMATS.md's order, then any others it lists."""
    others = sorted(name for name in dir(category) if not name.startswith("_") and name not in CATEGORIES
                    and _is_category(getattr(category, name, None)))
    return [name for name in CATEGORIES if _is_category(getattr(category, name, None))] + others


def _is_category(node: Any) -> bool:
    return node is not None and (_has_regions(node) or hasattr(node, "total"))


def _has_regions(node: Any) -> bool:
    return any(hasattr(node, region) for region in REGIONS)


def _category_parts(node: Any, where: str) -> dict[str, int]:
    """A category's bytes on one tile: per region (non-overlapped, overlapped) where libpva splits them, else total."""
    parts = {}
    if _has_regions(node):
        for region in REGIONS:
            part = _attr(node, region, where, None)
            if part is None:
                continue
            parts[region] = _count(_attr(part, "nonOverlapped", f"{where}.{region}"), f"{where}.{region}.nonOverlapped")
            overlapped = _attr(part, "overlapped", f"{where}.{region}", None)
            if overlapped is not None:
                parts[region + ".overlapped"] = _count(overlapped, f"{where}.{region}.overlapped")
        return parts
    return {"total": _count(_attr(node, "total", where), f"{where}.total")}


def _categories(columns: dict[str, Any], n: int) -> tuple[dict[str, Column], dict[str, np.ndarray], list[str]]:
    """Counted category columns (non-overlapped), overlapped columns (not counted) and region sums."""
    breakdown: dict[str, Column] = {}
    extra: dict[str, Column] = {}
    regions: dict[str, np.ndarray] = {}
    notes = []
    totals_only = []
    for name, parts in columns.pop("categories").items():
        if any(len(values) != n for values in parts.values()):
            notes.append(f"ignored category {name}: libpva gives it for only some tiles")
            continue
        arrays = {part: np.array(values, dtype=np.int64) for part, values in parts.items()}
        if "total" in arrays:
            breakdown[name] = Column(arrays["total"])
            totals_only.append(name)
            continue
        non = [arrays[r] for r in REGIONS if r in arrays]
        over = [arrays[f"{r}.overlapped"] for r in REGIONS if f"{r}.overlapped" in arrays]
        breakdown[name] = Column(sum(non, np.zeros(n, dtype=np.int64)))
        if over:
            extra[f"{name}.overlapped"] = Column(sum(over, np.zeros(n, dtype=np.int64)), counted=False)
        for region, label in REGIONS.items():
            if region in arrays:
                regions[label] = regions[label] + arrays[region] if label in regions else arrays[region]
    if totals_only:
        shown = ", ".join(totals_only[:3]) + ("..." if len(totals_only) > 3 else "")
        noun = "category" if len(totals_only) == 1 else "categories"
        notes.append(f"libpva gives only .total for {len(totals_only)} {noun} ({shown}): no region or overlap split")
    if breakdown and len(totals_only) < len(breakdown):
        regions = {label: regions.get(label, np.zeros(n, dtype=np.int64)) for label in REGIONS.values()}
    return {**breakdown, **extra}, regions, notes


def _stated(pva: Any, target: Any, where: str, num_tiles: int) -> StatedTarget:
    def count(name: str) -> int | None:
        value = _attr(target, name, where, None)
        return None if value is None else _count(value, f"{where}.{name}", positive=True)
    clock = _attr(target, "clockFrequency", where, None)
    if clock is not None and (isinstance(clock, bool) or not isinstance(clock, (int, float)) or not math.isfinite(clock)
                              or clock <= 0):
        raise ReadError(f"libpva's {where}.clockFrequency is {clock!r}, not a positive number of Hz")
    arch = _enum_name(_attr(target, "architecture", where, None), ARCH_NAMES)
    return StatedTarget(num_tiles=num_tiles, arch=arch if arch in ARCHES else None,
                        arch_basis="of its target (libpva's target.architecture)", num_ipus=count("numIPUs"),
                        tiles_per_ipu=count("tilesPerIpu"), bytes_per_tile=count("bytesPerTile"),
                        clock_hz=None if clock is None else float(clock),
                        type=_enum_name(_attr(target, "type", where, None), TYPES), source_kind="profile")


def _numbers(node: Any, names: dict[str, str], where: str) -> dict[str, int]:
    if node is None:
        return {}
    found = {}
    for key, snake in names.items():
        value = _attr(node, key, where, None)
        if value is not None and not isinstance(value, bool) and isinstance(value, (int, float, np.integer)) \
                and float(value).is_integer():
            found[snake] = int(value)
    return found


def _steps(steps: Any) -> tuple[ProgramLiveness, ...] | None:
    """Every step's not-always-live bytes and program name; the variables live at the peak step (the first with
    the most bytes) where libpva lists them: one step's list, not every step's (thousands of lists)."""
    if steps is None:
        return None
    steps = list(steps)
    found = []
    for i, step in enumerate(steps):
        where = f"report.compilation.livenessProgramSteps[{i}]"
        name = _attr(step, "program.name", where, None)
        found.append(ProgramLiveness(_count(_attr(step, "notAlwaysLiveMemory.bytes", where),
                                            f"{where}.notAlwaysLiveMemory.bytes"),
                                     name if isinstance(name, str) else None))
    if found:
        peak = max(range(len(found)), key=lambda i: (found[i].bytes, -i))
        where = f"report.compilation.livenessProgramSteps[{peak}].notAlwaysLiveMemory.variables"
        listed = _attr(steps[peak], "notAlwaysLiveMemory.variables", where[:-len(".notAlwaysLiveMemory.variables")],
                       None)
        if listed is not None:
            live = tuple((str(_attr(v, "name", f"{where}[{k}]")), _count(_attr(v, "size", f"{where}[{k}]"),
                                                                         f"{where}[{k}].size"))
                         for k, v in enumerate(listed))
            found[peak] = ProgramLiveness(found[peak].bytes, found[peak].name, variables=live)
    return tuple(found)


register(Reader("pva", "PopVision profile.pop", looks_like_sqlite, read_pop, (".pop",)))
