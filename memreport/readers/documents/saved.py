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
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from ...errors import ReadError
from ...model import (
    ARCHES,
    Bin,
    Column,
    FailedProgram,
    FilePrograms,
    Histogram,
    Interference,
    LogRun,
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
    Variables,
    resolve_target,
)
from ...model.schemas import DIFF_SCHEMA as DIFF_SCHEMA_NAME
from ...model.schemas import REPORT_SCHEMA
from ..registry import Reader, ReadOptions, register
from .bulk_decode import decode_json_arrays
from .document import decode_json, file_bytes, mapping, tile_array, whole_number
from .fields import Node, kind_of

SCHEMA, DIFF_SCHEMA = REPORT_SCHEMA, DIFF_SCHEMA_NAME  # the names are defined once, in model.schemas
_SNIFF = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"schema"\s*:\s*"memreport(?:-diff)?/1"')
_MESSAGE_NUMBERS = ("tile", "bytes_used", "bytes_per_tile", "code_offset", "stream_bytes", "buffer_index")


def looks_like_saved(prefix: bytes) -> bool:
    """A JSON document whose first key is ``"schema": "memreport/1"`` (or the diff's schema, to refuse it)."""
    return _SNIFF.match(prefix) is not None


def is_saved(tree: Any) -> bool:
    """True for a decoded memreport document (report or diff), whatever its key order."""
    return isinstance(tree, Mapping) and tree.get("schema") in (SCHEMA, DIFF_SCHEMA)


def tile_values(tree: Any) -> list[Any]:
    """Where a saved document keeps its per-tile lists: each report's ``tile_values`` (arrays there, as read)."""
    reports = tree.get("reports") if isinstance(tree, dict) else None
    return [r["tile_values"] for r in reports if isinstance(r, dict) and isinstance(r.get("tile_values"), dict)] \
        if isinstance(reports, list) else []


