"""A log of many runs (memreport/readers/text/poplar_text/runs.py; issue #23; docs/FORMATS.md §8).

Fixtures: a benchmark sweep on Mk1 (parameter lines, attach lines, graph
build times, runs that pass and fail, identical failures, a tile number past
one IPU), poprun-tagged ranks, PopART's error then a Python traceback then
its summary, chained tracebacks, fragments cut at both ends, and a summary
of cycles only.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memreport.cli import main
from memreport.errors import ReadError
from memreport.model import LogRun, min_ipus
from memreport.readers import read_path
from tests.readers.text.conftest import facts
from tests.synth import logs
from tests.synth.text import SMALL_TEXT

TERMINATE = "terminate called after throwing an instance of 'poplar::graph_memory_allocation_error'"
# A sweep: runs 2, 3, 4 and 6 fail; 3 and 4 with the same message; 6 on a tile of the second IPU.
SWEEP = [((72, 128, 1), None), ((72, 256, 1), (0, 525_496)), ((144, 256, 1), (0, 525_496)),
         ((144, 256, 2), (0, 525_496)), ((36, 64, 1), None), ((288, 512, 2), (1_300, 401_000))]


def write(tmp_path: Path, text: str, name: str = "run.log") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_each_failure_of_a_sweep_is_its_own_report(tmp_path):
    text = logs.sweep_log(SWEEP)
    reports = read_path(write(tmp_path, text))
    what = [no for no, line in enumerate(text.splitlines(), 1) if "what():" in line]
    starts = [no for no, line in enumerate(text.splitlines(), 1) if line.count(",") == 2]
    assert [(r.oom_messages[0].tile, r.oom_messages[0].bytes_used, r.oom_messages[0].line) for r in reports] == [
        (0, 525_496, what[0]), (0, 525_496, what[1]), (0, 525_496, what[2]), (1_300, 401_000, what[3])]
    assert [len(r.oom_messages) for r in reports] == [1, 1, 1, 1]  # identical messages of three runs all kept
    assert [r.position.run for r in reports] == [
        LogRun(index, 6, starts[index - 1] + 1, what[k], None, TERMINATE) for k, index in enumerate((2, 3, 4, 6))]
    assert reports[0].notes[-3:-1] == (
        f"run 2 of 6 in the log (lines {starts[1] + 1}-{what[0]}): it failed: {TERMINATE}",
        "the log holds 6 runs (programs); 4 failed: run(s) 2, 3, 4, 6")
    assert not any(n.startswith("the log holds") for r in reports[1:] for n in r.notes)


def test_what_a_sweeps_numbers_imply(tmp_path):
    """262,144 B per tile is ipu1; tile 1,300 is on an ipu1's second IPU (1,216 tiles each)."""
    reports = read_path(write(tmp_path, logs.sweep_log(SWEEP)))
    last = reports[-1].target
    assert (last.arch, last.tiles_per_ipu, last.bytes_per_tile, last.num_ipus, last.num_tiles) == \
        ("ipu1", 1_216, 262_144, None, 0)  # the IPU count and the tile count stay unknown
    assert "tile 1,300 is past one ipu1's 1,216 tiles: the program spans at least 2 IPUs" in reports[-1].notes
    assert not any("spans at least" in n for n in reports[0].notes)
    assert reports[0].notes[-1] == ("arch ipu1 inferred from the out-of-memory message's 262,144 B per tile (it names "
                                    "no arch; 262,144 B per tile is ipu1 (Mk1), 638,976 B ipu2 (Mk2, Bow))")
    assert [min_ipus(t, 1_216) for t in (0, 1_215, 1_216, 2_431, 2_432)] == [1, 1, 2, 2, 3]
    message = logs.cpp_terminate(logs.tile_memory_message(3, 700_000, 638_976))
    report, = read_path(write(tmp_path, message))
    assert (report.target.arch, report.target.tiles_per_ipu) == ("ipu2", 1_472)


