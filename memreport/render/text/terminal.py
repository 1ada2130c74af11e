"""What reaches the terminal: memreport's own colours, and nothing a file could make a terminal do (issue 33 item 8).

Every name from a file (members, sections, symbols, categories, sources,
modules, tensors, what a log's messages say) is laid out as
:func:`..layout.visible` shows it, so a table's widths count its escaped
form; :func:`shown` then goes over the whole text once, the text form's
last step, so a control character that reached a line some other way is
escaped too, and keeps only the line ends and the colour codes memreport
itself puts around a tile's row (``--color``).
"""
from __future__ import annotations

from ..layout import visible

RED, YELLOW, RESET = "\x1b[31m", "\x1b[33m", "\x1b[0m"


def coloured(line: str, colour: str) -> str:
    """``line`` in ``colour`` (:data:`RED`, :data:`YELLOW`): the only escape sequences :func:`shown` keeps."""
    return colour + line + RESET


def shown(text: str, color: bool = False) -> str:
    """``text`` with every control character escaped (:func:`..layout.visible`) but its line ends, and with
    ``color`` the colour a line wears whole (:func:`coloured`)."""
    if not color:
        return visible(text, keep="\n")
    lines = text.split("\n")
    for i, line in enumerate(lines):
        colour = next((c for c in (RED, YELLOW) if line.startswith(c) and line.endswith(RESET)), None)
        if colour is None:
            lines[i] = visible(line)
        else:
            lines[i] = coloured(visible(line[len(colour):len(line) - len(RESET)]), colour)
    return "\n".join(lines)
