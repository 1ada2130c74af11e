"""Poplar's lowered-variables report (``debug.loweredVarDumpFile`` with a ``.json`` name, docs/FORMATS.md §11).

Every variable Poplar laid out in tile memory, with its tile, address
range, category and liveness: a tile's bytes are what its allocated
variables' ``[offset, offset + sizeBytes)`` ranges cover (excluding gaps),
the highest end (including gaps). The report becomes a
:class:`~memreport.model.TileReport` whose ``variables`` hold them all
(:class:`~memreport.model.Variables`), its breakdown per ``category`` and
its regions from ``inInterleavedMem``.

A pod's report lists a million variables. It is read without decoding the
list whole: :mod:`~memreport.readers.documents.lowered_rows` reads the
records written alike straight from the bytes, by their quotes; the others
are delimited by :mod:`~memreport.readers.documents.json_scan` and decoded
by orjson, as is everything outside ``vars``. When the scan cannot follow
the document, the whole is decoded the reference way, which says what is
wrong and where.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...errors import ReadError
from ...model import (
    MAX_TILE_MEMORY,
    MAX_TILES,
    Column,
    Interference,
    MemoryReport,
    StatedTarget,
    TileReport,
    Variables,
    resolve_target,
)
from ..registry import Reader, ReadOptions, register
from .bulk_decode import decode_json_arrays
from .document import child, decode_json, file_bytes, looks_like_json_object, mapping, whole_number
from .fields import kind_of
from .json_scan import CHUNK, Malformed, batch_at, decode_item, top_level_list
from .lowered_records import Fields, Strings, fields_of, record_fields
from .lowered_rows import Template, learn, quote_rows

FORMAT = "lowered-vars"
_MARKS = re.compile(rb'"(?:targetMemoryInfo|equivalenceClassInterference|allocationOrderByTile)"\s*:|'
                    rb'"vars"\s*:\s*\[\s*\{\s*"(?:var|info)"\s*:')
_VARS = "\0memreport:vars"  # what the list is replaced by while the rest of the document is decoded
_TOP_ARRAYS = ("equivalenceClassInterference", "allocationOrderByTile")


def _top_arrays(tree: object) -> list:
    """Where a lowered-variables document keeps its long integer lists (arrays there, as read)."""
    return [tree[key] for key in _TOP_ARRAYS if isinstance(tree, dict) and isinstance(tree.get(key), (list, dict))]
SLOW_SHARE = 0.5  # records of a batch left to orjson beyond which it decodes the whole batch at once
FALLBACK = 1 << 9  # bytes read the reference way after a record the template does not read (a record or two;
#                     doubling while the template keeps failing, up to a chunk)


def looks_like_lowered_vars(prefix: bytes) -> bool:
    """A JSON object whose first bytes hold a key only a lowered-variables report has."""
    return looks_like_json_object(prefix) and _MARKS.search(prefix) is not None


def is_lowered_vars(tree: Any) -> bool:
    """True for a decoded lowered-variables report, whatever its key order."""
    return isinstance(tree, Mapping) and isinstance(tree.get("vars"), list) and \
        ("targetMemoryInfo" in tree or "numTiles" in tree)


def read_lowered_vars(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """The report of one lowered-variables file."""
    return [lowered_report(file_bytes(path), path)]


def lowered_report(data: bytes, source: str, chunk: int = CHUNK) -> TileReport:
    """The report of a lowered-variables document, streamed; decoded whole where the scan cannot follow it."""
    try:
        return _streamed(data, source, chunk)
    except Malformed:
        pass
    tree = decode_json(data)  # the reference decoder: a damaged document's error, with its byte offset
    if isinstance(tree, Mapping) and "vars" in tree and not isinstance(tree["vars"], list):
        raise ReadError(f"vars must be a list of records, not {kind_of(tree['vars'])}")
    if not is_lowered_vars(tree):
        keys = ", ".join(repr(k) for k in list(tree)[:8]) if isinstance(tree, Mapping) else "none"
        raise ReadError(f"not a lowered-variables report (expected numTiles, targetMemoryInfo and a vars list; "
                        f"top-level keys: {keys})")
    return report_from_tree(tree, source)


def report_from_tree(tree: Mapping, source: str) -> TileReport:
    """The report of a decoded lowered-variables document (the reference reading)."""
    records = tree["vars"]
    strings = Strings()
    try:
        fields, error = fields_of(records, 0, None, strings), None
    except ReadError as exc:
        fields, error = Fields(0, strings), exc
    return _report(tree, fields, None, source, error)


def _streamed(data: bytes, source: str, chunk: int) -> TileReport:
    """The records read by their quotes (:func:`~memreport.readers.documents.lowered_rows.quote_rows`) while a
    template reads them, the rest decoded by orjson a batch at a time; the document around ``vars`` decoded
    on its own."""
    open_at = top_level_list(data, "vars")
    strings = Strings()
    parts: list[Fields] = []
    offsets: list[np.ndarray] = []
    error: ReadError | None = None
    done, at, fallback = 0, open_at + 1, FALLBACK
    template: Template | None = None
    while True:
        rows = None if template is None else quote_rows(data, at, template, chunk, strings)
        if rows is None:
            learned = _learn_at(data, at)
            if learned is not None and not learned.same_shape(template):
                template = learned
                rows = quote_rows(data, at, template, chunk, strings)
        if rows is not None:
            parts.append(rows.fields)
            offsets.append(rows.firsts)
            done += rows.fields.count
            at, fallback = int(rows.separators[-1]) + 1, FALLBACK
            continue
        batch = batch_at(data, at, fallback)
        if batch.count:
            firsts, ends = batch.spans()
            fields = Fields(batch.count, strings)
            error = _read_slow(data, fields, np.ones(batch.count, dtype=bool), firsts, ends, done, error)
            parts.append(fields)
            offsets.append(firsts)
            done += batch.count
        if batch.last:
            close = batch.end - 1
            break
        at, fallback = batch.end, min(2 * fallback, chunk)
    skeleton = data[:open_at] + b'"\\u0000memreport:vars"' + data[close + 1:]
    try:
        tree = decode_json_arrays(skeleton, _top_arrays, max_brackets=1 << 20)
        tree = decode_json(skeleton) if tree is None else tree
    except ReadError:
        raise Malformed("the document around vars") from None
    if not isinstance(tree, dict) or tree.get("vars") != _VARS:
        raise Malformed("vars is not the document's own")
    fields = Fields.joined(parts, strings)
    return _report(tree, fields, np.concatenate(offsets) if offsets else None, source, error)


def _learn_at(data: bytes, at: int) -> Template | None:
    """The template of the record starting at ``at``, when a comma ends it."""
    batch = batch_at(data, at, 1 << 12)
    if batch.count == 0 or (batch.last and batch.count == 1):
        return None
    firsts, ends = batch.spans()
    return learn(data, int(firsts[0]), int(ends[0]))


def _read_slow(data: bytes, fields: Fields, slow: np.ndarray, firsts: np.ndarray, ends: np.ndarray, done: int,
               error: ReadError | None) -> ReadError | None:
    """Decode the records the fast reading left, into ``fields``; the first record error is kept (the rest
    of the list is still decoded: a syntax error later in the document is what the reference reports)."""
    rows = np.flatnonzero(slow)
    if rows.size == 0:
        return error
    if rows.size > SLOW_SHARE * slow.size:  # decode the batch at once
        records = decode_item(b"[" + data[int(firsts[0]):int(ends[-1])] + b"]")
        chosen = [(int(row), records[row]) for row in rows.tolist()]
    else:
        chosen = [(row, decode_item(data[int(firsts[row]):int(ends[row])])) for row in rows.tolist()]
    if error is not None:
        return error
    for row, record in chosen:
        try:
            fields.put(row, record_fields(record, f"vars[{done + row}]", int(firsts[row])))
        except ReadError as exc:
            return exc
    return None


def _report(tree: Mapping, fields: Fields, offsets: np.ndarray | None, source: str,
            error: ReadError | None) -> TileReport:
    """The report: the top-level fields checked first, then the records' (``error``, the first found), then
    every variable's place."""
    num_tiles = whole_number(child(tree, "numTiles", "", required=True), "numTiles", positive=True)
    if num_tiles > MAX_TILES:
        raise ReadError(f"numTiles: {num_tiles:,} tiles is beyond any IPU system (at most {MAX_TILES:,})")
    memory = mapping(child(tree, "targetMemoryInfo", "", required=True), "targetMemoryInfo")
    tile_memory = whole_number(child(memory, "tileMemory", "targetMemoryInfo.", required=True),
                               "targetMemoryInfo.tileMemory", positive=True)
    if tile_memory >= MAX_TILE_MEMORY:
        raise ReadError(f"targetMemoryInfo.tileMemory: {tile_memory:,} bytes is beyond any IPU tile")
    interference = _interference(tree.get("equivalenceClassInterference"))
    if error is not None:
        raise error
    _check_places(fields, offsets, num_tiles, tile_memory)
    variables = _variables(fields, num_tiles, tile_memory, interference)
    return _tile_report(variables, fields, tree, memory, source)