def test_runs_in_json_key_by_key(tmp_path):
    text = logs.sweep_log(SWEEP[:3])
    doc = json.loads(CliRunner().invoke(main, [str(write(tmp_path, text)), "--format", "json"]).stdout)
    what = [no for no, line in enumerate(text.splitlines(), 1) if "what():" in line]
    programs = {"count": 3, "unit": "run", "outcomes": {"ended": 1, "out of memory": 2}, "failed_count": 2,
                "failed": [{"index": k, "outcome": "out of memory", "failure": "tile 0: 525,496 B used of 262,144 B",
                            "report": report, "line": line, "place": None, "process": None, "tile": 0,
                            "bytes_used": 525_496, "bytes_per_tile": 262_144, "profile": None}
                           for k, report, line in ((2, 1, what[0]), (3, 2, what[1]))]}
    assert [r["position"] for r in doc["reports"]] == [
        {"line": what[0], "index": 1, "count": 2, "place": None, "program": None, "programs": programs,
         "run": {"index": 2, "count": 3, "first_line": 7, "last_line": what[0], "process": None,
                 "failure": TERMINATE}},
        {"line": what[1], "index": 2, "count": 2, "place": None, "program": None, "programs": None,  # the first's
         "run": {"index": 3, "count": 3, "first_line": what[0] + 2, "last_line": what[1], "process": None,
                 "failure": TERMINATE}}]
    assert [r["out_of_memory_messages"][0]["bytes_used"] for r in doc["reports"]] == [525_496, 525_496]


def test_a_log_of_one_run_says_nothing_of_runs(tmp_path):
    text = logs.log_text([logs.Filler(3_000, 1), SMALL_TEXT])
    report, = read_path(write(tmp_path, text))
    assert report.position.run is None and not any("run" in n.split(":")[0] for n in report.notes)


def test_poprun_ranks_are_processes_of_their_own(tmp_path):
    """Two ranks fail with the same message at once: two runs, two reports."""
    error = logs.cpp_terminate(logs.tile_memory_message(2, 700_000, 638_976))
    text = logs.interleave(logs.tagged("Trying to attach to IPU 0 - attached\n" + error, 0, "stderr"),
                           logs.tagged("Trying to attach to IPU 1 - attached\n" + error, 1, "stderr"))
    reports = read_path(write(tmp_path, text))
    assert [(r.position.run.process, r.position.run.index, r.oom_messages[0].line) for r in reports] == [
        ("1,0", 1, 5), ("1,1", 2, 6)]
    assert reports[0].notes[-2] == "the log holds 2 runs (programs) across 2 launcher-tagged processes; 2 failed: " \
                                   "run(s) 1, 2"


def test_a_summary_after_a_python_traceback_stays_in_its_run(tmp_path):
    """PopART logs the error, Python prints the traceback, the script prints getSummaryReport(); then the
    next program launches and fits."""
    message = logs.tile_memory_message(5, 700_000, 638_976)
    text = logs.log_text([logs.popart_error(message), logs.python_traceback(message), SMALL_TEXT,
                          "Poplar version 3.3.0 (de1f8de2a7)\n", SMALL_TEXT])
    failed, passed = read_path(write(tmp_path, text))
    assert facts(failed) == facts(passed)
    assert [m.line for m in failed.oom_messages] == [1] and passed.oom_messages == ()
    assert failed.position.run.failure == f"Python error: popart_core.popart_exception: {message}"[:117] + "..."
    assert (failed.position.run.index, passed.position.run.index, passed.position.run.failure) == (1, 2, None)


