"""Compressed inputs (memreport/readers/compressed.py): the head a file is sniffed by, as the stream reads it."""
from __future__ import annotations

import io

import pytest

from memreport.readers import compressed
from tests.synth.logs import COMPRESSIONS, pack

TEXT = b"".join(b"%05d step done\n" % k for k in range(1_000))  # 16,000 bytes: more than a head


def heads(data: bytes, size: int = 4096) -> tuple[bytes, bytes]:
    """The head of ``data`` given as its first bytes (4 KiB, as sniffed) and as a file open at its start."""
    return compressed.head(data[:4096], size), compressed.head(io.BytesIO(data), size)


@pytest.mark.parametrize("kind", COMPRESSIONS)
def test_an_empty_first_member_or_stream_is_gone_past(kind):
    """``: | gzip >> job.log.gz`` (a step that printed nothing), then the real output appended: the file starts
    with an empty member (xz, bz2: an empty stream; zstd: an empty frame). The head was b"" (the decoder stopped
    at the first member's end), and the log was refused as "nothing of it decompresses"."""
    data = pack(kind, b"") + pack(kind, TEXT)
    assert compressed.kind(data) == kind
    assert len(data) < 4096 and heads(data) == (TEXT[:4096], TEXT[:4096])
    assert compressed.head(io.BytesIO(pack(kind, b"") * 3 + pack(kind, TEXT)), 100) == TEXT[:100]


def test_a_small_gzip_file_with_a_bad_crc_keeps_its_text():
    """Under 4 KiB the whole member is decompressed at once, and zlib's CRC error took its output with it:
    the head is the text, as the stream reader (which notes the damage) reads it."""
    data = bytearray(pack("gzip", TEXT[:2_000]))
    data[-8] ^= 1  # the CRC-32 in the trailer
    assert len(data) < 4096
    assert heads(bytes(data)) == (TEXT[:2_000], TEXT[:2_000])
    cut = pack("xz", TEXT)[:-40]  # no end of stream: what came out before it is kept too
    assert heads(cut, 100) == (TEXT[:100], TEXT[:100])


def test_the_head_is_bounded_by_what_it_is_asked_and_by_its_input(monkeypatch):
    """A bomb (10 MB of zeros in 10 KB) gives the bytes asked for; no more than
    :data:`~memreport.readers.compressed.HEAD_INPUT` compressed bytes are read (64 KiB here): a text whose first
    member starts past it is not found (a file of empty members only, say)."""
    monkeypatch.setattr(compressed, "HEAD_INPUT", 1 << 16)
    bomb = pack("gzip", bytes(10_000_000))
    assert compressed.head(io.BytesIO(bomb), 4096) == bytes(4096)
    source = io.BytesIO(pack("bz2", b"") + pack("bz2", TEXT * 20))
    assert compressed.head(source, 4096) == TEXT[:4096]
    assert source.tell() <= 1 << 16
    late = io.BytesIO(pack("gzip", b"") * ((1 << 16) // 20 + 1) + pack("gzip", TEXT))
    assert compressed.head(late, 4096) == b""
    assert late.tell() == 1 << 16
