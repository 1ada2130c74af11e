"""The line state machine that reads one text summary into a :class:`~.summary.Summary`, a line at a time.

Headings are matched by their text, never their column, because documents
that quote a report re-indent it. Indentation is used as a hint to tell
where a ``Memory Usage:`` block ends, and as a fence: a line less indented
than the summary's first heading (a document's prose around an indented
block) is not part of it. :meth:`Parser.feed` says whether a line belongs
to the summary, so a reader can find where a summary inside a log ends
(docs/FORMATS.md §8.1-§8.2).

A summary holds each part once, in Poplar's order: Target, Graph, Memory
Usage (its By Tile histogram inside), then the detailed tiles. A heading
that cannot continue the summary being read (a second Target, Memory Usage
or By Tile) ends it: it starts the next one.
"""
from __future__ import annotations

from typing import Any

from ....errors import ReadError, Truncated
from ....model import Bin, TileBytes
from ....units import POPLAR_UNITS
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
_HEADINGS = {"target": "target", "graph": "graph", "memory usage": "memory", "by tile (excluding gaps)": "by_tile"}


def heading_kind(text: str) -> str | None:
    """Which top-level part a line opens: target, graph, memory, by_tile, tile or old_max (None: none)."""
    if text.endswith(":"):
        kind = _HEADINGS.get(clean_name(text[:-1]).casefold())
        if kind is not None:
            return kind
        return "tile" if TILE.fullmatch(text) else None
    if text[:3].casefold() == "max" and OLD_MAX.fullmatch(text):
        return "old_max"
    return None


def summary_like(text: str) -> bool:
    """Whether a line could be part of a summary (looking back from a line that is one)."""
    if not text or text in ELISION or text.endswith(":") or heading_kind(text):
        return True
    return bool(ITEM.fullmatch(text) or TYPE_ITEM.fullmatch(text) or ROW_START.match(text)
                or text.casefold().startswith(("range (kb)", "maximum (")) or OOM.fullmatch(text))


