"""Text layout shared by every output form: Poplar's own pieces (docs/FORMATS.md §1), the fitting of prose and of
tables of cells (:func:`fit_table`, every text table's one fitter).

The By Tile histogram rows (a range right-aligned in 10, a 40-star bar, the
count in 7), the ``Maximum`` lines and the ``(X K)`` figure, and the whole
By Tile block, written once here for the text, the page's "as Poplar prints
it" and the Markdown; the width memreport's own prose wraps to beside them
(:func:`prose`), the shortening of a long name (:func:`middle_shortened`),
and a name as it may be shown (:func:`visible`: its control characters
escaped, as ``ls`` and git show them).
"""
from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..analysis import Summary
from ..model import Histogram, TileBytes
from ..units import kib
from .cells import Column
from .words import count_phrase

BAR_WIDTH = 40
HISTOGRAM_HEADER = "Range (KB) Histogram (Excluding Gaps)               Count (tiles)"


def bar(count: int, largest: int) -> str:
    """Poplar's bar: ``ceil(40 * count / largest)`` stars, so any non-empty bin shows one."""
    return "*" * (math.ceil(BAR_WIDTH * count / largest) if largest else 0)


ELISION_ROW = f"{'...':>10}"  # where the source left rows out: the bins either side are not adjacent


def histogram_rows(hist: Histogram) -> list[str]:
    """Poplar's histogram rows: range right-aligned in 10, a 40-star bar, the count in 7; an elision line
    where the source left rows out (never a made-up row)."""
    if not hist.bins:
        return [ELISION_ROW] if hist.elided_before else []
    width = len(str(max(b.high_kib for b in hist.bins)))
    largest = max(b.count for b in hist.bins)
    elided = set(hist.elided_before)
    rows = []
    for i, b in enumerate(hist.bins):
        if i in elided or (i and b.low_kib != hist.bins[i - 1].high_kib):
            rows.append(ELISION_ROW)
        span = f"{b.low_kib:>{width}} - {b.high_kib:>{width}}"
        rows.append(f"{span:>10} {bar(b.count, largest):<{BAR_WIDTH}}{b.count:>7,}")
    if len(hist.bins) in elided:
        rows.append(ELISION_ROW)
    return rows


def maximum_line(label: str, peak: TileBytes) -> str:
    """``Maximum (Label): N (X.Y K) on tile T``."""
    return f"Maximum ({label}): {peak.bytes:,} ({kib(peak.bytes)}) on tile {peak.tile}"


# What a terminal acts on rather than shows (issue 33 item 8): the C0 and C1 controls and DEL (an escape sequence
# sets the clipboard (OSC 52) or clears the screen, a carriage return writes over a line, even with --color never),
# the bidirectional controls that reorder what follows them (embeddings and overrides U+202A-U+202E, isolates
# U+2066-U+2069, the marks U+200E, U+200F and U+061C), the line and paragraph separators U+2028, U+2029 (a line
# break to some readers), and lone surrogates (a path's bytes that are not UTF-8, which would be written back raw).
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape's stand-in for the byte it could not decode
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, keep: str = "") -> str:
    """``text`` as it may be shown to people: every control character, bidirectional control and lone surrogate
    written as its escape (``\\x1b``, ``\\r``, ``\\u202e``), as ``ls`` and git show a file name, but those in
    ``keep`` (a page's line ends); anything else (backslashes too) as it is. Text without one is returned as is."""
    if _HIDDEN.search(text) is None:
        return text
    return _HIDDEN.sub(lambda m: m[0] if m[0] in keep else _escaped(m[0]), text)


WIDTH = 100  # columns memreport's own text fits by default (Poplar's By Tile block keeps its own layout)


