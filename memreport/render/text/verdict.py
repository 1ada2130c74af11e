"""The verdict first, in text: the answer before the detail (issue 24).

A report opens with at most six lines: how many tiles are out of memory (N
of M, or "at least N"), the worst tile with its bytes, share of tile memory
and excess, the largest thing on it, and the command to run next; its first
line closes the report again (what ``| tail`` shows). When the count is
unknown, that is said once, with why. A diff opens with the tiles newly out
of memory and the worst growth, the compilations with how many there were,
recompiled or not, unfinished.

The words are those of the page and the Markdown (:mod:`.page.verdict`),
laid out here for a terminal: every line within the width, prose wrapped
with a hanging indent.
"""
from __future__ import annotations

import re

from ...analysis import Summary
from ...analysis.compiles import CompileSummary
from ...analysis.diff import Diff
from ...units import count
from ..layout import WIDTH, prose
from ..words import diff_headline as page_diff_headline
from ..words import verdict

LEAD = "Verdict: "
NBSP = "\xa0"  # holds a count to its noun when wrapped (printed as a space)
HANG = " " * len(LEAD)


def _block(first: str, rest: list[str], width: int) -> list[str]:
    """The first line after :data:`LEAD`, the rest under it, each wrapped to ``width`` with a hanging indent."""
    lines = prose(LEAD, first, width)
    for line in rest:
        lines += prose(HANG, line, width, hang=HANG + "  ")
    return lines


def _next(command: str, width: int) -> list[str]:
    """``Next: COMMAND``; when too wide, the command whole on the line below, or else broken before an option
    with a shell's ``\\`` (it pastes as it is), continued under it."""
    if len(HANG) + 2 + len(command) <= width < len(HANG) + 6 + len(command):  # whole on the line below
        return [f"{HANG}Next:", f"{HANG}  {command}"]
    words = command.split(" ")
    pieces = [words[0]]
    for word in words[1:]:  # an option keeps its value ("--tile 5"); a program its first argument
        if word.startswith("-"):
            pieces.append(word)
        else:
            pieces[-1] += " " + word
    lines, line = [], f"{HANG}Next: {pieces[0]}"
    indent = HANG + "  " if all(len(HANG) + 4 + len(p) <= width for p in pieces[1:]) else "  "
    for piece in pieces[1:]:
        if len(line) + 1 + len(piece) + (2 if piece is not pieces[-1] else 0) > width:
            lines.append(line + " \\")
            line = indent + piece
        else:
            line += " " + piece
    return [*lines, line]


def report_lines(summary: Summary, width: int = WIDTH) -> list[str]:
    """A report's verdict block: at most six lines at 100 columns (a narrower width wraps its lines, never
    drops one)."""
    v = verdict(summary)
    first = v.headline  # the page's own words: text, page and Markdown say the same
    command = v.command or next(iter(summary.verdict.next_commands), None)
    lines = _block(first, list(v.lines), width)  # the page's at most three lines under the headline
    return lines + (_next(command, width) if command else [])


def _last(headline: str, width: int) -> list[str]:
    """The headline as the text's last line: whole when it fits ``width``, else without its asides in
    parentheses (the block at the top has them), the longest first; wrapped only when still too wide."""
    while len(LEAD) + len(headline) > width:
        asides = _ASIDE.findall(headline)
        if not asides:
            break
        headline = headline.replace(max(asides, key=len), "", 1)
    return prose(LEAD, headline, width)


_ASIDE = re.compile(r" \((?:[^()]|\([^()]*\))*\)")  # " (why ...)", one level of nested parentheses


def report_headline(summary: Summary, width: int = WIDTH) -> list[str]:
    """The verdict's first line again, for the report's last line (its asides left out when too wide)."""
    return _last(verdict(summary).headline, width)


def _tiles(n: int | None) -> str:
    return "unknown" if n is None else count(n, "tile")


def _diff_first(diff: Diff) -> str:
    _, first = page_diff_headline(diff.newly_out_of_memory or (), diff.num_changed, diff.num_grown, diff.num_shrunk)
    if diff.newly_out_of_memory is None:  # said plainly, with why, in the one line
        why = ("a side does not state every tile's bytes" if diff.per_tile == "partial"
               else "bytes per tile unknown on a side")
        first = first.replace("No tile newly out of memory", f"Newly out of memory: unknown ({why})")
    return first


def diff_headline(diff: Diff, width: int = WIDTH) -> list[str]:
    """A diff's verdict line again, for its last line."""
    return _last(_diff_first(diff), width)


def diff_lines(diff: Diff, width: int = WIDTH) -> list[str]:
    """A diff's verdict: tiles newly out of memory, how many changed, the out-of-memory counts, then the
    worst growth of a tile."""
    first = _diff_first(diff)
    rest = []
    old, new = diff.old.tiles_out_of_memory, diff.new.tiles_out_of_memory
    if old is not None or new is not None:
        rest.append(f"Out of memory: {_tiles(old)} -> {_tiles(new)}")
    if diff.num_grown:
        at = int(diff.delta.argmax())  # changes are sorted by size, then tile: the lowest tile among equals
        before, after = int(diff.old_bytes[at]), int(diff.new_bytes[at])
        rest.append(f"Worst growth: tile {int(diff.tile_ids[at])}, {before:,} B -> {after:,} B "
                    f"({after - before:+,} B)")
    if diff.max_delta:
        rest.append(f"Largest tile: {diff.max_delta:+,} B")
    return _block(first, rest, width)


def _compiles_first(summary: CompileSummary) -> str:
    t = summary.totals
    recompiled = sum(1 for f in summary.findings if f.kind == "recompiled")
    done = [f"{n:,} {what}" for n, what in ((t.compiled, "compiled"), (t.loaded, "from the cache"),
                                             (t.skipped, "skipped")) if n]
    first = count(t.compilations, "compilation") + (f" ({', '.join(done)})" if done else "") + ": " + (
        count(recompiled, "recompilation") + " found" if recompiled else "no recompilation")
    if t.unfinished:
        first += f", {t.unfinished:,} unfinished"
    return first


def compiles_headline(summary: CompileSummary, width: int = WIDTH) -> list[str]:
    """The compilations' verdict line again, for the text's last line."""
    return _last(_compiles_first(summary), width)


def compiles_lines(summary: CompileSummary, width: int = WIDTH) -> list[str]:
    """The compilations' verdict: how many, recompiled or not, unfinished; then how many findings."""
    first = _compiles_first(summary)
    kinds: dict[str, int] = {}
    for f in summary.findings:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    rest = [f"Findings: {', '.join(f'{n:,}{NBSP}{k}' for k, n in kinds.items())}"] if kinds else []
    return _block(first, rest, width)
