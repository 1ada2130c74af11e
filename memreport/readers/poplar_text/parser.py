"""The line state machine that reads one text summary into a :class:`~.summary.Summary`.

Headings are matched by their text, never their column, because documents
that quote a report re-indent it. Indentation is used only as a hint to tell
where a ``Memory Usage:`` block ends when an unknown line follows it.
"""
from __future__ import annotations

from typing import Any

from ...errors import ReadError, Truncated
from ...model import Bin, TileBytes
from ...units import POPLAR_UNITS
from .summary import Block, Scope, Summary, TileBlock
from .values import (
    ELISION,
    ITEM,
    MAXIMUM,
    OLD_MAX,
    OOM,
    ROW,
    ROW_START,
    TILE,
    TYPE_ITEM,
    VERTEX,
    Line,
    byte_count,
    clean_name,
    integer,
    loose,
    quantity,
    snake,
)

_FREQ_UNITS = {"hz": 1, "khz": 10**3, "mhz": 10**6, "ghz": 10**9}
_INT_KEYS = {"num_ipus", "tiles_per_ipu", "total_tiles", "num_replicas", "ipus_per_replica",
             "tiles_per_replica"}
_STRICT_GROUPS = {"regions", "data_types", "vertex_category", "vertex_type"}
_KNOWN_STATES = {"target", "graph", "memory", "tile", "by_tile"}


