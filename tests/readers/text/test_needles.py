"""The needle search: exactly the occurrences bytes.find finds, whichever way each needle's anchor is searched."""
from __future__ import annotations

import random

import numpy as np
import pytest

from memreport.readers.text import needles as needles_module
from memreport.readers.text.needles import NeedleSearch, byte_counts


def plain(buf: bytes, needles: list[bytes], stop: int) -> list[int]:
    """The oracle: every start offset of every needle in ``buf[:stop]``, overlapping ones too, by bytes.find."""
    out = set()
    for needle in needles:
        at = buf.find(needle, 0, stop)
        while at >= 0:
            out.add(at)
            at = buf.find(needle, at + 1, stop)
    return sorted(out)


def windows(search: NeedleSearch, chunks: list[bytes], spare: int = 0) -> list[list[int]]:
    """Each chunk searched as a window of a reused buffer (``spare`` stale bytes after it, not to be found)."""
    buf = bytearray(max(len(c) for c in chunks) + spare)
    out = []
    for chunk in chunks:
        buf[:] = b"\x00" * len(buf)
        buf[:len(chunk)] = chunk
        buf[len(chunk):] = (b"hash " * len(buf))[:len(buf) - len(chunk)]  # stale text after the stop
        out.append(search.occurrences(buf, len(chunk)).tolist())
    return out


COMPILE_NEEDLES = [b"ing phase: ", b" ms; user ", b" compil", b"xecutable", b"Loaded ", b"has been ", b" hash ",
                   b"CACHE_DIR", b"Target info"]


@pytest.mark.parametrize("seed", range(6))
def test_every_occurrence_in_every_window_is_found(seed):
    rng = random.Random(seed)
    words = [b"Starting phase: x", b"Ending phase: y", b"real 1 ms; user 2 ms", b"Begin XLA compilation", b"hash",
             b" hash ", b"xecutable", b"executable cache", b"Loaded c", b"has been saved", b"CACHE_DIR", b"Target",
             b"Target info", b"aaaa", b"e", b"\n", b"\r\n", b"\xff\xfe", b"the", b" "]
    chunks = [b"".join(rng.choice(words) for _ in range(rng.randrange(0, 400))) for _ in range(150)]
    search = NeedleSearch(COMPILE_NEEDLES)
    assert windows(search, chunks, spare=64) == [plain(c, COMPILE_NEEDLES, len(c)) for c in chunks]


def test_needles_at_the_window_edges_overlapping_and_repeated():
    needles = [b"aa", b"aba", b"b", b"ab"]
    chunks = [b"aaaa", b"ababa", b"b", b"", b"aab", b"ba" * 300 + b"a"]
    assert windows(NeedleSearch(needles), chunks, spare=3) == [plain(c, needles, len(c)) for c in chunks]


def test_a_byte_rare_at_first_then_common_is_still_found_everywhere(monkeypatch):
    """memchr serves a rare anchor; when the byte turns common mid-window the rest is found at once (numpy),
    and the next windows use numpy until it is rare again."""
    monkeypatch.setattr(needles_module, "MEMCHR_MAX", 8)
    needles = [b";x", b"q;"]
    chunks = [b"ab;x" * 2 + b"cd" * 50, b"ab;xq;" * 40, b"q;" * 3 + b"ab" * 30, b"zz" * 10, b";x q;" * 2]
    search = NeedleSearch(needles)
    assert windows(search, chunks) == [plain(c, needles, len(c)) for c in chunks]


def test_anchors_follow_the_text_when_it_changes(monkeypatch):
    """The byte counts that choose anchors are taken again every few windows: a needle's rare byte that
    becomes common (and a common one that becomes rare) changes how it is searched, not what is found."""
    monkeypatch.setattr(needles_module, "RESAMPLE_WINDOWS", 2)
    monkeypatch.setattr(needles_module, "MEMCHR_MAX", 4)
    needles = [b"Loaded ", b"CACHE_DIR"]
    chunks = [b"Loaded x CACHE_DIR " * 20, b"LLLL Loaded " * 30, b"_" * 100 + b"CACHE_DIR", b"o " * 200,
              b"LoadedLoaded CACHE_DIRCACHE_DIR"]
    search = NeedleSearch(needles)
    assert windows(search, chunks) == [plain(c, needles, len(c)) for c in chunks]
    assert search.windows == len(chunks)


