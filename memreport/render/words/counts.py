"""Why a figure is not known, how many tiles are out of memory, what an out-of-memory message says, what to run
next: the words of counts and commands."""
from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence

from ...analysis import CountReason, IpuSpread, LookInto, OutOfMemoryCount, Partial, Summary, TopTile
from ...model import OutOfMemoryMessage
from ...units import count

UNKNOWN = "?"
OUT_OF_MEMORY = "OUT OF MEMORY"

# -- why a figure is not known ----------------------------------------------------------------------------------


def partial_reason(partial: Partial) -> str:
    """Why a report's per-tile view is partial, as a phrase for notes and messages."""
    if partial.kind == "damaged members":
        return f"{partial.skipped:,} damaged member(s) were skipped: their tiles' bytes are unknown"
    if partial.kind == "messages only":
        return "the log holds no memory summary, only out-of-memory messages"
    if partial.kind == "text summary":
        return "a text summary does not list every tile"
    return "a tensor map counts elements, not bytes"


def reason(r: CountReason) -> str:
    """Why an exact out-of-memory count is missing, or judged rather than printed."""
    names = r.names
    if r.why == "bytes per tile unknown":
        text = f"bytes per tile unknown: give {names.tile_memory} or {names.arch}"
    elif r.why == "no per-tile bytes":
        text = partial_reason(r.partial) if r.partial is not None else "the source holds no per-tile bytes"
    elif r.why == "printed for other bytes per tile":
        text = (f"its printed count, {r.printed:,}, is for the {r.stated:,} B per tile it printed, "
                f"not {r.limit:,} B")
    elif r.why == "messages only":
        text = "the log holds no memory summary, only out-of-memory messages" + (
            " about host stream buffers, which are host memory, not tile memory" if r.host_streams else "")
    else:
        text = "the summary printed no out-of-memory line"
    if r.judge_hint:
        text += f"; bytes per tile unknown (give {names.tile_memory} or {names.arch} to judge what it printed)"
    if r.unsettled is not None:
        text += f", and nothing else it printed settles it for {r.unsettled:,} B per tile"
    return text


def _printed(parts: Sequence[str]) -> str:
    """What in the source shows a count: "from its printed histogram and detailed tiles" (and "its out-of-memory
    messages", which a summary does not print)."""
    messages = "out-of-memory messages" in parts
    printed = [p for p in parts if p != "out-of-memory messages"]
    phrase = "" if not printed else "its printed " + (
        printed[0] if len(printed) == 1 else ", ".join(printed[:-1]) + " and " + printed[-1])
    if messages:
        phrase += (" and " if phrase else "") + "its out-of-memory messages"
    return "from " + phrase


def basis(c: OutOfMemoryCount) -> str | None:
    """What shows a count or bound that is not plainly computed or printed (None when it is)."""
    if not c.basis:
        return None
    return _printed(c.basis) + (f", for {c.basis_limit:,} B per tile" if c.basis_limit is not None else "")


# -- how many tiles are out of memory ---------------------------------------------------------------------------


def count_phrase(c: OutOfMemoryCount) -> str:
    """One phrase for a report line: "3 tile(s) out of memory", "at least 5 ...", or why unknown."""
    shown, why_not = basis(c), None if c.reason is None else reason(c.reason)
    if c.count is not None:
        return f"{c.count:,} tile(s) out of memory" + (f" ({shown})" if shown else "")
    why = "; ".join(p for p in (shown if c.at_least else None, why_not) if p)
    if c.at_least:
        return f"at least {c.at_least:,} tile(s) out of memory ({why})"
    return f"out-of-memory tiles unknown ({why})"


def count_short(c: OutOfMemoryCount) -> str:
    """The count alone: "3", "at least 5" or "unknown"."""
    if c.count is not None:
        return f"{c.count:,}"
    return f"at least {c.at_least:,}" if c.at_least else "unknown"


def count_tiles(c: OutOfMemoryCount) -> str:
    """The count in tiles: "3 tiles", "at least 5 tiles" or "unknown"."""
    if c.count is not None:
        return count(c.count, "tile")
    return f"at least {count(c.at_least, 'tile')}" if c.at_least else "unknown"


def count_title(c: OutOfMemoryCount) -> str:
    """Short, for a picture's title (no room for why): "3 tiles out of memory"."""
    judged = count_tiles(c)
    return "out-of-memory tiles unknown" if judged == "unknown" else f"{judged} out of memory"


def count_note(c: OutOfMemoryCount) -> str | None:
    """A sentence for a report's notes when the count is neither computed nor printed as is, else None."""
    if c.plain:
        return None
    text = count_phrase(c)
    if c.count is not None and c.reason is not None:
        text += f"; {reason(c.reason)}"
    return "out-of-memory count: " + text


