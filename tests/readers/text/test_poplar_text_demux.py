"""One process's lines among many (memreport/readers/text/poplar_text/demux.py; issue #26): what a tagged
summary's reader is given is what reading every line gives, the others' lines counted instead of read."""
from __future__ import annotations

import random

import pytest

from memreport.analysis import count_out_of_memory
from memreport.errors import ReadError
from memreport.readers import read_path
from memreport.readers.text import logtext
from memreport.readers.text.logtext import UNTAGGED, LogFile
from memreport.readers.text.poplar_text import demux, scan
from memreport.readers.text.poplar_text.demux import Passed, TagIndex
from memreport.readers.text.poplar_text.prefixes import split_line
from tests.readers.text.conftest import facts
from tests.synth import logs
from tests.synth.text import OTHER_TEXT, SMALL_TEXT, write


def expanded(items) -> list[tuple[int, int | None, str | None]]:
    """Each item as (line number, offset, text), a Passed run as its lines' numbers (offset and text unknown,
    but the run's first offset)."""
    out = []
    for item in items:
        if isinstance(item, Passed):
            assert item.count > 0
            out += [(item.no + k, item.offset if k == 0 else None, None) for k in range(item.count)]
        else:
            out.append((item.no, item.offset, item.text))
    return out


@pytest.mark.parametrize("extend", [1, 3, 1024])
def test_a_tag_is_given_its_own_lines_as_read_and_the_others_counted(tmp_path, monkeypatch, extend):
    """CRLF, colour, a tag glued after a progress bar, an untagged logger line, a line cut at MAX_LINE_BYTES, a
    UTF-8 BOM, no line end at the end: the own lines are those LogFile.lines gives, the others only counted."""
    monkeypatch.setattr(demux, "EXTEND_LINES", extend)
    monkeypatch.setattr(logtext, "MAX_LINE_BYTES", 64)
    raw = (b"[1,0]<stdout>:Target:\r\n[1,1]<stdout>:Target:\n\x1b[32m[1,0]<stdout>:  Number of IPUs: 1\x1b[0m\n"
           b"10:10:50.154 1 POPRUN [D] started\n[1,1]<stderr>:" + b"x" * 100 + b"\n"
           b"Compiling:  45%|####      | 45/100 [1,1]<stdout>:  Number of IPUs: 2\n\xef\xbb\xbf[1,0]<stdout>:Graph:\n"
           b"[1,1]<stdout>:Graph:\n[1,1]<stdout>:last")
    path = tmp_path / "run.log"
    path.write_bytes(raw)
    with LogFile(path) as log:
        every = list(log.lines())
        index = TagIndex(log)
        for start in every:
            tag = split_line(start.text).tag
            got = expanded(index.lines(start, tag))
            want = [(ln.no, ln.offset, ln.text) if k == 0 or split_line(ln.text).tag == tag else (ln.no, None, None)
                    for k, ln in enumerate(every[start.no - 1:])]
            assert [(no, text) for no, _, text in got] == [(no, text) for no, _, text in want]
            assert all(offset == every[no - 1].offset for no, offset, _ in got if offset is not None)
            assert index.line(start.no) == start
    assert [len(ln.text) for ln in every] == [21, 21, 42, 33, 64, 64, 20, 20, 18]  # two lines cut at 64 bytes


def test_the_index_starts_again_where_a_reader_starts_outside_it(tmp_path, monkeypatch):
    monkeypatch.setattr(demux, "EXTEND_LINES", 2)
    monkeypatch.setattr(demux, "MAX_INDEXED_LINES", 4)
    path = tmp_path / "run.log"
    path.write_text("".join(f"[1,{k % 2}]<stdout>:line {k}\n" for k in range(12)))
    with LogFile(path) as log:
        every = list(log.lines())
        index = TagIndex(log)
        later, first = every[9], every[0]
        assert [x.text for x in index.lines(later, split_line(later.text).tag) if not isinstance(x, Passed)] == \
            ["[1,1]<stdout>:line 9", "[1,1]<stdout>:line 11"]
        assert index.first_no == 10
        assert expanded(index.lines(first, split_line(first.text).tag))[:3] == [
            (1, 0, "[1,0]<stdout>:line 0"), (2, 21, None), (3, 42, "[1,0]<stdout>:line 2")]
        assert index.first_no == 1 and len(index.offsets) <= 12


