"""Synthetic graph profiles and tensor maps (docs/FORMATS.md §2-4), as dicts and as JSON or CBOR bytes.

Profiles are built from per-tile arrays; categories either come from the
caller or are split deterministically from the per-tile totals so that
they sum to them exactly. :func:`mk1_poplar_match_profile` reproduces the
figures of a real Poplar text report (1,216 Mk1 tiles, the adder example in
graphcore/tensorflow's logging.rst).
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

SELF_DESCRIBE_TAG = b"\xd9\xd9\xf7"
MK1_TILES, MK1_BYTES_PER_TILE, MK1_CLOCK_HZ = 1216, 262144, 1.6e9
MK2_BYTES_PER_TILE = 638_976
# Shares of each tile's bytes given to categories by split_categories; the first takes the remainder.
DEFAULT_SHARES: Mapping[str, float] = {
    "variable": 0.45, "vertexCode": 0.2, "controlCode": 0.1, "internalExchangeCode": 0.1,
    "vertexInstanceState": 0.1, "stack": 0.05,
}
# The adder example's report (graphcore/tensorflow tensorflow/compiler/plugin/poplar/docs/logging.rst,
# "Memory usage"): category -> (bytes over all tiles, bytes we put on tile 0). Tile 0's shares are
# ours, chosen to sum to the report's 5,780 B maximum; the categories it printed as 0 B are left out.
MK1_REPORT_CATEGORIES: Mapping[str, tuple[int, int]] = {
    "variable": (39108, 1108), "hostExchangePacketHeader": (10512, 16), "stack": (3852288, 3168),
    "vertexInstanceState": (14640, 12), "controlCode": (851272, 700), "vertexCode": (170788, 140),
    "internalExchangeCode": (60792, 50), "hostExchangeCode": (351328, 582),
    "instrumentationResults": (4876, 4),
}
_MK1_WOBBLE = [(5, 389), (3, 7), (0, 1), (2, 11), (120, 389), (40, 113), (10, 31), (80, 211), (1, 5)]
MK1_EXCLUDING_GAPS, MK1_INCLUDING_GAPS = 5355604, 23878396
MK1_TILE0_EXCLUDING_GAPS, MK1_TILE0_INCLUDING_GAPS = 5780, 49184
MK1_GRAPH = {"numVertices": 1219, "numEdges": 1223, "numVars": 30562, "numComputeSets": 4}
_REGION_KEYS = {"non_interleaved": "nonInterleaved", "interleaved": "interleaved", "overflowed": "overflowed"}


def split_categories(excluding_gaps: Sequence[int] | np.ndarray, bytes_per_tile: int | None = None,
                     shares: Mapping[str, float] = DEFAULT_SHARES) -> dict[str, dict[str, np.ndarray]]:
    """``{category: {region: per-tile bytes}}`` summing exactly to ``excluding_gaps``.

    Bytes above ``bytes_per_tile`` go to the ``overflowed`` region (taken
    from the categories in order), the rest to ``nonInterleaved``.
    """
    total = np.asarray(excluding_gaps, dtype=np.int64)
    names = list(shares)
    parts = {name: (total * shares[name]).astype(np.int64) for name in names[1:]}
    parts = {names[0]: total - sum(parts.values(), np.zeros_like(total)), **parts}
    over_left = np.zeros_like(total) if bytes_per_tile is None else np.maximum(total - bytes_per_tile, 0)
    result = {}
    for name in names:
        over = np.minimum(parts[name], over_left)
        over_left = over_left - over
        regions = {"nonInterleaved": parts[name] - over}
        if bytes_per_tile is not None:
            regions["overflowed"] = over
        result[name] = regions
    return result


# Poplar's memory categories (docs/FORMATS.md §2) and the regions a profile splits each into.
POPLAR_CATEGORIES = ("variable", "constant", "controlCode", "controlId", "controlTable", "copyDescriptor",
                     "globalExchangeCode", "hostExchangeCode", "internalExchangeCode", "hostExchangePacketHeader",
                     "globalExchangePacketHeader", "instrumentationResults", "stack", "vertexCode",
                     "vertexFieldData", "vectorListDescriptor", "vertexInstanceState")
PROFILE_REGIONS = ("nonInterleaved", "interleaved", "overflowed")


def mixed_categories(num_tiles: int, *, high: int = 20_000, zeros: float = 0.3,
                     seed: int = 0) -> dict[str, dict[str, np.ndarray]]:
    """Every category in every region, as a real profile has them: values 0..``high`` with a share ``zeros``
    of exact zeros, so a per-tile list mixes CBOR integers of 1, 2 and 3 bytes and JSON numbers of 1 to 5
    digits (issue #26, item 8: a list of one width is the decoders' easy case)."""
    rng = np.random.default_rng(seed)
    categories = {}
    for name in POPLAR_CATEGORIES:
        regions = {}
        for region in PROFILE_REGIONS:
            values = rng.integers(0, high + 1, num_tiles)
            values[rng.random(num_tiles) < zeros] = 0
            regions[region] = values
        categories[name] = regions
    return categories


def mixed_profile(num_tiles: int, *, seed: int = 0, **options: Any) -> dict:
    """A profile of :func:`mixed_categories` (17 categories x 3 regions), with including gaps and liveness."""
    categories = mixed_categories(num_tiles, seed=seed)
    excluding = sum(sum(regions.values()) for regions in categories.values())
    variables = sum(categories["variable"].values())
    rng = np.random.default_rng(seed + 1)
    return build_profile(excluding, including_gaps=excluding + rng.integers(0, 48 * 1024, num_tiles),
                         categories=categories, always_live=excluding - variables, not_always_live_max=variables,
                         **options)


def build_profile(excluding_gaps: Sequence[int] | np.ndarray, *,
                  including_gaps: Sequence[int] | np.ndarray | None = None,
                  categories: Mapping[str, Mapping[str, Any]] | None = None,
                  num_ipus: int = 1, tiles_per_ipu: int | None = None,
                  bytes_per_tile: int | None = MK1_BYTES_PER_TILE, clock_hz: float | None = MK1_CLOCK_HZ,
                  target_type: str = "IPU", graph: Mapping[str, int] | None = None,
                  always_live: Sequence[int] | np.ndarray | None = None,
                  not_always_live_max: Sequence[int] | np.ndarray | None = None,
                  num_tiles: int | None = None, by_program: Sequence[Mapping[str, Any]] | None = None) -> dict:
    """A graph-profile dict (numpy arrays as lists-to-be; the encoders convert them).

    ``categories`` maps a category to ``{region: list}`` (region keys in the
    profile's spelling or the model's, e.g. ``non_interleaved``; a region's
    value may also be ``{"nonOverlapped": ..., "overlapped": ...}``); when
    None, :func:`split_categories` splits ``excluding_gaps``. ``num_tiles``
    overrides the target's tile count (to build inconsistent files);
    ``by_program`` is ``memory.liveness.notAlwaysLive.byProgram`` (:func:`program_steps`).
    """
    total = np.asarray(excluding_gaps, dtype=np.int64)
    n = total.size
    tiles_per_ipu = tiles_per_ipu or max(1, n // max(num_ipus, 1))
    if categories is None:
        categories = split_categories(total, bytes_per_tile)
    target: dict[str, Any] = {"type": target_type, "numIPUs": num_ipus, "tilesPerIPU": tiles_per_ipu,
                              "numTiles": n if num_tiles is None else num_tiles}
    if bytes_per_tile is not None:
        target.update(bytesPerTile=bytes_per_tile, bytesPerIPU=bytes_per_tile * tiles_per_ipu,
                      totalMemory=bytes_per_tile * n)
    if clock_hz is not None:
        target["clockFrequency"] = clock_hz
    by_tile: dict[str, Any] = {"total": total}
    if including_gaps is not None:
        by_tile["totalIncludingGaps"] = np.asarray(including_gaps, dtype=np.int64)
    memory: dict[str, Any] = {"byTile": by_tile, "byCategory": {
        category: {_REGION_KEYS.get(region, region): _region_value(value) for region, value in regions.items()}
        for category, regions in categories.items()}}
    if always_live is not None or not_always_live_max is not None:
        memory["liveness"] = {}
        if always_live is not None:
            memory["liveness"]["alwaysLive"] = {"bytesByTile": np.asarray(always_live, dtype=np.int64)}
        if not_always_live_max is not None:
            memory["liveness"]["notAlwaysLive"] = {"maxBytesByTile": np.asarray(not_always_live_max,
                                                                                dtype=np.int64)}
    if by_program is not None:
        memory.setdefault("liveness", {}).setdefault("notAlwaysLive", {})["byProgram"] = list(by_program)
    counts = {"numVertices": 0, "numEdges": 0, "numVars": 0, "numComputeSets": 0, **(graph or {})}
    return {"target": target, "graph": counts, "memory": memory}


def _region_value(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: np.asarray(v, dtype=np.int64) for k, v in value.items()}
    return {"nonOverlapped": np.asarray(value, dtype=np.int64)}


def wrap(profile: Mapping, execution: Mapping | None = None) -> dict:
    """The profile inside ``{"graphProfile": ..., "executionProfile": ...}``."""
    return {"graphProfile": profile, "executionProfile": execution if execution is not None else {}}


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot encode {type(value).__name__}")


def encode_json(doc: Any, *, indent: bool = False) -> bytes:
    """JSON bytes (orjson when installed); numpy arrays become lists."""
    try:
        import orjson
    except ImportError:  # pragma: no cover
        return json.dumps(doc, default=_plain, indent=2 if indent else None).encode()
    option = orjson.OPT_SERIALIZE_NUMPY | (orjson.OPT_INDENT_2 if indent else 0)
    return orjson.dumps(doc, option=option, default=_plain)


def encode_cbor(doc: Any, *, self_describe: bool = True, typed_arrays: bool = False) -> bytes:
    """CBOR bytes, by default after the self-describe tag as use_poplar_cbor_report writes.

    ``typed_arrays`` stores numpy arrays as RFC 8746 little-endian int64
    typed arrays (tag 79) instead of lists.
    """
    import cbor2

    def default(encoder: Any, value: Any) -> None:
        if typed_arrays and isinstance(value, np.ndarray):
            encoder.encode(cbor2.CBORTag(79, value.astype("<i8").tobytes()))
        else:
            encoder.encode(_plain(value))

    body = cbor2.dumps(doc, default=default)
    return (SELF_DESCRIBE_TAG + body) if self_describe else body


def tensor_entry(name: str, tiles: Mapping[int, int] | Sequence[tuple[int, int]], *,
                 element_type: str = "float", shape: Sequence[int] | None = None, output_index: int = 0,
                 has_constant: bool = False, has_aliases: bool = False, total: int | None = None,
                 framework_name: str | None = None) -> list:
    """One tensor as a tensor map lists it: ``[name, index, shape, type, const, alias, total, pairs, name?]``."""
    pairs = [[int(t), int(e)] for t, e in (tiles.items() if isinstance(tiles, Mapping) else tiles)]
    elements = sum(e for _, e in pairs)
    entry = [name, output_index, list(shape) if shape is not None else [elements], element_type,
             int(has_constant), int(has_aliases), elements if total is None else total, pairs]
    if framework_name is not None:
        entry.append(framework_name)
    return entry


def build_tensor_map(computations: Mapping[str, Sequence[list]], *, key: str = "mappings") -> dict:
    """``{"mappings": {computation: [tensor, ...]}}`` (``key="mapping"`` for the misspelt variant)."""
    return {key: {name: list(tensors) for name, tensors in computations.items()}}


def spread(total: int, n: int, amplitude: int = 0, step: int = 389) -> np.ndarray:
    """``n`` integers summing exactly to ``total``: an even share plus a deterministic wobble."""
    tiles = np.arange(n, dtype=np.int64)
    wobble = (tiles * step) % (2 * amplitude + 1) - amplitude if amplitude else np.zeros(n, dtype=np.int64)
    wobble -= wobble.sum() // n
    values = total // n + wobble
    short = total - int(values.sum())  # in (-n, n): one byte more or less on the first |short| tiles
    values[:abs(short)] += 1 if short > 0 else -1
    return values


def mk1_poplar_match_profile() -> dict:
    """A 1,216-tile Mk1 profile matching the real Poplar text report in graphcore/tensorflow's logging.rst.

    Same totals (excluding gaps 5,355,604 B, including gaps 23,878,396 B),
    category totals, graph counts and By Tile block: 1,215 tiles in [4, 5)
    KiB and tile 0 at 5,780 B excluding gaps, 49,184 B including gaps. How
    the bytes spread over tiles 1-1,215 is made up (evenly, with a wobble).
    """
    rest = MK1_TILES - 1
    categories = {}
    for (name, (total, on_tile_0)), (amplitude, step) in zip(MK1_REPORT_CATEGORIES.items(), _MK1_WOBBLE):
        values = np.concatenate([[on_tile_0], spread(total - on_tile_0, rest, amplitude, step)])
        categories[name] = {"nonInterleaved": values}
    excluding = sum(c["nonInterleaved"] for c in categories.values())
    gaps = spread(MK1_INCLUDING_GAPS - MK1_TILE0_INCLUDING_GAPS - int(excluding[1:].sum()), rest, 6000, 97)
    including = np.concatenate([[MK1_TILE0_INCLUDING_GAPS], excluding[1:] + gaps])
    variables = categories["variable"]["nonInterleaved"]
    return build_profile(
        excluding, including_gaps=including, categories=categories, bytes_per_tile=MK1_BYTES_PER_TILE,
        clock_hz=MK1_CLOCK_HZ, tiles_per_ipu=MK1_TILES, graph=MK1_GRAPH,
        always_live=excluding - variables, not_always_live_max=variables)


def mk1_tensor_map() -> dict:
    """A tensor map for :func:`mk1_poplar_match_profile`: small tensors of several element types.

    Each tile's estimated tensor data stays below its ``variable`` bytes.
    """
    all_tiles = range(MK1_TILES)
    main = [
        tensor_entry("arg0.1", dict.fromkeys(all_tiles, 2), shape=[MK1_TILES, 2], framework_name="x"),
        tensor_entry("add.3", dict.fromkeys(all_tiles, 4), element_type="half", shape=[MK1_TILES, 4],
                     framework_name="add"),
        tensor_entry("bias.2", {0: 256}, shape=[256], framework_name="dense/bias"),
        tensor_entry("reduce.7", {0: 4}, element_type="int", shape=[4], framework_name="Sum"),
        tensor_entry("compare.9", dict.fromkeys(all_tiles, 1), element_type="bool", shape=[MK1_TILES],
                     framework_name="Greater"),
    ]
    init = [tensor_entry("broadcast.1", dict.fromkeys(range(4), 2), shape=[8], framework_name="zeros")]
    return build_tensor_map({"cluster_main": main, "cluster_init": init})


def program_steps(n: int = 400, *, peak_at: int = 237, peak_bytes: int = 90_000_000,
                  low_bytes: int = 4_000_000) -> list[dict]:
    """``n`` program steps as SDK 2.1's ``byProgram`` nodes (``{"bytes", "children"}``, flat, as a training
    step's programs follow each other), whose not-always-live bytes rise over the forward pass to one peak,
    ``peak_bytes`` at step ``peak_at``, and fall back over the backward pass: every other step is below it."""
    if not 0 <= peak_at < n:
        raise ValueError(f"the peak step {peak_at} is outside 0..{n - 1}")
    values = []
    for i in range(n):
        shape = i / peak_at if i <= peak_at and peak_at else (n - 1 - i) / max(n - 1 - peak_at, 1)
        wobble = (i * 389) % 100_003 * max(1, peak_bytes // 2_000_000)  # up to a twentieth of the peak
        values.append(low_bytes + int((peak_bytes - low_bytes) * 0.85 * shape) + wobble)
    values[peak_at] = peak_bytes
    assert max(v for i, v in enumerate(values) if i != peak_at) < peak_bytes
    return [{"bytes": v, "children": []} for v in values]


def mk2_stepped_profile(num_tiles: int = 1472, steps: int = 400, peak_at: int = 237) -> dict:
    """One Mk2 IPU (638,976 B per tile) with three tiles over their memory and ``steps`` program steps whose
    liveness has one peak (at ``peak_at``): the README's profile, with liveness and categories per tile."""
    base = spread(330 * 1024 * num_tiles, num_tiles, 40 * 1024, 389) + 30_000
    base[[17, 731, 1402] if num_tiles > 1402 else [0]] = [700_000, 641_024, 788_976][:3 if num_tiles > 1402 else 1]
    categories = split_categories(base, MK2_BYTES_PER_TILE)
    variables = sum(categories["variable"].values())
    always = base - variables
    nal_peak = int(variables.sum() * 0.9)
    return build_profile(base, including_gaps=base + 4096, categories=categories, bytes_per_tile=MK2_BYTES_PER_TILE,
                         tiles_per_ipu=num_tiles, clock_hz=1.33e9, always_live=always,
                         not_always_live_max=variables,
                         by_program=program_steps(steps, peak_at=peak_at, peak_bytes=nal_peak,
                                                  low_bytes=nal_peak // 12))


def profile_with_everything() -> dict:
    """Overlapped bytes, all three regions, liveness per tile and by program step (a nested tree)."""
    excluding = np.array([1000, 2000, 640_000, 500], dtype=np.int64)
    categories = {"variable": {"nonInterleaved": {"nonOverlapped": excluding - 300, "overlapped": [7, 8, 9, 10]},
                               "overflowed": [0, 0, 1024, 0]},
                  "vertexCode": {"interleaved": [300, 300, 300, 300]}}
    categories["variable"]["nonInterleaved"]["nonOverlapped"] = excluding - 300 - np.array([0, 0, 1024, 0])
    doc = build_profile(excluding, including_gaps=excluding + 64, categories=categories,
                        bytes_per_tile=638_976, num_ipus=2, tiles_per_ipu=2,
                        always_live=[300, 300, 300, 300], not_always_live_max=[700, 1700, 639_700, 200])
    doc["memory"]["liveness"]["notAlwaysLive"]["byProgram"] = [
        {"bytes": 100, "children": [{"bytes": 900, "children": []}, {"bytes": 40, "name": "step/b", "children": []}]},
        {"bytes": 300, "children": []}]
    return doc