# A figure and its unit or noun stay on one line (``638,976 B``, ``1.5 s``, ``3 tiles``, ``0 grew``), an option
# its value (``--symbols 20``): the space between them is held by a no-break space while the text is wrapped (a
# caller's own no-break spaces hold too, and are printed as spaces).
_UNIT = re.compile(r"(\d) (?=[A-Za-z])")
_OPTION = re.compile(r"((?:^|\s)--[a-z][\w-]*) (?=[^\s-])")
_NBSP = "\xa0"


def prose(lead: str, text: str, width: int = WIDTH, hang: str | None = None) -> list[str]:
    """``lead`` then ``text``, wrapped at spaces to ``width`` columns, continued under the text's first
    character (or after ``hang``); a word longer than the line, a path say, stays whole on a line of its own,
    and a figure keeps its unit (``638,976 B``), an option its value (``--symbols 20``)."""
    lead, text, hang = visible(lead), visible(text), None if hang is None else visible(hang)  # widths as shown
    glued = _OPTION.sub("\\1" + _NBSP, _UNIT.sub("\\1" + _NBSP, text))
    indent = " " * len(lead) if hang is None else hang
    lines = textwrap.wrap(glued, width, initial_indent=lead, subsequent_indent=indent,
                          break_long_words=False, break_on_hyphens=False) or [lead.rstrip()]
    # A word too long for its line moves left into the indent when that makes it fit (else it stays under it).
    lines[1:] = [line[len(line) - width:] if width < len(line) <= width + len(indent) else line
                 for line in lines[1:]]
    return [line.replace(_NBSP, " ") for line in lines]


def by_tile_block(summary: Summary, indent: str = "  ", width: int | None = None) -> list[str]:
    """The "By Tile (Excluding Gaps):" block, from its heading to the out-of-memory line (Poplar's rows as
    printed; memreport's words after its count wrapped to ``width`` when given)."""
    inner = indent + "  "
    lines = [f"{indent}By Tile (Excluding Gaps):", inner + HISTOGRAM_HEADER]
    hist = summary.histogram
    lines += [inner + row for row in histogram_rows(hist)] if hist else [inner + "(the source printed no histogram)"]
    lines.append("")
    if summary.max_including_gaps is not None:
        lines.append(inner + maximum_line("Including Gaps", summary.max_including_gaps))
    if summary.max_excluding_gaps is not None:
        lines.append(inner + maximum_line("Excluding Gaps", summary.max_excluding_gaps))
    oom = count_phrase(summary.oom)
    lines += [inner + oom] if width is None else prose(inner, oom, width, hang=inner + "  ")
    return lines


ELLIPSIS = "..."


