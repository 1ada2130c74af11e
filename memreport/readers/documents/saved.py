"""memreport's own ``memreport/1`` JSON, read back as the reports it was written from.

CI keeps ``memory.json`` as an artifact and later compares a new build with
it (``memreport diff baseline.json build/archive.a``). Everything a report
holds is in the document (``memreport.render.saved`` writes it): every
tile's values (``tile_values``), the target as its source stated it and the
overrides applied (``stated_target``, ``overrides``: they apply again unless
``--tile-memory`` / ``--arch`` are given anew), the source's notes, a text
summary's printed figures, program-step liveness, the symbol tables of the
tiles it detailed, and a tensor map's pairs. A document written before
memreport wrote these keys is refused with a clear message, never guessed at.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from ...errors import ReadError
from ...model import (
    Bin,
    Column,
    Histogram,
    MemoryReport,
    OutOfMemoryMessage,
    PrintedSummary,
    ProgramLiveness,
    ReportPosition,
    SkippedMember,
    StatedTarget,
    SummaryReport,
    Symbol,
    Target,
    TensorMapReport,
    TileBytes,
    TileDetail,
    TileReport,
    TileSymbols,
)
from ...model.schemas import DIFF_SCHEMA as DIFF_SCHEMA_NAME
from ...model.schemas import REPORT_SCHEMA
from ..registry import Reader, ReadOptions, register
from .bulk_decode import decode_json_arrays
from .document import decode_json, mapping, tile_array, whole_number

SCHEMA, DIFF_SCHEMA = REPORT_SCHEMA, DIFF_SCHEMA_NAME  # the names are defined once, in model.schemas
_SNIFF = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"schema"\s*:\s*"memreport(?:-diff)?/1"')
_STATED_FIELDS = ("num_tiles", "arch", "arch_basis", "num_ipus", "tiles_per_ipu", "bytes_per_tile", "clock_hz",
                  "type", "whole_ipus", "bytes_unknown_reason", "source_kind", "infer_arch")
_MESSAGE_NUMBERS = ("tile", "bytes_used", "bytes_per_tile", "code_offset", "stream_bytes", "buffer_index")


def looks_like_saved(prefix: bytes) -> bool:
    """A JSON document whose first key is ``"schema": "memreport/1"`` (or the diff's schema, to refuse it)."""
    return _SNIFF.match(prefix) is not None


def is_saved(tree: Any) -> bool:
    """True for a decoded memreport document (report or diff), whatever its key order."""
    return isinstance(tree, Mapping) and tree.get("schema") in (SCHEMA, DIFF_SCHEMA)


def read_saved(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """Every report of a memreport/1 JSON document, in order."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc)) from None
    tree = decode_json_arrays(data)  # per-tile lists straight to arrays; None: decode the ordinary way
    tree = decode_json(data) if tree is None else tree
    del data
    return reports_from_document(tree)


def reports_from_document(tree: Any) -> list[MemoryReport]:
    """The reports of a decoded memreport/1 document."""
    doc = mapping(tree, "the document")
    if doc.get("schema") == DIFF_SCHEMA:
        raise ReadError("a memreport diff (memreport-diff/1) compares two reports and is not one: give the "
                        "reports or files it compared")
    if doc.get("schema") != SCHEMA:
        raise ReadError(f"schema {doc.get('schema')!r} is not {SCHEMA!r}")
    reports = doc.get("reports")
    if not isinstance(reports, list):
        raise ReadError("reports must be a list of reports")
    return [_report(mapping(record, f"reports[{i}]"), f"reports[{i}]") for i, record in enumerate(reports)]


def _get(node: Mapping, key: str, path: str) -> Any:
    if key not in node:
        raise ReadError(f"{path}.{key} is missing")
    return node[key]


def _text(node: Mapping, key: str, path: str, optional: bool = False) -> Any:
    value = node.get(key) if optional else _get(node, key, path)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ReadError(f"{path}.{key} must be a string, not {type(value).__name__}")
    return value


def _int(node: Mapping, key: str, path: str, optional: bool = True) -> int | None:
    value = node.get(key) if optional else _get(node, key, path)
    return None if value is None else whole_number(value, f"{path}.{key}")


def _texts(value: Any, path: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReadError(f"{path} must be a list of strings")
    return tuple(value)


def _bytes_map(value: Any, path: str) -> dict[str, int]:
    return {str(k): whole_number(v, f"{path}.{k}") for k, v in mapping(value, path).items()}


def _report(record: Mapping, path: str) -> MemoryReport:
    missing = [key for key in ("stated_target", "overrides", "source_notes") if key not in record]
    if missing:
        raise ReadError(f"{path} lacks {', '.join(missing)}: it was written by a memreport that did not save "
                        "reports to be read back; write it again with this one (memreport export FILE -o OUT.json)")
    common: dict[str, Any] = {
        "source": _text(record, "source", path), "format": _text(record, "format", path),
        "module": _text(record, "module", path, optional=True), "target": _target(record, path),
        "stated": _stated(record, path), "notes": _texts(record["source_notes"], f"{path}.source_notes"),
        "info": dict(mapping(record.get("info") or {}, f"{path}.info")),
        "breakdown_kind": _text(record, "breakdown_kind", path),
    }
    try:
        if record.get("tile_values") is not None:
            return _tile_report(record, path, common)
        if record.get("printed") is not None:
            return SummaryReport(printed=_printed(mapping(record["printed"], f"{path}.printed"), f"{path}.printed"),
                                 detailed_tiles=_detailed(record.get("detailed_tiles") or [], f"{path}.detailed_tiles"),
                                 oom_messages=_messages(record.get("out_of_memory_messages") or [],
                                                        f"{path}.out_of_memory_messages"),
                                 position=_position(record.get("position"), f"{path}.position"), **common)
        if record.get("tensor_map_data") is not None:
            return TensorMapReport(tensor_map=_tensor_map(mapping(record["tensor_map_data"], f"{path}.tensor_map_data"),
                                                          f"{path}.tensor_map_data"), **common)
    except (TypeError, ValueError) as exc:  # the model's own checks: an edited or damaged document
        raise ReadError(f"{path}: {exc}") from None
    raise ReadError(f"{path} holds none of tile_values, printed or tensor_map_data: nothing to read back")


def _target(record: Mapping, path: str) -> Target:
    node = mapping(_get(record, "target", path), f"{path}.target")
    clock = node.get("clock_hz")
    if clock is not None and (isinstance(clock, bool) or not isinstance(clock, (int, float))):
        raise ReadError(f"{path}.target.clock_hz must be a number")
    try:
        count = _get(node, "num_tiles", f"{path}.target")  # null: the source gave no tile count (kept as 0)
        return Target(num_tiles=0 if count is None else whole_number(count, f"{path}.target.num_tiles"),
                      arch=_text(node, "arch", f"{path}.target", optional=True),
                      num_ipus=_int(node, "num_ipus", f"{path}.target"),
                      tiles_per_ipu=_int(node, "tiles_per_ipu", f"{path}.target"),
                      bytes_per_tile=_int(node, "bytes_per_tile", f"{path}.target"),
                      clock_hz=None if clock is None else float(clock),
                      type=_text(node, "type", f"{path}.target", optional=True))
    except ValueError as exc:
        raise ReadError(f"{path}.target: {exc}") from None


def _stated(record: Mapping, path: str) -> StatedTarget | None:
    node = record["stated_target"]
    if node is None:
        return None
    where = f"{path}.stated_target"
    node = mapping(node, where)
    overrides = mapping(record["overrides"], f"{path}.overrides")
    values: dict[str, Any] = {}
    for key in _STATED_FIELDS:
        value = node.get(key)
        if key in ("num_tiles", "num_ipus", "tiles_per_ipu", "bytes_per_tile") and value is not None:
            value = whole_number(value, f"{where}.{key}")
        elif key == "clock_hz" and value is not None:
            value = float(value)
        elif key in ("whole_ipus", "infer_arch"):
            value = bool(value)
        elif key == "source_kind":
            value = value if isinstance(value, str) else "source"
        elif value is not None and not isinstance(value, str):
            raise ReadError(f"{where}.{key} must be a string")
        values[key] = value
    if values["num_tiles"] is None:
        raise ReadError(f"{where}.num_tiles is missing")
    arch = overrides.get("arch")
    if arch is not None and not isinstance(arch, str):
        raise ReadError(f"{path}.overrides.arch must be a string")
    return StatedTarget(**values, given_tile_memory=_int(overrides, "tile_memory", f"{path}.overrides"),
                        given_arch=arch)


def _tile_report(record: Mapping, path: str, common: dict[str, Any]) -> TileReport:
    where = f"{path}.tile_values"
    values = mapping(record["tile_values"], where)
    n = common["target"].num_tiles

    def array(value: Any, key: str) -> np.ndarray:
        return tile_array(value, f"{where}.{key}", n)

    breakdown = {}
    for name, node in mapping(values.get("breakdown") or {}, f"{where}.breakdown").items():
        node = mapping(node, f"{where}.breakdown.{name}")
        column_values = array(_get(node, "values", f"{where}.breakdown.{name}"), f"breakdown.{name}.values")
        present = None
        if node.get("absent") is not None:
            absent = tile_array(node["absent"], f"{where}.breakdown.{name}.absent")
            if absent.size and int(absent.max()) >= n:
                raise ReadError(f"{where}.breakdown.{name}.absent names a tile past {n - 1}")
            present = np.ones(n, dtype=bool)
            present[absent] = False
        breakdown[str(name)] = Column(column_values, present, counted=bool(node.get("counted", True)))
    names = values.get("tile_names")
    if names is not None:
        names = list(_texts(names, f"{where}.tile_names"))
    including = values.get("including_gaps")
    skipped = tuple(SkippedMember(whole_number(_get(s, "tile", f"{path}.skipped_members[{i}]"),
                                               f"{path}.skipped_members[{i}].tile"),
                                  _text(s, "member", f"{path}.skipped_members[{i}]"),
                                  _text(s, "reason", f"{path}.skipped_members[{i}]"))
                    for i, s in enumerate(mapping(s, f"{path}.skipped_members[{i}]")
                                          for i, s in enumerate(record.get("skipped_members") or [])))
    steps = record.get("liveness_steps")
    return TileReport(
        excluding_gaps=array(_get(values, "excluding_gaps", where), "excluding_gaps"),
        including_gaps=None if including is None else array(including, "including_gaps"),
        breakdown=breakdown,
        regions={str(k): array(v, f"regions.{k}") for k, v in mapping(values.get("regions") or {},
                                                                         f"{where}.regions").items()},
        tile_names=names, skipped=skipped, symbols=_symbol_tables(record, path),
        liveness_steps=None if steps is None else _steps(steps, f"{path}.liveness_steps"), **common)


def _records(value: Any, path: str) -> Iterator[tuple[str, Mapping]]:
    """(``path[i]``, the object) for each item of a list of objects; a ReadError naming the place otherwise."""
    if not isinstance(value, list):
        raise ReadError(f"{path} must be a list")
    for i, node in enumerate(value):
        where = f"{path}[{i}]"
        yield where, mapping(node, where)


def _steps(value: Any, path: str) -> tuple[ProgramLiveness, ...]:
    steps = []
    for where, node in _records(value, path):
        children = node.get("children")
        steps.append(ProgramLiveness(whole_number(_get(node, "bytes", where), f"{where}.bytes"),
                                     _text(node, "name", where, optional=True),
                                     () if children is None else _steps(children, f"{where}.children")))
    return tuple(steps)


def _symbol(node: Any, path: str) -> Symbol:
    node = mapping(node, path)
    return Symbol(name=_text(node, "name", path), section=_text(node, "section", path),
                  size=_int(node, "size", path) or 0, address=_int(node, "address", path) or 0,
                  kind=_text(node, "kind", path), binding=_text(node, "binding", path),
                  demangled=_text(node, "demangled", path, optional=True))


def _symbol_tables(record: Mapping, path: str) -> dict[int, TileSymbols]:
    """The symbol tables the document holds, from its top tiles and the tiles asked for."""
    tables: dict[int, TileSymbols] = {}
    for key in ("top_tiles", "selected_tiles"):
        for i, tile in enumerate(record.get(key) or []):
            where = f"{path}.{key}[{i}]"
            tile = mapping(tile, where)
            node = tile.get("symbols")
            if node is None:
                continue
            number = whole_number(_get(tile, "tile", where), f"{where}.tile")
            where += ".symbols"
            node = mapping(node, where)
            has = node.get("has_symbol_table")
            tables.setdefault(number, TileSymbols(
                tile=number, member=_text(node, "member", where, optional=True),
                sections=_bytes_map(node.get("sections") or {}, f"{where}.sections"),
                attributed=_bytes_map(node.get("attributed") or {}, f"{where}.attributed"),
                symbols=tuple(_symbol(s, f"{where}.symbols[{j}]") for j, s in enumerate(node.get("symbols") or [])),
                unsized=tuple(_symbol(s, f"{where}.unsized[{j}]") for j, s in enumerate(node.get("unsized") or [])),
                has_symbol_table=None if has is None else bool(has),
                num_symbols=_int(node, "num_symbols", where), symbol_bytes=_int(node, "symbol_bytes", where),
                notes=_texts(node.get("notes") or [], f"{where}.notes")))
    return tables


def _tile_bytes(value: Any, path: str) -> TileBytes | None:
    if value is None:
        return None
    node = mapping(value, path)
    return TileBytes(whole_number(_get(node, "tile", path), f"{path}.tile"),
                     whole_number(_get(node, "bytes", path), f"{path}.bytes"))


def _printed(node: Mapping, path: str) -> PrintedSummary:
    hist = node.get("histogram")
    histogram = None
    if hist is not None:
        hist = mapping(hist, f"{path}.histogram")
        bins = tuple(Bin(whole_number(b["low_kib"], f"{path}.histogram.bins[{i}].low_kib"),
                         whole_number(b["high_kib"], f"{path}.histogram.bins[{i}].high_kib"),
                         whole_number(b["count"], f"{path}.histogram.bins[{i}].count"))
                     for i, b in enumerate(mapping(b, f"{path}.histogram.bins[{i}]")
                                           for i, b in enumerate(hist.get("bins") or [])))
        elided = hist.get("elided_before") or []
        if not isinstance(elided, list):
            raise ReadError(f"{path}.histogram.elided_before must be a list")
        histogram = Histogram(whole_number(_get(hist, "bin_kib", f"{path}.histogram"), f"{path}.histogram.bin_kib"),
                              bins, tuple(whole_number(v, f"{path}.histogram.elided_before") for v in elided))
    return PrintedSummary(histogram=histogram,
                          max_including_gaps=_tile_bytes(node.get("max_including_gaps"), f"{path}.max_including_gaps"),
                          max_excluding_gaps=_tile_bytes(node.get("max_excluding_gaps"), f"{path}.max_excluding_gaps"),
                          tiles_out_of_memory=_int(node, "tiles_out_of_memory", path),
                          including_gaps=_int(node, "including_gaps", path),
                          excluding_gaps=_int(node, "excluding_gaps", path))


def _messages(value: Any, path: str) -> tuple[OutOfMemoryMessage, ...]:
    """A summary's out-of-memory messages, from the fields the JSON states of each (docs/FORMATS.md §8.6)."""
    messages = []
    for where, node in _records(value, path):
        numbers: dict[str, Any] = {key: _int(node, key, where) for key in _MESSAGE_NUMBERS}
        texts: dict[str, Any] = {key: _text(node, key, where, optional=True) for key in ("exchange", "saved_path",
                                                                                           "archive")}
        messages.append(OutOfMemoryMessage(kind=_text(node, "kind", where), line=whole_number(_get(node, "line", where),
                                                                                            f"{where}.line"),
                                           text=_text(node, "text", where), **numbers, **texts))
    return tuple(messages)


def _position(value: Any, path: str) -> ReportPosition | None:
    if value is None:
        return None
    node = mapping(value, path)
    line, index, count = (whole_number(_get(node, key, path), f"{path}.{key}") for key in ("line", "index", "count"))
    return ReportPosition(line, index, count)


def _detailed(value: Any, path: str) -> tuple[TileDetail, ...]:
    details = []
    for where, node in _records(value, path):
        details.append(TileDetail(tile=whole_number(_get(node, "tile", where), f"{where}.tile"),
                                  including_gaps=_int(node, "including_gaps", where),
                                  excluding_gaps=_int(node, "excluding_gaps", where),
                                  breakdown=_bytes_map(node.get("breakdown") or {}, f"{where}.breakdown"),
                                  regions=_bytes_map(node.get("regions") or {}, f"{where}.regions"),
                                  extra=dict(mapping(node.get("extra") or {}, f"{where}.extra"))))
    return tuple(details)


def _tensor_map(node: Mapping, path: str):
    from ...model.tensor_map import Tensor, TensorMap
    tensors = []
    for i, t in enumerate(_get(node, "tensors", path)):
        where = f"{path}.tensors[{i}]"
        if not isinstance(t, list) or len(t) != 9:
            raise ReadError(f"{where} must be a list of 9 fields")
        name, computation, index, shape, element_type, constant, aliases, elements, framework = t
        tensors.append(Tensor(str(name), str(computation), whole_number(index, f"{where}[2]"),
                              tuple(whole_number(d, f"{where}[3]") for d in shape), str(element_type),
                              bool(constant), bool(aliases), whole_number(elements, f"{where}[7]"),
                              None if framework is None else str(framework)))
    return TensorMap(_text(node, "source", path), tuple(tensors),
                     tile_array(_get(node, "pair_tensor", path), f"{path}.pair_tensor"),
                     tile_array(_get(node, "pair_tile", path), f"{path}.pair_tile"),
                     tile_array(_get(node, "pair_elements", path), f"{path}.pair_elements"),
                     whole_number(_get(node, "num_tiles", path), f"{path}.num_tiles"),
                     _texts(node.get("notes") or [], f"{path}.notes"))


register(Reader("saved", "memreport JSON", looks_like_saved, read_saved, (".json",)))
