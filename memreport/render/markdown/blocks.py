"""Markdown's building blocks: escaping, code spans, tables, and fitting blocks within a GitHub comment.

Whatever the scale, a Markdown output stays within :data:`LIMIT` characters,
GitHub's limit for a comment: blocks go in order while they fit, and a last
line names what was left out. Everything from a file is escaped (table cells,
code spans, the line naming what was left out), so a source named
``</script>``, ``| x |``, ``@octocat`` or ``$x$`` reads as written: no tag,
no new cell, no mention, no math, no reference to an issue, and its control
characters shown as the text shows them (:func:`..layout.visible`).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...analysis.results import GateSetting
from ..layout import visible
from ..words import gates_line

LIMIT = 65_536       # characters of a GitHub comment
RESERVE = 600        # kept for the line naming what was left out


# GitHub reads some text after Markdown, in the HTML's text: "@name" mentions a user (and notifies them), "#12"
# refers to an issue, and "$...$" is math. A backslash escape does not stop them (it leaves the same text): a
# zero-width space after "@" or before the digit breaks a mention or a reference (Renovate's sanitizeMarkdown
# does the same), and a dollar sign in a span is text, never a delimiter (GitHub's documentation of mathematical
# expressions, "Writing dollar signs").
_ZERO_WIDTH = "&#8203;"
_DOLLAR = "<span>$</span>"
_SPACES = "\n\t"  # whitespace to Markdown: each run one space (no line break inside a cell)


def cell(value: object) -> str:
    """Text for a table cell or a line: Markdown's and HTML's special characters escaped, GitHub's mentions,
    issue references and math defused, control characters shown escaped but line breaks and tabs (spaces)."""
    text = visible(str(value), keep=_SPACES).replace("&", "&amp;").replace("<", "&lt;")  # no tag, no entity
    text = re.sub(r"([\\`*_\[\]{}|#!~>])", r"\\\1", text)  # ">" escaped: never a quote at a line's start
    text = re.sub(r"#(?=\d)", "#" + _ZERO_WIDTH, text).replace("@", "@" + _ZERO_WIDTH).replace("$", _DOLLAR)
    return " ".join(text.split())  # no line break inside a cell


def code(value: str, table: bool = False) -> str:
    """An inline code span holding ``value`` whatever backticks it contains; in a ``table`` its pipes escaped
    (GitHub ends a cell at every pipe not escaped, in a code span too, and shows ``\\|`` there as ``|``), or
    the value as :func:`cell` text where a backslash stands before a pipe (a span cannot hold that in a table)."""
    value = " ".join(visible(value, keep=_SPACES).split())
    if table:
        if "\\|" in value:
            return cell(value)
        value = value.replace("|", "\\|")
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
                names = [cell(n) for n in names if n]  # report labels: from files
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
