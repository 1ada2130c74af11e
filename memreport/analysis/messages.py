"""Out-of-memory messages in words: what each states, and what to run next (docs/FORMATS.md §8.6).

A message is described with its own figures only. "Bytes used" is the
figure Poplar's message gives, which it does not define further: it is
never shown as a tile's including- or excluding-gaps bytes.
"""
from __future__ import annotations

from ..model import OutOfMemoryMessage

_NO_ARCHIVE = ("no archive.a beside it: memreport reads the archive.a that the engine option autoReport.all "
               "also saves there, or a text summary printed from the profile (printProfileSummary, PopART's "
               "getSummaryReport())")


def next_command(message: OutOfMemoryMessage) -> str | None:
    """The memreport command to run on what the failed run saved (None when it saved nothing memreport reads)."""
    if message.archive is not None:
        return f"memreport {message.archive}"
    if message.kind == "report-saved" and message.saved_path is not None:
        return f"memreport {message.saved_path}"  # TensorFlow's graph.txt, graph.json or graph.cbor
    return None


def _saved(message: OutOfMemoryMessage) -> str:
    path = message.saved_path
    if path is None:
        return ""
    command = next_command(message)
    if command is not None:
        return f"; a report was saved at {path}: run `{command}`"
    return f"; a report was saved at {path} ({_NO_ARCHIVE})"


def describe(message: OutOfMemoryMessage) -> str:
    """One line: what the message says, in memreport's words, with its figures."""
    m = message
    if m.kind == "tile-memory" and m.bytes_used is not None and m.bytes_per_tile is not None:
        over = m.bytes_used - m.bytes_per_tile
        tail = f": out of memory by {over:,} B" if over > 0 else ""
        return f"tile {m.tile}: {m.bytes_used:,} B used, tiles have {m.bytes_per_tile:,} B{tail}"
    if m.kind == "variables":
        return "one or more tiles cannot hold their variables (which ones, the message does not say)" + _saved(m)
    if m.kind == "profile-saved":
        return "the compile ran out of tile memory (PopTorch)" + _saved(m)
    if m.kind == "report-saved":
        return "the compile ran out of tile memory (TensorFlow)" + _saved(m)
    if m.kind == "exchange":
        return f"tile {m.tile} receives more data than it has memory in exchange '{m.exchange}' (exchange overflow)"
    if m.kind == "code":
        offset = "" if m.code_offset is None else f"; its code starts {m.code_offset:,} B from the start of memory"
        return f"tile {m.tile}: too much code to fit in its memory (code overflow{offset})"
    if m.stream_bytes is not None:
        return (f"a host stream buffer is too large (a stream of {m.stream_bytes:,} B in buffer {m.buffer_index}): "
                "host memory, not tile memory")
    return (f"a data stream is larger than what remains of host buffer {m.buffer_index}: host memory, not tile "
            "memory")
