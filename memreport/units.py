"""Byte sizes as people write them: ``638976``, ``624KiB``, ``1MiB``, ``624K``."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

# Binary multipliers as Poplar prints them (its kB and MB are KiB and MiB)...
POPLAR_UNITS = {"b": 1, "k": 1024, "kb": 1024, "kib": 1024, "mb": 1024**2, "mib": 1024**2,
                "gb": 1024**3, "gib": 1024**3}
# ...and as people type them on the command line.
_UNITS = {**POPLAR_UNITS, "": 1, "m": 1024**2, "g": 1024**3}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", re.IGNORECASE)
MAX_DIGITS = 40      # far past 2**63 (19 digits); longer strings are refused before any arithmetic
SIZE_LIMIT = 2 ** 63  # sizes are int64 everywhere (per-tile arrays, the model's bounds)


def parse_size(text: str) -> int:
    """Bytes from a size string; K/KB/KiB are all 1,024 (Poplar's own convention).

    Exact: the digits are read as a fraction, never through a float, so
    ``9007199254740993`` stays odd and ``1.5KiB`` is 1,536.
    """
    match = _SIZE.fullmatch(text.replace(",", "").replace("_", ""))
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {text!r} (try 638976, 624KiB or 1MiB)")
    if len(match.group(1)) > MAX_DIGITS:
        raise ValueError(f"not a size: {text[:20]!r}... is {len(match.group(1)):,} digits long")
    value = Fraction(match.group(1)) * _UNITS[match.group(2).lower()]
    if value.denominator != 1:
        raise ValueError(f"not a whole number of bytes: {text!r}")
    return int(value)


_PERCENT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*%\s*")
BUDGET_HINT = ("(try 638976, 624KiB or 1MiB)", "(try 638976, 624KiB, 1MiB or 90%)")  # a size's hint, a budget's


@dataclass(frozen=True)
class Percent:
    """A share of tile memory as typed (``90%``, ``92.5%``), kept exact as a fraction of 100."""

    value: Fraction
    digits: str = field(default="", compare=False)  # as typed, for messages: "92.5"

    def __str__(self) -> str:
        return f"{self.digits or self.value}%"

    def floor_of(self, total: int) -> int:
        """``floor(value * total / 100)``: the largest whole number of bytes not above the share."""
        return self.value.numerator * total // (100 * self.value.denominator)

    def ceil_of(self, total: int) -> int:
        """``ceil(value * total / 100)``: the smallest whole number of bytes not below the share."""
        return -(-self.value.numerator * total // (100 * self.value.denominator))


def parse_budget(text: str) -> int | Percent:
    """A gate's budget: a byte size (:func:`parse_size`) or a percent of tile memory (``90%``, ``92.5%``)."""
    match = _PERCENT.fullmatch(text)
    if match is None:
        if text.strip().endswith("%"):
            raise ValueError(f"not a percent: {text!r} (try 90% or 92.5%)")
        return parse_size(text)
    if len(match.group(1)) > MAX_DIGITS:
        raise ValueError(f"not a percent: {text[:20]!r}... is {len(match.group(1)):,} digits long")
    return Percent(Fraction(match.group(1)), match.group(1))


def size_value(value: int | str, *, minimum: int = 0, what: str = "a size") -> int:
    """A byte size as an option gives it (``638976``, ``624KiB``, ``1MiB``, or an int), checked (:func:`check_size`)."""
    return check_size(value if isinstance(value, int) else parse_size(value), minimum=minimum, what=what)


def budget_value(value: int | Percent | str) -> int | Percent:
    """A gate's budget as an option gives it: a byte size (:func:`size_value`) or a percent of tile memory
    (``90%``, ``92.5%``); a ValueError saying what it takes otherwise."""
    if isinstance(value, (int, Percent)):
        return value if isinstance(value, Percent) else check_size(value)
    try:
        parsed = parse_budget(value)
    except ValueError as exc:
        raise ValueError(str(exc).replace(BUDGET_HINT[0], BUDGET_HINT[1])) from None
    return parsed if isinstance(parsed, Percent) else check_size(parsed)


def check_size(value: int, *, minimum: int = 0, what: str = "a size") -> int:
    """``value`` if ``minimum <= value < 2**63``, else a ValueError saying which bound it breaks."""
    if value < minimum:
        raise ValueError(f"{what} must be at least {minimum:,} B, not {value:,}")
    if value >= SIZE_LIMIT:
        raise ValueError(f"{what} must be below 2**63 B, not a {value.bit_length()}-bit number")
    return value


def check_tile_memory(value: int) -> int:
    """Bytes per tile as given by a user: positive and below 2**63 (a ValueError otherwise)."""
    return check_size(value, minimum=1, what="bytes per tile")


def kib(n: int) -> str:
    """Poplar's ``(X K)`` figure: binary K, one decimal, thousands separators."""
    return f"{n / 1024:,.1f} K"


def plural(noun: str) -> str:
    """The plural of a regular noun: tiles, IPUs, sections, categories, data types (the one pluraliser)."""
    return noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "o", "u") else noun + "s"


def count(n: int, noun: str) -> str:
    """``n`` and its noun, plural unless one: ``1 tile``, ``1,472 tiles``, ``2 IPUs`` (thousands separated)."""
    return f"{n:,} {noun if n == 1 else plural(noun)}"
