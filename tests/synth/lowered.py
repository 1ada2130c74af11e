"""Synthetic lowered-variables reports (``debug.loweredVarDumpFile`` as JSON, docs/FORMATS.md §11).

No public file of this kind exists: these follow the layout Graphcore's
"Poplar profile data" pages give for SDK 2.1 (top-level ``numTiles``,
``targetMemoryInfo``, ``vars``, ``equivalenceClassInterference``,
``allocationOrderByTile``; each record ``{"var": ID, "info": {...}}`` with
the fields in the order the pages list them), plus keys a later SDK might
add. :func:`known_overlaps` is the fixture with figures worked out by hand;
:func:`damaged` the broken forms, each with the words its error must hold;
:func:`write_large` streams a pod-sized report to a file.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

TILE_MEMORY = 638_976  # ipu2 (docs/FORMATS.md §6)
INTERLEAVED_START = 524_288


@dataclass(frozen=True)
class Var:
    """One lowered variable as a test states it."""

    tile: int
    name: str
    offset: int
    size: int
    category: str = "variable"
    always_live: bool = False
    interleaved: bool = False
    eq_class: int | None = 0
    allocated: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


def record(var_id: int, v: Var, *, unknown: bool = False) -> dict:
    """A ``vars`` item, its info fields in the documented order (with a later SDK's extra keys if ``unknown``)."""
    info: dict[str, Any] = {"allocated": v.allocated, "tile": v.tile, "name": v.name, "sizeBytes": v.size,
                            "alignment": 8, "offset": v.offset, "category": v.category,
                            "isConstant": v.category == "constant", "alwaysLive": v.always_live,
                            "executable": v.category in ("vertexCode", "controlCode"),
                            "vertexCode": v.category == "vertexCode", "lowest256KB": v.offset < 262_144,
                            "equivalenceClass": v.eq_class, "inInterleavedMem": v.interleaved}
    if unknown:
        info["debugContextId"] = 1000 + var_id
        info["elementType"] = "half"
        info["poplibsTag"] = None
    info.update(v.extra)
    return {"var": var_id, "info": info}


def lowered_doc(variables: Sequence[Var], num_tiles: int, *, tile_memory: int = TILE_MEMORY,
                interference: Any = None, unknown: bool = False, ids: Sequence[int] | None = None) -> dict:
    """A whole report of ``variables`` (ids 0, 1, ... unless ``ids``)."""
    ids = list(range(len(variables))) if ids is None else list(ids)
    order: list[list[int]] = [[] for _ in range(num_tiles)]
    for var_id, v in zip(ids, variables):
        if v.allocated and 0 <= v.tile < num_tiles:
            order[v.tile].append(var_id)
    doc: dict[str, Any] = {"numTiles": num_tiles,
                           "targetMemoryInfo": {"tileMemory": tile_memory, "interleavedMemoryStart": INTERLEAVED_START,
                                                "memoryElementOffsets": [0, 65_536, 131_072],
                                                "supervisorInstrFetchDelay": 3},
                           "vars": [record(i, v, unknown=unknown) for i, v in zip(ids, variables)]}
    if interference is not None:
        doc["equivalenceClassInterference"] = interference
    doc["allocationOrderByTile"] = order
    if unknown:
        doc["poplarVersion"] = "2.1.0 (hypothetical)"
        doc["tileMemoryLayout"] = {"banks": [{"start": 0, "size": 65_536}]}
    return doc


def encode(doc: Any, *, spaced: bool = False) -> bytes:
    """Compact JSON (as orjson writes it), or indented with ``json.dump``'s separators."""
    if spaced:
        return json.dumps(doc, indent=2).encode()
    return json.dumps(doc, separators=(",", ":")).encode()


def known_overlaps() -> tuple[list[Var], dict]:
    """Three tiles whose figures are worked out by hand (docs/FORMATS.md §11's example):

    - tile 0: ``acts/a`` [0, 1000) and ``acts/b`` [0, 600) share an offset
      (classes 1 and 2, which do not interfere); ``weights`` [2000, 2500)
      is always live and alone; ``momentum`` [4096, 4352) is interleaved.
      Covered 1,756 B (1,000 + 500 + 256), highest end 4,352. Alone, ``acts/a``
      frees 400 B, ``acts/b`` none, both 1,000 B.
    - tile 1: ``grad`` [100, 400) and ``scratch`` [300, 700) overlap by 100,
      of two categories; covered 600 B, highest end 700.
    - tile 2: no variable.
    A variable not allocated is listed too (no tile memory).
    """
    variables = [
        Var(0, "acts/a", 0, 1000, eq_class=1),
        Var(0, "acts/b", 0, 600, eq_class=2),
        Var(0, "weights", 2000, 500, always_live=True, eq_class=None),
        Var(0, "momentum", 4096, 256, interleaved=True, always_live=True, eq_class=None),
        Var(1, "grad", 100, 300, eq_class=1),
        Var(1, "scratch", 300, 400, category="stack", eq_class=3),
        Var(0, "spilled", 0, 64, allocated=False, eq_class=None),
    ]
    interference = [[], [3], [], [1]]  # class 1 with 3; 2 with nothing
    return variables, lowered_doc(variables, 3, interference=interference, unknown=True)


def damaged() -> dict[str, tuple[bytes, str]]:
    """Broken reports: name -> (the file, words its one ReadError must hold)."""
    _, good = known_overlaps()

    def edited(change) -> bytes:
        doc = json.loads(json.dumps(good))
        change(doc)
        return encode(doc)

    def info(i: int, key: str, value: Any = ...):
        def change(doc: dict) -> None:
            if value is ...:
                del doc["vars"][i]["info"][key]
            else:
                doc["vars"][i]["info"][key] = value
        return change

    cases = {
        "missing numTiles": (edited(lambda d: d.pop("numTiles")), "numTiles is missing"),
        "missing tileMemory": (edited(lambda d: d["targetMemoryInfo"].pop("tileMemory")),
                               "targetMemoryInfo.tileMemory is missing"),
        "missing sizeBytes": (edited(info(2, "sizeBytes")), "vars[2].info.sizeBytes is missing"),
        "missing var": (edited(lambda d: d["vars"][1].pop("var")), "vars[1].var is missing"),
        "missing info": (edited(lambda d: d["vars"][4].pop("info")), "vars[4].info is missing"),
        "size a string": (edited(info(3, "sizeBytes", "256")), "vars[3].info.sizeBytes must be a whole number"),
        "name a number": (edited(info(0, "name", 7)), "vars[0].info.name must be a string"),
        "alwaysLive null": (edited(info(1, "alwaysLive", None)), "vars[1].info.alwaysLive must be true or false"),
        "negative size": (edited(info(5, "sizeBytes", -4)), "vars[5].info.sizeBytes must be non-negative"),
        "negative offset": (edited(info(0, "offset", -8)), "vars[0].info.offset must be non-negative"),
        "range past tile memory": (edited(info(3, "offset", TILE_MEMORY - 100)),
                                   "vars[3] ('momentum') lies at [638,876, 639,132) on tile 0, past the tile's memory"),
        "tile past numTiles": (edited(info(4, "tile", 3)), "vars[4].info.tile is 3, past numTiles (3: tiles 0..2)"),
        "vars not a list": (edited(lambda d: d.update(vars={"a": 1})), "vars"),
        "a record not an object": (edited(lambda d: d["vars"].insert(2, [1, 2])), "vars[2] must be an object"),
        "interference not a list": (edited(lambda d: d.update(equivalenceClassInterference=5)),
                                    "equivalenceClassInterference must be a list"),
        "cut short": (encode(good)[:-40], "JSON ends early"),
        "a stray byte": (encode(good).replace(b'"acts/b"', b'"acts/b"x', 1), "invalid JSON"),
    }
    return cases


def large_vars(num_vars: int, num_tiles: int, seed: int = 7) -> dict[str, np.ndarray]:
    """Columns of a pod-sized report: variables spread over the tiles, laid end to end from a random start,
    one in eight sharing the previous one's offset (a not-always-live pair), names repeating across tiles as
    a tensor's pieces do."""
    rng = np.random.default_rng(seed)
    tile = np.sort(rng.integers(0, num_tiles, num_vars))
    size = (rng.integers(1, 200, num_vars) * 8).astype(np.int64)
    first = np.r_[True, tile[1:] != tile[:-1]]
    share = rng.random(num_vars) < 0.125
    share &= ~first
    step = np.where(share, 0, size)
    ends = np.cumsum(step)
    group = np.maximum.accumulate(np.where(first, np.arange(num_vars), 0))
    offset = ends - step - (ends - step)[group]
    offset = np.where(share, np.r_[0, offset[:-1]], offset) % (TILE_MEMORY - 8 * 200)
    category = rng.integers(0, 6, num_vars)
    return {"tile": tile, "offset": offset, "size": size, "category": category,
            "always_live": rng.random(num_vars) < 0.4, "interleaved": rng.random(num_vars) < 0.1,
            "eq_class": rng.integers(0, 2000, num_vars), "tensor": rng.integers(0, 4000, num_vars)}


CATEGORIES = ("variable", "constant", "vertexInstanceState", "stack", "controlCode", "vertexCode")


def write_large(path: str, num_vars: int, num_tiles: int, *, spaced: bool = False, seed: int = 7) -> None:
    """A report of ``num_vars`` variables written to ``path`` a block of records at a time (compact JSON, or
    indented as ``json.dump(indent=2)`` lays it out)."""
    cols = large_vars(num_vars, num_tiles, seed)
    head = encode({"numTiles": num_tiles, "targetMemoryInfo": {
        "tileMemory": TILE_MEMORY, "interleavedMemoryStart": INTERLEAVED_START,
        "memoryElementOffsets": [0, 65_536, 131_072], "supervisorInstrFetchDelay": 3}}, spaced=spaced)
    with open(path, "wb") as f:
        f.write(head[:-1].rstrip() + (b',\n  "vars": [\n' if spaced else b',"vars":['))
        for start in range(0, num_vars, 50_000):
            f.write(_records(cols, start, min(start + 50_000, num_vars), spaced, last=start + 50_000 >= num_vars))
        classes = [[(c + 1) % 2000, (c + 7) % 2000] for c in range(2000)]
        tail = {"equivalenceClassInterference": classes,
                "allocationOrderByTile": [list(range(t, min(num_vars, t + 4))) for t in range(num_tiles)]}
        body = encode(tail, spaced=spaced)
        f.write((b"\n  ],\n" if spaced else b"],") + body.lstrip()[1:])


def _records(cols: dict[str, np.ndarray], start: int, stop: int, spaced: bool, last: bool) -> bytes:
    items = []
    for i in range(start, stop):
        v = Var(int(cols["tile"][i]), f"layer{int(cols['tensor'][i]) % 97}/block{int(cols['tensor'][i])}/weights:0",
                int(cols["offset"][i]), int(cols["size"][i]), CATEGORIES[int(cols["category"][i])],
                bool(cols["always_live"][i]), bool(cols["interleaved"][i]), int(cols["eq_class"][i]))
        items.append(record(i, v))
    text = encode(items, spaced=spaced)
    inner = text.strip()[1:-1].strip()
    if spaced:
        inner = b"\n".join(b"  " + line for line in inner.split(b"\n"))
    return inner + (b"" if last else (b",\n" if spaced else b","))


def variables_of(doc: dict) -> Iterable[tuple[int, dict]]:
    """(position, info) of each allocated record of a decoded report."""
    for i, item in enumerate(doc["vars"]):
        if item["info"].get("allocated"):
            yield i, item["info"]