class Parser:
    """Reads one summary's lines; states: top, target, graph, memory, tile, by_tile, skip."""

    def __init__(self, lines: list[Line]) -> None:
        self.lines = lines
        self.s = Summary()
        self.state = "top"
        self.block: Block | None = None
        self.group: str | None = None
        self.group_name = ""
        self.phase = ""
        self.pos = 0
        self.skip_indent = -1

    def run(self) -> Summary:
        for pos, ln in enumerate(self.lines):
            self.pos = pos
            if not ln.text:
                continue
            if ln.text in ELISION:
                self._elision()
            elif not self._heading(ln):
                getattr(self, "_on_" + self.state)(ln)
        self._end_of_input()
        return self.s

    # -- headings recognised in every state

    def _heading(self, ln: Line) -> bool:
        text = ln.text
        if match := OLD_MAX.fullmatch(text):  # 0.x reports: "Max tile memory (tile N): M (P% of mean)"
            self.s.old["max_tile_memory"] = {"tile": integer(match["tile"], ln.no, "tile"),
                                             "bytes": integer(match["bytes"], ln.no, "Max tile memory")}
            return True
        if not text.endswith(":"):
            return False
        name = clean_name(text[:-1]).casefold()
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
        elif match := TILE.fullmatch(text):
            self._close(ln)
            self.s.tiles.append(TileBlock(integer(match["tile"], ln.no, "tile"), ln.no))
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

    def _close(self, ln: Line | None) -> None:
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

    def _skip(self, ln: Line) -> None:
        """Leave the current section for one memreport does not read."""
        self._close(ln)
        if ln.text.endswith(":") and len(self.s.skipped) < 20:
            self.s.skipped.append(clean_name(ln.text[:-1]))
            self.skip_indent = ln.indent
        self.state = "skip"

    def _elision(self) -> None:
        if self.state == "memory" and self.group and self.group_name not in self._scope().elided:
            self._scope().elided.append(self.group_name)
        elif self.state == "by_tile":
            self.s.rows_elided = True

    # -- states

    def _on_top(self, ln: Line) -> None:
        if ln.text.endswith(":"):
            self._skip(ln)

    def _on_skip(self, ln: Line) -> None:
        # Name the unknown sections (headings no deeper than the first), not their subsections.
        if ln.text.endswith(":") and ln.indent <= self.skip_indent:
            self._skip(ln)

    def _on_target(self, ln: Line) -> None:
        match = ITEM.fullmatch(ln.text)
        if match is None:
            if ln.text.endswith(":"):
                self._skip(ln)
            return
        key, value = snake(match["key"]), match["value"].strip()
        what = clean_name(match["key"])
        assert self.s.target is not None
        if key in _INT_KEYS:
            self.s.target[key] = integer(value, ln.no, what)
        elif key.startswith(("memory_per", "total_memory")):
            number, unit = quantity(value, ln.no, what)
            if unit not in POPLAR_UNITS:
                raise ReadError(f"{what}: unknown unit in {value!r}", line=ln.no)
            size = number * POPLAR_UNITS[unit]
            if size >= 2 ** 63:
                raise ReadError(f"{what}: {value} is too large (2**63 bytes or more)", line=ln.no)
            if size != size.to_integral_value():
                self.s.notes.append(f"{what} {value} is not a whole number of bytes; rounded")
            self.s.target[key + "_bytes"] = int(size.to_integral_value())
        elif key.startswith("clock"):
            number, unit = quantity(value, ln.no, what)
            if unit not in _FREQ_UNITS:
                raise ReadError(f"{what}: unknown unit in {value!r}", line=ln.no)
            self.s.target["clock_hz"] = float(number * _FREQ_UNITS[unit])
        else:
            self.s.target[key] = loose(value)

    def _on_graph(self, ln: Line) -> None:
        match = ITEM.fullmatch(ln.text)
        if match is None:
            if ln.text.endswith(":"):
                self._skip(ln)
            return
        value = match["value"].strip()
        key = snake(match["key"])
        self.s.graph[key] = integer(value, ln.no, clean_name(match["key"])) if value[:1].isdigit() else value

    def _on_tile(self, ln: Line) -> None:
        # Content before the tile's "Memory Usage:" heading: read it as that block, heading omitted.
        tile = self.s.tiles[-1]
        self._open_memory(Line(tile.line, ln.indent - 1, ""), tile)
        self._on_memory(ln)

    def _open_memory(self, ln: Line, tile: TileBlock | None) -> None:
        block = Block(ln.no, ln.indent)
        if tile is not None:
            tile.memory = block
        elif self.s.memory is None:
            self.s.memory = block
        else:
            self.s.notes.append(f"a second Memory Usage section (line {ln.no}) was skipped")
            self.state = "skip"
            return
        self.block, self.group, self.group_name, self.state = block, None, "", "memory"

    def _scope(self, label: str | None = None, new: bool = False) -> Scope:
        assert self.block is not None
        scopes = self.block.scopes
        if new and scopes and scopes[-1].empty():
            scopes[-1].label = label
        elif new or not scopes:
            scopes.append(Scope(label))
        return scopes[-1]

    def _next_text(self) -> str:
        for i in range(self.pos + 1, len(self.lines)):
            text = self.lines[i].text
            if text and text not in ELISION:
                return text
        return ""

    def _on_memory(self, ln: Line) -> None:
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
        if match := ITEM.fullmatch(text):
            self._memory_item(ln, clean_name(match["key"]), match["value"].strip())
            return
        match = TYPE_ITEM.fullmatch(text)
        if match and self.group in ("vertex_type", "other"):
            self._group_dict()[clean_name(match["key"])] = byte_count(match["value"], ln.no, clean_name(match["key"]))
        elif self.group in _STRICT_GROUPS:
            raise ReadError(f"cannot read {text!r} under {self.group_name!r} (expected 'name: N B')", line=ln.no)

    def _memory_heading(self, ln: Line) -> None:
        name = clean_name(ln.text[:-1])
        key = name.casefold()
        scope = self._scope()
        if key in ("excluding gaps", "including gaps"):
            self.group, self.group_name = None, name
        elif key == "by memory region":
            self.group, self.group_name = "regions", name
        elif key == "by data type":
            self.group, self.group_name = "data_types", name
        elif match := VERTEX.fullmatch(ln.text):
            scope.vertex_data = integer(match["bytes"], ln.no, "Vertex Data")
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

    def _memory_item(self, ln: Line, key: str, value: str) -> None:
        folded = key.casefold()
        if folded == "including gaps":
            scope = self._scope()
            if scope.including_gaps is not None:  # a second, unlabelled scope
                scope = self._scope(None, new=True)
            scope.including_gaps = byte_count(value, ln.no, key)
            self.group, self.group_name = None, key
        elif folded == "excluding gaps":
            self._scope().excluding_printed = byte_count(value, ln.no, key)
            self.group, self.group_name = None, key
        elif self.group in _STRICT_GROUPS:
            self._group_dict()[key] = byte_count(value, ln.no, key)
        else:
            self._group_dict()[key] = loose(value)

    def _on_by_tile(self, ln: Line) -> None:
        text, s = ln.text, self.s
        if self.phase == "header":
            self.phase = "rows"
            if text.casefold().startswith("range"):
                return
        if text.casefold().startswith("maximum"):
            match = MAXIMUM.fullmatch(text)
            if match is None:
                raise ReadError(f"cannot read the Maximum line {text!r}", line=ln.no)
            kind = match["kind"].lower() + "_gaps"
            if kind in s.maxima:
                raise ReadError(f"a second {match['kind']} Gaps maximum", line=ln.no)
            s.maxima[kind] = (TileBytes(integer(match["tile"], ln.no, "tile"),
                                        integer(match["bytes"], ln.no, "maximum")), ln.no)
            self.phase = "tail"
        elif "out of memory" in text.casefold():
            match = OOM.fullmatch(text)
            if match is None:
                raise ReadError(f"cannot read the out-of-memory line {text!r}", line=ln.no)
            self._close(ln)
            s.out_of_memory = integer(match["count"], ln.no, "out-of-memory count")
            self.state = "skip"
        elif self.phase == "rows":
            if text.endswith(":"):
                self._skip(ln)
                return
            self._row(ln)
        elif ROW_START.match(text):
            raise ReadError(f"histogram row {text!r} after the Maximum lines", line=ln.no)
        else:
            self._skip(ln)

    def _row(self, ln: Line) -> None:
        match = ROW.fullmatch(ln.text)
        if match is None:
            raise ReadError(f"histogram row does not parse: {ln.text!r}", line=ln.no)
        low, high = integer(match["lo"], ln.no, "bin"), integer(match["hi"], ln.no, "bin")
        count = integer(match["count"], ln.no, "count")
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
        last = next((ln for ln in reversed(self.lines) if ln.text and ln.text not in ELISION), None)
        if self.state in _KNOWN_STATES and last is not None and last.text.endswith(":"):
            raise Truncated(f"the file ends after the heading {last.text!r}", line=last.no)
        self._close(None)
        if self.state == "by_tile":
            s = self.s
            missing = "its Maximum lines" if not s.maxima else "its out-of-memory line"
            raise Truncated(f"the file ends in the By Tile block before {missing}",
                            line=last.no if last else s.by_tile_line)