def test_chained_tracebacks_are_one_error(tmp_path):
    message = logs.tile_memory_message(5, 700_000, 638_976)
    chained = (logs.python_traceback(message) + "\nDuring handling of the above exception, another exception "
               "occurred:\n\n" + logs.python_traceback("compilation failed", "RuntimeError"))
    first, second = read_path(write(tmp_path, chained + logs.python_traceback(message)))
    assert [(r.oom_messages[0].line, r.position.run.first_line, r.position.run.last_line) for r in (first, second)] \
        == [(4, 1, 11), (15, 12, 15)]  # the chain ends at its last final line; the next traceback is a new program
    assert first.position.run.failure == "Python error: RuntimeError: compilation failed"


def test_fragments_cut_at_both_ends(tmp_path):
    """A piece of a sweep's log from mid-line to mid-line: the runs it shows, the cut line left alone."""
    text = logs.sweep_log(SWEEP)
    start = text.index("what():") + 3
    end = text.index("Trying to attach", text.index("36,64,1")) + 9
    reports = read_path(write(tmp_path, logs.cut(text, start, end)))
    assert [(r.oom_messages[0].tile, r.position.run.index, r.position.run.count) for r in reports] == [
        (0, 1, 3), (0, 2, 3), (0, 3, 3)]


def test_a_summary_of_cycles_only_is_named(tmp_path):
    text = ("Execution:\n\n  Total cycles:                                  12,345,678 (approx 9,282.5 microseconds)\n"
            "\n  Cycles by vertex type:\n    poplin::ConvPartial1x1Out<half,float,true,false>  (1,216 instances):"
            "  2,345,678\n")
    with pytest.raises(ReadError) as info:
        read_path(write(tmp_path, text))
    assert str(info.value) == (f"{tmp_path / 'run.log'}: no memory information found: the summary at line 3 holds "
                               "cycle counts, no memory figures (its Execution part only); Poplar prints memory from "
                               "the graph profile: set the engine option autoReport.outputGraphProfile to true")


def test_a_launch_line_behind_a_glued_progress_bar_keeps_its_rank():
    """PopART's `Poplar version` line glued behind a tqdm bar under poprun's tag (as sample_reports/run.log has it)
    is rank 1,0's line: the bar is stripped after the tag, so the run stays one run with the error and summary."""
    from memreport.readers.text.poplar_text.prefixes import split_line
    bar = "Graph compilation:   3%|          | 3/100 [00:00<00:12]"
    line = split_line(f"[1,0]<stderr>:{bar}2023-06-29T16:14:57.810215Z popart:devicex 79.79 I: Poplar version: 3.3.0")
    assert (line.tag.process, line.tag.stream, line.logged, line.body) == ("1,0", "stderr", True,
                                                                           "Poplar version: 3.3.0")
    redrawn = split_line(f"{bar}[1,1]<stderr>:Compiled/Loaded model in 12.5 secs")  # a bar, then the next line's tag
    assert (redrawn.tag.process, redrawn.body) == ("1,1", "Compiled/Loaded model in 12.5 secs")
    (report,) = read_path(Path(__file__).resolve().parents[3] / "sample_reports" / "run.log")
    assert report.position is not None and report.position.run is None  # one run: nothing to tell apart


# Launch lines as the frameworks print them (graphcore/tensorflow poplar_platform.cc and poplar_executor.cc,
# graphcore/popart session.cpp and devicex.cpp, poprun as Graphcore's Kubernetes guide quotes it, poplibs' tools).
TF_BANNER = ("2023-08-22 23:35:02.925033: I tensorflow/compiler/plugin/poplar/driver/poplar_platform.cc:43] "
             "Poplar version: 3.3.0 (de1f8de2a7) Poplar package: b67b751185\n")


def tf_attached(device: int = 0) -> str:
    return (f"2023-08-22 23:35:06.119772: I tensorflow/compiler/plugin/poplar/driver/poplar_executor.cc:1619] "
            f"TensorFlow device /device:IPU:{device} attached to 1 IPU with Poplar device ID: {device}\n")