def middle_shortened(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: its head and tail around an ellipsis when it is longer."""
    if len(text) <= width:
        return text
    keep = max(width - len(ELLIPSIS), 2)
    head = (keep + 1) // 2
    return text[:head] + ELLIPSIS + text[len(text) - (keep - head):]


def wrap_items(lead: str, listed: str, width: int) -> list[str]:
    """``lead`` then the items, broken after their commas so each line fits ``width`` where it can."""
    lines, line = [], lead
    for i, part in enumerate(listed.split(", ")):
        piece = part if i == 0 else ", " + part
        if i and len(line) + len(piece) > width:
            lines.append(line + ",")
            line = " " * len(lead) + part
        else:
            line += piece
    return lines + [line]


# -- tables -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One way to narrow a table that is too wide, tried in order until it fits: ``"below"`` moves column ``key``
    under each row (``label: value``), ``"narrow"`` takes the column's narrower cells (a ``\\n`` in a cell breaks
    it over two lines), ``"shorten"`` shortens the column's cells in the middle, down to ``minimum`` characters."""

    key: str
    action: str
    minimum: int = 0


@dataclass(frozen=True)
class Table:
    """A table laid out within a width: ``head`` (its heading line), a list of lines per row, the columns moved
    under the rows and whether the columns were tightened (no fixed width kept)."""

    head: str
    rows: list[list[str]]
    moved: list[Column]
    tight: bool
    first_width: int
    rest: list[str]  # a stacked table's other parts, each under its heading, after a blank line

    @property
    def lines(self) -> list[str]:
        """The whole table: heading, every row, the other parts."""
        return [self.head, *(line for row in self.rows for line in row), *self.rest]


def fit_table(columns: Sequence[Column], width: int, *, steps: Sequence[Step] = (), narrow: Mapping[str, Sequence[str]]
              | None = None, marks: Sequence[str] | None = None, indent: str = "  ", stack: bool = False,
              strip: bool = True) -> Table:
    """The one fitter of every text table: ``columns`` at their fixed widths when the table fits ``width``; else
    as narrow as their cells, then each of ``steps`` in turn (a column moved under its rows, a column's narrower
    cells from ``narrow``, a column shortened in the middle) until it fits; a table still too wide is stacked
    (``stack``): in parts, each beginning with the first column, so every part fits and its rows pair up.
    ``marks`` is a one-character mark per row before its first column (``!`` out of memory); ``strip=False``
    keeps each line's padding (for a caller that appends to the lines)."""
    shown = list(columns)
    lead = len(indent) + (2 if marks is not None else 0)

    def widths(cols: Sequence[Column], tight: bool) -> list[int]:
        natural = [max(len(c.head), *(len(part) for cell in c.cells for part in cell.split("\n"))) for c in cols]
        return natural if tight else [max(c.fixed, n) for c, n in zip(cols, natural)]

    def wide(cols: Sequence[Column], tight: bool) -> int:
        return lead + sum(widths(cols, tight)) + 2 * (len(cols) - 1)

    moved: list[Column] = []
    tight = wide(shown, False) > width
    for step in steps if tight else ():
        if wide(shown, True) <= width:
            break
        at = next((i for i, c in enumerate(shown) if c.key == step.key), None)
        if at is None:
            continue
        if step.action == "below":
            moved.append(shown.pop(at))
        elif step.action == "narrow" and narrow and step.key in narrow:
            shown[at] = replace(shown[at], cells=tuple(narrow[step.key]))
        elif step.action == "shorten":
            over = wide(shown, True) - width
            room = max(step.minimum, widths([shown[at]], True)[0] - over)
            shown[at] = replace(shown[at], cells=tuple(middle_shortened(c, room) for c in shown[at].cells),
                                head=shown[at].head[:room] if len(shown[at].head) > room else shown[at].head)
    parts = [list(range(len(shown)))]
    if stack and wide(shown, tight) > width:
        w = widths(shown, tight)
        parts = [[0]]
        for i in range(1, len(shown)):
            if len(parts[-1]) > 1 and lead + sum(w[j] + 2 for j in parts[-1]) + w[i] > width:
                parts.append([0])
            parts[-1].append(i)
    w = widths(shown, tight)

    def line(mark: str | None, cells: Sequence[str], part: Sequence[int]) -> str:
        text = "  ".join(f"{cells[i]:>{w[i]}}" if shown[i].right else f"{cells[i]:<{w[i]}}" for i in part)
        laid = indent + ("" if mark is None else f"{mark:1} ") + text
        return laid.rstrip() if strip else laid

    head = line("" if marks is not None else None, [c.head for c in shown], parts[0])
    rows = []
    for r in range(len(shown[0].cells) if shown else 0):
        split = [c.cells[r].split("\n") for c in shown]
        lines = []
        for k in range(max(len(s) for s in split)):
            mark = None if marks is None else (marks[r] if k == 0 else "")
            lines += [line(mark, [s[k] if k < len(s) else "" for s in split], part) for part in parts[:1]]
        rows.append(lines)
    rest: list[str] = []
    for part in parts[1:]:  # stacked: every other part's rows under its own heading
        rest += ["", line(None, [c.head for c in shown], part)]
        rest += [line(None, [c.cells[r] for c in shown], part) for r in range(len(shown[0].cells))]
    return Table(head, rows, moved, tight, w[0] if w else 0, rest)
