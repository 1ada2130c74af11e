"""The synthetic log writer: sizes, line prefixes and message wrappers as the formats notes give them."""
from __future__ import annotations

import io

from tests.synth import logs


def test_filler_is_whole_lines_of_at_least_the_size_asked():
    data = b"".join(logs.Filler(3_000_000, 1).chunks())
    assert len(data) >= 3_000_000 and data.endswith(b"\n")
    assert data == b"".join(logs.Filler(3_000_000, 1).chunks())  # seeded
    assert b"[1,0]<stdout>:[INFO] loss: 6.7508," in data and b"POPRUN [D]" in data


def test_write_log_streams_parts_to_a_file():
    out = io.BytesIO()
    written = logs.write_log(out, ["a\n", logs.Filler(10, 2), "z\n"])
    assert written == len(out.getvalue()) and out.getvalue().startswith(b"a\n") and out.getvalue().endswith(b"z\n")


def test_every_line_gets_its_prefix():
    assert logs.tagged("Target:\n  Total Tiles: 4\n", 1, "stderr") == \
        "[1,1]<stderr>:Target:\n[1,1]<stderr>:  Total Tiles: 4\n"
    assert logs.poprun_logged("a\nb\n") == "10:10:50.000 1 POPRUN [D] a\n10:10:50.001 1 POPRUN [D] b\n"
    assert logs.ci_timestamped("a\n") == "2023-08-22T23:49:00.0000000Z a\n"
    assert logs.interleave("a\nb\nc\n", "1\n") == "a\n1\nb\nc\n"
    assert logs.indented("x\n\ny\n", "\t") == "\tx\n\n\ty\n"
    assert logs.line_of("a\nb\na\n", "a", 1) == 3


def test_messages_as_poplar_prints_them():
    assert logs.tile_memory_message(0, 876476, 638976) == \
        "Out of memory on tile 0: 876476 bytes used but tiles only have 638976 bytes of memory"
    assert logs.cpp_terminate("m", "") == \
        "terminate called after throwing an instance of 'poplar::graph_memory_allocation_error'\nwhat():  m\n"
    assert logs.popart_error("m") == "2023-06-29T16:15:26.865392Z popart:devicex 79.79 E: Memory allocation error : m\n"
