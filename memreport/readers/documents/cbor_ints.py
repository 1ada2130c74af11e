"""A CBOR array of integers decoded by numpy, whatever the mix of item widths (RFC 8949 §3.1).

A CBOR integer takes 1, 2, 3, 5 or 9 bytes, told by its first byte: the
items of a per-tile list start where the one before ends, a chain no vector
operation follows directly. When the widths come in long runs (every value
below 24, or all of 256..65535) the runs are decoded one at a time. A real
profile's lists mix them (a third of the values 0, the others hundreds to
tens of thousands), so runs are a few items long; then the chain is found
by *lanes*: a walk starts every :data:`LANE_BYTES` bytes, all of them
stepping at once from item to item (each step one numpy gather), until each
is a little way into the next lane. A walk that starts inside an item soon
lands on a real item's first byte, and from there follows the true chain,
as do all walks that meet it. The true chain starts lane 0's walk; it
enters lane ``j`` where lane ``j - 1``'s walk (already on it) first meets
lane ``j``'s, and runs along lane ``j``'s walk from there. A lane whose
walk meets no other in time (a list made to defeat this) makes the list
decline to cbor2, which reads it correctly.
"""
from __future__ import annotations

from itertools import chain

import numpy as np

_INT64 = np.iinfo(np.int64)
# Bytes an integer item takes, by its initial byte (0 for anything else): major types 0 and 1,
# additional information 0-23 in the byte itself, 24-27 followed by 1, 2, 4 or 8 bytes.
_ITEM_BYTES = np.zeros(256, dtype=np.int64)
for _major in (0x00, 0x20):
    _ITEM_BYTES[_major:_major + 24] = 1
    _ITEM_BYTES[_major + 24:_major + 28] = (2, 3, 5, 9)
_WIDTH = _ITEM_BYTES.astype(np.uint8)
_STEP = np.maximum(_ITEM_BYTES, 1).astype(np.int32)  # a walk steps over a byte that starts no integer
_MIN_RUN = 512  # items a run of one width must hold on average to be quicker than lanes (a run costs ~70 us)
# Lane starts lie a multiple of every item width apart: on a list of one width, every lane starts on an item.
LANE_BYTES = 90
OVERLAP_BYTES = 24  # how far into a lane its walk should have met the walk of the lane before
_MAX_RETAKEN = 64   # lanes walked again in Python, at most, when their walks had not met by then
LANES_MIN_ITEMS = 16384  # below this, a walk's fixed cost (some sixty steps) is more than cbor2's for the list


def cbor_ints(data: bytes, at: int, count: int) -> tuple[np.ndarray, int] | None:
    """``count`` CBOR integers from ``at`` as int64 and where they end; None unless every item is an integer
    that fits int64 (the caller then decodes the list with cbor2)."""
    if count > len(data) - at:  # each item takes a byte at least: a header claiming more lies
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    found = _runs(buf, at, count)
    if isinstance(found, float):  # mixed widths, this many bytes an item so far
        return _lanes(buf, at, count, found) if count >= LANES_MIN_ITEMS else None
    return found