def popart_session(pid: str) -> str:
    """What a PopART session logs at info level as it is built and prepared (SDK 2.3+ headers)."""
    return (f"2023-06-29T16:14:57.810215Z popart:session {pid} I: Popart version: 3.3.0\n"
            f"2023-06-29T16:14:57.810230Z popart:session {pid} I: Popart release githash: de1f8de2a7\n"
            f"2023-06-29T16:14:57.812001Z popart:devicex {pid} I: Poplar version: 3.3.0 (de1f8de2a7)\n"
            f"2023-06-29T16:14:57.812010Z popart:devicex {pid} I: Poplar release githash: de1f8de2a7\n")


MPIRUN = ("/opt/poplar/bin/mpirun '--tag-output' '--bind-to' 'none' '--tag-output' '--allow-run-as-root' '-np' '2' "
          "'-x' 'POPDIST_NUM_TOTAL_REPLICAS=2' '-x' 'POPDIST_NUM_IPUS_PER_REPLICA=1' '-x' "
          "'POPDIST_NUM_LOCAL_REPLICAS=2' '-x' 'IPUOF_VIPU_API_HOST=10.21.21.129' '-x' 'IPUOF_VIPU_API_PORT=8090' "
          "'python3' 'train.py'")
POPRUN_LAUNCH = (f"10:10:50.203 1 POPRUN [I] Running command: {MPIRUN}\n"
                 "10:10:50.204 1 POPRUN [I] Waiting for mpirun (PID 4346)\n")


def runs_of(tmp_path: Path, text: str) -> list[tuple[int, int] | None]:
    """(run index, run count) of each report read from ``text`` (None for a log of one run)."""
    return [(r.position.run.index, r.position.run.count) if r.position.run else None
            for r in read_path(write(tmp_path, text))]


def test_tensorflow_attaches_after_compiling_and_each_device_once(tmp_path):
    """TensorFlow prints its summary when it compiles, then attaches (one program); a second device's attach
    is the same program; the next banner, or the same device attached again, is the next program."""
    one = TF_BANNER + SMALL_TEXT + tf_attached(0) + tf_attached(1) + "Epoch 1/3\n"
    assert runs_of(tmp_path, one + one) == [(1, 2), (2, 2)]
    assert runs_of(tmp_path, one) == [None]
    again = TF_BANNER + tf_attached(0) + SMALL_TEXT + tf_attached(0) + SMALL_TEXT  # no banner: the attach tells
    assert runs_of(tmp_path, again) == [(1, 2), (2, 2)]


def test_a_second_popart_session_in_one_process_is_one_program(tmp_path):
    """A script builds a training session, then an inference session: the same process id in PopART's headers
    keeps one run; another process id (the next program of a sweep) begins one, even before any memory text."""
    two_sessions = popart_session("79.79") + SMALL_TEXT + popart_session("79.79") + SMALL_TEXT
    assert runs_of(tmp_path, two_sessions) == [None, None]
    next_program = two_sessions + popart_session("81.81") + SMALL_TEXT
    assert runs_of(tmp_path, next_program) == [(1, 2), (1, 2), (2, 2)]
    # Headers without a process id (PopART up to SDK 2.2): a banner after memory text is a new program.
    old = "[2020-11-12 10:00:02.000] [popart:session] [info] Popart version: 1.4.0\n"
    assert runs_of(tmp_path, old + SMALL_TEXT + old + SMALL_TEXT) == [(1, 2), (2, 2)]


def test_a_new_poprun_launch_begins_every_rank_anew(tmp_path):
    """Two poprun jobs one after another: the same tags, two programs each."""
    job = POPRUN_LAUNCH + logs.interleave(logs.tagged(SMALL_TEXT, 0), logs.tagged(SMALL_TEXT, 1))
    assert runs_of(tmp_path, job + job) == [(1, 4), (2, 4), (3, 4), (4, 4)]
    # A rank's line that merely says so is no launch: the rank's summaries stay one run each.
    quoted = logs.tagged(f"Running command: {MPIRUN}\n", 0)
    assert runs_of(tmp_path, job + quoted)[:2] == [(1, 2), (2, 2)]


