"""scripts/make_samples.py: the bundled inputs are what the script makes, and say what the README says."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import memreport

ROOT = Path(__file__).resolve().parents[2]


def make_samples():
    spec = importlib.util.spec_from_file_location("make_samples", ROOT / "scripts" / "make_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_samples_are_what_the_script_writes():
    assert make_samples().main(["--check"]) == 0


def test_check_names_a_stale_file_and_writes_nothing(tmp_path, capsys):
    script = make_samples()
    assert script.main(["-d", str(tmp_path), "--check"]) == 1
    assert list(tmp_path.iterdir()) == []
    assert "out of date: mk2_1472_tiles_pr.a, run.log, compile_cold.log" in capsys.readouterr().err


def test_the_second_build_differs_by_the_four_changes():
    old = memreport.read(ROOT / "sample_reports" / "mk2_1472_tiles.a")
    new = memreport.read(ROOT / "sample_reports" / "mk2_1472_tiles_pr.a")
    delta = new.excluding_gaps - old.excluding_gaps
    changed = {int(tile): int(delta[tile]) for tile in delta.nonzero()[0]}
    assert changed == {5: -2_048, 100: 12_288, 731: -6_144, 1024: 150_000}


def test_the_run_log_holds_a_summary_and_its_out_of_memory_error():
    report, = memreport.read_all(ROOT / "sample_reports" / "run.log")
    assert report.tiles_out_of_memory == 2
    message, = report.oom_messages
    assert (message.kind, message.line, message.saved_path) == ("variables", 35, "./reports/training/profile.pop")
    text = (ROOT / "sample_reports" / "run.log").read_text(encoding="utf-8")
    assert "[1,0]<stderr>:Graph compilation:   6%|▌         | 6/100 [00:00<00:15]2023-" in text  # a glued bar
    assert "[1,0]<stderr>:popart.session.OutOfMemoryException: Out of memory: Cannot fit" in text


def test_the_compile_logs_are_a_cold_run_a_warm_run_and_a_recompiling_run():
    logs = ROOT / "sample_reports"
    cold_warm = memreport.read_compiles(logs / "compile_cold.log", logs / "compile_warm.log")
    assert [(c.result, c.cache) for c in cold_warm.history.compilations] == [("compiled", "miss"), ("loaded", "hit")]
    assert cold_warm.findings == ()
    recompiling = memreport.read_compiles(logs / "compile_recompiling.log")
    assert [f.kind for f in recompiling.findings] == ["recompiled", "hash-drift", "late-compile",
                                                      "executable-switching"]


def test_the_sweep_log_is_three_failed_runs_of_five_each_its_own_report():
    reports = memreport.read_all(ROOT / "sample_reports" / "sweep.log")
    assert [(r.oom_messages[0].tile, r.oom_messages[0].bytes_used, r.position.run.index) for r in reports] == [
        (0, 525_496, 2), (0, 525_496, 3), (1_300, 401_000, 5)]
    assert {(r.target.arch, r.position.run.count) for r in reports} == {("ipu1", 5)}


def test_the_poprun_log_is_two_ranks_each_its_own_report():
    reports = memreport.read_all(ROOT / "sample_reports" / "poprun_ranks.log")
    assert [(r.oom_messages[0].tile, r.position.run.process) for r in reports] == [(17, "1,0"), (1_490, "1,1")]


def test_the_default_level_log_is_two_ranks_compiled_by_the_bar():
    history = memreport.read_compiles(ROOT / "sample_reports" / "compile_default.log").history
    assert [(c.duration_s, c.duration_from) for c in history.compilations] == [(611.0, "progress bar"),
                                                                              (612.0, "progress bar")]
    text = (ROOT / "sample_reports" / "compile_default.log").read_bytes().decode("utf-8")  # \r kept
    assert text.count("\rGraph compilation: 100%") == 4  # each bar's last frame, drawn again by close()
    assert "100/100 [10:12<00:00][1,1]<stdout>:Compiled/Loaded model in 690.25 secs\n" in text  # glued
