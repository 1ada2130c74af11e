"""The inside of a JSON list of integers decoded by numpy, eight bytes an item (RFC 8259 §6).

``np.fromstring(sep=",")`` took some 30 ns an item and needed checks
around it (whitespace removed with ``bytes.translate``, counted with
``bytes.count``: a few ns a byte each), as long as orjson for a spaced
profile. Here the items are read together (:data:`CHUNK` bytes of the
list at a time): an item's digits end at its comma, so the eight bytes before the comma, loaded as one little-endian
64-bit word, hold its last eight digits at the top. The bytes that are not
digits are found with one add and a mask; the highest of them tells how
many digits there are (its bit position, from a float conversion); those
below become zeros and three multiply-shift steps add the digits up (the
SWAR reading of eight ASCII digits). Longer numbers take more words.

Strict: an item is optional whitespace, an optional minus and its digits,
directly followed by its comma (or by whitespace at the list's end). Every
byte must be an item's digit, a comma, whitespace or a minus just before
its item's digits (counted: a digit split off by whitespace, "1 2", is
left over). No leading zero ("07"), no "-0" (a float to some decoders), at
most 18 digits. Valid JSON written otherwise ("1 ,2", a huge number) is
declined too: the ordinary decoder reads it.
"""
from __future__ import annotations

import numpy as np

WHITESPACE = b" \t\n\r"  # JSON's whitespace
MAX_DIGITS = 18  # 10**18 - 1 fits int64 with room to spare; longer numbers go to the reference decoder
CHUNK = 1 << 15  # bytes parsed at once (cut after a comma): some 16,000 items at most, so each temporary (8 bytes an
#                   item) stays below glibc's 128 KiB mmap threshold and is reused, not faulted in afresh
_ZERO, _COMMA, _MINUS = ord("0"), ord(","), ord("-")
_U64 = np.uint64
_HIGH, _ZEROS, _SEVENTY_SIXES = _U64(0x8080808080808080), _U64(0x3030303030303030), _U64(0x7676767676767676)
_LOW_NIBBLES = _U64(0x0F0F0F0F0F0F0F0F)


def int_list(body: bytes) -> tuple[np.ndarray, bool] | None:
    """The integers of a JSON list's inside as int64, and whether any is negative; None unless every item is
    as the module says."""
    stop = len(body.rstrip(WHITESPACE))
    if not stop or not body.isascii():  # empty; or bytes the word arithmetic cannot take
        return None
    raw = np.frombuffer(body, dtype=np.uint8)
    words = np.ndarray((max(len(body) - 7, 0),), dtype="<u8", buffer=body, strides=(1,))  # 8 bytes from each
    spaces = [c for c in WHITESPACE if bytes((c,)) in body]  # the kinds to count, found once
    minus = b"-" in body
    parts = []
    negative = False
    at = 0
    while at < stop:
        end = body.find(b",", at + CHUNK, stop) + 1 if stop - at > CHUNK else 0
        end = end or stop
        found = _chunk(body, raw, words, at, end, end == stop, spaces, minus)
        if found is None:
            return None
        parts.append(found[0])
        negative |= found[1]
        at = end
    return (parts[0] if len(parts) == 1 else np.concatenate(parts)), negative


def _chunk(body: bytes, raw: np.ndarray, words: np.ndarray, start: int, stop: int, last: bool, kinds: list[int],
           minus_sign: bool) -> tuple[np.ndarray, bool] | None:
    """The integers of ``body[start:stop]`` (whole items, each with its comma but the list's last); ``kinds``:
    the whitespace bytes in ``body``, ``minus_sign``: whether it holds a "-"."""
    part = raw[start:stop]
    ends = np.flatnonzero(part == _COMMA)
    commas = ends.size
    if last:
        ends = np.append(ends, stop - start)
    ends += start  # each item's digits end here
    found = _numbers(body, words, ends, 2)
    if found is None:
        return None
    values, lengths = found
    spaces = sum(int(np.count_nonzero(part == c)) for c in kinds)
    minus = int(np.count_nonzero(part == _MINUS)) if minus_sign else 0
    if int(lengths.sum()) + commas + spaces + minus != stop - start:
        return None  # a byte that is no item's digit, comma, whitespace or minus ("1 2", "+1", "1.5", "true")
    firsts = ends - lengths
    first_zero = raw[firsts] == _ZERO
    if int(lengths.max()) > 1 and (first_zero & (lengths > 1)).any():
        return None  # a leading zero
    signed = values.view(np.int64)
    if not minus:
        return signed, False
    negative = raw[np.maximum(firsts - 1, 0)] == _MINUS
    negative &= firsts > 0
    if int(np.count_nonzero(negative)) != minus or (negative & first_zero).any():
        return None  # a minus not just before an item's digits, or "-0"
    np.negative(signed, out=signed, where=negative)
    return signed, True


