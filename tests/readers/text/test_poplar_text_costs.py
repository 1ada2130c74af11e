"""What reading a log costs, counted in lines read (never timed): shapes that were quadratic (issue #26 items 5, 6).

Each test counts the lines the scan reads (forward with ``LogFile.lines``,
back with ``LogFile.lines_before``) and bounds them by a small multiple of
the file's lines: before the fix, R ranks' summaries read about R/2 times
the file and each lone summary-like line looked back over 400 lines.
scripts/bench_logs.py times the same shapes.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from memreport.errors import ReadError
from memreport.readers import read_path
from memreport.readers.text import logtext
from tests.readers.text.conftest import facts
from tests.synth import logs
from tests.synth.text import OTHER_TEXT, SMALL_TEXT


@pytest.fixture
def counted(monkeypatch):
    """How many lines the scan reads, both ways."""
    count = {"forward": 0, "back": 0, "again": 0}
    lines, lines_before, read_lines = logtext.LogFile.lines, logtext.LogFile.lines_before, logtext.LogFile.read_lines

    def forward(self, *args, **kwargs):
        for ln in lines(self, *args, **kwargs):
            count["forward"] += 1
            yield ln

    def back(self, *args, **kwargs):
        got = lines_before(self, *args, **kwargs)
        count["back"] += len(got)
        return got

    def again(self, starts, end):  # a tagged summary's own lines, read again by offset (.demux)
        count["again"] += len(starts)
        return read_lines(self, starts, end)

    monkeypatch.setattr(logtext.LogFile, "lines", forward)
    monkeypatch.setattr(logtext.LogFile, "read_lines", again)
    monkeypatch.setattr(logtext.LogFile, "lines_before", back)
    return count


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.log"
    path.write_text(text, encoding="utf-8")
    return path


def test_ranks_printing_one_after_another_read_each_line_a_few_times(tmp_path, counted):
    """poprun: 40 ranks each print a summary, one after another, and nothing after it (issue #26 item 5)."""
    ranks = 40
    text = logs.ranks_one_after_another([SMALL_TEXT if r % 2 else OTHER_TEXT for r in range(ranks)])
    reports = read_path(write(tmp_path, text))
    starts = [no for no, line in enumerate(text.splitlines(), 1) if line.endswith(">:Target:")]
    assert [r.position.line for r in reports] == starts and len(starts) == ranks
    assert [facts(r) for r in reports[:2]] == [facts(read_path(write(tmp_path, OTHER_TEXT))[0]),
                                             facts(read_path(write(tmp_path, SMALL_TEXT))[0])]
    lines = text.count("\n")
    assert sum(counted.values()) < 4 * lines * 2  # (the two single reads above included)


@pytest.mark.parametrize("ranks", [8, 48])
def test_ranks_printing_at_once_line_by_line_read_each_line_a_few_times(tmp_path, counted, ranks):
    """poprun: every rank prints its summary at once, their lines alternating one by one (issue #26 item 5):
    each line is read about three times (indexed, read again by its own rank's reader, looked back over), not
    once per rank. Each rank's summary is its own report, at its own first line."""
    texts = [logs.tagged(SMALL_TEXT if r % 2 else OTHER_TEXT, r).splitlines(True) for r in range(ranks)]
    text = "".join(lines[k] for k in range(max(map(len, texts))) for lines in texts if k < len(lines))
    reports = read_path(write(tmp_path, text))
    lines = text.count("\n")
    assert sum(counted.values()) < 3 * lines  # about 2: before, about ranks / 2
    assert [r.position.line for r in reports] == list(range(1, ranks + 1))  # each rank's Target
    assert [r.position.run.process for r in reports] == [f"1,{r}" for r in range(ranks)]
    alone = [facts(read_path(write(tmp_path, t))[0]) for t in (OTHER_TEXT, SMALL_TEXT)]
    assert [facts(r) for r in reports] == [alone[r % 2] for r in range(ranks)]


def test_ranks_printing_at_once_are_still_told_apart(tmp_path):
    """The budget of other ranks' lines after a summary's last line grows with how interleaved it was."""
    four = [logs.tagged(SMALL_TEXT if r % 2 else OTHER_TEXT, r) for r in range(4)]
    text = logs.interleave(logs.interleave(four[0], four[1]), logs.interleave(four[2], four[3]))
    reports = read_path(write(tmp_path, text))
    small, other = facts(read_path(write(tmp_path, SMALL_TEXT))[0]), facts(read_path(write(tmp_path, OTHER_TEXT))[0])
    assert [facts(r) for r in reports] == [other, other, small, small]  # by first line: ranks 0, 2, 1, 3


def test_a_summary_resumes_after_other_ranks_within_its_budget(tmp_path):
    """Rank 0 pauses mid-summary while rank 1 prints 200 lines: the summary goes on after them."""
    lines = SMALL_TEXT.splitlines(True)
    half = len(lines) // 2
    other = "".join(f"[1,1]<stdout>:step {k}\n" for k in range(200))
    text = logs.tagged("".join(lines[:half]), 0) + other + logs.tagged("".join(lines[half:]), 0)
    report, = read_path(write(tmp_path, text))
    assert facts(report) == facts(read_path(write(tmp_path, SMALL_TEXT))[0])


@pytest.mark.parametrize("between", ["", "step {k}\n"])
def test_lines_that_look_like_a_summary_but_never_make_one(tmp_path, counted, between):
    """``3 tile(s) out of memory`` alone, repeated: one look back each, not 400 lines (issue #26 item 6)."""
    text = logs.lookalike_lines(500, between)
    with pytest.raises(ReadError, match="no memory information found"):
        read_path(write(tmp_path, text))
    assert counted["forward"] + counted["back"] <= 2 * text.count("\n")


def test_a_summary_under_repeated_lookalike_lines_is_still_found(tmp_path):
    """The remembered look back still finds a summary's heading above lines that merely look like its own."""
    lines = SMALL_TEXT.splitlines(True)
    text = "3 tile(s) out of memory\n" * 50 + SMALL_TEXT
    report, = read_path(write(tmp_path, text))
    assert facts(report) == facts(read_path(write(tmp_path, SMALL_TEXT))[0])
    assert report.position.line == 51 and len(lines) > 10
