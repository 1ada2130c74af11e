"""Poplar text summaries (printProfileSummary) and TensorFlow ``.rep`` event traces (FORMATS.md §1).

A summary is read line by line by a small state machine: headings are
matched by their text, never their column, because documents that quote a
report re-indent it. Indentation is used only as a hint to tell where a
``Memory Usage:`` block ends when an unknown line follows it. A text summary
prints only bins, maxima, the out-of-memory count and a few detailed tiles,
so every report it yields is partial and keeps those figures as printed.
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NamedTuple

from ..errors import ReadError, Truncated
from ..model import ARCHES, Bin, Histogram, MemoryReport, PrintedSummary, Target, TileBytes, TileDetail
from . import PREFIX_BYTES, ReadOptions, Reader, register

FORMAT = "poplar-text"

_INT = r"\d{1,3}(?:,\d{3})+|\d+"
_ROW = re.compile(rf"(?P<lo>{_INT})\s*-\s*(?P<hi>{_INT})\s(?P<bar>\**)\s*(?P<count>{_INT})")
_ROW_START = re.compile(rf"(?:{_INT})\s*-\s*(?:{_INT})\s")
_MAX = re.compile(rf"Maximum \((?P<kind>Including|Excluding) Gaps\)\s*:\s*(?P<bytes>{_INT})(?:\s*B)?"
                  rf"(?:\s*\([^)]*\))?\s+on tile\s+(?P<tile>{_INT})", re.IGNORECASE)
_OOM = re.compile(rf"(?P<count>{_INT})\s+tile\(s\)\s+out of memory", re.IGNORECASE)
_TILE = re.compile(rf"Tile\s*#\s*(?P<tile>{_INT})\s+memory usage\s*:", re.IGNORECASE)
_VERTEX = re.compile(rf"Vertex Data\s*\(\s*(?P<bytes>{_INT})\s*B\s*\)\s*:", re.IGNORECASE)
_OLD_MAX = re.compile(rf"Max tile memory\s*\(tile\s+(?P<tile>{_INT})\)\s*:\s*(?P<bytes>{_INT})(?:\s.*)?",
                      re.IGNORECASE)


class _ItemLine:
    """``key: value`` as the regex ``(?P<key>.+?)\\s*:\\s+(?P<value>\\S.*)`` reads a line, in linear time.

    The regex backtracks quadratically over a long run of spaces (one
    crafted line of a megabyte took hours), so the lines are split by hand.
    """

    @staticmethod
    def fullmatch(text: str) -> dict[str, str] | None:
        at = text.find(":", 1)
        while at >= 0:  # the first colon followed by whitespace and then more text
            if text[at + 1:at + 2].isspace():
                value, key = text[at + 1:].lstrip(), text[:at].rstrip()
                if not value:  # only whitespace follows: no later colon either
                    return None
                if key:
                    return {"key": key, "value": value}
            at = text.find(":", at + 1)
        return None


class _TypeItemLine:
    """``name  1,234 B`` as the regex ``(?P<key>\\S.*?)\\s+(?P<value>INT\\s*B)`` reads a line, in linear time."""

    _int = re.compile(_INT)

    @classmethod
    def fullmatch(cls, text: str) -> dict[str, str] | None:
        if not text.endswith("B") or not text[:1] or text[:1].isspace():
            return None
        number_end = len(text[:-1].rstrip())
        parts = text[:number_end].rsplit(None, 1)
        if len(parts) != 2 or not cls._int.fullmatch(parts[1]):
            return None
        return {"key": parts[0], "value": parts[1] + text[number_end:]}


_ITEM = _ItemLine()
_TYPE_ITEM = _TypeItemLine()
_BYTES = re.compile(rf"(?P<n>{_INT})\s*(?:B|bytes)")
_QUANTITY = re.compile(rf"(?P<n>{_INT})(?:\.(?P<frac>\d+))?\s*(?P<unit>[A-Za-z]*)")
_EVENT = re.compile(r"=>\s*@\s*(?P<when>.*?):\s+(?P<kind>Compile begin|Compile end|Host->Device|Device->Host|"
                    r"Load engine|Execute|Unknown event)(?:\s*:\s*(?P<module>.*))?")
_MAX_DIGITS = 19  # 2**63 has 19 digits
_ELISION = {".", "..", "...", "\u2026", "\u22ee"}
_SIZE_UNITS = {"b": 1, "k": 1024, "kb": 1024, "kib": 1024, "mb": 1024**2, "mib": 1024**2,
               "gb": 1024**3, "gib": 1024**3}  # binary: Poplar's kB and MB are KiB and MiB
_FREQ_UNITS = {"hz": 1, "khz": 10**3, "mhz": 10**6, "ghz": 10**9}
_INT_KEYS = {"num_ipus", "tiles_per_ipu", "total_tiles", "num_replicas", "ipus_per_replica",
             "tiles_per_replica"}
_STRICT_GROUPS = {"regions", "data_types", "vertex_category", "vertex_type"}
_KNOWN_STATES = {"target", "graph", "memory", "tile", "by_tile"}


class _Line(NamedTuple):
    no: int      # 1-based line number in the file
    indent: int  # columns of leading whitespace, tabs expanded
    text: str    # the line without surrounding whitespace


# ---------------------------------------------------------------- values

def _whole(number: str, line: int, what: str) -> int:
    """A matched integer (thousands separators allowed), refused past 19 digits: nothing in a report is
    that large, and Python will not even convert a number of more than 4,300 digits."""
    digits = number.replace(",", "").lstrip("0")
    if len(digits) > _MAX_DIGITS:
        raise ReadError(f"{what}: a number of {len(digits):,} digits is too large", line=line)
    return int(digits or "0")


def _int(text: str, line: int, what: str) -> int:
    if not re.fullmatch(_INT, text):
        raise ReadError(f"{what}: {text!r} is not a number", line=line)
    return _whole(text, line, what)


def _bytes(text: str, line: int, what: str) -> int:
    match = _BYTES.fullmatch(text)
    if not match:
        raise ReadError(f"{what}: {text!r} is not a byte count (expected e.g. '1,024 B')", line=line)
    return _whole(match["n"], line, what)


def _quantity(text: str, line: int, what: str) -> tuple[Decimal, str]:
    match = _QUANTITY.fullmatch(text)
    if not match:
        raise ReadError(f"{what}: {text!r} is not a number", line=line)
    number = match["n"].replace(",", "") + (f".{match['frac']}" if match["frac"] else "")
    return Decimal(number), match["unit"].lower()


def _loose(text: str) -> Any:
    """A value from a section memreport does not interpret: a number when it is one, else the text."""
    if len(text.replace(",", "").lstrip("0")) > _MAX_DIGITS + 8:  # too long for a number: kept as text
        return text
    if _BYTES.fullmatch(text):
        return int(_BYTES.fullmatch(text)["n"].replace(",", ""))
    match = _QUANTITY.fullmatch(text)
    if match and not match["unit"]:
        value = Decimal(match["n"].replace(",", "") + (f".{match['frac']}" if match["frac"] else ""))
        return int(value) if value == value.to_integral_value() and not match["frac"] else float(value)
    return text


def _name(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _snake(name: str) -> str:
    """``Number of IPUs`` -> ``num_ipus``; ``Non-interleaved`` -> ``non_interleaved``."""
    key = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return "num_" + key[len("number_of_"):] if key.startswith("number_of_") else key


# ---------------------------------------------------------------- what a summary printed

@dataclass
class _Scope:
    """One ``Including Gaps`` / ``Excluding Gaps`` breakdown, under an optional label (``Total``)."""

    label: str | None
    including_gaps: int | None = None
    excluding_printed: int | None = None
    regions: dict[str, int] = field(default_factory=dict)
    data_types: dict[str, int] = field(default_factory=dict)
    vertex_data: int | None = None
    vertex_by_category: dict[str, int] = field(default_factory=dict)
    vertex_by_type: dict[str, int] = field(default_factory=dict)
    other: dict[str, dict[str, Any]] = field(default_factory=dict)
    elided: list[str] = field(default_factory=list)

    def empty(self) -> bool:
        return self.including_gaps is None and not (self.regions or self.data_types or self.other) \
            and self.vertex_data is None and self.excluding_printed is None

    def excluding_gaps(self) -> int | None:
        """As printed, else the sum of the regions (unless rows were elided)."""
        if self.excluding_printed is not None:
            return self.excluding_printed
        if not self.regions or "By Memory Region" in self.elided:
            return None
        return sum(self.regions.values())

    def vertex(self) -> dict[str, Any]:
        return {"bytes": self.vertex_data, "by_category": dict(self.vertex_by_category),
                "by_type": dict(self.vertex_by_type)}

    def as_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"label": self.label, "including_gaps": self.including_gaps,
                                "excluding_gaps": self.excluding_gaps(),
                                "regions": {_snake(k): v for k, v in self.regions.items()},
                                "by_data_type": dict(self.data_types)}
        if self.vertex_data is not None:
            info["vertex_data"] = self.vertex()
        if self.other:
            info["other"] = {k: dict(v) for k, v in self.other.items()}
        if self.elided:
            info["elided"] = list(self.elided)
        return info


@dataclass
class _Block:
    """One ``Memory Usage:`` block: the whole program's, or one detailed tile's."""

    line: int
    indent: int
    scopes: list[_Scope] = field(default_factory=list)
    indented: bool | None = None  # do its items sit deeper than its heading? (None: no item yet)


@dataclass
class _TileBlock:
    tile: int
    line: int
    memory: _Block | None = None


@dataclass
class _Summary:
    target: dict[str, Any] | None = None
    target_line: int = 0
    graph: dict[str, Any] = field(default_factory=dict)
    memory: _Block | None = None
    tiles: list[_TileBlock] = field(default_factory=list)
    by_tile_line: int = 0
    bins: list[tuple[Bin, int]] = field(default_factory=list)
    rows_elided: bool = False
    maxima: dict[str, tuple[TileBytes, int]] = field(default_factory=dict)
    out_of_memory: int | None = None
    old: dict[str, Any] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def has_memory(self) -> bool:
        return bool(self.memory or self.bins or self.maxima or self.out_of_memory is not None or self.old)


# ---------------------------------------------------------------- the state machine

class _Parser:
    """Reads one summary's lines; states: top, target, graph, memory, tile, by_tile, skip."""

    def __init__(self, lines: list[_Line]) -> None:
        self.lines = lines
        self.s = _Summary()
        self.state = "top"
        self.block: _Block | None = None
        self.group: str | None = None
        self.group_name = ""
        self.phase = ""
        self.pos = 0
        self.skip_indent = -1

    def run(self) -> _Summary:
        for self.pos, ln in enumerate(self.lines):
            if not ln.text:
                continue
            if ln.text in _ELISION:
                self._elision()
            elif not self._heading(ln):
                getattr(self, "_on_" + self.state)(ln)
        self._end_of_input()
        return self.s

    # -- headings recognised in every state

    def _heading(self, ln: _Line) -> bool:
        text = ln.text
        if match := _OLD_MAX.fullmatch(text):  # 0.x reports: "Max tile memory (tile N): M (P% of mean)"
            self.s.old["max_tile_memory"] = {"tile": _int(match["tile"], ln.no, "tile"),
                                             "bytes": _int(match["bytes"], ln.no, "Max tile memory")}
            return True
        if not text.endswith(":"):
            return False
        name = _name(text[:-1]).casefold()
        if name == "target":
            self._close(ln)
            self.s.target, self.s.target_line, self.state = {}, ln.no, "target"
        elif name == "graph":
            self._close(ln)
            self.state = "graph"
        elif name == "memory usage":  # also the 0.x form "Memory Usage :"
            tile = self.s.tiles[-1] if self.state == "tile" else None
            if tile is None:
                self._close(ln)
            self._open_memory(ln, tile)
        elif match := _TILE.fullmatch(text):
            self._close(ln)
            self.s.tiles.append(_TileBlock(_int(match["tile"], ln.no, "tile"), ln.no))
            self.state = "tile"
        elif name == "by tile (excluding gaps)":
            self._close(ln)
            if self.s.by_tile_line:
                raise ReadError(f"a second By Tile histogram (the first is at line {self.s.by_tile_line})",
                                line=ln.no)
            self.s.by_tile_line, self.state, self.phase = ln.no, "by_tile", "header"
        else:
            return False
        return True

    def _close(self, ln: _Line | None) -> None:
        """Check the section being left is complete; ``ln`` is None at the end of the input."""
        error = Truncated if ln is None else ReadError
        ends = "the file ends" if ln is None else f"line {ln.no} starts a new section"
        s = self.s
        if self.state == "target" and "total_tiles" not in (s.target or {}):
            raise error(f"the Target section gives no Total Tiles ({ends})", line=s.target_line)
        if self.state == "tile":
            tile = s.tiles[-1]
            raise error(f"'Tile # {tile.tile} memory usage:' has no Memory Usage block ({ends})", line=tile.line)
        if self.state == "memory" and self.block is not None and not any(
                not sc.empty() for sc in self.block.scopes):
            raise error(f"the Memory Usage section holds no figures ({ends})", line=self.block.line)
        if self.state == "by_tile" and not s.bins:
            raise error(f"the By Tile histogram has no rows ({ends})", line=s.by_tile_line)

    def _skip(self, ln: _Line) -> None:
        """Leave the current section for one memreport does not read."""
        self._close(ln)
        if ln.text.endswith(":") and len(self.s.skipped) < 20:
            self.s.skipped.append(_name(ln.text[:-1]))
            self.skip_indent = ln.indent
        self.state = "skip"

    def _elision(self) -> None:
        if self.state == "memory" and self.group and self.group_name not in self._scope().elided:
            self._scope().elided.append(self.group_name)
        elif self.state == "by_tile":
            self.s.rows_elided = True

    # -- states

    def _on_top(self, ln: _Line) -> None:
        if ln.text.endswith(":"):
            self._skip(ln)

    def _on_skip(self, ln: _Line) -> None:
        # Name the unknown sections (headings no deeper than the first), not their subsections.
        if ln.text.endswith(":") and ln.indent <= self.skip_indent:
            self._skip(ln)

    def _on_target(self, ln: _Line) -> None:
        match = _ITEM.fullmatch(ln.text)
        if match is None:
            if ln.text.endswith(":"):
                self._skip(ln)
            return
        key, value = _snake(match["key"]), match["value"].strip()
        what = _name(match["key"])
        assert self.s.target is not None
        if key in _INT_KEYS:
            self.s.target[key] = _int(value, ln.no, what)
        elif key.startswith(("memory_per", "total_memory")):
            number, unit = _quantity(value, ln.no, what)
            if unit not in _SIZE_UNITS:
                raise ReadError(f"{what}: unknown unit in {value!r}", line=ln.no)
            size = number * _SIZE_UNITS[unit]
            if size != size.to_integral_value():
                self.s.notes.append(f"{what} {value} is not a whole number of bytes; rounded")
            self.s.target[key + "_bytes"] = int(size.to_integral_value())
        elif key.startswith("clock"):
            number, unit = _quantity(value, ln.no, what)
            if unit not in _FREQ_UNITS:
                raise ReadError(f"{what}: unknown unit in {value!r}", line=ln.no)
            self.s.target["clock_hz"] = float(number * _FREQ_UNITS[unit])
        else:
            self.s.target[key] = _loose(value)

    def _on_graph(self, ln: _Line) -> None:
        match = _ITEM.fullmatch(ln.text)
        if match is None:
            if ln.text.endswith(":"):
                self._skip(ln)
            return
        value = match["value"].strip()
        key = _snake(match["key"])
        self.s.graph[key] = _int(value, ln.no, _name(match["key"])) if value[:1].isdigit() else value

    def _on_tile(self, ln: _Line) -> None:
        # Content before the tile's "Memory Usage:" heading: read it as that block, heading omitted.
        tile = self.s.tiles[-1]
        self._open_memory(_Line(tile.line, ln.indent - 1, ""), tile)
        self._on_memory(ln)

    def _open_memory(self, ln: _Line, tile: _TileBlock | None) -> None:
        block = _Block(ln.no, ln.indent)
        if tile is not None:
            tile.memory = block
        elif self.s.memory is None:
            self.s.memory = block
        else:
            self.s.notes.append(f"a second Memory Usage section (line {ln.no}) was skipped")
            self.state = "skip"
            return
        self.block, self.group, self.group_name, self.state = block, None, "", "memory"

    def _scope(self, label: str | None = None, new: bool = False) -> _Scope:
        assert self.block is not None
        scopes = self.block.scopes
        if new and scopes and scopes[-1].empty():
            scopes[-1].label = label
        elif new or not scopes:
            scopes.append(_Scope(label))
        return scopes[-1]

    def _next_text(self) -> str:
        for i in range(self.pos + 1, len(self.lines)):
            text = self.lines[i].text
            if text and text not in _ELISION:
                return text
        return ""

    def _on_memory(self, ln: _Line) -> None:
        block = self.block
        assert block is not None
        if block.indented is None:
            block.indented = ln.indent > block.indent
        if block.indented and ln.indent <= block.indent:  # back at the heading's column: block over
            self._skip(ln)
            return
        text = ln.text
        if text.endswith(":"):
            self._memory_heading(ln)
            return
        if match := _ITEM.fullmatch(text):
            self._memory_item(ln, _name(match["key"]), match["value"].strip())
            return
        match = _TYPE_ITEM.fullmatch(text)
        if match and self.group in ("vertex_type", "other"):
            self._group_dict()[_name(match["key"])] = _bytes(match["value"], ln.no, _name(match["key"]))
        elif self.group in _STRICT_GROUPS:
            raise ReadError(f"cannot read {text!r} under {self.group_name!r} (expected 'name: N B')", line=ln.no)

    def _memory_heading(self, ln: _Line) -> None:
        name = _name(ln.text[:-1])
        key = name.casefold()
        scope = self._scope()
        if key in ("excluding gaps", "including gaps"):
            self.group, self.group_name = None, name
        elif key == "by memory region":
            self.group, self.group_name = "regions", name
        elif key == "by data type":
            self.group, self.group_name = "data_types", name
        elif match := _VERTEX.fullmatch(ln.text):
            scope.vertex_data = _int(match["bytes"], ln.no, "Vertex Data")
            self.group, self.group_name = "vertex", "Vertex Data"
        elif key == "by category" and scope.vertex_data is not None:
            self.group, self.group_name = "vertex_category", name
        elif key == "by type" and scope.vertex_data is not None:
            self.group, self.group_name = "vertex_type", name
        elif self._next_text().casefold().startswith("including gaps"):
            self._scope(name, new=True)  # a scope label such as "Total:"
            self.group, self.group_name = None, name
        else:
            scope.other.setdefault(name, {})
            self.group, self.group_name = "other", name

    def _group_dict(self) -> dict[str, Any]:
        scope = self._scope()
        if self.group == "regions":
            return scope.regions
        if self.group == "data_types":
            return scope.data_types
        if self.group == "vertex_category":
            return scope.vertex_by_category
        if self.group == "vertex_type":
            return scope.vertex_by_type
        return scope.other.setdefault(self.group_name if self.group == "other" else "", {})

    def _memory_item(self, ln: _Line, key: str, value: str) -> None:
        folded = key.casefold()
        if folded == "including gaps":
            scope = self._scope()
            if scope.including_gaps is not None:  # a second, unlabelled scope
                scope = self._scope(None, new=True)
            scope.including_gaps = _bytes(value, ln.no, key)
            self.group, self.group_name = None, key
        elif folded == "excluding gaps":
            self._scope().excluding_printed = _bytes(value, ln.no, key)
            self.group, self.group_name = None, key
        elif self.group in _STRICT_GROUPS:
            self._group_dict()[key] = _bytes(value, ln.no, key)
        else:
            self._group_dict()[key] = _loose(value)

    def _on_by_tile(self, ln: _Line) -> None:
        text, s = ln.text, self.s
        if self.phase == "header":
            self.phase = "rows"
            if text.casefold().startswith("range"):
                return
        if text.casefold().startswith("maximum"):
            match = _MAX.fullmatch(text)
            if match is None:
                raise ReadError(f"cannot read the Maximum line {text!r}", line=ln.no)
            kind = match["kind"].lower() + "_gaps"
            if kind in s.maxima:
                raise ReadError(f"a second {match['kind']} Gaps maximum", line=ln.no)
            s.maxima[kind] = (TileBytes(_int(match["tile"], ln.no, "tile"),
                                        _int(match["bytes"], ln.no, "maximum")), ln.no)
            self.phase = "tail"
        elif "out of memory" in text.casefold():
            match = _OOM.fullmatch(text)
            if match is None:
                raise ReadError(f"cannot read the out-of-memory line {text!r}", line=ln.no)
            self._close(ln)
            s.out_of_memory = _int(match["count"], ln.no, "out-of-memory count")
            self.state = "skip"
        elif self.phase == "rows":
            if text.endswith(":"):
                self._skip(ln)
                return
            self._row(ln)
        elif _ROW_START.match(text):
            raise ReadError(f"histogram row {text!r} after the Maximum lines", line=ln.no)
        else:
            self._skip(ln)

    def _row(self, ln: _Line) -> None:
        match = _ROW.fullmatch(ln.text)
        if match is None:
            raise ReadError(f"histogram row does not parse: {ln.text!r}", line=ln.no)
        low, high = _int(match["lo"], ln.no, "bin"), _int(match["hi"], ln.no, "bin")
        count = _int(match["count"], ln.no, "count")
        if high <= low:
            raise ReadError(f"histogram bin {low} - {high} is empty or reversed", line=ln.no)
        bins = self.s.bins
        if bins:
            prev = bins[-1][0]
            width = prev.high_kib - prev.low_kib
            if high - low != width:
                raise ReadError(f"histogram bin {low} - {high} is {high - low} KiB wide; "
                                f"the bins before it are {width} KiB wide", line=ln.no)
            if low < prev.high_kib or (low - prev.low_kib) % width:
                raise ReadError(f"histogram bin {low} - {high} does not follow bin "
                                f"{prev.low_kib} - {prev.high_kib}", line=ln.no)
            if low > prev.high_kib:
                self.s.rows_elided = True
        bins.append((Bin(low, high, count), ln.no))

    def _end_of_input(self) -> None:
        last = next((ln for ln in reversed(self.lines) if ln.text and ln.text not in _ELISION), None)
        if self.state in _KNOWN_STATES and last is not None and last.text.endswith(":"):
            raise Truncated(f"the file ends after the heading {last.text!r}", line=last.no)
        self._close(None)
        if self.state == "by_tile":
            s = self.s
            missing = "its Maximum lines" if not s.maxima else "its out-of-memory line"
            raise Truncated(f"the file ends in the By Tile block before {missing}",
                            line=last.no if last else s.by_tile_line)


