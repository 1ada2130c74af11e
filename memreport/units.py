"""Byte sizes as people write them: ``638976``, ``624KiB``, ``1MiB``, ``624K``."""
from __future__ import annotations

import re

_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024**2, "mb": 1024**2,
          "mib": 1024**2, "g": 1024**3, "gb": 1024**3, "gib": 1024**3}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes from a size string; K/KB/KiB are all 1,024 (Poplar's own convention)."""
    match = _SIZE.fullmatch(text.replace(",", "").replace("_", ""))
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {text!r} (try 638976, 624KiB or 1MiB)")
    value = float(match.group(1)) * _UNITS[match.group(2).lower()]
    if value != int(value):
        raise ValueError(f"not a whole number of bytes: {text!r}")
    return int(value)


def kib(n: int) -> str:
    """Poplar's ``(X K)`` figure: binary K, one decimal, thousands separators."""
    return f"{n / 1024:,.1f} K"
