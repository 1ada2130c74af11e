"""Markdown's building blocks: escaping, code spans, tables, and fitting blocks within a GitHub comment.

Whatever the scale, a Markdown output stays within :data:`LIMIT` characters,
GitHub's limit for a comment: blocks go in order while they fit, and a last
line names what was left out. Everything from a file is escaped (table cells,
code spans), so a source named ``</script>`` or ``| x |`` reads as written.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...analysis.results import GateSetting
from ..words import gates_line

LIMIT = 65_536       # characters of a GitHub comment
RESERVE = 600        # kept for the line naming what was left out


def cell(value: object) -> str:
    """Text for a table cell or a line: Markdown's and HTML's special characters escaped."""
    text = str(value).replace("&", "&amp;").replace("<", "&lt;")  # no tag, no entity: the rest reads as is
    text = re.sub(r"([\\`*_\[\]{}|#!~>])", r"\\\1", text)  # ">" escaped: never a quote at a line's start
    return " ".join(text.split())  # no line break inside a cell


def code(value: str) -> str:
    """An inline code span holding ``value`` whatever backticks it contains."""
    value = " ".join(value.split())
    runs = [len(r) for r in re.findall(r"`+", value)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def gates(settings: Sequence[GateSetting]) -> str:
    """The gates judged, each with where it was set, as a last line of a verdict's paragraph ("" for none)."""
    line = gates_line(settings)
    return f"  \nGates: {cell(line)}" if line else ""


def table(head: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    align = ["---:" if i in right else "---" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


@dataclass
class Fitted:
    """Blocks kept in their order, chosen by priority while they fit :data:`LIMIT` (the verdicts of every report
    before any histogram); what did not fit is named at the end, grouped."""

    limit: int = LIMIT
    offered: list[tuple[int, tuple[str, ...], str, str, bool]] = field(default_factory=list)

    def add(self, block: str, what: str, *shorter: str, of: str = "", priority: int = 0, cut: bool = False) -> None:
        """``block``, else the first of the ``shorter`` versions that fits, else nothing (``what`` is named);
        ``cut``: ``block`` itself already leaves part out (the whole would never fit)."""
        self.offered.append((priority, (block, *shorter), what, of, cut))

    def text(self) -> str:
        chosen: dict[int, str] = {}
        left_out: dict[str, list[str]] = {}
        size = 0
        for i in sorted(range(len(self.offered)), key=lambda i: (self.offered[i][0], i)):
            _, variants, what, of, cut = self.offered[i]
            for k, candidate in enumerate(variants):
                if size + len(candidate) + 2 <= self.limit - RESERVE:
                    chosen[i] = candidate
                    size += len(candidate) + 2
                    if k or cut:
                        left_out.setdefault(f"part of {what}", []).append(of)
                    break
            else:
                left_out.setdefault(what, []).append(of)
        out = "\n\n".join(chosen[i] for i in sorted(chosen))
        if left_out:
            parts = []
            for what, names in left_out.items():
                names = [n for n in names if n]
                if not names:
                    parts.append(what)
                elif len(names) == 1:
                    parts.append(f"{what} of {names[0]}")
                else:
                    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
                    parts.append(f"{what} of {len(names):,} reports ({shown})")
            listed = "; ".join(parts)
            if len(listed) > RESERVE - 150:
                listed = listed[:RESERVE - 160].rsplit("; ", 1)[0] + "; and more"
            out += (f"\n\n_Left out to stay within GitHub's {self.limit:,} characters: {listed}. "
                    "The text and JSON outputs hold everything._")
        return out + "\n"
