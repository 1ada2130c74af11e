"""A file's programs and where things are in a notebook (memreport/model/programs.py, the places of values.py and
compiles.py; issue #30)."""
from __future__ import annotations

import pytest

from memreport.model import (
    Compilation,
    FailedProgram,
    FilePrograms,
    LineRef,
    OutOfMemoryMessage,
    ReportPosition,
    SummaryReport,
    Target,
    oom_words,
)

MESSAGE = OutOfMemoryMessage("tile-memory", 20, "Out of memory on tile 12: ...", tile=12, bytes_used=702_344,
                             bytes_per_tile=638_976, place="cell 5 [3], line 4")


def compilation(**fields) -> Compilation:
    base: dict = {"source": "nb.ipynb", "line": 20, "end_line": 20, "process": None, "framework": "popart",
                  "time": None, "module": None, "hash": None, "executable_hash": None, "result": None, "cache": None,
                  "duration_s": None, "duration_from": None, "peak_rss_mb": None, "tiles_overflowed": None,
                  "target": None, "cache_file": None, "end_in_log": False}
    return Compilation(**{**base, **fields})


def test_a_file_of_223_runs_16_of_which_failed():
    failed = tuple(FailedProgram(k, "out of memory", "tile 0: 670,344 B used of 262,144 B", report=n, line=k * 10,
                                 tile=0, bytes_used=670_344, bytes_per_tile=262_144)
                   for n, k in enumerate(range(130, 146), 1))
    record = FilePrograms(223, "run", failed, 16, (("ended", 207), ("out of memory", 16)))
    assert record.by_outcome == {"ended": 207, "out of memory": 16}
    assert (record.failed[-1].index, record.failed[-1].where) == (145, "line 1,450")


@pytest.mark.parametrize("bad", [
    lambda: FilePrograms(2, "runs"), lambda: FilePrograms(1, "run", failed_count=2),
    lambda: FilePrograms(3, "run", (FailedProgram(1, "failed", "x"),), failed_count=0),
    lambda: FilePrograms(3, "compilation", outcomes=(("crashed", 1),)),
    lambda: FailedProgram(1, "compiled", "x"), lambda: FailedProgram(0, "failed", "x"),
    lambda: FailedProgram(1, "failed", "x", report=0)])
def test_what_a_programs_record_refuses(bad):
    with pytest.raises(ValueError):
        bad()


def test_a_failed_compilation_says_what_its_failure_states():
    oom = compilation(result="out of memory", failure=MESSAGE, report=1, place="cell 5 [3], line 4")
    assert (oom.failed, oom.failure_text, str(oom.ref)) == (
        True, "tile 12: 702,344 B used of 638,976 B", "nb.ipynb, cell 5 [3], line 4")
    assert compilation(result="failed", failure="terminate called after ...").failure_text == \
        "terminate called after ..."
    with pytest.raises(ValueError):
        compilation(result="out of memory")  # its failure unsaid
    with pytest.raises(ValueError):
        compilation(result="compiled", failure="x", end_in_log=True)
    with pytest.raises(ValueError):
        compilation(report=0)


def test_a_line_ref_in_a_notebook_shows_its_place_and_sorts_by_line():
    refs = [LineRef("nb.ipynb", 9, "cell 3 [2], line 1"), LineRef("nb.ipynb", 4, "cell 2 [1], line 4")]
    assert [str(r) for r in sorted(refs)] == ["nb.ipynb, cell 2 [1], line 4", "nb.ipynb, cell 3 [2], line 1"]
    assert LineRef("nb.ipynb", 4, "cell 2 [1], line 4") == LineRef("nb.ipynb", 4)
    assert str(LineRef("run.log", 1_234)) == "run.log:1234"


def test_the_words_of_each_message_kind():
    assert oom_words(MESSAGE) == "tile 12: 702,344 B used of 638,976 B"
    assert oom_words(OutOfMemoryMessage("variables", 3, "x", saved_path="./r/profile.pop")) == \
        "variables do not fit onto one or more tiles (profile: ./r/profile.pop)"
    assert oom_words(OutOfMemoryMessage("profile-saved", 3, "x")) == "out of memory (no profile path printed)"
    assert oom_words(OutOfMemoryMessage("tile-memory", 3, "x")) == "tile ?: ? B used of ? B"  # built by hand
    assert (MESSAGE.where, OutOfMemoryMessage("code", 1_234, "x", tile=1).where) == \
        ("cell 5 [3], line 4", "line 1,234")


def test_a_report_label_gives_its_place_in_a_notebook():
    programs = FilePrograms(7, "compilation")
    at = ReportPosition(20, 1, 2, program=6, programs=programs, place="cell 5 [3], line 4")
    report = SummaryReport(source="nb.ipynb", format="oom-messages", target=Target(0), position=at)
    assert (report.label, at.where) == ("nb.ipynb#1 (cell 5 [3], line 4)", "cell 5 [3], line 4")
    alone = report.evolve(position=ReportPosition(20, 1, 1, place="cell 5 [3], line 4"))
    assert alone.label == "nb.ipynb (cell 5 [3], line 4)"
    with pytest.raises(ValueError):
        ReportPosition(20, 1, 2, program=8, programs=programs)  # past the file's 7
