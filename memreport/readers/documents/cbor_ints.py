"""A CBOR array of integers decoded by numpy, whatever the mix of item widths (RFC 8949 §3.1).

A CBOR integer takes 1, 2, 3, 5 or 9 bytes, told by its first byte: the
items of a per-tile list start where the one before ends, a chain no vector
operation follows directly. When the widths come in long runs (every value
below 24, or all of 256..65535) the runs are decoded one at a time. A real
profile's lists mix them (a third of the values 0, the others hundreds to
tens of thousands), so runs are a few items long; then the chain is found
by walking from *every* byte at once, one bit a byte: each walk steps to
where an item starting at its byte would end, so the places reached after
a step are a few shifts of 64-bit words of the places reached before (one
shift for each item width present), and the list's first byte is added
each time. The set only shrinks and always holds the true chain. A walk
that starts inside an item soon lands on a real item's first byte and from
then on is on the chain: once every walk has (some six steps on a real
profile's lists), the set is the chain exactly. That is checked, not
assumed: every item found must end where the next one begins. If not,
more steps are taken; a list made so that walks never fall in step
declines to cbor2, which reads it correctly.
"""
from __future__ import annotations

import numpy as np

_INT64 = np.iinfo(np.int64)
# Bytes an integer item takes, by its initial byte (0 for anything else): major types 0 and 1,
# additional information 0-23 in the byte itself, 24-27 followed by 1, 2, 4 or 8 bytes.
_ITEM_BYTES = np.zeros(256, dtype=np.int64)
for _major in (0x00, 0x20):
    _ITEM_BYTES[_major:_major + 24] = 1
    _ITEM_BYTES[_major + 24:_major + 28] = (2, 3, 5, 9)
_WIDTH = _ITEM_BYTES.astype(np.uint8)
_STEP = np.maximum(_WIDTH, 1)  # a walk steps over a byte that starts no integer
_MIN_RUN = 512  # items a run of one width must hold on average to be quicker than the chain (a run costs ~70 us)
# Walks from every byte: steps taken before the chain is first checked, and at most (each step costs a few us).
CHAIN_STEPS = (8, 40)
CHAIN_MIN_ITEMS = 8192  # below this, cbor2 decodes a list of mixed widths as fast (the walks cost ~0.35 ms)
_WORD = np.dtype("<u8")  # bit p of the byte sets is bit p % 64 of word p // 64
# Bytes 24-27 and 56-59 (x & 0xDC == 0x18) start an item of 2, 3, 5 or 9 bytes, told by their two low bits.
_LONG_MASK, _LONG, _BIT0, _BIT1 = np.uint8(0xDC), np.uint8(0x18), np.uint8(1), np.uint8(2)
_PAYLOAD = {3: ">u2", 5: ">u4", 9: ">u8"}  # the big-endian integer after an item's first byte
CHUNK = 1 << 15  # bytes of a list handled at once (a multiple of 8): arrays small enough to be reused, not mapped
_SIXTY_FOUR, _FIRST = np.uint64(64), np.uint64(1)
_OUT_OF_STEP, _SHORT = object(), object()
# An item of up to 3 bytes from the 4 bytes at its place, big-endian: shifted right, then masked (0 for others).
_SHIFT, _MASK = np.zeros(256, dtype=np.uint32), np.zeros(256, dtype=np.uint32)
for _major in (0x00, 0x20):
    _SHIFT[_major:_major + 26] = [24] * 24 + [16, 8]
    _MASK[_major:_major + 26] = [31] * 24 + [0xFF, 0xFFFF]


