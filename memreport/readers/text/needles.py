"""Every occurrence of a few byte needles in a buffer, found by their rarest bytes (numpy or memchr).

``bytes.find`` runs at about 2.5 GB/s per needle, and a scan for nine
needles pays that nine times. Each needle is anchored on what is rare in
the text searched (measured on it, not guessed): a byte rare enough for
``memchr`` (``bytes.find`` of one byte, over 10 GB/s), else three adjacent
bytes, looked for as their two 16-bit words at even offsets only (one of
them starts at an even offset wherever the three bytes are), with one numpy
comparison of the window's words per word. The needle's other bytes are
then checked at those few places only, vectorised. Needles that share an
anchor (or a word) share its pass. The result is exact: the same
occurrences ``bytes.find`` finds.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MEMCHR_MAX = 256            # occurrences per window of a byte searched with memchr (else numpy)
PAIR_BLOCK = 1 << 18        # bytes whose words are compared at once (even)
WORD_PASS_COST = 1000       # a word's pass costs about as much as checking this many more places, per MiB
RESAMPLE_WINDOWS = 64       # the byte counts that choose the anchors are taken again after this many windows
SAMPLE_BYTES = 1 << 18      # ... on this much of the window
FEW = 16                    # places where a needle may be that are checked one by one (not vectorised)


class NeedleSearch:
    """Finds ``needles`` in successive windows of text (:meth:`occurrences`), adapting to the text's bytes.

    Each needle is anchored on one byte that is rare in the window (found
    with memchr), else on three of its adjacent bytes, ``abc``: wherever
    they are, either the word ``ab`` or the word ``bc`` starts at an even
    offset, so reading the window as 16-bit words (no copy) and comparing
    them with both finds every place the needle may be. All words are
    compared in one sweep, each into a preallocated mask (numpy temporaries
    of a megabyte cost page faults each time) ORed into one, with one
    ``nonzero`` for all. Needles with the same anchor or words share them.
    """

    def __init__(self, needles: Sequence[bytes]) -> None:
        self.needles = [bytes(n) for n in dict.fromkeys(needles) if n]
        self.counts = np.zeros(256, np.int64)       # byte counts of the last window sampled (per window)
        self.pair_counts = np.zeros(0, np.int64)   # ... and of byte pairs (first byte low), when needed
        self.seen: dict[bytes, int] = {}            # single-byte anchor -> its occurrences in the last window
        self.plan: dict[bytes, list[tuple[bytes, int]]] = {}  # anchor (1 or 3 bytes) -> (needle, its offset)
        self.words: list[int] = []                  # the 16-bit words the three-byte anchors need
        self._word_arrays: list[np.ndarray] = []
        self.windows = 0
        self._masks = np.zeros((2, 0), bool)        # words found, a comparison
        self._slots = np.zeros(0, np.uint16)        # each 16-bit word's index in self.words

    def _choose(self, size: int) -> None:
        """Each needle's anchor: its rarest byte if memchr can find it cheaply (or the needle is too short for
        three bytes), else three adjacent bytes, chosen so that few words serve all needles (a pass per word
        costs about :data:`WORD_PASS_COST` places to check per MiB): greedily, the anchor that serves the most
        needles left for the least cost."""
        plan: dict[bytes, list[tuple[bytes, int]]] = {}
        counts, pairs = self.counts, self.pair_counts
        left = []
        for needle in self.needles:
            k = min(range(len(needle)), key=lambda j: counts[needle[j]])
            if counts[needle[k]] <= MEMCHR_MAX or len(needle) < 3:
                plan.setdefault(needle[k:k + 1], []).append((needle, k))
            else:
                left.append(needle)
        pass_cost = WORD_PASS_COST * size / (1 << 20)
        words: list[int] = []
        while left:
            serves: dict[bytes, list[tuple[bytes, int]]] = {}
            for needle in left:
                for k in range(len(needle) - 2):
                    group = serves.setdefault(needle[k:k + 3], [])
                    if not any(n == needle for n, _ in group):
                        group.append((needle, k))
            costs = {tri: _cost(tri, len(group), words, pairs, pass_cost) for tri, group in serves.items()}
            best = max(serves, key=lambda t: (len(serves[t]) / (costs[t] + 1e-9), -costs[t]))
            plan[best] = serves[best]
            words += [w for w in dict.fromkeys((_word(best[:2]), _word(best[1:]))) if w not in words]
            left = [n for n in left if all(n != m for m, _ in serves[best])]
        self.plan, self.words = plan, words
        self._word_arrays = [np.array(w, "<u2") for w in words]  # as arrays: a Python int costs numpy 1 us a call
        self._slots = np.zeros(1 << 16, np.uint16)
        self._slots[words] = np.arange(len(words))

    def occurrences(self, buf: bytearray, stop: int) -> np.ndarray:
        """The sorted start offsets of every needle occurrence that lies wholly in ``buf[:stop]``."""
        if not self.needles or stop <= 0:
            return np.zeros(0, np.int64)
        data = np.frombuffer(buf, np.uint8, stop)
        if self.windows % RESAMPLE_WINDOWS == 0:
            sample = min(stop, SAMPLE_BYTES)
            self.counts = byte_counts(data[:sample]) * stop // sample
            if any(min(self.counts[b] for b in n) > MEMCHR_MAX for n in self.needles):
                self.pair_counts = pair_counts(buf, sample) * stop // sample
            self._choose(stop)
        self.windows += 1
        at_words = self._words(buf, stop) if self.words and stop > 1 else np.zeros(0, np.int64)
        by_word: list[np.ndarray] = []
        if at_words.size:  # the offsets of each word's hits, all at once: sorted by the word's index in self.words
            slots = self._slots[np.frombuffer(buf, "<u2", stop // 2)[at_words]]
            bounds = np.cumsum(np.bincount(slots, minlength=len(self.words)))
            by_word = np.split(2 * at_words[np.argsort(slots, kind="stable")], bounds[:-1].tolist())
        found = []
        for anchor, group in self.plan.items():
            if len(anchor) == 3:
                if not by_word:
                    continue
                at = _three(data, by_word[self.words.index(_word(anchor[:2]))],
                            by_word[self.words.index(_word(anchor[1:]))], anchor)
            else:
                at = self._bytes(buf, data, anchor, stop)
            for needle, k in group:
                hits = _verify(buf, data, at - k, needle, stop) if at.size else at
                if hits.size:
                    found.append(hits)
        if not found:
            return np.zeros(0, np.int64)
        hits = np.sort(np.concatenate(found))
        return hits[np.concatenate(([True], hits[1:] != hits[:-1]))]  # two needles at one offset: once

    def _words(self, buf: bytearray, stop: int) -> np.ndarray:
        """Which 16-bit words of ``buf[:stop]`` (the word ``j`` at offset ``2j``) are one of :attr:`words`.

        A block of :data:`PAIR_BLOCK` bytes at a time: its masks stay in the CPU's cache.
        """
        if not self._masks.shape[1]:
            self._masks = np.zeros((2, PAIR_BLOCK // 2), bool)
        words = self._word_arrays
        out = []
        for base in range(0, stop - 1, PAIR_BLOCK):
            n = (min(base + PAIR_BLOCK, stop) - base) // 2
            even = np.frombuffer(buf, "<u2", n, base)
            hit, scratch = self._masks[0, :n], self._masks[1, :n]
            np.equal(even, words[0], out=hit)
            for word in words[1:]:
                hit |= np.equal(even, word, out=scratch)
            out.append(hit.nonzero()[0] + base // 2)
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
        words = np.frombuffer(buf, "<u2", (stop - start) // 2, start)
        for at in range(0, words.size, step):
            counts += np.bincount(words[at:at + step], minlength=1 << 16)
    return counts


def _cost(tri: bytes, needles: int, words: list[int], pairs: np.ndarray, pass_cost: float) -> float:
    """What anchoring ``needles`` needles on the three bytes ``tri`` costs, in places checked: a pass for each
    of its two words not yet compared, and each needle checked where either word is at an even offset."""
    first, second = _word(tri[:2]), _word(tri[1:])
    new = len({first, second} - set(words))
    return pass_cost * new + (pairs[first] + pairs[second]) / 2 * needles


def _word(pair: bytes) -> int:
    """Two bytes as the 16-bit word numpy reads (little-endian: the first byte low)."""
    return pair[0] | pair[1] << 8


def _three(data: np.ndarray, first: np.ndarray, second: np.ndarray, anchor: bytes) -> np.ndarray:
    """Where the three bytes ``anchor`` may start, given where its first word starts (``first``) and where its
    second does (``second``): their third byte, or the byte before, checked. Offsets within a byte of the
    window's edges may be wrong (the bytes read there are clipped): the caller checks those."""
    if first.size:
        first = first[data.take(first + 2, mode="clip") == anchor[2]]
    if second.size:
        second = second[data.take(second - 1, mode="clip") == anchor[0]] - 1
    return np.concatenate((first, second))


def _verify(buf: bytearray, data: np.ndarray, starts: np.ndarray, needle: bytes, stop: int) -> np.ndarray:
    """Those of ``starts`` where all of ``needle`` is, in ``buf[:stop]`` (``data``): few are checked one by one."""
    starts = starts[(starts >= 0) & (starts <= stop - len(needle))]
    if starts.size <= FEW:
        return np.array([at for at in starts.tolist() if buf.startswith(needle, at)], np.int64)
    for j in range(len(needle)):
        if not starts.size:
            break
        starts = starts[data[starts + j] == needle[j]]
    return starts
