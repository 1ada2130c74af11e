"""The text of a Poplar summary: its lines, the patterns its items follow, and their values.

Numbers carry thousands separators everywhere; byte counts are exact
integers followed by ``B``; ``kB`` and ``MB`` are binary (docs/FORMATS.md §1).
"""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, NamedTuple

from ....errors import ReadError

INT = r"\d{1,3}(?:,\d{3})+|\d+"
ROW = re.compile(rf"(?P<lo>{INT})\s*-\s*(?P<hi>{INT})\s(?P<bar>\**)\s*(?P<count>{INT})")
ROW_START = re.compile(rf"(?:{INT})\s*-\s*(?:{INT})\s")
MAXIMUM = re.compile(rf"Maximum \((?P<kind>Including|Excluding) Gaps\)\s*:\s*(?P<bytes>{INT})(?:\s*B)?"
                  rf"(?:\s*\([^)]*\))?\s+on tile\s+(?P<tile>{INT})", re.IGNORECASE)
OOM = re.compile(rf"(?P<count>{INT})\s+tile\(s\)\s+out of memory", re.IGNORECASE)
TILE = re.compile(rf"Tile\s*#\s*(?P<tile>{INT})\s+memory usage\s*:", re.IGNORECASE)
VERTEX = re.compile(rf"Vertex Data\s*\(\s*(?P<bytes>{INT})\s*B\s*\)\s*:", re.IGNORECASE)
OLD_MAX = re.compile(rf"Max tile memory\s*\(tile\s+(?P<tile>{INT})\)\s*:\s*(?P<bytes>{INT})(?:\s.*)?",
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

    _int = re.compile(INT)

    @classmethod
    def fullmatch(cls, text: str) -> dict[str, str] | None:
        if not text.endswith("B") or not text[:1] or text[:1].isspace():
            return None
        number_end = len(text[:-1].rstrip())
        parts = text[:number_end].rsplit(None, 1)
        if len(parts) != 2 or not cls._int.fullmatch(parts[1]):
            return None
        return {"key": parts[0], "value": parts[1] + text[number_end:]}


ITEM = _ItemLine()
TYPE_ITEM = _TypeItemLine()
_BYTES = re.compile(rf"(?P<n>{INT})\s*(?:B|bytes)")
_QUANTITY = re.compile(rf"(?P<n>{INT})(?:\.(?P<frac>\d+))?\s*(?P<unit>[A-Za-z]*)")
_MAX_DIGITS = 19  # 2**63 has 19 digits
ELISION = {".", "..", "...", "\u2026", "\u22ee"}


class Line(NamedTuple):
    no: int      # 1-based line number in the file
    indent: int  # columns of leading whitespace, tabs expanded
    text: str    # the line without surrounding whitespace



def whole(number: str, line: int, what: str) -> int:
    """A matched integer (thousands separators allowed), refused from 2**63 on, the bound of every source:
    nothing in a report is that large, and Python will not even convert a number of more than 4,300 digits."""
    digits = number.replace(",", "").lstrip("0")
    if len(digits) > _MAX_DIGITS:
        raise ReadError(f"{what}: a number of {len(digits):,} digits is too large", line=line)
    value = int(digits or "0")
    if value >= 2 ** 63:
        raise ReadError(f"{what}: {value:,} is too large (2**63 or more)", line=line)
    return value


def integer(text: str, line: int, what: str) -> int:
    if not re.fullmatch(INT, text):
        raise ReadError(f"{what}: {text!r} is not a number", line=line)
    return whole(text, line, what)


def byte_count(text: str, line: int, what: str) -> int:
    match = _BYTES.fullmatch(text)
    if not match:
        raise ReadError(f"{what}: {text!r} is not a byte count (expected e.g. '1,024 B')", line=line)
    return whole(match["n"], line, what)


def quantity(text: str, line: int, what: str) -> tuple[Decimal, str]:
    match = _QUANTITY.fullmatch(text)
    if not match:
        raise ReadError(f"{what}: {text!r} is not a number", line=line)
    whole(match["n"], line, what)  # the integer part bounded as every number is: 2**63, 19 digits
    if match["frac"] and len(match["frac"]) > _MAX_DIGITS:
        raise ReadError(f"{what}: a fraction of {len(match['frac']):,} digits is too long", line=line)
    number = match["n"].replace(",", "") + (f".{match['frac']}" if match["frac"] else "")
    return Decimal(number), match["unit"].lower()


def loose(text: str) -> Any:
    """A value from a section memreport does not interpret: a number when it is one, else the text."""
    if len(text.replace(",", "").lstrip("0")) > _MAX_DIGITS + 8:  # too long for a number: kept as text
        return text
    if byte_match := _BYTES.fullmatch(text):
        return int(byte_match["n"].replace(",", ""))
    match = _QUANTITY.fullmatch(text)
    if match and not match["unit"]:
        value = Decimal(match["n"].replace(",", "") + (f".{match['frac']}" if match["frac"] else ""))
        return int(value) if value == value.to_integral_value() and not match["frac"] else float(value)
    return text


def clean_name(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def snake(name: str) -> str:
    """``Number of IPUs`` -> ``num_ipus``; ``Non-interleaved`` -> ``non_interleaved``."""
    key = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return "num_" + key[len("number_of_"):] if key.startswith("number_of_") else key