def _check_places(fields: Fields, offsets: np.ndarray | None, num_tiles: int, tile_memory: int) -> None:
    """A ReadError for the first allocated variable on a tile past ``numTiles`` or past its tile's memory."""
    alloc = fields.allocated
    past_tiles = alloc & (fields.tile >= num_tiles)
    past_memory = alloc & ((fields.offset > tile_memory) | (fields.size > tile_memory - fields.offset))
    bad = np.flatnonzero(past_tiles | past_memory)
    if bad.size == 0:
        return
    i = int(bad[0])
    at = None if offsets is None else int(offsets[i])
    if past_tiles[i]:
        raise ReadError(f"vars[{i}].info.tile is {int(fields.tile[i]):,}, past numTiles ({num_tiles:,}: tiles "
                        f"0..{num_tiles - 1:,})", offset=at)
    start, size = int(fields.offset[i]), int(fields.size[i])
    name = fields.strings.values()[int(fields.name[i])].decode("utf-8", "replace")
    raise ReadError(f"vars[{i}] ({name!r}) lies at [{start:,}, {start + size:,}) on tile {int(fields.tile[i]):,}, "
                    f"past the tile's memory (targetMemoryInfo.tileMemory {tile_memory:,})", offset=at)


def _interned(codes: np.ndarray, order: np.ndarray, strings: list[bytes]) -> tuple[np.ndarray, tuple[str, ...]]:
    """The codes of the rows ``order`` as indices into a table of the strings they use, in the order they first
    appear among those rows; and that table."""
    chosen = codes[order]
    first = np.full(len(strings), chosen.size, dtype=np.int64)
    np.minimum.at(first, chosen, np.arange(chosen.size))  # where each code first appears
    used = np.flatnonzero(first < chosen.size)
    used = used[np.argsort(first[used], kind="stable")]
    rank = np.empty(len(strings), dtype=np.int64)
    rank[used] = np.arange(used.size)
    return rank[chosen], tuple(strings[u].decode("utf-8", "surrogatepass") for u in used.tolist())


