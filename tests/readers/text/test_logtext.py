"""Logs: the streamed needle scan against a plain reading, line numbers, long lines, encodings, line helpers."""
from __future__ import annotations

import contextlib
import itertools
import random

import numpy as np
import pytest

from memreport.errors import ReadError
from memreport.readers.text import logtext, needles
from memreport.readers.text.logtext import LogFile, Tag, clean, looks_like_text, split_tag, strip_progress_bar
from tests.synth.logs import pack


def plain_hits(data: bytes, needles: list[bytes]) -> list[tuple[int, int, str]]:
    """The oracle: split the whole text into lines and keep those holding a needle."""
    out, offset = [], 0
    for no, raw in enumerate(data.split(b"\n"), 1):
        if any(n in raw for n in needles) and (raw or offset < len(data)):
            out.append((no, offset, raw.decode("utf-8", "replace").rstrip("\r")))
        offset += len(raw) + 1
    return out


def found(path, needles) -> list[tuple[int, int, str]]:
    with LogFile(path) as log:
        return [(h.no, h.offset, h.text) for h in log.find(needles)]


@pytest.mark.parametrize("seed", range(8))
def test_the_chunked_scan_finds_what_a_plain_reading_finds(tmp_path, monkeypatch, seed):
    monkeypatch.setattr(logtext, "CHUNK_BYTES", 97)  # chunks end mid-line and mid-needle
    monkeypatch.setattr(logtext, "MAX_LINE_BYTES", 4096)
    rng = random.Random(seed)
    words = [b"memory", b"Memory Usage:", b"out of memory", b"x" * 150, b"\xc3\xa9t\xc3\xa9", b"", b"\r", b"emo"]
    lines = [b" ".join(rng.choice(words) for _ in range(rng.randrange(0, 6))) for _ in range(400)]
    data = b"\n".join(lines) + (b"\n" if seed % 2 else b"")
    path = tmp_path / "run.log"
    path.write_bytes(data)
    needles = [b"emory", b"Usage"]
    assert found(path, needles) == plain_hits(data, needles)


@pytest.mark.parametrize("memchr_max", [0, 10**9])
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_either_anchor_finds_what_a_plain_reading_finds_in_crlf_tagged_and_utf16_logs(tmp_path, monkeypatch,
                                                                                     memchr_max, encoding):
    """Needles anchored on byte pairs (numpy) or on single bytes (memchr) find the same lines, whatever the
    windows (ending mid-line), CRLF line ends, launcher tags glued to needles or a UTF-16 log."""
    monkeypatch.setattr(logtext, "CHUNK_BYTES", 101)
    monkeypatch.setattr(logtext, "MAX_LINE_BYTES", 4096)
    monkeypatch.setattr(needles, "MEMCHR_MAX", memchr_max)
    monkeypatch.setattr(needles, "RESAMPLE_WINDOWS", 3)
    rng = random.Random(7)
    words = ["[1,0]<stderr>:Starting phase: x", "[1,3]<stdout>:Memory Usage:", "Ending phase: y\r", "phase:",
             "ing phase: ", "emory", "Memory", "\u00e9t\u00e9", "x" * 120, "", "\x1b[32mMemory\x1b[0m"]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randrange(0, 5))) for _ in range(300)]
    text = "\r\n".join(lines) + "\r\n"
    path = tmp_path / "run.log"
    path.write_bytes(text.encode(encoding))
    wanted = [b"ing phase: ", b"emory", b"<stdout>:M"]
    assert found(path, wanted) == plain_hits(text.encode("utf-8"), wanted)


def test_line_numbers_and_offsets_are_exact(tmp_path):
    path = tmp_path / "run.log"
    path.write_bytes(b"a\r\nb memory\r\n\nc\nd memory usage\nmemory")
    with LogFile(path) as log:
        hits = list(log.find([b"memory"]))
        assert [(h.no, h.offset, h.text) for h in hits] == [(2, 3, "b memory"), (5, 16, "d memory usage"),
                                                           (6, 31, "memory")]
        assert [(ln.no, ln.text) for ln in log.lines(hits[1].offset, hits[1].no)] == [(5, "d memory usage"),
                                                                                     (6, "memory")]
        assert [ln.text for ln in log.lines()] == ["a", "b memory", "", "c", "d memory usage", "memory"]


