"""The words of the answer over every report read (issue #30), the same in text, JSON, Markdown and the page."""
from __future__ import annotations

from memreport.analysis.results import FailingProgram, LookInto, Overall
from memreport.model import ReportName
from memreport.render.words import failing_line, overall_command, overall_headline, overall_verdict


def _run(index: int, tile: int = 0, used: int = 670_344, line: int = 100) -> FailingProgram:
    return FailingProgram("sweep.log", "run", index, 223, "out of memory", f"tile {tile}: {used:,} B used",
                          ReportName("sweep.log", None, index, 16, line), line, None, tile, used, 262_144, True, 1)


def test_runs_that_failed_of_how_many_and_the_worst():
    worst = _run(145, line=52_113)
    answer = Overall("run", 223, 16, 16, 0, 1, 16, (worst,), worst)
    assert overall_headline(answer) == \
        "16 of 223 runs failed, out of memory; worst: run 145, tile 0, 670,344 B used of 262,144 B"
    assert failing_line(worst) == "run 145 (line 52,113): out of memory, tile 0, 670,344 B used of 262,144 B"
    assert overall_command(answer) == "memreport sweep.log --module '#145'"


def test_failures_of_two_kinds_say_how_many_of_each_and_what_cannot_say():
    crash = FailingProgram("a.log", "compilation", 2, 5, "failed", "RuntimeError: device busy", None, 40)
    answer = Overall("compilation", 5, 2, 1, 1, 1, 2, (crash,), crash)
    assert overall_headline(answer) == ("2 of 5 compilations failed (1 cannot say): 1 out of memory, 1 otherwise; "
                                        "worst: compilation 2, RuntimeError: device busy")
    assert overall_command(answer) is None
    assert overall_headline(Overall("compilation", 2, 0, 0, 0, 1, 2)) == "0 of 2 compilations failed"


def test_reports_have_tiles_out_of_memory_and_several_files_name_theirs():
    archive = FailingProgram("b.a", "report", None, None, "out of memory", None, ReportName("b.a"), None, None,
                             1402, 788_976, 638_976, False, 3, True, LookInto(ReportName("b.a"), 1402, True))
    answer = Overall("report", 3, 1, 1, 2, 3, 3, (archive,), archive)
    assert overall_headline(answer) == ("1 of 3 reports has tiles out of memory (2 cannot say); worst: b.a, "
                                        "tile 1402, 788,976 B excluding gaps of 638,976 B")
    assert overall_command(answer) == "memreport b.a --tile 1402 --symbols 20"
    both = Overall("program", 4, 2, 2, 0, 2, 2, (_run(3), archive), _run(3))
    assert overall_headline(both).endswith("worst: sweep.log run 3, tile 0, 670,344 B used of 262,144 B")
    assert failing_line(_run(3), files=2).startswith("sweep.log run 3 (line 100): ")
    no_tile = FailingProgram("c.txt", "report", None, None, "out of memory", None, ReportName("c.txt"), tiles=2)
    assert failing_line(no_tile) == "c.txt: out of memory, at least 2 tiles out of memory"


def test_the_block_lists_the_first_failures_and_brief_lists_every_one():
    failing = tuple(_run(k) for k in range(1, 9))
    answer = Overall("run", 223, 8, 8, 0, 1, 8, failing, failing[0])
    block = overall_verdict(answer)
    assert (block.level, len(block.lines), block.lines[-1]) == (
        "oom", 6, "3 more failed: --brief and the JSON list every one")
    assert overall_verdict(answer, None).lines == tuple(failing_line(f) for f in failing)
    kept = Overall("run", 5_000, 1_200, 1_200, 0, 1, 1_000, failing, failing[0])  # more failed than kept
    assert overall_verdict(kept, None).lines[-1] == "1,192 more (not kept)"
    assert overall_verdict(Overall("run", 3, 0, 0, 0, 1, 1)).level == "ok"
    assert overall_verdict(Overall("run", 3, 0, 0, 2, 1, 2)).level == "unknown"


def test_a_compile_historys_verdict_counts_the_compilations_that_ran_out_of_memory(tmp_path):
    import memreport
    from memreport.render.words import compiles_verdict
    from tests.synth.programs import course_notebook
    path = tmp_path / "course.ipynb"
    path.write_bytes(course_notebook()[0])
    said = compiles_verdict(memreport.read_compiles(path))
    assert (said.level, said.headline) == (
        "oom", "7 compilations (5 compiled, 2 out of memory): no recompilation, 2 unfinished")


def test_poplars_stated_outcome_is_the_answer_as_poplar_states_it():
    import memreport
    from memreport.analysis import summarize
    from memreport.render.words import verdict
    from tests import SAMPLES
    stated = summarize(memreport.read(SAMPLES / "compile_cold.log"))
    assert (stated.verdict.stated_by, verdict(stated).headline) == (
        "Poplar", "0 of 1,472 tiles out of memory, as Poplar states")
    assert summarize(memreport.read(SAMPLES / "mk1_summary.txt")).verdict.stated_by is None  # a summary's count