def cbor_ints(data: bytes, at: int, count: int) -> tuple[np.ndarray, int] | None:
    """``count`` CBOR integers from ``at`` as int64 and where they end; None unless every item is an integer
    that fits int64 (the caller then decodes the list with cbor2)."""
    if count > len(data) - at:  # each item takes a byte at least: a header claiming more lies
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    found = _runs(buf, at, count)
    if isinstance(found, float):  # mixed widths, this many bytes an item so far
        return _chain(buf, at, count, found) if count >= CHAIN_MIN_ITEMS else None
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
        differ = np.flatnonzero(_WIDTH[heads] != width)
        run = int(differ[0]) if differ.size else want
        window = window * 2 if run == want else 64
        values = _run_magnitudes(buf, at, heads[:run], width)
        if values is None:
            return None
        out[done:done + run] = _signed(values, heads[:run])
        done += run
        at += width * run
        runs += run < want  # a run cut by a change of width, not by the window
        if runs > 2 and done < _MIN_RUN * runs:
            return (at - start) / done  # short runs: the chain (or cbor2) is quicker
    return out, at


def _run_magnitudes(buf: np.ndarray, at: int, heads: np.ndarray, width: int) -> np.ndarray | None:
    """The unsigned values of ``heads.size`` items of one ``width`` from ``at`` (the sign not applied); None
    past int64."""
    if width == 1:
        return (heads & 31).astype(np.int64)
    rows = buf[at:at + width * heads.size].reshape(heads.size, width)
    if width == 2:
        return rows[:, 1].astype(np.int64)
    big = np.ascontiguousarray(rows[:, 1:]).view(_PAYLOAD[width])[:, 0]
    if width == 9 and (big > np.uint64(_INT64.max)).any():
        return None
    return big.astype(np.int64)


