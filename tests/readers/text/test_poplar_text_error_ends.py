"""Where errors end (memreport/readers/text/poplar_text/error_ends.py; issue #33 items 1 and 12).

Fixtures (tests/synth/programs.py): poprun ranks that abort at the same
moment, their ``terminate called after throwing`` lines and then their
``what():`` lines interleaved under their tags; 16 ranks raising 30-line
Python tracebacks at once, interleaved line by line; 20,000 lines that each
open a traceback.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from memreport.errors import ReadError
from memreport.model import LogRun
from memreport.readers import read_path
from memreport.readers.text import logtext
from memreport.readers.text.poplar_text import error_ends
from tests.synth import programs

TERMINATE = "terminate called after throwing an instance of 'poplar::graph_memory_allocation_error'"


def write(tmp_path: Path, text: str, name: str = "run.log") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def lines_of(text: str, needle: str) -> list[int]:
    return [no for no, line in enumerate(text.splitlines(), 1) if needle in line]


def test_ranks_that_abort_together_are_a_run_each_with_its_error(tmp_path):
    text = programs.ranks_abort_together(4)
    reports = read_path(write(tmp_path, text))
    terminate, what = lines_of(text, "terminate called"), lines_of(text, "what():")
    assert [r.position.run for r in reports] == [
        LogRun(rank + 1, 4, terminate[rank], what[rank], f"1,{rank}", TERMINATE) for rank in range(4)]
    assert [(r.oom_messages[0].tile, r.oom_messages[0].line) for r in reports] == [
        (17 + rank, what[rank]) for rank in range(4)]
    record = reports[0].position.programs
    assert (record.count, record.unit, [(f.index, f.outcome, f.report, f.tile, f.process) for f in record.failed]) == \
        (4, "run", [(rank + 1, "out of memory", rank + 1, 17 + rank, f"1,{rank}") for rank in range(4)])


def test_sixteen_ranks_raising_together_are_sixteen_runs_their_final_lines_found(tmp_path):
    text = programs.ranks_raise_together(16)
    reports = read_path(write(tmp_path, text))
    opened, final = lines_of(text, "Traceback (most recent"), lines_of(text, "popart_exception")
    assert len(reports) == 16 and reports[0].position.programs.count == 16
    for rank, report in enumerate(reports):
        run = report.position.run
        assert (run.index, run.count, run.process, run.first_line, run.last_line) == \
            (rank + 1, 16, f"1,{rank}", opened[rank], final[rank])
        assert run.failure == (f"Python error: popart_core.popart_exception: Out of memory on tile {100 + rank}: "
                               f"{650_000 + rank} bytes used but tiles only have 638976 bytes of memory")[:117] + "..."


def test_twenty_thousand_traceback_lines_are_read_once(tmp_path, monkeypatch):
    """Every line that opens a traceback looked up to 400 lines ahead: 20,000 of them read 8,000,000 lines. One
    forward read for all reads each line once (a few more where a look begins again)."""
    path = write(tmp_path, programs.traceback_openers(20_000) + "[INFO] done\n")
    read = []
    lines = logtext.LogFile.lines

    def counted(self, offset=None, no=1):
        for ln in lines(self, offset, no):
            read.append(ln.no)
            yield ln

    monkeypatch.setattr(logtext.LogFile, "lines", counted)
    with pytest.raises(ReadError, match="no memory information found"):
        read_path(path)
    assert 20_001 <= len(read) <= 2 * 20_001


def test_a_traceback_whose_process_falls_silent_is_given_up_within_reach(tmp_path, monkeypatch):
    """Rank 0 opens a traceback and prints nothing more while rank 1 prints on: the look ends within
    MAX_OTHER_LINES of other lines (the run is cut there), never at the end of a long log."""
    monkeypatch.setattr(error_ends, "MAX_OTHER_LINES", 4096)
    text = ("[1,0]<stderr>:Traceback (most recent call last):\n" + "[1,1]<stdout>:step\n" * 10_000 +
            "[1,0]<stderr>:popart_core.popart_exception: " + programs.tile_oom(3, 700_000) + "\n")
    report, = read_path(write(tmp_path, text))
    assert report.position.run == LogRun(2, 2, 10_002, 10_002, "1,0")  # the run ended where its look was given up
    assert report.notes[-2] == "the log holds 2 runs (programs); 1 failed: run(s) 1"  # its message came after
    record = report.position.programs
    assert [(f.index, f.outcome, f.failure, f.line) for f in record.failed] == [
        (1, "failed", error_ends.NO_FINAL, 1), (2, "out of memory", "tile 3: 700,000 B used of 638,976 B", 10_002)]


@pytest.mark.parametrize("indent", ["", "  "])
def test_a_what_line_three_of_its_own_lines_on_is_its_end_whatever_others_print(tmp_path, indent):
    text = ("[1,0]<stderr>:" + TERMINATE + "\n" + "[1,1]<stdout>:step\n" * 50 + "[1,0]<stderr>:\n" +
            f"[1,0]<stderr>:{indent}what():  " + programs.tile_oom(9, 655_360) + "\n")
    report, = read_path(write(tmp_path, text))
    record = report.position.programs
    assert (record.count, record.unit, [(f.index, f.outcome, f.tile, f.line) for f in record.failed]) == \
        (1, "run", [(1, "out of memory", 9, 53)])  # one run, ended by its error at its what() line