def test_an_endless_line_is_cut_not_held_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(logtext, "CHUNK_BYTES", 64)
    monkeypatch.setattr(logtext, "MAX_LINE_BYTES", 256)
    path = tmp_path / "run.log"
    path.write_bytes(b"first memory\n" + b"y" * 5000 + b" memory\n" + b"last memory\n")
    hits = found(path, [b"memory"])
    assert hits[0] == (1, 0, "first memory") and hits[-1] == (3, 5021, "last memory")
    assert all(len(text) <= 256 for _, _, text in hits)
    with LogFile(path) as log:
        lines = list(log.lines())
    assert [(ln.no, len(ln.text)) for ln in lines] == [(1, 12), (2, 256), (3, 11)]


def test_utf16_is_read_as_text_and_a_utf8_bom_is_skipped(tmp_path):
    text = "Target:\r\n  Tiles per IPU: 1,472\r\nMemory Usage:\r\n"
    for name, data in (("le.txt", text.encode("utf-16")), ("be.txt", b"\xfe\xff" + text.encode("utf-16-be")),
                       ("bom.txt", b"\xef\xbb\xbf" + text.encode())):
        path = tmp_path / name
        path.write_bytes(data)
        assert looks_like_text(data[:4096])
        with LogFile(path) as log:
            assert [ln.text for ln in log.lines()] == ["Target:", "  Tiles per IPU: 1,472", "Memory Usage:"]
            assert [(h.no, h.text) for h in log.find([b"Memory"])] == [(3, "Memory Usage:")]


def test_binary_is_not_text():
    assert not looks_like_text(b"\x7fELF\x01\x01\x01\x00" + bytes(100))
    assert not looks_like_text(bytes(range(128, 256)) * 4)
    assert looks_like_text("état des lieux: mémoire\n".encode() * 50)


def test_a_missing_file_is_a_read_error(tmp_path):
    with pytest.raises(logtext.ReadError, match="No such file"):
        LogFile(tmp_path / "nope.log")


@pytest.mark.parametrize("raw,want", [
    ("\x1b[31mOut of memory\x1b[0m on tile 3", "Out of memory on tile 3"),
    ("Graph compilation:  10%|█| 10/100\rGraph compilation: 100%|██| 100/100", "Graph compilation: 100%|██| 100/100"),
    ("plain", "plain"),
    ("ends in a redraw\r", "ends in a redraw"),
])
def test_clean_keeps_what_a_terminal_shows(raw, want):
    assert clean(raw) == want


@pytest.mark.parametrize("raw,tag,rest", [
    ("[1,0]<stdout>:Memory Usage:", Tag("1,0", "stdout"), "Memory Usage:"),
    ("[1,12]<stderr>: Target:", Tag("1,12", "stderr"), "Target:"),
    ("[1,0[1,0]<stdout>:  Total Tiles: 4", Tag("1,0", "stdout"), " Total Tiles: 4"),
    ("<stderr>:x", Tag("", "stderr"), "x"),
    ("Memory Usage:", Tag("", None), "Memory Usage:"),
])
def test_launcher_tags(raw, tag, rest):
    assert split_tag(raw) == (tag, rest)


def test_a_glued_progress_bar_is_taken_off_the_front():
    line = "Graph compilation:  45%|████▌     | 45/100 [00:12<00:15]2023-06-29T16:14:58.205011Z PO:ENGINE 1.1 I: x"
    assert strip_progress_bar(line) == "2023-06-29T16:14:58.205011Z PO:ENGINE 1.1 I: x"
    assert strip_progress_bar("Graph compilation: 100%|██████████| 100/100 [00:48<00:00]") == \
        "Graph compilation: 100%|██████████| 100/100 [00:48<00:00]"
    assert strip_progress_bar("Tile 5: 100% of its memory | used") == "Tile 5: 100% of its memory | used"