def _numbers(body: bytes, words: np.ndarray, ends: np.ndarray, more: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The numbers whose digits end before ``ends`` (ascending), as uint64, and how many digits each has;
    None if one has none (but past the first eight) or too many. ``more``: words still allowed before these."""
    if ends.size and ends[0] < 8:  # the list's first items: read from a copy with spaces before them
        early = int(np.searchsorted(ends, 8))
        padded = b" " * 8 + body[:16].ljust(16)
        head = np.ndarray((17,), dtype="<u8", buffer=padded, strides=(1,))[ends[:early]]
        word = np.concatenate((head, words[ends[early:] - 8]))
    else:
        word = words[ends - 8]
    values, lengths = _eight_digits(word)
    if more == 2 and int(lengths.min()) < 1:
        return None
    if int(lengths.max()) == 8:  # eight digits or more: the eight before them too
        longer = np.flatnonzero(lengths == 8)
        if not more:
            return None
        found = _numbers(body, words, ends[longer] - 8, more - 1)
        if found is None:
            return None
        values[longer] += found[0] * _U64(10 ** 8)
        lengths[longer] += found[1]
        if int(lengths.max()) > MAX_DIGITS:
            return None
    return values, lengths


def _eight_digits(word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The number in the top digit bytes of each little-endian ``word``, and how many there are (0 to 8)."""
    other = word ^ _ZEROS  # digits become 0 to 9; an ASCII byte that is not one, 10 to 127
    other += _SEVENTY_SIXES
    other &= _HIGH  # 0x80 in each byte that is not a digit
    _, shift = np.frexp(other.astype(np.float64))  # the highest such bit + 1 (a multiple of 8), or 0 for none
    shift = shift.astype(np.uint64)
    x = word >> shift
    x <<= shift  # the bytes before the digits dropped
    x &= _LOW_NIBBLES  # digits to their values (the dropped bytes 0: leading zeros)
    x *= _U64(10 << 8 | 1)  # three multiply-shift steps add neighbouring digits, then pairs, then quads
    x >>= _U64(8)
    x &= _U64(0x00FF00FF00FF00FF)
    x *= _U64(100 << 16 | 1)
    x >>= _U64(16)
    x &= _U64(0x0000FFFF0000FFFF)
    x *= _U64(10000 << 32 | 1)
    x >>= _U64(32)
    return x, 8 - (shift >> _U64(3)).astype(np.int64)


def digit_runs(body: bytes) -> int:
    """How many runs of digits ``body`` holds."""
    digit = (np.frombuffer(body, dtype=np.uint8) - np.uint8(_ZERO)) < 10  # a byte below "0" wraps past 9
    return int(digit[:1].sum()) + int(np.count_nonzero(digit[1:] > digit[:-1]))


def integers_at(body, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The JSON integers that fill exactly ``body[starts[i]:ends[i]]`` (``body`` any bytes-like buffer), as
    int64, and per item whether it is one: an optional minus and 1 to 18 digits, no leading zero, no "-0",
    as :func:`int_list` takes them. Items read eight digits at a time from the word ending at their end; one
    whose words would start before the buffer, or run past it, is refused (False), for the caller to read
    the ordinary way."""
    raw = np.frombuffer(body, dtype=np.uint8)
    starts, ends = np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)
    if raw.size < 8:  # not one word to read
        return np.zeros(starts.size, dtype=np.int64), np.zeros(starts.size, dtype=bool)
    words = np.ndarray((raw.size - 7,), dtype="<u8", buffer=body, strides=(1,))
    inside = (starts >= 0) & (starts < ends) & (ends <= raw.size)
    first = raw[np.where(inside, starts, 0)]
    negative = inside & (first == _MINUS)
    digits = starts + negative
    length = ends - digits
    ok = inside & (length >= 1) & (length <= MAX_DIGITS)
    ok &= ~((raw[np.minimum(digits, raw.size - 1)] == _ZERO) & ((length > 1) | negative))  # "07", "-0"
    values = np.zeros(starts.size, dtype=np.uint64)
    for k, scale in enumerate((_U64(1), _U64(10 ** 8), _U64(10 ** 16))):  # the last 8 digits, the 8 before, the rest
        take = np.clip(length - 8 * k, 0, 8)
        end = ends - 8 * k
        need = ok & (take > 0)
        if k and not need.any():  # no number this long
            break
        ok &= ~need | (end >= 8)  # a word from before the buffer's start: refused
        need &= ok
        word = words[np.where(need, end - 8, 0)]
        value, count = _eight_digits(word)
        ok &= ~need | (count == take)  # the digits are all there, and the byte before them is none (":", "-")
        values += np.where(need & ok, value, _U64(0)) * scale
    signed = values.view(np.int64)
    np.negative(signed, out=signed, where=negative)
    return signed, ok
