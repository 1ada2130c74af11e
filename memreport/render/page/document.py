"""The page's shell: one self-contained HTML document, its Content-Security-Policy, the embedded data and the script.

A page opens from disk (file://) and makes no request of any kind: the
policy forbids every fetch (``default-src 'none'``) and lets run only the
one script and the one style sheet written here, by their SHA-256 hashes.
The script is the ES modules of ``js/`` joined into one (:mod:`.script`).
Everything from a file (source names, symbols, messages) reaches the page
escaped: as HTML text in the tables, and inside the data block as JSON with
every ``<`` written ``\\u003c``, so neither ``</script>`` nor ``<!--`` can end
or change the block; in both, its control characters and bidirectional
controls as the text shows them (``\\u202e``: :func:`..layout.visible`), so
a name cannot reorder the figures after it (issue 33 item 8). Per-tile arrays are packed: the narrowest little-endian
integer type that holds them, gzip-compressed, base64; the page unpacks them
with the browser's own ``DecompressionStream``.
"""
from __future__ import annotations

import base64
import hashlib
import json
import zlib
from collections.abc import Iterable, Sequence
from functools import cache
from html import escape
from importlib import resources
from typing import Any

import numpy as np

from ..layout import visible
from ..words import Verdict
from . import contract
from .script import bundle

DATA_ID = "memreport-data"


@cache
def asset(name: str) -> str:
    """The text of one of the page's package files (page.css)."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def policy(script: str, style: str) -> str:
    """No request of any kind; only this script and this style sheet run (the data block is not a script)."""
    return (f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(style)}; img-src data:; "
            "base-uri 'none'; form-action 'none'")


def embed_json(data: Any) -> str:
    """``data`` as JSON safe inside a ``<script type="application/json">`` block: every ``<`` (so ``</`` and
    ``<!--``), ``>`` and ``&`` escaped as \\u sequences, which JSON.parse reads back unchanged."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def pack(values: np.ndarray | None) -> dict[str, str] | None:
    """A per-tile array for the page: its type (u8, u16, u32, i32 or f64: integers past 2**53 lose digits,
    no tile holds that much) and its little-endian bytes, shuffled by byte position, gzip-compressed, base64."""
    if values is None:
        return None
    values = np.asarray(values)
    if values.dtype == bool:
        kind, out = "u8", values.astype("<u1")
    else:
        low = int(values.min()) if values.size else 0
        high = int(values.max()) if values.size else 0
        if low >= 0 and high < 2 ** 8:
            kind, out = "u8", values.astype("<u1")
        elif low >= 0 and high < 2 ** 16:
            kind, out = "u16", values.astype("<u2")
        elif low >= 0 and high < 2 ** 32:
            kind, out = "u32", values.astype("<u4")
        elif low >= -2 ** 31 and high < 2 ** 31:
            kind, out = "i32", values.astype("<i4")
        else:
            kind, out = "f64", values.astype("<f8")
    # Bytes shuffled (every value's lowest byte, then every next byte...: the high bytes of tile sizes are alike
    # and compress well), then gzip at its fastest level (wbits 31: a gzip stream, as DecompressionStream reads).
    shuffled = out.view(np.uint8).reshape(-1, out.itemsize).T.tobytes()
    data = zlib.compress(shuffled, 1, wbits=31)
    return {"type": kind, "data": base64.b64encode(data).decode("ascii")}


def packed_size(packed: dict[str, str] | None) -> int:
    return 0 if packed is None else len(packed["data"])


def text(value: object) -> str:
    """Any value as HTML text, its control characters but line ends shown escaped (:func:`..layout.visible`)."""
    return escape(visible(str(value), keep="\n"), quote=True)


def path(value: str) -> str:
    """A file's name as HTML text with a line-break opportunity after each ``/`` (and before a report's ``#N``),
    so a narrow screen breaks it between directories, not inside a word."""
    return "/<wbr>".join("<wbr>#".join(text(part) for part in piece.split("#")) for piece in value.split("/"))


def shown(data: Any) -> Any:
    """The page's data with every string as :func:`text` shows it (the script shows names from it: a symbol's, a
    category's, a member's)."""
    if isinstance(data, str):
        return visible(data)
    if isinstance(data, dict):
        return {key: shown(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [shown(value) for value in data]
    return data


def number(value: int | None, unit: str = " B", unknown: str = "unknown") -> str:
    return unknown if value is None else f"{value:,}{unit}"


def table(head: Sequence[str], rows: Iterable[Sequence[str]], *, cls: str = "", numeric: Sequence[int] = (),
          prose: Sequence[int] = (), row_classes: Sequence[str] | None = None) -> str:
    """An HTML table of cells already escaped; ``numeric`` columns are right-aligned; ``prose`` columns (sentences)
    wrap, where other cells keep to one line and a table wider than its card scrolls inside it."""
    classes = {**dict.fromkeys(prose, " class=text"), **dict.fromkeys(numeric, " class=num")}

    def cells(values: Sequence[str], tag: str) -> str:
        return "".join(f"<{tag}{classes.get(i, '')}>{v}</{tag}>" for i, v in enumerate(values))

    body = []
    for i, row in enumerate(rows):
        klass = row_classes[i] if row_classes is not None and row_classes[i] else ""
        body.append(f"<tr{f' class={klass}' if klass else ''}>{cells(row, 'td')}</tr>")
    return (f'<table{f" class={cls}" if cls else ""}><thead><tr>{cells(head, "th")}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def verdict(said: Verdict, gates: str | None = None, plans: Sequence[str] = ()) -> str:
    """A verdict block: its headline, its lines, the command to run next, the fit plans (``plans``: the words of
    :func:`..words.fit.plan_lines`) and the gates judged (``gates``: the words of :func:`..words.gates_line`), as
    HTML."""
    lines = "".join(f"<p>{text(line)}</p>" for line in said.lines)
    command = f"<p>Next: <code>{text(said.command)}</code></p>" if said.command else ""
    planned = "<div class=plans>" + "".join(f"<p>{text(p)}</p>" for p in plans) + "</div>" if plans else ""
    judged = f"<p class=gates>Gates: {text(gates)}</p>" if gates else ""
    headline = f"<p class=headline>{text(said.headline)}</p>"
    return f'<div class="verdict {said.level}">{headline}{lines}{command}{planned}{judged}</div>'


def notes_list(notes: Iterable[str]) -> str:
    notes = [n for n in notes if n]
    if not notes:
        return ""
    return "<ul class=notes>" + "".join(f"<li>{text(n)}</li>" for n in notes) + "</ul>"


def document(title: str, body: str, data: Any) -> str:
    """The whole page: head with its policy and style, ``body`` (HTML), the data block (checked against the
    contract: a departure is a bug), the script."""
    broken = contract.problems(data)
    if broken:
        raise ValueError("the page's data departs from its contract: " + "; ".join(broken[:5]))
    script, style = bundle(), asset("page.css")
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            f'<meta http-equiv="Content-Security-Policy" content="{policy(script, style)}">'
            '<meta name=viewport content="width=device-width, initial-scale=1">'
            f"<meta name=generator content=memreport><title>{text(title)}</title><style>{style}</style></head>\n"
            f"<body>{body}\n<div id=tip class=tip hidden></div>\n"
            f'<script type="application/json" id="{DATA_ID}">{embed_json(shown(data))}</script>\n'
            f"<script>{script}</script></body></html>\n")