def test_lines_read_between_hits_do_not_move_the_scan(tmp_path, monkeypatch):
    """A reader looks around each hit (back and forth) while the scan goes on: the scan keeps its place."""
    monkeypatch.setattr(logtext, "CHUNK_BYTES", 64)
    monkeypatch.setattr(logtext, "MAX_LINE_BYTES", 256)
    data = b"".join(b"line %d%s\n" % (k, b" memory" if k % 7 == 0 else b"") for k in range(300))
    path = tmp_path / "run.log"
    path.write_bytes(data)
    seen = []
    with LogFile(path) as log:
        for hit in log.find([b"memory"]):
            seen.append((hit.no, hit.text))
            assert [ln.text for ln in log.lines_before(hit.offset, hit.no, max_lines=2)] == \
                [f"line {k}" for k in range(max(0, hit.no - 3), hit.no - 1)]
            assert next(log.lines(hit.offset, hit.no)).text == hit.text
    assert seen == [(k + 1, f"line {k} memory") for k in range(0, 300, 7)]


def test_lines_before_stops_at_a_floor_and_at_a_cut_line(tmp_path):
    path = tmp_path / "run.log"
    path.write_bytes(b"alpha\nbravo\ncharlie\ndelta\n")
    with LogFile(path) as log:
        assert [(ln.no, ln.offset, ln.text) for ln in log.lines_before(20, 4)] == \
            [(1, 0, "alpha"), (2, 6, "bravo"), (3, 12, "charlie")]
        assert [ln.text for ln in log.lines_before(20, 4, floor=6)] == ["bravo", "charlie"]
        assert [ln.text for ln in log.lines_before(20, 4, max_bytes=10)] == ["charlie"]  # "bravo\n" is cut
        assert log.lines_before(0, 1) == []
        assert not log.ends_unterminated(12)
    path.write_bytes(b"alpha\nbravo")
    with LogFile(path) as log:
        assert log.ends_unterminated(6) and not log.ends_unterminated(0)


def test_keep_turns_hits_away_before_they_are_decoded(tmp_path):
    path = tmp_path / "run.log"
    path.write_bytes(b"host memory usage: 1 GB\nOut of memory on tile 3\nmemory, memory, Out of memory\n")
    with LogFile(path) as log:
        hits = list(log.find([b"emory"], keep=lambda buf, at: buf[at - 8:at - 1] == b"Out of "))
    assert [(h.no, h.text) for h in hits] == [(2, "Out of memory on tile 3"), (3, "memory, memory, Out of memory")]


def test_a_small_file_takes_a_small_buffer(tmp_path):
    import tracemalloc
    path = tmp_path / "run.log"
    path.write_bytes(b"Memory Usage:\n" * 10)
    tracemalloc.start()
    try:
        with LogFile(path) as log:
            assert len(list(log.find([b"Memory"]))) == 10
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


@pytest.mark.parametrize("scratch", [None, 1, 4096, 1 << 20])
def test_line_ends_counts_exactly_in_pieces_of_any_size(scratch):
    rng = random.Random(3)
    buf = bytearray(rng.choice(b"ab\n\r") for _ in range(300_000))
    reuse = None if scratch is None else np.empty(scratch, bool)
    for start, stop in [(0, len(buf)), (1, 65_537), (7, 7 + 65_536), (100, 99_999), (5, 5), (0, 3), (12_345, 300_000)]:
        assert logtext.line_ends(buf, start, stop, reuse) == buf.count(b"\n", start, stop)


def test_line_numbers_stay_exact_when_windows_are_counted_in_pieces(tmp_path, monkeypatch):
    """Windows of 200 KB, line ends counted 4 KB at a time, hits early and late in a window, several in one:
    each hit's line number and offset are what a plain reading gives."""
    monkeypatch.setattr(logtext, "CHUNK_BYTES", 200_000)
    monkeypatch.setattr(logtext, "COUNT_BYTES", 4096)
    rng = random.Random(5)
    lines = [b"x" * rng.randrange(0, 90) + (b" memory" if rng.random() < 0.002 else b"") for _ in range(40_000)]
    data = b"\n".join(lines) + b"\n"
    path = tmp_path / "run.log"
    path.write_bytes(data)
    assert found(path, [b"memory"]) == plain_hits(data, [b"memory"])


# -- compressed and streamed logs (issue #23), NULs and byte-order marks (issue #26 items 11, 12) ---------------

