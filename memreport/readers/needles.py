"""Every occurrence of a few byte needles in a buffer, found by their rarest bytes (numpy or memchr).

``bytes.find`` runs at about 2.5 GB/s per needle, and a scan for nine
needles pays that nine times. Each needle holds a byte that is rare in
the text searched (measured on it, not guessed), so the occurrences of
that byte are found first, all at once: with ``memchr`` (``bytes.find`` of
one byte, over 10 GB/s) while it is rare enough, or else with one numpy
comparison of the window; the needle's other bytes are then checked at
those places only, vectorised. Needles that share their rarest byte share
its pass. The result is exact: the same occurrences ``bytes.find`` finds.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MEMCHR_MAX = 256            # occurrences per window of a byte searched with memchr (else numpy)
PAIR_BLOCK = 1 << 18        # bytes searched for pairs at once (even)
PAIR_PASS_COST = 2000       # a pair's pass costs about as much as checking this many more places, per MiB
RESAMPLE_WINDOWS = 64       # the byte counts that choose the anchors are taken again after this many windows


class NeedleSearch:
    """Finds ``needles`` in successive windows of text (:meth:`occurrences`), adapting to the text's bytes.

    Each needle is anchored on one byte that is rare in the window (found
    with memchr), else on its two rarest adjacent bytes. Every pair is
    looked for in one sweep: the window read as 16-bit words at even and
    at odd offsets, one comparison per pair into preallocated masks (numpy
    temporaries of a megabyte cost page faults each time), and one
    ``nonzero`` for all. Needles with the same anchor share it.
    """

    def __init__(self, needles: Sequence[bytes]) -> None:
        self.needles = [bytes(n) for n in dict.fromkeys(needles) if n]
        self.counts = np.zeros(256, np.int64)       # byte counts of the last window sampled
        self.pair_counts = np.zeros(0, np.int64)   # ... and of byte pairs (first byte low), when needed
        self.seen: dict[bytes, int] = {}            # single-byte anchor -> its occurrences in the last window
        self.plan: dict[bytes, list[tuple[bytes, int]]] = {}
        self.windows = 0
        self._odd = bytearray()                     # the window shifted by one byte (16-bit words at odd offsets)
        self._masks = np.zeros((3, 0), bool)        # even hits, odd hits, a comparison

    def _choose(self, size: int) -> None:
        """Each needle's anchor: its rarest byte if memchr can find it cheaply, else a pair of its bytes, chosen
        so that few pairs serve all needles (a pass per pair costs about :data:`PAIR_PASS_COST` places to
        check per MiB): greedily, the pair that serves the most needles left for the least cost."""
        plan: dict[bytes, list[tuple[bytes, int]]] = {}
        counts, pairs = self.counts, self.pair_counts
        left = []
        for needle in self.needles:
            k = min(range(len(needle)), key=lambda j: counts[needle[j]])
            if counts[needle[k]] <= MEMCHR_MAX or len(needle) == 1:
                plan.setdefault(needle[k:k + 1], []).append((needle, k))
            else:
                left.append(needle)
        pass_cost = PAIR_PASS_COST * size / (1 << 20)
        while left:
            serves: dict[bytes, list[tuple[bytes, int]]] = {}
            for needle in left:
                for k in range(len(needle) - 1):
                    serves.setdefault(needle[k:k + 2], [])
                    if not any(n == needle for n, _ in serves[needle[k:k + 2]]):
                        serves[needle[k:k + 2]].append((needle, k))
            best = max(serves, key=lambda p: (len(serves[p]) / (pass_cost + pairs[p[0] | p[1] << 8] *
                                                                  len(serves[p])), -pairs[p[0] | p[1] << 8]))
            plan[best] = serves[best]
            left = [n for n in left if all(n != m for m, _ in serves[best])]
        self.plan = plan

    def occurrences(self, buf: bytearray, stop: int) -> np.ndarray:
        """The sorted start offsets of every needle occurrence that lies wholly in ``buf[:stop]``."""
        if not self.needles or stop <= 0:
            return np.zeros(0, np.int64)
        data = np.frombuffer(buf, np.uint8, stop)
        if self.windows % RESAMPLE_WINDOWS == 0:
            self.counts = byte_counts(data)
            if any(min(self.counts[b] for b in n) > MEMCHR_MAX for n in self.needles):
                self.pair_counts = pair_counts(buf, stop)
            self._choose(stop)
        self.windows += 1
        pairs = [anchor for anchor in self.plan if len(anchor) == 2]
        at_pairs = self._pairs(buf, pairs, stop) if pairs and stop > 1 else np.zeros(0, np.int64)
        codes = data[at_pairs] | (data[at_pairs + 1].astype(np.uint16) << 8) if at_pairs.size else at_pairs
        found = []
        for anchor, group in self.plan.items():
            if len(anchor) == 2:
                at = at_pairs[codes == (anchor[0] | anchor[1] << 8)]
            else:
                at = self._bytes(buf, data, anchor, stop)
            for needle, k in group:
                hits = _verify(data, at - k, needle, stop)
                if hits.size:
                    found.append(hits)
        if not found:
            return np.zeros(0, np.int64)
        hits = np.sort(np.concatenate(found))  # pairs are found at even offsets, then at odd ones
        return hits[np.concatenate(([True], hits[1:] != hits[:-1]))]  # two needles at one offset: once

    def _pairs(self, buf: bytearray, pairs: list[bytes], stop: int) -> np.ndarray:
        """Where any of ``pairs`` (two bytes each) starts in ``buf[:stop]``, in no particular order.

        A block of :data:`PAIR_BLOCK` bytes at a time: its masks stay in the CPU's cache.
        """
        if not len(self._odd):
            self._odd = bytearray(PAIR_BLOCK + 1)
            self._masks = np.zeros((3, PAIR_BLOCK // 2 + 1), bool)
        words = [pair[0] | pair[1] << 8 for pair in pairs]
        view = memoryview(buf)
        out = []
        for base in range(0, stop - 1, PAIR_BLOCK):
            end = min(base + PAIR_BLOCK + 1, stop)  # the pairs that start at base .. end - 2
            self._odd[:end - base - 1] = view[base + 1:end]
            even = np.frombuffer(buf, np.uint16, (end - base) // 2, base)
            odd = np.frombuffer(self._odd, np.uint16, (end - base - 1) // 2)
            hit_even, hit_odd, scratch = self._masks[0, :even.size], self._masks[1, :odd.size], self._masks[2]
            np.equal(even, words[0], out=hit_even)
            np.equal(odd, words[0], out=hit_odd)
            for word in words[1:]:
                hit_even |= np.equal(even, word, out=scratch[:even.size])
                hit_odd |= np.equal(odd, word, out=scratch[:odd.size])
            out += [np.flatnonzero(hit_even) * 2 + base, np.flatnonzero(hit_odd) * 2 + (base + 1)]
        return np.concatenate(out)

    def _bytes(self, buf: bytearray, data: np.ndarray, anchor: bytes, stop: int) -> np.ndarray:
        """Where the byte ``anchor`` is in ``buf[:stop]``: memchr while it was rare in the last window, else numpy."""
        byte = anchor[0]
        if self.seen.get(anchor, 0) <= MEMCHR_MAX:
            out = []
            at = buf.find(anchor, 0, stop)
            while at >= 0:
                out.append(at)
                if len(out) > MEMCHR_MAX:  # commoner than it was: the rest at once
                    rest = np.flatnonzero(data[at + 1:] == byte) + (at + 1)
                    positions = np.concatenate([np.array(out, np.int64), rest])
                    self.seen[anchor] = positions.size
                    return positions
                at = buf.find(anchor, at + 1, stop)
            self.seen[anchor] = len(out)
            return np.array(out, np.int64)
        positions = np.flatnonzero(data == byte)
        self.seen[anchor] = positions.size
        return positions


def byte_counts(data: np.ndarray, step: int = 1 << 16) -> np.ndarray:
    """How many times each byte value is in ``data`` (a piece at a time: bincount widens each byte to 8)."""
    counts = np.zeros(256, np.int64)
    for at in range(0, data.size, step):
        counts += np.bincount(data[at:at + step], minlength=256)
    return counts


def pair_counts(buf: bytearray, stop: int, step: int = 1 << 15) -> np.ndarray:
    """How many times each pair of adjacent bytes (first byte low) is in ``buf[:stop]``."""
    counts = np.zeros(1 << 16, np.int64)
    for start in (0, 1):
        words = np.frombuffer(buf, np.uint16, (stop - start) // 2, start)
        for at in range(0, words.size, step):
            counts += np.bincount(words[at:at + step], minlength=1 << 16)
    return counts


def _verify(data: np.ndarray, starts: np.ndarray, needle: bytes, stop: int) -> np.ndarray:
    """Those of ``starts`` where all of ``needle`` is."""
    starts = starts[(starts >= 0) & (starts <= stop - len(needle))]
    for j in range(len(needle)):
        if not starts.size:
            break
        starts = starts[data[starts + j] == needle[j]]
    return starts
