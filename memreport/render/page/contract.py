"""What Python hands the page's script, declared once: every key of the embedded data, its type and meaning, per
page kind (report, diff, compiles), and the labels the script shows.

The data block (``<script type="application/json" id="memreport-data">``)
is ``{"kind", "labels", "sections"}``. The builders in ``report.py``,
``diff.py``, ``compiles.py`` and ``trend.py`` make it; :func:`.document.document` checks
it against :data:`PAGE` before embedding it (:func:`problems`), so a key the
declaration lacks, a missing one or a wrong type is a bug found at once, not
a chart that stays blank. The script reads the block in one place
(``js/data.mjs``), and ``tests/render/page/js/data.test.mjs`` checks, from a
JSON dump of this declaration (:func:`declaration`), that it reads every
declared key and no other.

The script composes no sentence: every word it shows is a template of
:data:`LABELS`, its ``{placeholders}`` filled with numbers it formats.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..words.page import LABELS

JSON = Any


class Type:
    """A JSON type of the contract: it checks a value and describes itself as JSON."""

    def problems(self, value: JSON, path: str) -> list[str]:  # pragma: no cover - every type overrides it
        raise NotImplementedError

    def describe(self) -> JSON:  # pragma: no cover
        raise NotImplementedError


@dataclass(frozen=True)
class Scalar(Type):
    name: str  # "string", "integer", "number" or "boolean"

    def problems(self, value: JSON, path: str) -> list[str]:
        ok = {"string": isinstance(value, str), "boolean": isinstance(value, bool),
              "integer": isinstance(value, int) and not isinstance(value, bool),
              "number": isinstance(value, (int, float)) and not isinstance(value, bool)}[self.name]
        return [] if ok else [f"{path}: {self.name} expected, not {type(value).__name__}"]

    def describe(self) -> JSON:
        return {"type": self.name}


@dataclass(frozen=True)
class OneOf(Type):
    values: tuple[str, ...]

    def problems(self, value: JSON, path: str) -> list[str]:
        return [] if value in self.values else [f"{path}: one of {', '.join(self.values)} expected, not {value!r}"]

    def describe(self) -> JSON:
        return {"type": "one of", "values": list(self.values)}


@dataclass(frozen=True)
class Nullable(Type):
    of: Type

    def problems(self, value: JSON, path: str) -> list[str]:
        return [] if value is None else self.of.problems(value, path)

    def describe(self) -> JSON:
        return {"type": "or null", "of": self.of.describe()}


@dataclass(frozen=True)
class ListOf(Type):
    of: Type

    def problems(self, value: JSON, path: str) -> list[str]:
        if not isinstance(value, list):
            return [f"{path}: list expected, not {type(value).__name__}"]
        return [p for i, item in enumerate(value) for p in self.of.problems(item, f"{path}[{i}]")]

    def describe(self) -> JSON:
        return {"type": "list", "of": self.of.describe()}


@dataclass(frozen=True)
class MapOf(Type):
    """An object keyed by data (a tile's number as a string), every value of one type."""

    key: str
    of: Type

    def problems(self, value: JSON, path: str) -> list[str]:
        if not isinstance(value, dict):
            return [f"{path}: object expected, not {type(value).__name__}"]
        return [p for k, item in value.items() for p in self.of.problems(item, f"{path}[{k!r}]")]

    def describe(self) -> JSON:
        return {"type": "map", "key": self.key, "of": self.of.describe()}


@dataclass(frozen=True)
class Field:
    name: str
    type: Type
    meaning: str


@dataclass(frozen=True)
class Obj(Type):
    """An object with exactly these keys."""

    fields: tuple[Field, ...]

    def problems(self, value: JSON, path: str) -> list[str]:
        if not isinstance(value, dict):
            return [f"{path}: object expected, not {type(value).__name__}"]
        declared = {f.name for f in self.fields}
        found = [f"{path}.{k}: not declared" for k in value if k not in declared]
        for f in self.fields:
            if f.name not in value:
                found.append(f"{path}.{f.name}: missing")
            else:
                found += f.type.problems(value[f.name], f"{path}.{f.name}")
        return found

    def describe(self) -> JSON:
        return {"type": "object", "fields": {f.name: {**f.type.describe(), "meaning": f.meaning} for f in self.fields}}


STRING, INTEGER, NUMBER, BOOLEAN = Scalar("string"), Scalar("integer"), Scalar("number"), Scalar("boolean")
PACKED_TYPES = ("u8", "u16", "u32", "i32", "f64")
PACKED = Obj((
    Field("type", OneOf(PACKED_TYPES), "the values' little-endian type (f64: integers past 2**32 or below -2**31)"),
    Field("data", STRING, "base64 of the gzip of the values' bytes, shuffled: every value's byte 0, then byte 1..."),
))
SECTION_ID = Field("id", STRING, "the section's element id: its parts are #ID-chart, #ID-detail, #ID-heat ...")
TILES_PER_IPU = Field("tiles_per_ipu", Nullable(INTEGER), "tiles per IPU (IPU boundaries), null when unknown")

TILES = Obj((
    Field("count", INTEGER, "how many tiles (every array below has one value a tile)"),
    Field("excluding_gaps", PACKED, "bytes excluding gaps, a tile each"),
    Field("including_gaps", Nullable(PACKED), "bytes including gaps; null when the source holds none"),
    Field("out_of_memory", Nullable(PACKED), "1 where the tile is out of memory; null when that cannot be said"),
    Field("known", Nullable(PACKED), "0 where the tile's bytes are unknown (a skipped member); null: all known"),
    Field("names", Nullable(ListOf(STRING)), "each tile's member name (up to 4,096 tiles), else null"),
    Field("breakdown", ListOf(Obj((
        Field("name", STRING, "the section, category or data type"),
        Field("counted", BOOLEAN, "false where the bytes are not part of the tile's total (.symtab...)"),
        Field("values", PACKED, "its bytes, a tile each"),
        Field("present", Nullable(PACKED), "0 where the tile lacks it; null: every tile has it"),
    ))), "the breakdown columns that fit the page, largest first"),
    Field("regions", ListOf(Obj((
        Field("name", STRING, "the region as people read it (non-interleaved...)"),
        Field("values", PACKED, "its bytes, a tile each"),
    ))), "the memory regions that fit the page"),
))

CURVE = Obj((
    Field("label", STRING, "the curve's name where there are two (Old, New); empty for a report's one"),
    Field("live", ListOf(NUMBER), "bytes live at each program step: always-live + the step's not-always-live"),
    Field("steps", ListOf(STRING), "each step's path in the program tree (3.0: the first step of the fourth)"),
    Field("names", ListOf(Nullable(STRING)), "each step's program name; null where the source names none"),
    Field("peak", INTEGER, "the index of the step with the most bytes live (the first among equals)"),
    Field("limit", Nullable(INTEGER), "the memory of the one IPU the program runs on; null: no limit applies"),
    Field("description", STRING, "the curve's peak and limit, and the variables live there, in words"),
))
PLAN = Obj((
    Field("sentence", STRING, "the tile's fit plan in words"),
    Field("items", ListOf(Obj((
        Field("name", STRING, "what to move: a symbol, variable, tensor or category"),
        Field("kind", STRING, "where it lives: its section, category or data type"),
        Field("class", STRING, "always live, not always live, gap or unknown"),
        Field("bytes", INTEGER, "its bytes"),
        Field("frees", INTEGER, "what removing it alone frees"),
    ))), "the items the plan moves, largest first"),
))

REPORT_SECTION = Obj((
    SECTION_ID,
    Field("bytes_per_tile", Nullable(INTEGER), "tile memory (the limit), null when unknown"),
    TILES_PER_IPU,
    Field("heat_tiles_per_ipu", Nullable(INTEGER), "tiles per IPU of the heat map's grids, a grid an IPU; null: every "
          "tile in one grid (tiles per IPU unknown, or more IPUs than the page lists one by one)"),
    Field("breakdown_heading", STRING, "the heading of a tile's breakdown in its panel (Sections, Categories...)"),
    Field("histogram", ListOf(Obj((
        Field("low_kib", NUMBER, "the bin's lower bound, KiB"),
        Field("high_kib", NUMBER, "its upper bound (excluded), KiB"),
        Field("count", INTEGER, "tiles in the bin"),
        Field("out_of_memory", Nullable(BOOLEAN), "whether it holds an out-of-memory tile; null: cannot say"),
    ))), "the By Tile histogram's bins; empty when the source has none"),
    Field("drilled", MapOf("tile", Obj((
        Field("member", Nullable(STRING), "the archive member the symbols were read from"),
        Field("symbols", ListOf(Obj((
            Field("name", STRING, "the symbol, demangled"),
            Field("section", STRING, "its section"),
            Field("bytes", INTEGER, "its size"),
        ))), "the largest symbols, largest first"),
        Field("more", INTEGER, "how many smaller symbols are left out"),
        Field("notes", ListOf(STRING), "what the symbol table's reading noted"),
    ))), "the symbol tables memreport read, by tile"),
    Field("tiles", Nullable(TILES), "every tile's figures; null when the source does not list every tile"),
    Field("plans", MapOf("tile", PLAN), "the fit plans of the worst tiles over their limit, by tile"),
    Field("plans_more", INTEGER, "tiles over whose plans are left out of the page (the JSON lists every one)"),
    Field("liveness", ListOf(CURVE), "the liveness curve over program steps; empty when the source has none"),
))

DIFF_SECTION = Obj((
    SECTION_ID,
    TILES_PER_IPU,
    Field("count", INTEGER, "how many tiles the chart spans"),
    Field("tile_ids", PACKED, "the changed tiles"),
    Field("old_bytes", PACKED, "each changed tile's bytes before, excluding gaps"),
    Field("new_bytes", PACKED, "and after"),
    Field("newly_out_of_memory", ListOf(INTEGER), "the tiles newly out of memory"),
    Field("below", MapOf("tile", ListOf(Obj((
        Field("kind", STRING, "what changed: section, symbol..."),
        Field("name", STRING, "its name"),
        Field("old", Nullable(INTEGER), "its bytes before; null: absent"),
        Field("new", Nullable(INTEGER), "after; null: absent"),
    )))), "what changed below the largest changes' tiles, by tile"),
    Field("liveness", ListOf(CURVE), "both builds' liveness curves on one axis (those that have program steps)"),
))

COMPILES_SECTION = Obj((
    SECTION_ID,
    Field("rows", ListOf(Obj((
        Field("label", STRING, "the row's name on the timeline's axis (#3: the third compilation)"),
        Field("ref", STRING, "the log line (path:line)"),
        Field("what", STRING, "the module, hash or framework compiled, or the executable load"),
        Field("result", STRING, "compiled, precompiled, loaded, skipped, unfinished or load (its colour)"),
        Field("cache", Nullable(STRING), "hit or miss; null when the log does not say"),
        Field("duration_s", Nullable(NUMBER), "seconds; null when unknown"),
        Field("start_s", NUMBER, "seconds from the first row's start"),
    ))), "the timeline's rows, in log order"),
))

TREND_SECTION = Obj((
    SECTION_ID,
    Field("builds", ListOf(STRING), "each build's name, in the order given (the charts' x axis)"),
    Field("worst_tiles", ListOf(Nullable(INTEGER)), "each build's worst tile; null where unknown"),
    Field("charts", ListOf(Obj((
        Field("key", OneOf(("worst", "headroom", "oom", "total")), "the figure; its canvas is #ID-KEY"),
        Field("unit", OneOf(("bytes", "tiles")), "what its values count"),
        Field("values", ListOf(Nullable(INTEGER)), "a value per build; null where the build does not say"),
        Field("limit", ListOf(Nullable(INTEGER)),
              "the limit per build, drawn as a line (tile memory; 0 B of headroom); null where there is none"),
        Field("at_least", ListOf(BOOLEAN), "true where the value is a lower bound (at least N tiles)"),
    ))), "a line chart per figure"),
))


PAGE: Mapping[str, Obj] = {
    kind: Obj((
        Field("kind", OneOf((kind,)), "the page's kind"),
        Field("labels", Obj(tuple(Field(name, STRING, "a label (template)") for name in LABELS)),
              "every word the script shows"),
        Field("sections", ListOf(section), "what the script draws, a section each"),
    ))
    for kind, section in (("report", REPORT_SECTION), ("diff", DIFF_SECTION), ("compiles", COMPILES_SECTION),
                          ("trend", TREND_SECTION))
}


def page_data(kind: str, sections: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The data block of a page of ``kind``: its sections and the labels."""
    return {"kind": kind, "labels": dict(LABELS), "sections": list(sections)}


def problems(data: JSON) -> list[str]:
    """Where ``data`` departs from the declaration of its page kind (empty: it keeps the contract)."""
    kind = data.get("kind") if isinstance(data, dict) else None
    if not isinstance(kind, str) or kind not in PAGE:
        return [f"kind: one of {', '.join(PAGE)} expected, not {kind!r}"]
    return PAGE[kind].problems(data, "page")


def declaration() -> JSON:
    """The contract as JSON (for the script's tests): each page kind's keys, types and meanings; the labels."""
    return {"kinds": {kind: obj.describe() for kind, obj in PAGE.items()}, "labels": dict(LABELS)}