def _mixed_log(lines: int = 3000, seed: int = 11) -> bytes:
    """A run log's mix: launcher tags, progress bars with carriage returns, CRLF, UTF-8, memory mentions."""
    rng = random.Random(seed)
    words = ["[1,0]<stdout>:Memory Usage:", "Graph compilation:  45%|████▌     | 45/100 [00:12<00:15]\r"
             "Graph compilation: 100%|██████████| 100/100 [00:20<00:00]", "Ending phase: y\r", "emory",
             "\u00e9t\u00e9", "x" * 120, "", "09:38:52.878 15288 PO:ENGINE   [I]     Starting phase: z"]
    return "\n".join(" ".join(rng.choice(words) for _ in range(rng.randrange(0, 4)))
                     for _ in range(lines)).encode() + b"\n"


@pytest.mark.parametrize("kind", ["gzip", "xz", "bz2", "zstd"])
def test_a_compressed_log_reads_as_its_text_in_a_kept_window(tmp_path, monkeypatch, kind):
    """Windows of 101 bytes, 20 KB of the 58 KB text kept (the lines before a hit reach 4 KB back): hits,
    the lines around each and the line numbers are the plain reading's, never reading further back than what
    is kept, over gzip, xz, bz2 and zstd (when zstandard is installed), recognised by content only."""
    from memreport.readers.text import textstream
    monkeypatch.setattr(logtext, "CHUNK_BYTES", 101)
    monkeypatch.setattr(logtext, "MAX_LINE_BYTES", 1024)
    monkeypatch.setattr(textstream, "CHUNK_BYTES", 1000)
    monkeypatch.setattr(textstream, "KEEP_BYTES", 20_000)
    data = _mixed_log(800)
    path = tmp_path / "run.txt"  # no telling extension
    path.write_bytes(pack(kind, data))
    wanted = [b"emory", b"ing phase: "]
    every = [t for _, _, t in plain_lines(data)]
    with LogFile(path) as log:
        assert log.compression == kind and log.cut is None
        hits = []
        for hit in log.find(wanted):
            hits.append((hit.no, hit.offset, hit.text))
            before = log.lines_before(hit.offset, hit.no, max_lines=2, max_bytes=4000)
            assert [ln.text for ln in before] == every[max(0, hit.no - 3):hit.no - 1]
            after = [ln.text for ln in itertools.islice(log.lines(hit.offset, hit.no), 3)]
            assert after == every[hit.no - 1:hit.no + 2]
        assert hits == plain_hits(data, wanted)
        assert log.size == len(data) and log._stream is not None and log._stream.rewinds == 0


def plain_lines(data: bytes) -> list[tuple[int, int, str]]:
    return plain_hits(data, [b""])[:data.count(b"\n")]


def test_concatenated_gzip_members_are_one_log(tmp_path):
    """CI logs appended to: ``cat a.gz b.gz`` reads as ``zcat`` reads it."""
    path = tmp_path / "ci.log.gz"
    path.write_bytes(pack("gzip", b"first job\nMemory Usage: a\n") + pack("gzip", b"second\nMemory x\n"))
    assert found(path, [b"Memory"]) == [(2, 10, "Memory Usage: a"), (4, 33, "Memory x")]


def test_reading_far_back_starts_the_stream_again(tmp_path, monkeypatch):
    from memreport.readers.text import textstream
    monkeypatch.setattr(textstream, "CHUNK_BYTES", 100)
    monkeypatch.setattr(textstream, "KEEP_BYTES", 300)
    data = b"".join(b"line %04d\n" % k for k in range(500))
    path = tmp_path / "run.log.xz"
    path.write_bytes(pack("xz", data))
    with LogFile(path) as log:
        assert [ln.text for ln in itertools.islice(log.lines(4000, 401), 2)] == ["line 0400", "line 0401"]
        assert [ln.text for ln in log.lines_before(50, 6)] == [f"line {k:04d}" for k in range(5)]
        assert log._stream.rewinds == 1
        assert log.ends_unterminated(4990) is False and log.size == 5000


