"""A diff's verdict, its sides' counts and its notes."""
from __future__ import annotations

from ...analysis import BuildSummary, Diff
from ...units import count
from .counts import count_note, partial_reason
from .verdicts import Verdict


def _tiles(n: int) -> str:
    return f"{n:,} tile" + ("" if n == 1 else "s")


_NEWLY_UNKNOWN = {"not every tile": "a side does not state every tile's bytes",
                  "bytes per tile unknown": "bytes per tile unknown on a side"}


def diff_headline(diff: Diff) -> tuple[str, str]:
    """(level, the first line) of a diff: newly out-of-memory tiles first, then how many tiles changed."""
    changed = f"{_tiles(diff.num_changed)} changed ({diff.num_grown:,} grew, {diff.num_shrunk:,} shrank)"
    newly = diff.newly_out_of_memory
    if newly is None:
        why = _NEWLY_UNKNOWN.get(diff.newly_unknown or "", "unknown")
        return "unknown", f"Newly out of memory: unknown ({why}); {changed}"
    if newly:
        return "oom", f"{_tiles(len(newly))} newly out of memory; {changed}"
    return "ok", f"No tile newly out of memory; {changed}"


def diff_verdict(diff: Diff) -> Verdict:
    """A diff's verdict: tiles newly out of memory and how many changed, then the out-of-memory counts, the
    worst growth of a tile and the change of the largest tile."""
    level, first = diff_headline(diff)
    lines = []
    old, new = diff.old.tiles_out_of_memory, diff.new.tiles_out_of_memory
    if old is not None or new is not None:
        lines.append(f"Out of memory: {side_tiles(old)} -> {side_tiles(new)}")
    if diff.num_grown:
        at = int(diff.delta.argmax())  # changes are sorted by size, then tile: the lowest tile among equals
        before, after = int(diff.old_bytes[at]), int(diff.new_bytes[at])
        lines.append(f"Worst growth: tile {int(diff.tile_ids[at])}, {before:,} B -> {after:,} B "
                     f"({after - before:+,} B)")
    if diff.max_delta:
        lines.append(f"Largest tile: {diff.max_delta:+,} B")
    return Verdict(level, first, tuple(lines), None)


def side_count(side: BuildSummary) -> str:
    """A diff side's out-of-memory count: "3", "at least 5" or "unknown"."""
    if side.tiles_out_of_memory is not None:
        return f"{side.tiles_out_of_memory:,}"
    return f"at least {side.out_of_memory_at_least:,}" if side.out_of_memory_at_least else "unknown"


def side_tiles(n: int | None) -> str:
    return "unknown" if n is None else count(n, "tile")


def which_report(side: BuildSummary) -> str:
    """Which of a file's reports a build is, after "the largest": `` (module M)``, `` (#2, line 40)`` or ``""``."""
    name = side.name
    if side.module:
        return f" (module {side.module})"
    return f" (#{name.index}, line {name.line:,})" if name is not None and name.index is not None and name.line else ""


def diff_notes(diff: Diff) -> tuple[str, ...]:
    """What a reader of a diff must know: which report of a file was compared, what could not be compared and
    why, which tiles the whole-program figures cover, why a side's count is judged."""
    sides = (("OLD", diff.old), ("NEW", diff.new))
    notes = []
    for _, s in sides:
        if s.of_reports > 1 and s.name is not None:
            notes.append(f"{s.source} holds {s.of_reports} reports; comparing the largest{which_report(s)}")
    unknown = [s.label for _, s in sides if s.num_tiles is None]
    if unknown:
        notes.append(f"the tile count of {' and '.join(unknown)} is unknown: tiles are compared by id")
    partial = [(label, s) for label, s in sides if s.kind != "tiles"]
    if partial:
        who = " and ".join(f"{label} ({s.source})" for label, s in partial)
        verb = "are" if len(partial) == 2 else "is"
        printed = all(s.kind in ("summary", "messages") for _, s in partial)
        reasons = list(dict.fromkeys(partial_reason(s.partial) for _, s in partial if s.partial is not None))
        kind = " (a text summary)" if printed else f" ({'; '.join(reasons)})"
        tail = "; totals, maxima and out-of-memory counts are as printed" if printed else ""
        notes.append(f"{who} {verb} partial{kind}: only the {diff.compared_tiles:,} tile(s) whose bytes both sides "
                     f"state are compared{tail}")
    notes += [f"{label} ({s.source}) has {s.partial.skipped:,} tile(s) of unknown bytes (damaged members skipped): "
              "they are not compared" for label, s in sides if s.partial is not None and s.partial.skipped]
    if diff.figures_over == "compared tiles":
        notes.append(f"totals, maxima and out-of-memory counts of both sides are over the {diff.compared_tiles:,} "
                     "compared tile(s) only: a tile skipped on one side is left out of both")
    elif diff.figures_over == "not comparable":
        notes.append("totals, maxima and out-of-memory counts are not compared: a side with skipped members covers "
                     "only its readable tiles, a text summary prints them for every tile")
    for label, s in sides:
        note = count_note(s.oom) if s.oom is not None and s.kind in ("summary", "messages") else None
        if note and s.bytes_per_tile is not None:
            notes.append(f"{label} ({s.source}) {note}")
    if diff.newly_unknown == "not every tile":
        notes.append("out-of-memory changes tile by tile unknown: a text summary does not state every tile's bytes "
                     "(the out-of-memory counts are compared)")
    elif diff.newly_unknown is not None:
        notes.append("out-of-memory changes unknown: bytes per tile unknown (give --tile-memory or --arch)")
    return tuple(notes)