def _runs(buf: np.ndarray, at: int, count: int) -> tuple[np.ndarray, int] | float | None:
    """Decoded a run of equal-width items at a time; the bytes an item took so far when the widths change too
    often for runs to pay."""
    start = at
    out = np.empty(count, dtype=np.int64)
    done = runs = 0
    window = 64
    while done < count:
        if at >= buf.size:
            return None
        width = int(_ITEM_BYTES[buf[at]])
        if width == 0:
            return None
        want = min(count - done, window, (buf.size - at) // width)
        if want == 0:
            return None
        heads = buf[at:at + width * want:width]
        differ = np.flatnonzero(_ITEM_BYTES[heads] != width)
        run = int(differ[0]) if differ.size else want
        window = window * 2 if run == want else 64
        starts = at + width * np.arange(run, dtype=np.int64)
        values = _magnitudes(buf, starts, heads[:run], width)
        if values is None:
            return None
        out[done:done + run] = _signed(values, heads[:run])
        done += run
        at += width * run
        runs += run < want  # a run cut by a change of width, not by the window
        if runs > 2 and done < _MIN_RUN * runs:
            return (at - start) / done  # short runs: lanes (or cbor2) are quicker
    return out, at


def _magnitudes(buf: np.ndarray, starts: np.ndarray, heads: np.ndarray, width: int) -> np.ndarray | None:
    """The unsigned values of items of one ``width`` starting at ``starts`` (the sign not applied); None past
    int64."""
    if width == 1:
        return (heads & 31).astype(np.int64)
    big = np.zeros(starts.size, dtype=np.uint64)
    for byte in range(1, width):
        big <<= np.uint64(8)
        big |= buf[starts + byte]
    if width == 9 and (big > np.uint64(_INT64.max)).any():
        return None
    return big.astype(np.int64)


def _signed(values: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """``values`` with major type 1's sign applied: -1 - n."""
    negative = heads >= 0x20
    if negative.any():
        values[negative] = -1 - values[negative]
    return values


def _lanes(buf: np.ndarray, at: int, count: int, item_bytes: float = 3.0) -> tuple[np.ndarray, int] | None:
    """The chain of ``count`` items found by lanes, in a window of the bytes that grows until it holds them
    (at first ``item_bytes`` a item, and some more)."""
    remaining = buf.size - at
    window = min(remaining, int(count * item_bytes * 1.1) + 4 * LANE_BYTES)
    while True:
        starts = _chain(buf[at:at + window])
        if starts is None:
            return None
        if starts.size >= count:
            places = starts[:count].astype(np.int64)
            places += at
            heads = buf[places]
            widths = _WIDTH[heads]
            if not widths.all():
                return None  # an item that is no integer
            end = int(places[-1]) + int(widths[-1])
            if end <= at + window:
                values = _decode(buf, places, heads, widths)
                return None if values is None else (values, end)
        if window == remaining:
            return None  # the document ends before the list does
        window = min(remaining, 2 * window)  # more wide items than the first ones said


def _chain(seg: np.ndarray) -> np.ndarray | None:
    """Where the items of ``seg`` start (relative to it), up to the window's end; None when some lane's walk has
    not met the one before it :data:`OVERLAP_BYTES` into the lane."""
    size = seg.size
    padded = np.zeros(size + 16 * (LANE_BYTES + OVERLAP_BYTES), dtype=np.uint8)  # room for walks past the end
    padded[:size] = seg
    first = np.arange(0, size, LANE_BYTES, dtype=np.int32)
    meet = np.minimum(first + OVERLAP_BYTES, size)  # walks j - 1 and j are compared at lane j's meeting point
    goal = np.append(meet[1:], size)  # each walk goes on to the next lane's meeting point
    walk = [first]
    here = first
    while True:
        for _ in range(8):
            here = here + _STEP[padded[here]]
            walk.append(here)
        if (here >= goal).all():
            break
    path = np.stack(walk)  # steps x lanes, increasing down each column
    # The first place at or past lane j's meeting point, on walk j and on walk j - 1: the same place when the
    # two walks have met before it (one chain from there on), else not.
    mine = path[np.argmax(path >= meet, axis=0), np.arange(first.size)]
    theirs = path[np.argmax(path >= goal, axis=0), np.arange(first.size)]
    lanes = np.ascontiguousarray(path.T)
    inside = (lanes >= np.append(0, meet[1:])[:, None]) & (lanes < goal[:, None])
    behind = np.flatnonzero(mine[1:] != theirs[:-1]) + 1
    if not behind.size:
        return lanes[inside]
    retaken = _retake(padded, behind, mine, theirs, goal)
    if retaken is None:
        return None  # many lanes out of step: not a list lanes suit, cbor2 decodes it
    inside[list(retaken)] = False
    again = np.fromiter(chain.from_iterable(retaken.values()), dtype=lanes.dtype)
    return np.sort(np.concatenate([lanes[inside], again]))


def _retake(padded: np.ndarray, behind: np.ndarray, mine: np.ndarray, theirs: np.ndarray,
            goal: np.ndarray) -> dict[int, list[int]] | None:
    """The true chain through each lane whose walk had not met the one before by its meeting point, walked in
    Python from where the chain enters it (lanes in order: retaking one may put the next out of step); None
    when more than a few lanes need it."""
    import heapq
    raw = padded.tobytes()
    steps = _STEP.tolist()
    queue = behind.tolist()
    theirs = theirs.tolist()
    retaken: dict[int, list[int]] = {}
    while queue:
        lane = heapq.heappop(queue)
        if lane in retaken or mine[lane] == theirs[lane - 1]:
            continue
        if len(retaken) >= max(_MAX_RETAKEN, len(theirs) // 16):
            return None
        here, end = theirs[lane - 1], int(goal[lane])
        places = []
        while here < end:
            places.append(here)
            here += steps[raw[here]]
        retaken[lane] = places
        theirs[lane] = here
        if lane + 1 < len(theirs) and mine[lane + 1] != here:
            heapq.heappush(queue, lane + 1)
    return retaken


def _decode(buf: np.ndarray, places: np.ndarray, heads: np.ndarray, widths: np.ndarray) -> np.ndarray | None:
    """The integers of items at ``places``: all at once up to 3 bytes (values below 65,536), then the rest."""
    values = (heads & 31).astype(np.int64)
    if widths.max() > 1:
        last = buf.size - 1
        after = places + 1 if int(places[-1]) + 2 <= last else np.minimum(places + 1, last)
        one = buf[after]  # a 2-byte item's value, a 3-byte item's high byte
        values = np.where(widths == 1, values, one)
        three = widths >= 3
        if three.any():
            after += 1
            np.minimum(after, last, out=after)
            values = np.where(three, values << 8 | buf[after], values)
        for size in (5, 9):
            chosen = np.flatnonzero(widths == size)
            if chosen.size:
                part = _magnitudes(buf, places[chosen], heads[chosen], size)
                if part is None:
                    return None
                values[chosen] = part
    return _signed(values, heads)