def _magnitudes(buf: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray | None:
    """The unsigned values of items of one ``width`` (5 or 9) starting at ``starts``; None past int64."""
    big = np.zeros(starts.size, dtype=np.uint64)
    for byte in range(1, width):
        big <<= np.uint64(8)
        big |= buf.take(starts + byte, mode="clip")
    if width == 9 and (big > np.uint64(_INT64.max)).any():
        return None
    return big.astype(np.int64)


def _signed(values: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """``values`` with major type 1's sign applied: -1 - n."""
    negative = heads >= 0x20
    if negative.any():
        values[negative] = -1 - values[negative]
    return values


def _chain(buf: np.ndarray, at: int, count: int, item_bytes: float = 3.0) -> tuple[np.ndarray, int] | None:
    """The ``count`` items from ``at`` found by walks from every byte, in a window of the bytes that grows until
    it holds them (at first ``item_bytes`` an item and more, 3 at least: a few items tell little)."""
    remaining = buf.size - at
    if count > remaining:
        return None  # each item takes a byte at least
    window = min(remaining, int(count * max(item_bytes * 1.25, 3.0)) + 64)
    while True:
        seg = buf[at:at + window]
        shifts = _shifts(seg)
        reached = np.full(shifts[0][1].size, np.iinfo(np.uint64).max, dtype=np.uint64)  # a walk from every byte
        taken = 0
        for steps in CHAIN_STEPS:
            reached = _walk(reached, shifts, steps - taken)
            taken = steps
            found = _read_chain(seg, reached, count)
            if found is not _OUT_OF_STEP:
                break
        else:
            return None  # walks out of step: not a list this suits, cbor2 decodes it
        if found is not _SHORT:
            return found if found is None else (found[0], at + found[1])
        if window == remaining:
            return None  # the document ends before the list does
        window = min(remaining, 2 * window)  # more wide items than the first ones said


def _shifts(seg: np.ndarray) -> list[tuple[np.uint64, np.ndarray]]:
    """For each item width present (1, 2, 3, 5, 9), the bytes of ``seg`` that would start such an item, as bits
    (bytes that start no integer count as 1: a walk steps over them)."""
    words = -(-seg.size // 64)
    long, low, high = (np.zeros(words * 8, dtype=np.uint8) for _ in range(3))  # bytes 24-27 or 56-59; bits 0, 1
    for start in range(0, seg.size, CHUNK):
        part = seg[start:start + CHUNK]
        at = slice(start // 8, start // 8 + -(-part.size // 8))
        long[at] = np.packbits(np.bitwise_and(part, _LONG_MASK) == _LONG, bitorder="little")
        low[at] = np.packbits(np.bitwise_and(part, _BIT0), bitorder="little")
        high[at] = np.packbits(np.bitwise_and(part, _BIT1), bitorder="little")
    starts, ones, twos = (bits.view(_WORD).astype(np.uint64) for bits in (long, low, high))
    shifts = [(np.uint64(1), ~starts)]  # bits past the end do no harm: walks only move on
    for step, pick in ((2, ~ones & ~twos), (3, ones & ~twos), (5, ~ones & twos), (9, ones & twos)):
        pick &= starts
        if pick.any():
            shifts.append((np.uint64(step), pick))
    return shifts


def _walk(reached: np.ndarray, shifts: list[tuple[np.uint64, np.ndarray]], steps: int) -> np.ndarray:
    """The places the walks at ``reached`` reach in ``steps`` more steps, and the list's first byte."""
    part, moved, following = (np.empty_like(reached) for _ in range(3))
    for _ in range(steps):
        following[:] = 0
        for step, mask in shifts:  # the walks on bytes that start an item of ``step`` bytes move ``step`` on
            np.bitwise_and(reached, mask, out=part)
            np.left_shift(part, step, out=moved)
            moved[1:] |= part[:-1] >> (_SIXTY_FOUR - step)
            following |= moved
        following[0] |= _FIRST
        reached, following = following, reached
    return reached


def _read_chain(seg: np.ndarray, reached: np.ndarray, count: int):
    """The first ``count`` integers of the items at ``reached`` and where they end, a chunk at a time; None for
    an item that is no integer or past int64; :data:`_OUT_OF_STEP` unless every item ends where the next one
    begins; :data:`_SHORT` when ``seg`` ends before the ``count``-th item does."""
    flags = reached.astype(_WORD).view(np.uint8)
    out = np.empty(count, dtype=np.int64)
    done = expect = 0  # items decoded, and where the next one must begin
    for start in range(0, seg.size, CHUNK):
        stop = min(start + CHUNK, seg.size)
        places = np.flatnonzero(np.unpackbits(flags[start // 8:-(-stop // 8)], count=stop - start,
                                              bitorder="little").view(bool))[:count - done]
        if not places.size:
            continue
        part = seg[start:stop + 8]
        heads = part.take(places).astype(np.intp)
        widths = _WIDTH.take(heads)
        ends = places + widths  # an item that is no integer (width 0) ends where it begins: out of step too
        if places[0] + start != expect or not np.array_equal(ends[:-1], places[1:]) or not widths[-1]:
            return None if _no_integer(places, heads, widths) else _OUT_OF_STEP
        expect = int(ends[-1]) + start
        if _decode(out[done:done + places.size], part, places, heads, widths) is None:
            return None
        done += places.size
        if done == count:
            return _SHORT if expect > seg.size else (out, expect)
    return _SHORT


def _no_integer(places: np.ndarray, heads: np.ndarray, widths: np.ndarray) -> bool:
    """True when the items at ``places`` follow each other, stepping over a byte that starts no integer as a
    walk does, and one of them is not an integer: no list of integers, whatever more steps find."""
    return bool(np.array_equal(places[:-1] + _STEP.take(heads[:-1]), places[1:]) and not widths.all())


def _decode(out: np.ndarray, part: np.ndarray, places: np.ndarray, heads: np.ndarray, widths: np.ndarray
            ) -> np.ndarray | None:
    """The integers of items at ``places`` in ``part``, into ``out``: those of up to 3 bytes (values below
    65,536) from the 4 bytes at each place, then the rest. Bytes past ``part`` read as 0 (the caller refuses
    an item cut short)."""
    padded = np.zeros(part.size + 4, dtype=np.uint8)
    padded[:part.size] = part
    quads = np.ndarray((part.size,), dtype=">u4", buffer=padded, strides=(1,))  # the 4 bytes from each byte
    values = quads.take(places).astype(np.uint32)
    values >>= _SHIFT.take(heads)
    values &= _MASK.take(heads)
    out[:] = values
    if widths.max() > 3:
        for size in (5, 9):
            chosen = np.flatnonzero(widths == size)
            if chosen.size:
                magnitudes = _magnitudes(padded, places[chosen], size)
                if magnitudes is None:
                    return None
                out[chosen] = magnitudes
    return _signed(out, heads)