@pytest.mark.parametrize("floor", [0, 1, 3])
def test_a_look_back_gives_the_tags_own_last_lines_of_the_window_lines_before_gives(tmp_path, floor):
    """Whatever the window (cut mid-line or not, up to a floor), the last so many lines of the tag among those
    lines_before gives, their count, and where the window starts (at the first line kept when the tag has more
    lines in it than that: a rank's look back counts its own lines; issue #26); the index starts so far above
    the first hit that the later hits' windows are in it."""
    path = tmp_path / "run.log"
    path.write_text("".join(f"[1,{k % 3 // 2}]<stdout>:line {'x' * (k % 7)} {k}\n" for k in range(60)))
    with LogFile(path) as log:
        every = list(log.lines())
        index = TagIndex(log)
        starts = []
        for hit in every[10:]:
            tag = split_line(hit.text).tag
            for max_bytes in (1, 40, 100, 333, 5000):
                for max_lines in (25, 3, 0):  # (the scan asks for as many lines each time)
                    low = every[floor].offset
                    window = log.lines_before(hit.offset, hit.no, floor=low, max_lines=10**6, max_bytes=max_bytes)
                    own = [ln for ln in window if split_line(ln.text).tag == tag]
                    kept = own[-max_lines:] if max_lines else []
                    top = kept[0].offset if max_lines and len(own) > max_lines else \
                        window[0].offset if window and max_lines else -1
                    assert index.before(hit, tag, low, max_lines, max_bytes, 5000) == (kept, len(kept), top)
                    starts.append(index.first_no)
        assert index.before(every[20], UNTAGGED, 0, 25, 6000, 5000) is None  # a window wider than its reach
    assert sorted(set(starts)) == [1]  # hits in file order: the index started once


def interleaved(rng: random.Random, texts: list[str], pause: int) -> str:
    """Ranks printing ``texts`` at once, their lines mixed at random; one rank stops mid-summary for ``pause`` of
    the others' lines (within the budget of others' lines after a summary's line, or past it)."""
    queues = [logs.tagged(text, rank).splitlines(True) for rank, text in enumerate(texts)]
    out: list[str] = []
    while any(queues):
        rank = rng.choice([r for r, q in enumerate(queues) if q])
        out.append(queues[rank].pop(0))
        if rank == 0 and len(queues[0]) == 40:
            out += [f"[1,{len(texts)}]<stdout>:step {k}\n" for k in range(pause)]
    return "".join(out)


@pytest.mark.parametrize("pause", [0, 200, 400, 25_000])
def test_interleaved_ranks_read_exactly_as_without_the_index(tmp_path, monkeypatch, pause):
    """The same reports (positions, facts, notes), or the same error, whether the other ranks' lines are counted
    from the index or read one by one: a pause of 200 lines is within rank 0's budget of others' lines, 400 past
    it (its summary is cut short there: an error), 25,000 past every budget (MAX_FOREIGN_LINES)."""
    rng = random.Random(pause)
    texts = [SMALL_TEXT if r % 2 else OTHER_TEXT for r in range(5)]
    path = write(tmp_path, "Starting\n" + interleaved(rng, texts, pause) + "done\n", "run.log")

    def seen():
        try:
            return [(r.position, facts(r), r.notes, count_out_of_memory(r)) for r in read_path(path)]
        except ReadError as exc:
            return str(exc)
    with_index = seen()
    monkeypatch.setattr(scan, "TagIndex", lambda log: None)
    assert with_index == seen()
    if pause <= 200:
        alone = {0: facts(read_path(write(tmp_path, OTHER_TEXT, "other.txt"))[0]),
                 1: facts(read_path(write(tmp_path, SMALL_TEXT, "small.txt"))[0])}
        assert [facts for _, facts, _, _ in with_index] == \
            [alone[int(position.run.process[2:]) % 2] for position, _, _, _ in with_index]
    assert len(with_index) == {0: 5, 200: 5, 400: 8, 25_000: 9}[pause]  # rank 0's summary cut where it paused


@pytest.mark.parametrize("bound", [None, 8 << 10])
def test_a_ranks_look_back_counts_its_own_lines_within_a_bound_in_the_file(tmp_path, monkeypatch, bound):
    """Rank 0 prints its summary while 125 other ranks print a line each between two of its lines: its first
    "emory" line (Memory Per-Tile) is 504 lines below its Target, 500 of them the others' (about 11 KB). Its
    report is the one it gives printed alone, Target and all, though LOOKBACK_LINES is 400 (issue #26). The
    look back is still bounded in the file: with LOOKBACK_BYTES at 8 KiB, the Target is not found so far up."""
    if bound is not None:
        monkeypatch.setattr(scan, "LOOKBACK_BYTES", bound)
    own = logs.tagged(SMALL_TEXT, 0).splitlines(True)
    text = "".join(line + "".join(f"[1,{r}]<stdout>:step {k}\n" for r in range(1, 126) if k < 4)
                   for k, line in enumerate(own))
    lines = text.splitlines()
    assert lines.index("[1,0]<stdout>:  Memory Per-Tile:        624.0 kB") - lines.index("[1,0]<stdout>:Target:") == 504
    reports = read_path(write(tmp_path, text, "run.log"))
    assert len(reports) == 1
    alone = facts(read_path(write(tmp_path, SMALL_TEXT, "alone.txt"))[0])
    if bound is None:
        assert facts(reports[0]) == alone
        assert (reports[0].target.num_ipus, reports[0].target.tiles_per_ipu) == (2, 4)
    else:
        assert (reports[0].target.num_ipus, reports[0].target.tiles_per_ipu) == (None, None)