@pytest.mark.parametrize("keep_cut", [False, True])
def test_a_cut_stream_yields_what_it_holds_then_names_the_cut(tmp_path, keep_cut):
    """A gzip file cut short: every line before the cut is found; then find() raises naming the compressed
    offset and how much text came out, or (``keep_cut``) leaves that to the caller through ``cut``."""
    import gzip
    data = b"".join(b"Memory line %05d of a run that went on\n" % k for k in range(20_000))
    whole = gzip.compress(data, mtime=0)
    path = tmp_path / "run.log.gz"
    path.write_bytes(whole[:len(whole) // 2])
    with LogFile(path, keep_cut=keep_cut) as log:
        hits = []
        with contextlib.ExitStack() as stack:
            if not keep_cut:
                stack.enter_context(pytest.raises(ReadError, match=r"the gzip stream is cut short: it ends at "
                                                  rf"compressed byte {len(whole) // 2:,} without its end marker, "
                                                  r"after [\d,]+ bytes of text: the rest of the log is missing"))
            hits.extend(log.find([b"Memory"]))
        text = int(log.cut.split("after ")[1].split(" bytes")[0].replace(",", ""))
        assert 0 < text < len(data) and log.size == text
        assert [(h.no, h.offset, h.text) for h in hits] == plain_hits(data[:text], [b"Memory"])  # the cut line too


def test_damaged_data_is_named_as_such(tmp_path):
    import gzip
    whole = bytearray(gzip.compress(b"Memory Usage: 1\n" * 5000, mtime=0))
    whole[60:80] = bytes(20)
    path = tmp_path / "run.log.gz"
    path.write_bytes(bytes(whole))
    with LogFile(path) as log, pytest.raises(ReadError, match=r"the gzip stream is damaged before compressed byte"):
        list(log.find([b"Memory"]))


def test_utf16_is_transcoded_as_a_stream_not_into_a_temporary_file(tmp_path, monkeypatch):
    """Issue #26: UTF-16 logs were transcoded whole into $TMPDIR (memory on tmpfs); gzip'd UTF-16 too."""
    import tempfile

    def refuse(*args, **kwargs):
        raise AssertionError("a temporary file")
    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    data = _mixed_log(500)
    for name, raw in (("ps.log", data.decode().encode("utf-16")),
                      ("ps.log.gz", pack("gzip", data.decode().encode("utf-16-be")[:0] + "\ufeff".encode(
                          "utf-16-be") + data.decode().encode("utf-16-be")))):
        path = tmp_path / name
        path.write_bytes(raw)
        assert found(path, [b"emory"]) == plain_hits(data, [b"emory"])


def test_a_compressed_log_takes_bounded_memory(tmp_path, monkeypatch):
    """26 MB of text through gzip, 2 MiB of it kept: the peak of Python's allocations is the text kept, the
    window (2 MiB) and the chunks decoded ahead (about 1 MiB each), whatever the size of the text."""
    import tracemalloc

    from memreport.readers.text import textstream
    monkeypatch.setattr(textstream, "KEEP_BYTES", 2 << 20)
    data = (b"x" * 99 + b"\n") * 999 + b"Memory Usage:\n"
    data *= 26_000_000 // len(data)
    path = tmp_path / "big.log.gz"
    path.write_bytes(pack("gzip", data))
    tracemalloc.start()
    try:
        with LogFile(path) as log:
            count = sum(1 for _ in log.find([b"emory"]))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == data.count(b"Memory")
    assert len(data) > 25_000_000 and peak < 12 << 20, peak


def test_nul_runs_and_byte_order_marks_leave_a_line_as_it_reads():
    """Issue #26 items 11, 12: copytruncate's hole of NULs before a line, a BOM of a concatenated log."""
    assert logtext.decode_line(b"\x00\x00\x00Target:") == "Target:"
    assert logtext.decode_line(b"Tar\x00get:") == "Tar\x00get:"  # inside a line: for the reader to refuse
    assert logtext.decode_line(b"\xef\xbb\xbfTarget:\r") == "Target:"
    assert logtext.decode_line(b"[1,0]<stdout>:\xef\xbb\xbf  Tiles per IPU: 1") == "[1,0]<stdout>:  Tiles per IPU: 1"


def test_text_may_hold_a_few_nul_runs_but_binary_is_refused():
    """Issue #26 item 11: a NUL (or a hole of them) in the first 4 KiB was "unrecognised format"."""
    text = b"2023-01-01 run started\n" * 100
    assert looks_like_text(text[:100] + b"\x00" + text[100:])
    assert looks_like_text(bytes(3000) + text)
    assert looks_like_text(bytes(4096))  # nothing but a hole yet: the registry looks past it
    assert not looks_like_text(b"T\x00a\x00r\x00g\x00e\x00t\x00:\x00\n\x00" * 20)  # UTF-16 without its BOM
    assert not looks_like_text(b"\x7fELF\x02\x01\x01\x00" + bytes(8) + b"\x02\x00\x3e\x00\x01" + bytes(100))
    assert not looks_like_text(b"\x00\x01\x02\x03" * 1000)
    assert not looks_like_text(b"\x89PNG\r\n\x1a\n" + bytes(64))
    # a UTF-16 log appended to a UTF-8 one, its BOM after a line end
    assert looks_like_text(text[:230] + "\ufeffMemory Usage:\n".encode("utf-16-le"))
    assert not looks_like_text(text[:230] + b"\xff\xfe" + bytes(range(1, 256)) * 3)
    # compressed: judged by what it holds
    assert looks_like_text(pack("gzip", text)) and not looks_like_text(pack("gzip", bytes(range(256)) * 9))


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_utf16_log_appended_to_a_utf8_one_is_read_transcoded_with_its_lines_counted_on(tmp_path, monkeypatch,
                                                                                        chunk, codec):
    """Issue #26: a UTF-8 log to which a PowerShell log (UTF-16, its BOM first, CRLF) was appended: the appended
    part is read as its text, its lines numbered on from the UTF-8 part's, as an editor decoding each part
    shows them; its offsets are those of its UTF-8 transcoding (``utf16_from`` says from where). Windows of 7
    bytes split the BOM from the line end before it."""
    monkeypatch.setattr(logtext, "CHUNK_BYTES", chunk)
    head = "step 1 memory\nété memory\r\n"
    tail = "PS> python train.py\r\nMemory Usage: 3 memory\r\ndone\r\nmemory, unterminated"
    path = tmp_path / "run.log"
    path.write_bytes(head.encode() + "\ufeff".encode(codec) + tail.encode(codec))
    with LogFile(path) as log:
        hits = [(h.no, h.offset, h.text) for h in log.find([b"emory"])]
        assert log.utf16_from == len(head.encode())
        assert [ln.text for ln in log.lines()] == ["step 1 memory", "été memory", "PS> python train.py",
                                                    "Memory Usage: 3 memory", "done", "memory, unterminated"]
        assert log.size == len((head + tail).encode())
    assert hits == plain_hits((head + tail).encode(), [b"emory"])
    assert [no for no, _, _ in hits] == [1, 2, 4, 6]


def test_bytes_like_a_utf16_bom_after_a_line_end_but_no_utf16_after_them_are_left_as_they_are(tmp_path):
    """0xFF 0xFE after a line end then UTF-8 text (a stray pair of bytes, not a UTF-16 log): not transcoded."""
    data = b"memory one\n\xff\xfememory two, and more UTF-8 text after it\nmemory three\n"
    path = tmp_path / "run.log"
    path.write_bytes(data)
    with LogFile(path) as log:
        assert [h.text for h in log.find([b"emory"])][2] == "memory three"
        assert log.utf16_from is None


def test_a_log_in_utf16_from_its_start_is_still_transcoded_whole(tmp_path):
    path = tmp_path / "run.log"
    path.write_bytes("memory one\r\nmemory two\r\n".encode("utf-16"))
    with LogFile(path) as log:
        assert [(h.no, h.text) for h in log.find([b"emory"])] == [(1, "memory one"), (2, "memory two")]
        assert log.utf16_from == 0 and log.encoding == "utf-16"


def test_a_log_whose_end_is_not_utf16_is_not_searched_for_an_appended_part(tmp_path, monkeypatch):
    """An appended text runs to the file's end: only a file whose last 4 KiB hold a UTF-16 BOM or NULs pays the
    search for where UTF-16 begins (two memchr passes over every byte, about 11% of a plain log's scan)."""
    searched = []
    search = LogFile._appended_utf16
    monkeypatch.setattr(LogFile, "_appended_utf16", lambda self, *args: searched.append(1) or search(self, *args))
    path = tmp_path / "run.log"
    for data, wanted in ((b"memory\n" * 2000, False), (b"memory\n" * 2000 + b"\x00" * 200, True),
                         (b"memory\n" * 2000 + "\ufeffmemory\r\n".encode("utf-16-le") * 1000, True)):
        searched.clear()
        path.write_bytes(data)
        with LogFile(path) as log:
            assert len(list(log.find([b"emory"]))) in (2000, 3000)
        assert bool(searched) is wanted
