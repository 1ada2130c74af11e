"""The answer over every report read, in programs (issue #30): runs, compilations or reports, which failed, the
worst."""
from __future__ import annotations

import memreport
from memreport.analysis import summarize_all
from memreport.analysis.results import FailingProgram, Overall
from memreport.model import ReportName
from tests import SAMPLES
from tests.synth import programs
from tests.synth.logs import sweep_log

SWEEP = [((72, 128, 1), (0, 525_496)), ((72, 128, 2), None), ((96, 256, 1), (7, 300_000)), ((96, 256, 2), None)]


def _overall(*paths) -> Overall:
    reports = [r for p in paths for r in memreport.read_all(p)]
    summaries = summarize_all(reports)
    assert all(s.overall is summaries[0].overall for s in summaries)  # one answer, shared
    answer = summaries[0].overall
    assert answer is not None
    return answer


def test_a_sweep_counts_its_runs_those_that_left_no_report_too(tmp_path):
    log = tmp_path / "sweep.log"
    log.write_text(sweep_log(SWEEP))
    source = str(log)
    first = FailingProgram(source, "run", 1, 4, "out of memory", "tile 0: 525,496 B used of 262,144 B",
                           ReportName(source, None, 1, 2, 5), 5, None, 0, 525_496, 262_144, True, 1, False)
    third = FailingProgram(source, "run", 3, 4, "out of memory", "tile 7: 300,000 B used of 262,144 B",
                           ReportName(source, None, 2, 2, 15), 15, None, 7, 300_000, 262_144, True, 1, False)
    assert _overall(log) == Overall("run", 4, 2, 2, 0, 1, 2, (first, third), first)
    assert first.over_by == 263_352 and first.where == "line 5"


def test_a_log_of_compilations_counts_every_compilation_and_gives_the_error_to_the_last_one_started(tmp_path):
    run = programs.Run()
    run.compile_model(20)
    run.compile_model(30)
    run.out_of_memory(tile=1, used=700_000)
    log = tmp_path / "poptorch.log"
    log.write_text(run.log())
    answer = _overall(log)
    assert (answer.unit, answer.count, answer.failed, answer.out_of_memory, answer.reports) == \
        ("compilation", 3, 1, 1, 1)
    assert [(f.index, f.of, f.tile, f.bytes, f.bytes_per_tile, f.stated) for f in answer.failing] == \
        [(3, 3, 1, 700_000, 638_976, True)]


def test_files_of_different_programs_are_programs_and_the_worst_is_the_most_bytes_over(tmp_path):
    log = tmp_path / "sweep.log"
    log.write_text(sweep_log(SWEEP))
    archive = SAMPLES / "mk2_1472_tiles.a"  # tile 1402: 788,976 B of 638,976 B, 150,000 B over
    answer = _overall(log, archive)
    assert (answer.unit, answer.count, answer.failed, answer.out_of_memory, answer.files, answer.reports) == \
        ("program", 5, 3, 3, 2, 3)
    assert [(f.source, f.unit, f.index, f.tile, f.over_by, f.stated, f.tiles, f.tiles_exact)
            for f in answer.failing] == [
        (str(log), "run", 1, 0, 263_352, True, 1, False), (str(log), "run", 3, 7, 37_856, True, 1, False),
        (str(archive), "report", None, 1402, 150_000, False, 3, True)]
    assert answer.worst == answer.failing[0]
    assert answer.failing[2].look_into is not None and answer.failing[2].look_into.tile == 1402


def test_a_traces_modules_are_its_programs():
    answer = _overall(SAMPLES / "trace_two_modules.rep")
    assert (answer.unit, answer.count, answer.failed, answer.out_of_memory, answer.unknown) == ("program", 2, 1, 1, 0)
    worst = answer.worst
    assert worst is not None and worst.report is not None
    assert (worst.index, worst.report.module, worst.tile, worst.bytes, worst.bytes_per_tile, worst.stated) == \
        (2, "cluster_training_step.17", 5, 700_000, 638_976, False)


def test_one_report_is_one_program_and_nothing_failed_means_no_worst():
    answer = _overall(SAMPLES / "mk1_profile.json")
    assert answer == Overall("report", 1, 0, 0, 0, 1, 1, (), None)
    assert not answer.several


def test_stated_outcomes_are_compilations_that_did_not_fail():
    answer = _overall(SAMPLES / "compile_recompiling.log")
    assert (answer.unit, answer.count, answer.failed, answer.unknown, answer.worst, answer.several) == \
        ("compilation", 2, 0, 0, None, True)