def test_no_needles_and_empty_windows():
    assert NeedleSearch([b"", b""]).occurrences(bytearray(b"abc"), 3).tolist() == []
    assert NeedleSearch([b"a"]).occurrences(bytearray(b"abc"), 0).tolist() == []
    assert NeedleSearch([b"a", b"a"]).needles == [b"a"]


def test_byte_counts_is_bincount():
    data = np.frombuffer(bytes(range(256)) * 3 + b"\n" * 70_000, np.uint8)
    assert byte_counts(data).tolist() == np.bincount(data, minlength=256).tolist()


def test_one_needle_anchored_on_three_bytes_is_found_in_order(monkeypatch):
    """A needle whose bytes are all common is anchored on three of its bytes, found by their first word at
    even offsets and by their second word at even offsets: the occurrences still come back sorted (the line
    scan relies on it)."""
    monkeypatch.setattr(needles_module, "MEMCHR_MAX", 2)
    chunk = b"memory Memory emory xemory\nmemory" * 40 + b"emor"
    search = NeedleSearch([b"emory"])
    got = windows(search, [chunk, chunk[1:]])
    assert got == [plain(chunk, [b"emory"], len(chunk)), plain(chunk[1:], [b"emory"], len(chunk) - 1)]
    assert all(len(anchor) == 3 for anchor in search.plan)


@pytest.mark.parametrize("block", [2, 4, 6, 16])
@pytest.mark.parametrize("few", [0, 10**9])
def test_needles_across_every_block_edge_and_at_both_window_edges(monkeypatch, block, few):
    """The words are compared a block at a time: a needle across any block edge, at the very start of the
    window (its first word at offset 0 or its second there, the byte before it outside), or ending at the
    window's last byte (stale text after it), is found; the places are checked one by one or vectorised."""
    monkeypatch.setattr(needles_module, "PAIR_BLOCK", block)
    monkeypatch.setattr(needles_module, "MEMCHR_MAX", 0)  # every needle of three bytes or more on its words
    monkeypatch.setattr(needles_module, "FEW", few)
    needles = [b"abc", b"xyzw", b"bcd", b"q"]
    chunks = [b"abc", b"bc", b"xabc", b"abcd", b"bcdab", b"xyzwxyzw", b"zabcabca", b"a", b"",
              b"cd" + b"abc" * 7 + b"xyzw", b"abcxyzwbcdq" * 3]
    chunks += [b"." * n + b"abc" + b"." * m for n in range(6) for m in range(6)]
    search = NeedleSearch(needles)
    assert windows(search, chunks, spare=5) == [plain(c, needles, len(c)) for c in chunks]
    assert {len(anchor) for anchor in search.plan} == {1, 3}


def test_words_shared_by_several_needles_and_three_byte_anchors_repeating_a_word(monkeypatch):
    """'has' serves three needles with two words (when a word's pass costs more than its places to check);
    'aaa' is one word twice ('aa' at even and odd offsets)."""
    monkeypatch.setattr(needles_module, "MEMCHR_MAX", 0)
    monkeypatch.setattr(needles_module, "WORD_PASS_COST", 10**9)
    needles = [b"ing phase: ", b"has been ", b" hash ", b"aaaa"]
    chunks = [b"Starting phase: 1 has been saved; hash hash  hash x", b"aaaaaaa", b"haaaa has", b"x aaaa hash "]
    search = NeedleSearch(needles)
    assert windows(search, chunks, spare=3) == [plain(c, needles, len(c)) for c in chunks]
    assert b"has" in search.plan and len(search.plan[b"has"]) == 3