def _variables(fields: Fields, num_tiles: int, tile_memory: int, interference: Interference | None) -> Variables:
    rows = np.flatnonzero(fields.allocated)
    place = fields.tile[rows] * (tile_memory + 1) + fields.offset[rows]  # below 2**61: tiles x 2**40
    order = rows[np.lexsort((-fields.size[rows], place))]  # stable: file order last
    strings = fields.strings.values()
    name_index, names = _interned(fields.name, order, strings)
    category, categories = _interned(fields.category, order, strings)
    classes = fields.eq_class[order]
    return Variables(num_tiles=num_tiles, tile=fields.tile[order], offset=fields.offset[order],
                     size=fields.size[order], category=category, always_live=fields.always_live[order],
                     interleaved=fields.interleaved[order], name_index=name_index, categories=categories,
                     names=names, var_id=fields.var[order], equivalence_class=classes, interference=interference,
                     tile_memory=tile_memory)


def _interference(value: Any) -> Interference | None:
    """``equivalenceClassInterference``: per class (a list by class id, or an object keyed by it), the classes
    live at the same time."""
    path = "equivalenceClassInterference"
    if value is None:
        return None
    if isinstance(value, Mapping):
        rows = []
        for key, item in value.items():
            if not isinstance(key, str) or not key.isdigit() or not key.isascii():
                raise ReadError(f"{path}: the key {key!r} is not a class id (a whole number)")
            rows.append((int(key), _classes(item, f"{path}.{key}")))
        rows.sort(key=lambda r: r[0])
    elif isinstance(value, (list, np.ndarray)):
        rows = [(i, _classes(item, f"{path}[{i}]")) for i, item in enumerate(value)]
    else:
        raise ReadError(f"{path} must be a list (a class's interfering classes per class) or an object, "
                        f"not {kind_of(value)}")
    lengths = np.array([r[1].size for r in rows], dtype=np.int64)
    indptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    indices = np.concatenate([r[1] for r in rows]) if rows else np.zeros(0, dtype=np.int64)
    try:
        return Interference(np.array([r[0] for r in rows], dtype=np.int64), indptr, indices.astype(np.int64))
    except ValueError as exc:
        raise ReadError(f"{path}: {exc}") from None