class Parser:
    """Reads one summary's lines; states: top, target, graph, memory, tile, by_tile, skip."""

    def __init__(self) -> None:
        self.s = Summary()
        self.state = "top"
        self.block: Block | None = None
        self.group: str | None = None
        self.group_name = ""
        self.phase = ""
        self.skip_indent = -1
        self.base: int | None = None       # indentation of the summary's first heading
        self.pending: Line | None = None   # an unknown heading in a Memory Usage block: a label or a group?
        self.after_blank = False
        self.last: Line | None = None      # the last line with text that belongs to the summary
        self.by_tile_heading: Line | None = None

    # -- feeding

    def feed(self, ln: Line) -> bool:
        """Take one line; False (and nothing taken) when it is not part of this summary."""
        if not ln.text:
            self.after_blank = True
            return True
        if ln.text in ELISION:
            if self.state == "top":
                return False
            self._elision()
            return True
        if self.base is not None and ln.indent < self.base:
            return False
        kind = heading_kind(ln.text)
        if kind is not None and not self.can_follow(kind):
            return False
        if self.pending is not None:
            self._settle_pending(ln)
        if kind is not None:
            self._open(kind, ln)
            taken = True
        else:
            taken = getattr(self, "_on_" + self.state)(ln)
        if taken:
            self.last = ln
            self.after_blank = False
        return taken

    def can_follow(self, kind: str) -> bool:
        """Whether a heading of ``kind`` continues this summary (else it starts another)."""
        s = self.s
        if kind == "target":
            return s.empty()
        if kind == "graph":
            return not (s.graph_line or s.memory or s.by_tile_line or s.tiles)
        if kind == "memory":
            return self.state == "tile" or not (s.memory or s.by_tile_line or s.tiles)
        if kind == "by_tile":
            return not (s.by_tile_line or s.tiles)
        return True

    def resumes(self, ln: Line) -> bool:
        """Whether a line after other text continues the summary: a heading it can take, no less indented."""
        kind = heading_kind(ln.text)
        return kind is not None and kind != "old_max" and self.can_follow(kind) and \
            (self.base is None or ln.indent >= self.base) and not self.s.empty()

    # -- headings

    def _open(self, kind: str, ln: Line) -> None:
        if self.base is None:
            self.base = ln.indent
            self.s.first_line = ln.no
        s = self.s
        if kind == "old_max":  # 0.x reports: "Max tile memory (tile N): M (P% of mean)"
            match = OLD_MAX.fullmatch(ln.text)
            assert match is not None
            s.old["max_tile_memory"] = {"tile": integer(match["tile"], ln.no, "tile"),
                                        "bytes": integer(match["bytes"], ln.no, "Max tile memory")}
            return
        if kind == "memory":
            tile = s.tiles[-1] if self.state == "tile" else None
            if tile is None:
                self._close(ln)
            self._open_memory(ln, tile)
            return
        self._close(ln)
        if kind == "target":
            s.target, s.target_line, self.state = {}, ln.no, "target"
        elif kind == "graph":
            s.graph_line, self.state = ln.no, "graph"
        elif kind == "tile":
            match = TILE.fullmatch(ln.text)
            assert match is not None
            s.tiles.append(TileBlock(integer(match["tile"], ln.no, "tile"), ln.no))
            self.state = "tile"
        else:
            s.by_tile_line, self.state, self.phase = ln.no, "by_tile", "header"
            self.by_tile_heading = ln

    def _close(self, ln: Line | None, ends: str | None = None) -> None:
        """Check the section being left is complete: ``ln`` opens the next one; None at the end of the input,
        where ``ends`` says how it ended (the file ending when not given: the error is then Truncated)."""
        error = Truncated if ln is None and ends is None else ReadError
        if ends is None:
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

    def _skip(self, ln: Line) -> bool:
        """Leave the current section for one memreport does not read."""
        self._close(ln)
        if len(self.s.skipped) < 20:
            self.s.skipped.append(clean_name(ln.text[:-1]))
        self.skip_indent = ln.indent
        self.state = "skip"
        return True

    def _elision(self) -> None:
        if self.state == "memory" and self.group and self.group_name not in self._scope().elided:
            self._scope().elided.append(self.group_name)
        elif self.state == "by_tile" and self.phase in ("header", "rows"):
            self.s.elide_before(len(self.s.bins))

    # -- states

    def _on_top(self, ln: Line) -> bool:
        return False

    def _on_skip(self, ln: Line) -> bool:
        # Name the unknown sections (headings no deeper than the first), not their subsections.
        if ln.indent > self.skip_indent:
            return True
        return ln.text.endswith(":") and self._skip(ln)

    def _on_target(self, ln: Line) -> bool:
        match = ITEM.fullmatch(ln.text)
        if match is None:
            return ln.text.endswith(":") and self._skip(ln)
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
        return True

    def _on_graph(self, ln: Line) -> bool:
        match = ITEM.fullmatch(ln.text)
        if match is None:
            return ln.text.endswith(":") and self._skip(ln)
        value = match["value"].strip()
        key = snake(match["key"])
        self.s.graph[key] = integer(value, ln.no, clean_name(match["key"])) if value[:1].isdigit() else value
        return True

    def _on_tile(self, ln: Line) -> bool:
        # Content before the tile's "Memory Usage:" heading: read it as that block, heading omitted.
        tile = self.s.tiles[-1]
        self._open_memory(Line(tile.line, ln.indent - 1, ""), tile)
        return self._on_memory(ln)

    def _open_memory(self, ln: Line, tile: TileBlock | None) -> None:
        block = Block(ln.no, ln.indent)
        if tile is not None:
            tile.memory = block
        else:
            self.s.memory = block
        self.block, self.group, self.group_name, self.state = block, None, "", "memory"

    def _scope(self, label: str | None = None, new: bool = False) -> Scope:
        assert self.block is not None
        scopes = self.block.scopes
        if new and scopes and scopes[-1].empty():
            scopes[-1].label = label
        elif new or not scopes:
            scopes.append(Scope(label))
        return scopes[-1]

    def _on_memory(self, ln: Line) -> bool:
        block = self.block
        assert block is not None
        if block.indented is None:
            block.indented = ln.indent > block.indent
        if block.indented and ln.indent <= block.indent:  # back at the heading's column: block over
            return ln.text.endswith(":") and self._skip(ln)
        text = ln.text
        if text.endswith(":"):
            self._memory_heading(ln)
            return True
        if match := ITEM.fullmatch(text):
            self._memory_item(ln, clean_name(match["key"]), match["value"].strip())
            return True
        match = TYPE_ITEM.fullmatch(text)
        if match and self.group in ("vertex_type", "other"):
            self._group_dict()[clean_name(match["key"])] = byte_count(match["value"], ln.no, clean_name(match["key"]))
            return True
        if self.after_blank and not block.indented:
            return False  # a flattened block ends at a blank line (the By Type list does)
        if self.group in _STRICT_GROUPS:
            raise ReadError(f"cannot read {text!r} under {self.group_name!r} (expected 'name: N B')", line=ln.no)
        return True

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
        else:  # a scope label ("Total:") when "Including Gaps" follows, else a group memreport does not know
            self.pending = ln
            self.group, self.group_name = "other", name

    def _settle_pending(self, ln: Line) -> None:
        """An unknown heading in a Memory Usage block followed by ``ln``: a scope label or a group."""
        pending, self.pending = self.pending, None
        assert pending is not None
        name = clean_name(pending.text[:-1])
        if ln.text.casefold().startswith("including gaps") and self.state == "memory":
            self._scope(name, new=True)
            self.group, self.group_name = None, name
        else:
            self._scope().other.setdefault(name, {})

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

    def _on_by_tile(self, ln: Line) -> bool:
        text, s = ln.text, self.s
        if self.phase == "header":
            self.phase = "rows"
            if text.casefold().startswith("range"):
                return True
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
            self.state, self.skip_indent = "skip", self.base if self.base is not None else -1
        elif self.phase == "rows":
            if text.endswith(":"):
                return self._skip(ln)
            if self.after_blank and s.bins and not ROW_START.match(text):
                return False  # the rows ended and something else follows
            self._row(ln)
        elif ROW_START.match(text):
            raise ReadError(f"histogram row {text!r} after the Maximum lines", line=ln.no)
        elif text.endswith(":"):
            return self._skip(ln)
        else:
            return False
        return True

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
                self.s.elide_before(len(bins))
        bins.append((Bin(low, high, count), ln.no))

    # -- the end

    def finish(self, ended_by: int | None) -> Summary:
        """The summary read, checked; ``ended_by`` is the line that ended it (None: the end of the file)."""
        if self.pending is not None:
            self._scope().other.setdefault(clean_name(self.pending.text[:-1]), {})
            self.pending = None
        last = self.last
        at_end = ended_by is None
        if at_end and self.state in _KNOWN_STATES and last is not None and last.text.endswith(":"):
            raise Truncated(f"the file ends after the heading {last.text!r}", line=last.no)
        self._close(None, None if at_end else f"the summary ends at line {ended_by}")
        if self.state == "by_tile":
            s = self.s
            missing = "its Maximum lines" if not s.maxima else "its out-of-memory line"
            if at_end:
                raise Truncated(f"the file ends in the By Tile block before {missing}",
                                line=last.no if last else s.by_tile_line)
            s.notes.append(f"the By Tile block (line {s.by_tile_line}) ends before {missing} (line {ended_by})")
        return self.s