# ---------------------------------------------------------------- summary -> MemoryReport

def _target(s: _Summary, options: ReadOptions) -> Target:
    arch = options.arch
    spec = ARCHES.get(arch) if arch else None
    t = s.target
    if t is None:
        return Target(num_tiles=0, arch=arch, tiles_per_ipu=spec.tiles_per_ipu if spec else None,
                      bytes_per_tile=options.tile_memory or (spec.bytes_per_tile if spec else None))
    try:
        return Target(
            num_tiles=t["total_tiles"], arch=arch, num_ipus=t.get("num_ipus"),
            tiles_per_ipu=t.get("tiles_per_ipu") or (spec.tiles_per_ipu if spec else None),
            bytes_per_tile=options.tile_memory or t.get("memory_per_tile_bytes")
            or (spec.bytes_per_tile if spec else None),
            clock_hz=t.get("clock_hz"))
    except ValueError as exc:
        raise ReadError(f"Target: {exc}", line=s.target_line) from None


def _check_tile(tile: int, num_tiles: int, line: int, what: str) -> None:
    if num_tiles and tile >= num_tiles:
        raise ReadError(f"{what} names tile {tile}, but the Target has {num_tiles:,} tiles", line=line)


def _detail(block: _TileBlock) -> TileDetail:
    assert block.memory is not None
    scopes = block.memory.scopes
    scope = scopes[0] if scopes else _Scope(None)
    extra: dict[str, Any] = {"memory_scope": scope.label}
    if scope.vertex_data is not None:
        extra["vertex_data"] = scope.vertex()
    if scope.other:
        extra["other"] = {k: dict(v) for k, v in scope.other.items()}
    if scope.elided:
        extra["elided"] = list(scope.elided)
    if len(scopes) > 1:
        extra["memory_scopes"] = [sc.as_info() for sc in scopes]
    return TileDetail(tile=block.tile, including_gaps=scope.including_gaps, excluding_gaps=scope.excluding_gaps(),
                      breakdown=dict(scope.data_types), regions={_snake(k): v for k, v in scope.regions.items()},
                      extra=extra)