def test_attach_lines_of_a_benchmark(tmp_path):
    """poplibs' tools print ``Trying to attach to IPU`` then ``Attached to IPU N``; a try that fails (busy
    device) and the next that succeeds are one program; programs that fit show nothing else."""
    passing = "Trying to attach to IPU 0\nTrying to attach to IPU 1\nAttached to IPU 1\nRunning took 0.01s\n"
    failing = ("Trying to attach to IPU\nAttached to IPU 0\n"
               + logs.cpp_terminate(logs.tile_memory_message(0, 525_496, 262_144)))
    reports = read_path(write(tmp_path, passing + passing + failing + passing))
    assert [(r.position.run.index, r.position.run.count, r.position.run.first_line) for r in reports] == [(3, 4, 9)]
    assert reports[0].notes[-2] == "the log holds 4 runs (programs); 1 failed: run(s) 3"


def test_a_sweeps_tile_counts_in_json_and_the_closing_table(tmp_path):
    """No run states its tile count: JSON keeps num_tiles null and adds what the numbers imply (ipu1: 1,216 tiles
    per IPU; tile 1,300 needs 2 IPUs); the closing table shows it as a bound, explained under it."""
    path = write(tmp_path, logs.sweep_log(SWEEP))
    doc = json.loads(CliRunner().invoke(main, [str(path), "--format", "json"]).stdout)
    assert [r["target"] for r in doc["reports"]] == [
        {"arch": "ipu1", "num_ipus": None, "tiles_per_ipu": 1_216, "num_tiles": None, "bytes_per_tile": 262_144,
         "clock_hz": None, "type": None, "num_tiles_at_least": tiles, "num_ipus_at_least": ipus}
        for tiles, ipus in ((1_216, 1), (1_216, 1), (1_216, 1), (2_432, 2))]
    text = CliRunner().invoke(main, [str(path)], env={"COLUMNS": "300"}).stdout  # the path on the heading's line
    rows = text.split(f"Reports in {path} (4):\n")[1].splitlines()[1:5]
    assert [[w for w in row.split() if w.startswith(">=")] for row in rows] == [
        [">=1,216"], [">=1,216"], [">=1,216"], [">=2,432"]]
    assert text.endswith("  (>= a lower bound: no tile count stated; whole IPUs, enough for the highest tile named)\n"
                         "\nVerdict: 4 of 6 runs failed, out of memory; worst: run 2, tile 0, 525,496 B used of "
                         "262,144 B\n")
    assert text.startswith("Verdict: 4 of 6 runs failed, out of memory; worst: run 2, tile 0, 525,496 B used of "
                           "262,144 B\n")


def engine_banner(pid: str) -> str:
    """Poplar's engine at info level, as each compilation begins (docs/FORMATS.md §8.8: no colon)."""
    return f"2023-06-29T16:14:58.205011Z PO:ENGINE   {pid} I: Poplar version 3.3.0 (de1f8de2a7)\n"


def test_poplars_engine_banner_at_each_compilation_stays_in_its_process(tmp_path):
    """PopART's version lines, then Poplar's own at each compile, all of one process; TensorFlow's banner (no
    process id in its header), then the engine's at two compilations: one program; the next TensorFlow banner
    is the next program."""
    popart = popart_session("79.79") + engine_banner("79.79") + SMALL_TEXT + engine_banner("79.79") + SMALL_TEXT
    assert runs_of(tmp_path, popart) == [None, None]
    tensorflow = TF_BANNER + engine_banner("80.80") + SMALL_TEXT + engine_banner("80.80") + SMALL_TEXT
    assert runs_of(tmp_path, tensorflow + TF_BANNER + SMALL_TEXT) == [(1, 2), (1, 2), (2, 2)]