def count_lines(summary: Summary) -> list[str]:
    """The count as a source printed it and, beside it, a recount labelled as such; the count alone for a
    source that printed none."""
    v = summary.verdict
    judged = count_tiles(v.count)
    if v.printed_count is None:
        return ["Out of memory: " + judged]
    lines = [f"Out of memory (printed): {count(v.printed_count, 'tile')}"]
    if v.count.count != v.printed_count:
        limit = v.bytes_per_tile
        lines.append(f"Out of memory (recounted for {limit:,} B per tile): {judged}" if limit
                     else f"Out of memory (recounted): {judged}")
    return lines


def out_of_memory_cell(tile: TopTile, bytes_per_tile: int | None) -> str:
    """A tile's out-of-memory cell: "OUT OF MEMORY by 1,234 B" (or "(overflowed)" when its bytes do not pass
    the limit, plain when they are unknown), "" when it fits, "?" when the source cannot say."""
    if tile.out_of_memory is None:
        return UNKNOWN
    if not tile.out_of_memory:
        return ""
    used = tile.excluding_gaps
    if bytes_per_tile is not None and used is not None and used > bytes_per_tile:
        return f"{OUT_OF_MEMORY} by {used - bytes_per_tile:,} B"
    return f"{OUT_OF_MEMORY} (overflowed)" if used is not None else OUT_OF_MEMORY


# -- IPUs past those listed one by one ---------------------------------------------------------------------------


def ipus_heading(spread: IpuSpread) -> str:
    """The heading of the IPUs shown when there are too many to list: those holding the largest tiles."""
    return f"{spread.ipus:,} IPUs: the {count(len(spread.largest), 'IPU')} holding the largest tiles"


def ipus_note(spread: IpuSpread) -> str:
    """What is said of every IPU when there are too many to list, and where each is."""
    oom = (f"{spread.with_out_of_memory:,} of {spread.ipus:,} IPUs hold a tile out of memory"
           if spread.with_out_of_memory is not None else "which IPUs hold a tile out of memory is unknown")
    return (f"{oom}; the JSON lists the first {count(spread.listed, 'IPU')} one by one (per_ipu), and every "
            "tile's bytes, as the CSV does")


def heat_note(spread: IpuSpread) -> str:
    """Why the page's heat map draws one grid of every tile rather than a grid per IPU."""
    return (f"the heat map draws every tile in one grid: {spread.ipus:,} IPUs are more than it draws a grid each "
            f"({spread.listed:,})")


# -- what to run next ------------------------------------------------------------------------------------------


def look_into(fact: LookInto) -> str:
    """The memreport command that looks into a tile (``--module '#N'`` for one report of a file's several)."""
    part = fact.name.part
    module = f" --module {shlex.quote(part)}" if part else ""
    symbols = " --symbols 20" if fact.symbols else ""
    return f"memreport {shlex.quote(fact.name.source)}{module} --tile {fact.tile}{symbols}"


_NO_ARCHIVE = ("no archive.a beside it: memreport reads the archive.a that the engine option autoReport.all "
               "also saves there, or a text summary printed from the profile (printProfileSummary, PopART's "
               "getSummaryReport())")


def next_command(message: OutOfMemoryMessage) -> str | None:
    """The memreport command to run on what a failed run saved (None when it saved nothing memreport reads); the
    path as a shell reads it (a log's ``x; rm -rf ~`` is one argument)."""
    if message.archive is not None:
        return f"memreport {shlex.quote(message.archive)}"
    if message.kind == "report-saved" and message.saved_path is not None:
        return f"memreport {shlex.quote(message.saved_path)}"  # TensorFlow's graph.txt, graph.json or graph.cbor
    return None


def _saved(message: OutOfMemoryMessage) -> str:
    path = message.saved_path
    if path is None:
        return ""
    command = next_command(message)
    if command is not None:
        return f"; a report was saved at {path}: run `{command}`"
    return f"; a report was saved at {path} ({_NO_ARCHIVE})"


def message_description(message: OutOfMemoryMessage) -> str:
    """What an out-of-memory message says, in memreport's words, with its own figures only ("bytes used" is
    the message's figure, never shown as a tile's including- or excluding-gaps bytes)."""
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


def next_commands(messages: Iterable[OutOfMemoryMessage]) -> tuple[str, ...]:
    """The commands the messages suggest, each once, in message order."""
    return tuple(dict.fromkeys(c for c in map(next_command, messages) if c is not None))