def _info(s: _Summary) -> dict[str, Any]:
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


def _report(s: _Summary, source: str, options: ReadOptions, module: str | None,
            extra_info: dict[str, Any], end_line: int) -> MemoryReport:
    if not s.has_memory():
        raise ReadError("no memory figures found (expected a Memory Usage or By Tile section)", line=end_line)
    target = _target(s, options)
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
    return MemoryReport(
        source=source, format=FORMAT, target=target, detailed_tiles=details, printed=printed,
        breakdown_kind="data type", module=module, info={**_info(s), **extra_info}, notes=tuple(notes))


def _summaries(lines: list[_Line], source: str, options: ReadOptions, module: str | None = None,
               extra_info: dict[str, Any] | None = None) -> list[MemoryReport]:
    """Every summary in a run of lines: each ``Target:`` heading after the first starts another."""
    starts = [i for i, ln in enumerate(lines) if _name(ln.text.rstrip(":")).casefold() == "target"
              and ln.text.endswith(":")][1:]
    bounds = [0, *starts, len(lines)]
    end_line = lines[-1].no if lines else 1
    return [_report(_Parser(lines[a:b]).run(), source, options, module, dict(extra_info or {}),
                    lines[b - 1].no if b > a else end_line)
            for a, b in zip(bounds, bounds[1:])]