def read_saved(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """Every report of a memreport/1 JSON document, in order."""
    data = file_bytes(path)
    tree = decode_json_arrays(data, tile_values)  # per-tile lists straight to arrays; None: the ordinary way
    tree = decode_json(data) if tree is None else tree
    del data
    return reports_from_document(tree)


def reports_from_document(tree: Any) -> list[MemoryReport]:
    """The reports of a decoded memreport/1 document; every field checked, a ReadError naming the first wrong
    one by its path (``reports[0].stated_target.clock_hz``)."""
    doc = mapping(tree, "the document")
    if doc.get("schema") == DIFF_SCHEMA:
        raise ReadError("a memreport diff (memreport-diff/1) compares two reports and is not one: give the "
                        "reports or files it compared")
    if doc.get("schema") != SCHEMA:
        raise ReadError(f"schema {doc.get('schema')!r} is not {SCHEMA!r}")
    reports = doc.get("reports")
    if not isinstance(reports, list):
        raise ReadError("reports must be a list of reports")
    read = [_report(Node(record, f"reports[{i}]")) for i, record in enumerate(reports)]
    return _shared_programs(read)


def _shared_programs(reports: list[MemoryReport]) -> list[MemoryReport]:
    """Each file's programs, written once on its first report, given to every report of that file again."""
    record: dict[str, FilePrograms] = {}
    out = []
    for report in reports:
        p = report.position
        if p is not None and p.programs is not None:
            record[report.source] = p.programs
        elif p is not None and report.source in record:
            report = report.evolve(position=replace(p, programs=record[report.source]))
        out.append(report)
    return out


def _report(r: Node) -> MemoryReport:
    missing = [key for key in ("stated_target", "overrides", "source_notes") if key not in r.map]
    if missing:
        raise ReadError(f"{r.path} lacks {', '.join(missing)}: it was written by a memreport that did not save "
                        "reports to be read back; write it again with this one (memreport export FILE -o OUT.json)")
    common: dict[str, Any] = {
        "source": r.text("source"), "format": r.text("format"), "module": r.text("module", required=False),
        "target": _target(r), "stated": _stated(r), "notes": r.texts("source_notes", required=True),
        "info": r.free("info"), "breakdown_kind": r.text("breakdown_kind"),
    }
    try:
        if r.raw("tile_values") is not None:
            return _tile_report(r, common)
        printed = r.node("printed")
        if printed is not None:
            return SummaryReport(printed=_printed(printed), detailed_tiles=_detailed(r),
                                 oom_messages=_messages(r), position=_position(r.node("position")), **common)
        tensor_map = r.node("tensor_map_data")
        if tensor_map is not None:
            return TensorMapReport(tensor_map=_tensor_map(tensor_map), **common)
    except (TypeError, ValueError, OverflowError) as exc:  # the model's own checks: an edited or damaged document
        raise ReadError(f"{r.path}: {exc}") from None
    raise ReadError(f"{r.path} holds none of tile_values, printed or tensor_map_data: nothing to read back")


def _target(r: Node) -> Target:
    node = r.child("target")
    count = node.raw("num_tiles", required=True)  # null: the source gave no tile count (kept as 0)
    try:  # ReadError is no ValueError: only the model's own checks are caught
        return Target(num_tiles=0 if count is None else node.whole("num_tiles"), arch=node.text("arch", required=False),
                      num_ipus=node.whole("num_ipus"), tiles_per_ipu=node.whole("tiles_per_ipu"),
                      bytes_per_tile=node.whole("bytes_per_tile"), clock_hz=node.number("clock_hz"),
                      type=node.text("type", required=False))
    except ValueError as exc:
        raise ReadError(f"{node.path}: {exc}") from None


def _arch(node: Node, key: str) -> str | None:
    name = node.text(key, required=False)
    if name is not None and name not in ARCHES:
        raise ReadError(f"{node.at(key)}: unknown arch {name!r} (one of {', '.join(ARCHES)})")
    return name


def _stated(r: Node) -> StatedTarget | None:
    """What the source stated about its target and the overrides applied, checked as the reading will resolve
    them (an arch memreport knows, a tile count an IPU system can have)."""
    node = r.node("stated_target")
    if node is None:
        return None
    overrides = r.child("overrides")
    stated = StatedTarget(
        num_tiles=node.whole("num_tiles", required=True), arch=_arch(node, "arch"),
        arch_basis=node.text("arch_basis", required=False), num_ipus=node.whole("num_ipus"),
        tiles_per_ipu=node.whole("tiles_per_ipu"), bytes_per_tile=node.whole("bytes_per_tile"),
        clock_hz=node.number("clock_hz"), type=node.text("type", required=False),
        whole_ipus=bool(node.flag("whole_ipus", False)),
        bytes_unknown_reason=node.text("bytes_unknown_reason", required=False),
        source_kind=node.text("source_kind", required=False) or "source",
        infer_arch=bool(node.flag("infer_arch", False)),
        given_tile_memory=overrides.whole("tile_memory", positive=True), given_arch=_arch(overrides, "arch"))
    try:
        resolve_target(stated)
    except ValueError as exc:
        raise ReadError(f"{node.path}: {exc}") from None
    return stated


def _tile_report(r: Node, common: dict[str, Any]) -> TileReport:
    values = r.child("tile_values")
    n = common["target"].num_tiles
    breakdown = {}
    for name, value, where in values.items("breakdown"):
        column = Node(value, where)
        present = None
        absent = column.tiles("absent")
        if absent is not None:
            if absent.size and int(absent.max()) >= n:
                raise ReadError(f"{column.at('absent')} names a tile past {n - 1}")
            present = np.ones(n, dtype=bool)
            present[absent] = False
        breakdown[name] = Column(column.array("values", n), present,
                                 counted=bool(column.flag("counted", True)))
    names = None if values.raw("tile_names") is None else list(values.texts("tile_names"))
    skipped = tuple(SkippedMember(s.whole("tile", required=True), s.text("member"), s.text("reason"))
                    for s in r.nodes("skipped_members"))
    steps = None if r.raw("liveness_steps") is None else _steps(r, "liveness_steps")
    return TileReport(
        excluding_gaps=values.array("excluding_gaps", n),
        including_gaps=values.tiles("including_gaps", n), breakdown=breakdown,
        regions={name: tile_array(value, where, n) for name, value, where in values.items("regions")},
        tile_names=names, skipped=skipped, symbols=_symbol_tables(r), liveness_steps=steps, variables=_variables(r),
        **common)


_VARIABLE_COLUMNS = ("offset", "size", "category", "name_index", "var_id")


def _variables(r: Node) -> Variables | None:
    """A lowered-variables report's variables, as ``memreport.render.saved`` writes them."""
    node = r.node("variables")
    if node is None:
        return None
    tile = tile_array(node.raw("tile", required=True), node.at("tile"), count_of="variables")
    count = tile.size

    def column(key: str, signed: bool = False) -> np.ndarray:
        return tile_array(node.raw(key, required=True), node.at(key), count, "variables", signed)

    def flags(key: str) -> np.ndarray:
        values = column(key)
        if values.size and int(values.max()) > 1:
            raise ReadError(f"{node.at(key)} must hold 0 and 1 only")
        return values.astype(bool)

    table = node.node("interference")
    interference = None if table is None else Interference(
        *(tile_array(table.raw(k, required=True), table.at(k)) for k in ("classes", "indptr", "indices")))
    classes = None if node.raw("equivalence_class") is None else column("equivalence_class", signed=True)
    return Variables(num_tiles=node.whole("num_tiles", required=True), tile=tile,
                     **{key: column(key) for key in _VARIABLE_COLUMNS}, always_live=flags("always_live"),
                     interleaved=flags("interleaved"), categories=node.texts("categories", required=True),
                     names=node.texts("names", required=True), equivalence_class=classes,
                     interference=interference, tile_memory=node.whole("tile_memory", positive=True))


def _steps(node: Node, key: str) -> tuple[ProgramLiveness, ...]:
    return tuple(ProgramLiveness(s.whole("bytes", required=True), s.text("name", required=False),
                                 _steps(s, "children"), _live(s))
                 for s in node.nodes(key, required=True))


def _live(step: Node) -> tuple[tuple[str, int], ...] | None:
    """A step's live variables, ``[[name, bytes], ...]`` (None when absent: not read)."""
    if step.raw("variables") is None:
        return None
    found = []
    for i, pair in enumerate(step.list("variables")):
        where = f"{step.at('variables')}[{i}]"
        if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
            raise ReadError(f"{where} must be [name, bytes], not {kind_of(pair)}")
        found.append((pair[0], whole_number(pair[1], f"{where}[1]")))
    return tuple(found)


def _symbol(s: Node) -> Symbol:
    return Symbol(name=s.text("name"), section=s.text("section"), size=s.whole("size") or 0,
                  address=s.whole("address") or 0, kind=s.text("kind"), binding=s.text("binding"),
                  demangled=s.text("demangled", required=False))


def _symbol_tables(r: Node) -> dict[int, TileSymbols]:
    """The symbol tables the document holds, from its top tiles and the tiles asked for."""
    tables: dict[int, TileSymbols] = {}
    for key in ("top_tiles", "selected_tiles"):
        for tile in r.nodes(key):
            node = tile.node("symbols")
            if node is None:
                continue
            number = tile.whole("tile", required=True)
            tables.setdefault(number, TileSymbols(
                tile=number, member=node.text("member", required=False), sections=node.byte_counts("sections"),
                attributed=node.byte_counts("attributed"), symbols=tuple(map(_symbol, node.nodes("symbols"))),
                unsized=tuple(map(_symbol, node.nodes("unsized"))), has_symbol_table=node.flag("has_symbol_table"),
                num_symbols=node.whole("num_symbols"), symbol_bytes=node.whole("symbol_bytes"),
                notes=node.texts("notes")))
    return tables


def _tile_bytes(node: Node | None) -> TileBytes | None:
    return None if node is None else TileBytes(node.whole("tile", required=True), node.whole("bytes", required=True))


def _printed(p: Node) -> PrintedSummary:
    hist = p.node("histogram")
    histogram = None
    if hist is not None:
        bins = tuple(Bin(b.whole("low_kib", required=True), b.whole("high_kib", required=True),
                         b.whole("count", required=True)) for b in hist.nodes("bins"))
        elided = tuple(whole_number(v, f"{hist.at('elided_before')}[{i}]")
                       for i, v in enumerate(hist.list("elided_before")))
        histogram = Histogram(hist.whole("bin_kib", required=True, positive=True), bins, elided)
    return PrintedSummary(histogram=histogram, max_including_gaps=_tile_bytes(p.node("max_including_gaps")),
                          max_excluding_gaps=_tile_bytes(p.node("max_excluding_gaps")),
                          tiles_out_of_memory=p.whole("tiles_out_of_memory"),
                          including_gaps=p.whole("including_gaps"), excluding_gaps=p.whole("excluding_gaps"))


def _messages(r: Node) -> tuple[OutOfMemoryMessage, ...]:
    """A summary's out-of-memory messages, from the fields the JSON states of each (docs/FORMATS.md §8.6)."""
    messages = []
    for m in r.nodes("out_of_memory_messages"):
        numbers: dict[str, Any] = {key: m.whole(key) for key in _MESSAGE_NUMBERS}
        texts: dict[str, Any] = {key: m.text(key, required=False) for key in ("exchange", "saved_path", "archive",
                                                                               "place")}
        messages.append(OutOfMemoryMessage(kind=m.text("kind"), line=m.whole("line", required=True),
                                           text=m.text("text"), **numbers, **texts))
    return tuple(messages)


def _position(node: Node | None) -> ReportPosition | None:
    if node is None:
        return None
    line, index, count = (node.whole(key, required=True) for key in ("line", "index", "count"))
    run, programs = node.node("run"), node.node("programs")
    return ReportPosition(line=line, index=index, count=count, program=node.whole("program", positive=True),
                          place=node.text("place", required=False), run=_run(run) if run is not None else None,
                          programs=_programs(programs) if programs is not None else None)


def _run(node: Node) -> LogRun:
    """The run of a log a report comes from (docs/SCHEMA.md: ``position.run``)."""
    return LogRun(index=node.whole("index", required=True, positive=True),
                  count=node.whole("count", required=True, positive=True),
                  first_line=node.whole("first_line", required=True, positive=True),
                  last_line=node.whole("last_line", required=True, positive=True),
                  process=node.text("process", required=False), failure=node.text("failure", required=False))


def _programs(node: Node) -> FilePrograms:
    """A file's programs (``position.programs``): how many, how each ended, those that failed."""
    outcomes = node.node("outcomes")
    counted = tuple(sorted((key, outcomes.whole(key, required=True)) for key in outcomes.map)) \
        if outcomes is not None else ()
    failed = tuple(FailedProgram(index=f.whole("index", required=True, positive=True), outcome=f.text("outcome"),
                                 failure=f.text("failure"), report=f.whole("report", positive=True),
                                 line=f.whole("line", positive=True), place=f.text("place", required=False),
                                 process=f.text("process", required=False), tile=f.whole("tile"),
                                 bytes_used=f.whole("bytes_used"), bytes_per_tile=f.whole("bytes_per_tile"),
                                 profile=f.text("profile", required=False))
                   for f in node.nodes("failed"))
    return FilePrograms(count=node.whole("count", required=True), unit=node.text("unit"), failed=failed,
                        failed_count=node.whole("failed_count", required=True), outcomes=counted)


def _detailed(r: Node) -> tuple[TileDetail, ...]:
    details = []
    for d in r.nodes("detailed_tiles"):
        details.append(TileDetail(tile=d.whole("tile", required=True), including_gaps=d.whole("including_gaps"),
                                  excluding_gaps=d.whole("excluding_gaps"), breakdown=d.byte_counts("breakdown"),
                                  regions=d.byte_counts("regions"), extra=d.free("extra")))
    return tuple(details)


# A tensor as saved: [name, computation, output index, shape, element type, has constant, has aliases,
# elements, framework name]; "text?" may be null.
_TENSOR_FIELDS = ("text", "text", "whole", "shape", "text", "flag", "flag", "whole", "text?")


def _tensor_field(value: Any, kind: str, path: str) -> Any:
    if kind == "whole":
        return whole_number(value, path)
    if kind == "flag" and not isinstance(value, bool):
        raise ReadError(f"{path} must be true or false, not {kind_of(value)}")
    if kind == "shape":
        if not isinstance(value, list):
            raise ReadError(f"{path} must be a list of whole numbers, not {kind_of(value)}")
        return tuple(whole_number(d, f"{path}[{i}]") for i, d in enumerate(value))
    if kind.startswith("text") and not isinstance(value, str) and not (kind == "text?" and value is None):
        raise ReadError(f"{path} must be a string, not {kind_of(value)}")
    return value


def _tensor_map(t: Node):
    from ...model.tensor_map import Tensor, TensorMap
    tensors = []
    for i, entry in enumerate(t.list("tensors", required=True)):
        where = f"{t.at('tensors')}[{i}]"
        if not isinstance(entry, list) or len(entry) != len(_TENSOR_FIELDS):
            raise ReadError(f"{where} must be a list of {len(_TENSOR_FIELDS)} fields, not {kind_of(entry)}")
        tensors.append(Tensor(*(_tensor_field(v, kind, f"{where}[{k}]")
                                for k, (v, kind) in enumerate(zip(entry, _TENSOR_FIELDS)))))
    return TensorMap(t.text("source"), tuple(tensors), t.array("pair_tensor"),
                     t.array("pair_tile"), t.array("pair_elements"),
                     t.whole("num_tiles", required=True), t.texts("notes"))


register(Reader("saved", "memreport JSON", looks_like_saved, read_saved, (".json",)))
