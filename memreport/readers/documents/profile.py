"""JSON and CBOR graph profiles (docs/FORMATS.md §2-3): one tree, two decoders.

Both readers decode the whole document, then dispatch on its top-level keys:
a graph profile (bare or inside ``graphProfile``) becomes a complete
per-tile report; a tensor map (``mappings``) goes to
:mod:`memreport.readers.documents.tensor_map`; anything else is a clear error.

Where things land in the model:

- ``memory.byTile.total`` / ``totalIncludingGaps`` -> ``excluding_gaps`` /
  ``including_gaps``.
- ``memory.byCategory.<cat>.<region>.nonOverlapped`` -> ``breakdown[cat]``
  (summed over regions, counted) and ``regions`` (summed over categories).
- ``.overlapped`` -> ``breakdown["<cat>.overlapped"]``, *not counted*:
  not-always-live data shares addresses, so its sum exceeds what it occupies
  (Poplar's text summary prints a separate "Total After Overlapping").
- ``memory.liveness.alwaysLive.bytesByTile`` and
  ``notAlwaysLive.maxBytesByTile`` -> ``breakdown["liveness.alwaysLive"]``
  and ``breakdown["liveness.notAlwaysLiveMax"]``, not counted: another view
  of the same bytes, kept per tile so CSV and notebooks see it.
- ``memory.liveness.notAlwaysLive.byProgram`` (a tree of ``{"bytes",
  "children"}``, SDK 2.1) -> ``liveness_steps``.
- ``graph.*`` counts -> ``info["graph"]``; other target figures ->
  ``info["target"]``.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...errors import ReadError
from ...model import (
    ALWAYS_LIVE,
    ARCHES,
    MAX_TILES,
    NOT_ALWAYS_LIVE_MAX,
    Column,
    MemoryReport,
    ProgramLiveness,
    StatedTarget,
    TileReport,
    add_view,
    resolve_target,
)
from ..registry import Reader, ReadOptions, register
from .bulk_decode import decode_cbor_arrays, decode_json_arrays, decode_tensor_map_json
from .document import (
    child,
    decode_cbor,
    decode_json,
    file_bytes,
    looks_like_cbor_map,
    looks_like_json_object,
    mapping,
    tile_array,
    whole_number,
)
from .tensor_map import is_tensor_map, looks_like_tensor_map, report_from_tensor_map, tensor_map_from_document

REGIONS = {"nonInterleaved": "non_interleaved", "interleaved": "interleaved", "overflowed": "overflowed"}
GRAPH_COUNTS = {"numVertices": "num_vertices", "numEdges": "num_edges", "numVars": "num_vars",
                "numComputeSets": "num_compute_sets"}
TARGET_EXTRAS = {"bytesPerIPU": "bytes_per_ipu", "totalMemory": "total_memory"}
_PROFILE_KEYS = ("graphProfile", "memory", "target", "graph")


def is_profile(tree: Any) -> bool:
    """True for a decoded document that is (or wraps) a graph profile."""
    return isinstance(tree, Mapping) and any(key in tree for key in _PROFILE_KEYS)


def read_json(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """A JSON graph profile or tensor map."""
    data = file_bytes(path)
    # Long lists straight to arrays (a tensor map's tile pairs, a profile's per-tile lists); None: decode the
    # ordinary way.
    tree = decode_tensor_map_json(data) if looks_like_tensor_map(data) else decode_json_arrays(data)
    tree = decode_json(data) if tree is None else tree
    del data  # the file's bytes need not outlive the decoding
    return read_tree(tree, path, "json")


def read_cbor(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """A CBOR graph profile (or tensor map), with or without the self-describe tag."""
    data = file_bytes(path)
    tree = decode_cbor_arrays(data)
    tree = decode_cbor(data) if tree is None else tree
    del data
    return read_tree(tree, path, "cbor")


def read_tree(tree: Any, source: str, encoding: str) -> list[MemoryReport]:
    """Dispatch a decoded document on its top-level keys."""
    from .lowered_vars import is_lowered_vars, report_from_tree
    from .saved import is_saved, reports_from_document
    if is_saved(tree):  # memreport's own JSON, its keys reordered (jq -S): not sniffed as such
        return reports_from_document(tree)
    if is_lowered_vars(tree):  # its telling keys past the first 4 KiB: not sniffed as such
        return [report_from_tree(tree, source)]
    if is_tensor_map(tree):
        return [report_from_tensor_map(tensor_map_from_document(tree, source))]
    if is_profile(tree):
        return [profile_report(tree, source, f"{encoding}-profile")]
    what = "unrecognised JSON document" if encoding == "json" else "unrecognised CBOR document"
    if isinstance(tree, Mapping):
        keys = ", ".join(repr(k) for k in list(tree)[:8]) or "none"
        found = f"top-level keys: {keys}"
    else:
        found = "the top level is not an object"
    raise ReadError(f"{what} (expected a graph profile or a tensor map; {found})")


def profile_report(tree: Mapping, source: str, fmt: str) -> MemoryReport:
    """The report of one graph profile tree (bare or ``graphProfile``-wrapped)."""
    info: dict[str, Any] = {}
    notes: list[str] = []
    if "graphProfile" in tree:
        graph, base = mapping(tree["graphProfile"], "graphProfile"), "graphProfile."
        info["execution_profile"] = tree.get("executionProfile") is not None
    else:
        graph, base = tree, ""
    target_node = mapping(graph.get("target") or {}, base + "target")
    memory = mapping(child(graph, "memory", base, required=True), base + "memory")
    by_tile = mapping(memory.get("byTile") or {}, base + "memory.byTile")

    num_tiles = _num_tiles(target_node, by_tile, base, notes)
    if num_tiles > MAX_TILES:  # before any per-tile array is made
        raise ReadError(f"{base}target: {num_tiles:,} tiles is beyond any IPU system (at most {MAX_TILES:,})")
    count_of = "tiles (target.numTiles)" if "numTiles" in target_node else "tiles"

    def per_tile(value: Any, path: str) -> np.ndarray:
        return tile_array(value, base + path, num_tiles, count_of)

    excluding = per_tile(by_tile["total"], "memory.byTile.total") if by_tile.get("total") is not None else None
    including = (per_tile(by_tile["totalIncludingGaps"], "memory.byTile.totalIncludingGaps")
                 if by_tile.get("totalIncludingGaps") is not None else None)
    breakdown, extra, regions = _categories(memory.get("byCategory"), base, num_tiles, per_tile, notes)
    extra.update(_liveness(memory.get("liveness"), base, per_tile))
    steps = _liveness_steps(memory.get("liveness"), base)

    if excluding is None and not breakdown:
        raise ReadError(f"{base}memory.byTile.total is missing and no byCategory list gives per-tile bytes")
    counted = np.zeros(num_tiles, dtype=np.int64)
    for column in breakdown.values():
        counted = _add(counted, column.values, f"{base}memory.byCategory")
    if excluding is None:
        excluding = counted
        notes.append("memory.byTile.total is missing: excluding gaps is the sum of the categories")
    elif breakdown and not np.array_equal(counted, excluding):
        differ = int(np.count_nonzero(counted != excluding))
        notes.append(f"the categories (non-overlapped) do not sum to memory.byTile.total on {differ:,} tile(s)")
    if including is not None and np.any(including < excluding):
        notes.append(f"{int(np.count_nonzero(including < excluding)):,} tile(s) have fewer bytes including gaps "
                     "than excluding them")
    if including is None:
        notes.append("the profile holds no bytes including gaps (memory.byTile.totalIncludingGaps)")

    info["graph"] = _numbers(graph.get("graph"), GRAPH_COUNTS)
    info["target"] = _numbers(target_node, TARGET_EXTRAS)
    stated = _stated_target(target_node, base, num_tiles)
    for name, column in extra.items():  # a category may be called "x.overlapped" or "liveness.alwaysLive" too
        add_view(breakdown, name, column)
    try:
        return TileReport(source=source, format=fmt, target=resolve_target(stated)[0], excluding_gaps=excluding,
                          including_gaps=including, breakdown=breakdown,
                          breakdown_kind="category", regions=regions, info=info, notes=tuple(notes), stated=stated,
                          liveness_steps=steps)
    except (TypeError, ValueError) as exc:  # pragma: no cover - the checks above should catch these first
        raise ReadError(f"inconsistent profile: {exc}") from None


def _count(node: Mapping, key: str, base: str, positive: bool = True) -> int | None:
    """A whole-number target field, or None when absent."""
    return whole_number(node[key], f"{base}target.{key}", positive=positive) if key in node else None


def _num_tiles(target: Mapping, by_tile: Mapping, base: str, notes: list[str]) -> int:
    num_tiles = _count(target, "numTiles", base, positive=False)
    ipus, per_ipu = _count(target, "numIPUs", base), _count(target, "tilesPerIPU", base)
    if num_tiles is not None:
        if ipus and per_ipu and ipus * per_ipu != num_tiles:
            notes.append(f"target.numTiles ({num_tiles:,}) is not numIPUs x tilesPerIPU ({ipus * per_ipu:,})")
        return num_tiles
    if ipus and per_ipu:
        notes.append("target.numTiles is missing: tiles = numIPUs x tilesPerIPU")
        return ipus * per_ipu
    total = by_tile.get("total")
    if isinstance(total, (list, tuple, np.ndarray)):
        notes.append("the target gives no tile count: tiles = the length of memory.byTile.total")
        return len(total)
    raise ReadError(f"{base}target.numTiles is missing and no per-tile list gives the tile count")


def _categories(node: Any, base: str, num_tiles: int, per_tile, notes: list[str]
                ) -> tuple[dict[str, Column], dict[str, Column], dict[str, np.ndarray]]:
    """Counted category columns, non-counted overlapped columns, and region sums."""
    if node is None:
        return {}, {}, {}
    categories = mapping(node, base + "memory.byCategory")
    breakdown: dict[str, Column] = {}
    extra: dict[str, Column] = {}
    regions: dict[str, np.ndarray] = {}
    # Arrays are made from lists found (their length checked), never from num_tiles alone: a
    # small file declaring millions of tiles must not make gigabytes of zeros.
    for category, regions_node in categories.items():
        path = f"memory.byCategory.{category}"
        regions_node = mapping(regions_node, base + path)
        non_overlapped = None
        overlapped = None
        for region, value in regions_node.items():
            rpath = f"{path}.{region}"
            if isinstance(value, Mapping):
                if "nonOverlapped" not in value and "overlapped" not in value:
                    notes.append(f"ignored {rpath} (no nonOverlapped or overlapped list)")
                    continue
                non, over = value.get("nonOverlapped"), value.get("overlapped")
            elif region in REGIONS:  # a bare list: no overlapped split
                non, over = value, None
            else:
                notes.append(f"ignored {rpath} (not a memory region)")
                continue
            name = REGIONS.get(region) or _snake(str(region))
            if non is not None:
                values = per_tile(non, rpath + (".nonOverlapped" if isinstance(value, Mapping) else ""))
                non_overlapped = values if non_overlapped is None else _add(non_overlapped, values, base + path)
                regions[name] = _add(regions[name], values, base + rpath) if name in regions else values
            if over is not None:
                values = per_tile(over, rpath + ".overlapped")
                overlapped = values if overlapped is None else _add(overlapped, values, base + path)
        if non_overlapped is None and overlapped is None:  # no figure at all: zeros would invent them
            notes.append(f"ignored {path} (no per-tile list)")
            continue
        breakdown[str(category)] = Column(non_overlapped if non_overlapped is not None
                                          else np.zeros(num_tiles, dtype=np.int64))
        if overlapped is not None:
            extra[f"{category}.overlapped"] = Column(overlapped, counted=False)
    if not breakdown:
        return breakdown, extra, {}
    # The three regions always, in Poplar's order (zeros where no category has the region), then others.
    ordered = {name: regions.pop(name) if name in regions else np.zeros(num_tiles, dtype=np.int64)
               for name in REGIONS.values()}
    return breakdown, extra, {**ordered, **regions}


def _add(total: np.ndarray, values: np.ndarray, path: str) -> np.ndarray:
    """``total + values``, refusing sums past 64 bits (both non-negative, so a wrap shows as a decrease)."""
    result = total + values
    if np.any(result < total):
        raise ReadError(f"{path}: per-tile byte counts add up past 64 bits")
    return result


def _liveness(node: Any, base: str, per_tile) -> dict[str, Column]:
    if node is None:
        return {}
    node = mapping(node, base + "memory.liveness")
    columns = {}
    for key, leaf, name in (("alwaysLive", "bytesByTile", ALWAYS_LIVE),
                            ("notAlwaysLive", "maxBytesByTile", NOT_ALWAYS_LIVE_MAX)):
        part = node.get(key)
        if part is None:
            continue
        part = mapping(part, f"{base}memory.liveness.{key}")
        if part.get(leaf) is not None:
            columns[name] = Column(per_tile(part[leaf], f"memory.liveness.{key}.{leaf}"), counted=False)
    return columns


def _liveness_steps(node: Any, base: str) -> tuple[ProgramLiveness, ...] | None:
    """``memory.liveness.notAlwaysLive.byProgram``: a tree of ``{"bytes": N, "children": [...]}`` (None if absent)."""
    if not isinstance(node, Mapping) or not isinstance(node.get("notAlwaysLive"), Mapping):
        return None
    tree = node["notAlwaysLive"].get("byProgram")
    if tree is None:
        return None
    return _program_nodes(tree, f"{base}memory.liveness.notAlwaysLive.byProgram")


def _program_nodes(value: Any, path: str) -> tuple[ProgramLiveness, ...]:
    if isinstance(value, np.ndarray) and value.size == 0:  # an empty list, decoded as an array
        return ()
    if not isinstance(value, (list, tuple)):
        raise ReadError(f"{path} must be a list of program nodes, not {type(value).__name__}")
    nodes = []
    for i, item in enumerate(value):
        where = f"{path}[{i}]"
        item = mapping(item, where)
        name = next((item[k] for k in ("name", "program") if isinstance(item.get(k), str)), None)
        children = _program_nodes(item["children"], where + ".children") if item.get("children") is not None else ()
        nodes.append(ProgramLiveness(whole_number(child(item, "bytes", where + ".", required=True), where + ".bytes"),
                                     name, children))
    return tuple(nodes)


def _stated_target(node: Mapping, base: str, num_tiles: int) -> StatedTarget:
    path = base + "target."
    kind = node.get("type") if isinstance(node.get("type"), str) else None
    ipus, per_ipu = _count(node, "numIPUs", base), _count(node, "tilesPerIPU", base)
    bytes_per_tile = _count(node, "bytesPerTile", base)
    clock = node.get("clockFrequency")
    if clock is not None and (isinstance(clock, bool) or not isinstance(clock, (int, float))
                              or not math.isfinite(clock) or clock <= 0):
        raise ReadError(f"{path}clockFrequency must be a positive number of Hz, not {clock!r}")
    arch = _certain_arch(kind, per_ipu, bytes_per_tile)
    return StatedTarget(num_tiles=num_tiles, arch=arch,
                        arch_basis="of its target (1,216 tiles of 256 KiB on IPU hardware)", num_ipus=ipus,
                        tiles_per_ipu=per_ipu, bytes_per_tile=bytes_per_tile,
                        clock_hz=None if clock is None else float(clock), type=kind, source_kind="profile")


def _certain_arch(kind: str | None, tiles_per_ipu: int | None, bytes_per_tile: int | None) -> str | None:
    """ipu1 only when certain: real hardware with Mk1's 1,216 x 256 KiB (no other IPU has it).

    Mk2 and Bow share 1,472 x 624 KiB between ipu2 and ipu21, and an IPU
    model can take any shape, so those stay unknown.
    """
    mk1 = ARCHES["ipu1"]
    if kind == "IPU" and tiles_per_ipu == mk1.tiles_per_ipu and bytes_per_tile == mk1.bytes_per_tile:
        return mk1.name
    return None


def _numbers(node: Any, names: Mapping[str, str]) -> dict[str, int]:
    if not isinstance(node, Mapping):
        return {}
    return {snake: int(node[key]) for key, snake in names.items() if _is_count(node.get(key))}


def _is_count(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


register(Reader("json", "JSON graph profile or tensor map", looks_like_json_object, read_json, (".json",)))
register(Reader("cbor", "CBOR graph profile", looks_like_cbor_map, read_cbor, (".cbor",)))