# ---------------------------------------------------------------- files, .rep traces, sniffing

def _decode(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReadError("not UTF-8 text", line=line, offset=exc.start) from None
    if "\x00" in text:
        at = text.index("\x00")
        raise ReadError("binary data (a NUL byte) in a text report", line=text.count("\n", 0, at) + 1,
                        offset=len(text[:at].encode()))
    return text.removeprefix("\ufeff")


def _lines(text: str, first: int = 1) -> list[_Line]:
    out = []
    for no, raw in enumerate(text.split("\n"), first):
        expanded = raw.rstrip("\r").expandtabs(8)
        body = expanded.lstrip()
        out.append(_Line(no, len(expanded) - len(body), body.rstrip()))
    return out


# A .rep event: a rule of 70 dashes, then "=> @ <time>: <event>". Found on the raw text, so the
# (possibly huge) execution reports between compile reports are never split into lines.
_REP_EVENT = re.compile(r"^[ \t]*-{70,}[ \t]*\r?\n(?P<event>[ \t]*=>[^\n]*)", re.MULTILINE)


def _read_rep(text: str, events: list[re.Match], source: str, options: ReadOptions) -> list[MemoryReport]:
    reports: list[MemoryReport] = []
    skipped = 0
    pos, no = 0, 1  # newlines are counted incrementally: one pass over the text in all
    for k, found in enumerate(events):
        no += text.count("\n", pos, found.start("event"))
        pos = found.start("event")
        event = _EVENT.fullmatch(found["event"].strip())
        if event is None:
            raise ReadError(f"cannot read the trace event line {found['event'].strip()!r}", line=no)
        if event["kind"] != "Compile end":
            continue
        body = _lines(text[found.end("event") + 1:events[k + 1].start() if k + 1 < len(events) else len(text)],
                      no + 1)
        module = (event["module"] or "").strip() or None
        info: dict[str, Any] = {"event_time": event["when"].strip()}
        content = [ln for ln in body if ln.text]
        if content and (match := re.fullmatch(rf"Duration\s*:\s*({_INT})\s*us", content[0].text)):
            info["compile_duration_us"] = _int(match[1], content[0].no, "Duration")
            content = content[1:]
        if not content or content[0].text[:1] in "{[":
            skipped += 1
            kind = "an empty report" if not content else "a JSON report, not a text summary"
            warnings.warn(f"{source}: 'Compile end: {module}' (line {no}) holds {kind}; skipped", stacklevel=3)
            continue
        reports.extend(_summaries(body, source, options, module, info))
    if not reports:
        raise ReadError(f"the trace holds no text compile report ({skipped} compile report(s) skipped; "
                        f"enable use_poplar_text_report for text summaries)")
    return reports


def parse_text(text: str, source: str = "<text>", options: ReadOptions | None = None) -> list[MemoryReport]:
    """Every report in a summary or ``.rep`` trace already decoded to text."""
    options = options or ReadOptions()
    text = text.removeprefix("\ufeff")
    events = list(_REP_EVENT.finditer(text))
    if events:
        return _read_rep(text, events, source, options)
    return _summaries(_lines(text), source, options)


def read_poplar_text(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """The reports of a text summary (one, or several concatenated) or of a ``.rep`` trace."""
    with open(path, "rb") as f:
        data = f.read()
    text = _decode(data)
    try:
        return parse_text(text, path, options)
    except ReadError as exc:
        # Poplar ends every line: a failure on an unended last line is a file cut short (a download, a log
        # still being written), and saying so beats "does not parse".
        last = text.count("\n") + 1
        if isinstance(exc, Truncated) or text.endswith("\n") or exc.line != last:
            raise
        raise Truncated(f"the file ends mid-line (cut short?): {exc.message}", line=exc.line,
                        offset=exc.offset) from None


_SNIFF_HEADING = re.compile(r"^[ \t]*(?:Target|Memory Usage ?|By Tile \(Excluding Gaps\)|"
                            r"Tile ?# ?[\d,]+ memory usage)[ \t]*:[ \t]*\r?$", re.MULTILINE | re.IGNORECASE)
_SNIFF_REP = re.compile(r"^[ \t]*-{70,}[ \t]*\r?\n[ \t]*=> @ ", re.MULTILINE)
_BINARY_MAGIC = (b"!<arch>", b"!<thin>", b"\x7fELF", b"\xd9\xd9\xf7")


def accept(prefix: bytes) -> bool:
    """A summary heading or a ``.rep`` event among the first bytes; never binary, JSON or CBOR."""
    if prefix.startswith(_BINARY_MAGIC) or b"\x00" in prefix[:PREFIX_BYTES]:
        return False
    text = prefix[:PREFIX_BYTES].decode("utf-8", errors="replace").removeprefix("\ufeff")
    # JSON objects are never summaries. A "[" start is left to the heading test: JSON quotes its
    # strings, so it never holds a bare heading line, while logs often start "[timestamp] ...".
    if text.lstrip()[:1] == "{":
        return False
    if text.count("\ufffd") > len(text) // 100 + 2:  # mostly undecodable: binary (e.g. CBOR)
        return False
    return bool(_SNIFF_REP.search(text) or _SNIFF_HEADING.search(text))


READER = register(Reader(FORMAT, "Poplar text summary or TensorFlow .rep trace", accept, read_poplar_text,
                         (".txt", ".rep", ".log")))