def _classes(value: Any, path: str) -> np.ndarray:
    if isinstance(value, np.ndarray):  # a long list, decoded straight to an array
        values = value.astype(np.int64)
        if values.size and int(values.min()) < 0:
            raise ReadError(f"{path} names a negative class")
        return values
    if not isinstance(value, list):
        raise ReadError(f"{path} must be a list of class ids, not {kind_of(value)}")
    return np.array([whole_number(v, f"{path}[{i}]") for i, v in enumerate(value)], dtype=np.int64)


def _tile_report(variables: Variables, fields: Fields, tree: Mapping, memory: Mapping, source: str) -> TileReport:
    totals = variables.tile_totals()
    notes = []
    sizes = np.bincount(variables.tile, weights=variables.size, minlength=variables.num_tiles)
    shared = int(np.count_nonzero(sizes > totals.excluding_gaps))
    if shared:
        notes.append(f"{shared:,} tile(s) hold variables whose ranges overlap (never live at the same time): a "
                     "shared byte counts once, for the category of the variable laid lowest (docs/FORMATS.md §11)")
    left = int(fields.count - np.count_nonzero(fields.allocated))
    if left:
        notes.append(f"{left:,} variable(s) not allocated (\"allocated\": false): in no tile's memory")
    notes.append("the report names no architecture and no tiles per IPU: IPUs unknown unless --arch gives them")
    breakdown = {name: Column(values) for name, values in totals.by_category.items()}
    regions = {"non_interleaved": totals.excluding_gaps - totals.interleaved, "interleaved": totals.interleaved}
    stated = StatedTarget(num_tiles=variables.num_tiles, bytes_per_tile=variables.tile_memory,
                          source_kind="lowered-variables report")
    info = {"variables": {"allocated": len(variables), "not_allocated": left, "names": len(variables.names),
                          "categories": list(variables.categories),
                          "equivalence_classes": _count_classes(variables),
                          "interference": variables.interference is not None},
            "target_memory": _memory_info(memory)}
    return TileReport(source=source, format=FORMAT, target=resolve_target(stated)[0],
                      excluding_gaps=totals.excluding_gaps, including_gaps=totals.including_gaps, breakdown=breakdown,
                      breakdown_kind="category", regions=regions, info=info, notes=tuple(notes), stated=stated,
                      variables=variables)


def _count_classes(variables: Variables) -> int | None:
    classes = variables.equivalence_class
    if classes is None:
        return None
    return int(np.unique(classes[classes >= 0]).size)


def _memory_info(memory: Mapping) -> dict[str, Any]:
    """``targetMemoryInfo``'s other figures, as the file gives them (whole numbers and lists of them)."""
    found: dict[str, Any] = {}
    for key, value in memory.items():
        if isinstance(value, np.ndarray):
            value = value.tolist()
        whole = isinstance(value, int) and not isinstance(value, bool)
        if whole or (isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            found[str(key)] = value
    return found


register(Reader(FORMAT, "lowered-variables report", looks_like_lowered_vars, read_lowered_vars, (".json",)))
