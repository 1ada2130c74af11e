"""A log's programs, one segmentation for ``memreport LOG`` and ``memreport compiles LOG``
(memreport/readers/text/programs.py; issue #30).

Fixtures in the real layouts (tests/synth/programs.py, compile_logs.py):
PopTorch's bar as a terminal keeps it (every frame after a ``\\r``, log
lines glued after a frame's ``]``, ``close()``'s redraw) and as Jupyter
saves it (each bar's last state), two models per ``train()`` call and
several calls per process, PopART's error logged by two loggers, PopTorch's
error line with an empty profile path, a bar stopped at 0 before Poplar's
``Cannot fit all variable data``; poprun BERT's bar and timing line;
PopART's cache directory created; Poplar's stated outcomes.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memreport.errors import ReadError
from memreport.model import COMPILE_LOG_FORMAT, OutOfMemoryMessage
from memreport.readers import read_path
from memreport.readers.text import programs as segmentation
from memreport.readers.text.compile_log import read_compile_log
from tests.synth import logs
from tests.synth import programs as synth
from tests.synth import text as synth_text
from tests.synth.compile_logs import LogBuilder, tqdm_bar

ROOT = Path(__file__).resolve().parent.parent.parent.parent
SAMPLE_LOGS = sorted(p.name for p in (ROOT / "sample_reports").glob("*.log"))
COERCED = f"[14:02:11.305] [poptorch:cpp] [warning] {synth.TYPE_COERCED}"
# One ipu1 of 4 tiles, tile 1 over its 262,144 B.
SMALL_SUMMARY = synth_text.summary_text(synth_text.summary_from_tiles(
    np.array([9_000, 300_000, 8_000, 7_000]), np.array([9_100, 300_100, 8_100, 7_100]), num_ipus=1, tiles_per_ipu=4,
    bytes_per_tile=262_144, clock_hz=1.6e9, graph={"Number of vertices": 3}, detailed=1))


def write(tmp_path: Path, text: str, name: str = "run.log") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def kernel() -> synth.Run:
    """One process that runs train() twice (two models each), then a third call that does not fit, then with
    profiling on a bar stopped at 0 and the variables that do not fit."""
    run = synth.Run()
    run.train_call()
    run.train_call()
    run.compile_model(107)
    run.out_of_memory()
    run.variables_do_not_fit()
    return run


def poprun_bert() -> str:
    """poprun BERT at default levels, as argonne-lcf's user guide shows it (*seen*, FORMATS.md §8.3 [alcf-ug]):
    the bar's line carries no tag before it, only the tag of tqdm's closing newline glued after it, then the
    script's ``Compiled/Loaded model in X secs`` under rank 0's tag. A second rank the same, tagged."""
    frames = "".join("\r" + tqdm_bar(p, f"{p * 6 // 60:02d}:{p * 6 % 60:02d}", "?" if p == 0 else "00:05")
                     for p in (0, 3, 41, 97, 100, 100))
    return (synth.POPRUN_LAUNCH.format(n=2) + "10:10:50.204 1 POPRUN [I] Waiting for mpirun (PID 4346)\n"
            "[1,0]<stderr>:Using config: pretrain_large_128_POD64\n" + frames + "[1,0]<stderr>:\n"
            "[1,0]<stderr>:Compiled/Loaded model in 683.6591004971415 secs\n"
            "[1,0]<stderr>:-----------------------------------------------------------\n"
            f"[1,1]<stderr>:{frames}\n[1,1]<stderr>:\n[1,1]<stdout>:Compiled/Loaded model in 690.25 secs\n")


def popart_cold_oom() -> str:
    """PopART at INFO under poprun: a compilation that fits, then one whose error PopART logs twice."""
    log = LogBuilder(rank=0)
    log.popart_compile(ir_hash="4961678486983961202", cache_dir="/tmp/exe_cache", construction_ms=2000,
                       compile_ms=3000, peak_rss=900.0, bar=True)
    log.popart("devicex", "Starting compilation")
    for logger in ("devicex", "popart"):
        log.popart(logger, f"Memory allocation error : {synth.tile_oom(12, 702_344)}", level="E")
    return log.text()


def fixtures() -> dict[str, str]:
    return {"kernel.log": kernel().log(), "bert.log": poprun_bert(), "popart.log": popart_cold_oom(),
            "abort.log": synth.ranks_abort_together(4), "sweep.log": logs.sweep_log([((72, 128, 1), None),
                                                                                      ((72, 256, 1), (0, 525_496))])}


def programs_of(path: str):
    """What ``memreport LOG`` says of the file's programs, or the refusal."""
    try:
        reports = read_path(path)
    except ReadError as exc:
        return str(exc)
    return reports[0].position.programs, [r.position.program for r in reports]


@pytest.mark.parametrize("name", SAMPLE_LOGS + sorted(fixtures()))
def test_both_commands_find_the_same_programs(tmp_path, name):
    path = str(ROOT / "sample_reports" / name) if name in SAMPLE_LOGS else write(tmp_path, fixtures()[name], name)
    memory = programs_of(path)
    try:
        _, compilations, _ = read_compile_log(path)
    except ReadError:
        compilations = []
    if isinstance(memory, str):  # no memory text: a log of compile lines only, whose compilations all ended well
        assert "`memreport compiles " in memory and compilations
        assert not any(c.failed for c in compilations)
        return
    record, placed = memory
    if not compilations:
        assert record.unit != "compilation" and set(placed) == {None}
        return
    assert (record.unit, record.count) == ("compilation", len(compilations))
    assert [(f.index, f.outcome, f.report) for f in record.failed] == [
        (k, c.result, c.report) for k, c in enumerate(compilations, 1) if c.failed]
    assert [c.failure_text for c in compilations if c.failed] == [f.failure for f in record.failed]
    for index, program in enumerate(placed, 1):  # each report's compilation points at its first report
        assert compilations[program - 1].report is not None and compilations[program - 1].report <= index


def test_a_kernel_that_trains_three_times_and_runs_out_of_memory(tmp_path):
    """Two models per train() call: 7 compilations, of which the 6th (its bar stopped at 36) ran out of memory
    on tile 12 and the 7th (stopped at 0, profiling on) could not fit its variables."""
    text = kernel().log()
    path = write(tmp_path, text)
    _, found, _ = read_compile_log(path)
    assert [(c.result, c.unfinished) for c in found] == [("compiled", False)] * 5 + [
        ("out of memory", True), ("out of memory", True)]
    lines = text.split("\n")  # line ends only (str.splitlines would split at every \r redraw too)
    starts = [no for no, line in enumerate(lines, 1) if line.startswith("\rGraph compilation:   0%")]
    assert [c.line for c in found][-2:] == starts[-2:]
    message, variables = found[5].failure, found[6].failure
    assert isinstance(message, OutOfMemoryMessage) and isinstance(variables, OutOfMemoryMessage)
    assert (message.kind, message.tile, message.bytes_used, message.bytes_per_tile, variables.kind) == \
        ("tile-memory", 12, 702_344, 638_976, "variables")
    assert [c.report for c in found] == [None] * 5 + [1, 2]
    first, second = read_path(path)  # each failed compilation's errors are a report of their own
    assert [(r.position.program, len(r.oom_messages), r.oom_messages[0].kind) for r in (first, second)] == [
        (6, 1, "tile-memory"), (7, 1, "variables")]  # PopART's two loggers, the traceback: one message
    assert first.oom_messages[0].line == next(no for no, line in enumerate(lines, 1) if "popart:devicex" in line)
    record = first.position.programs
    assert record == second.position.programs
    assert (record.count, record.unit, record.by_outcome) == (7, "compilation", {"compiled": 5, "out of memory": 2})
    assert [(f.index, f.failure, f.report, f.tile, f.bytes_used, f.bytes_per_tile, f.process) for f in
            record.failed] == [(6, "tile 12: 702,344 B used of 638,976 B", 1, 12, 702_344, 638_976, None),
                               (7, "variables do not fit onto one or more tiles", 2, None, None, None, None)]


def _bars(*lines: str) -> str:
    return "\n".join(lines) + "\n"


DONE, DONE_LATER = tqdm_bar(100, "01:47", "00:00"), tqdm_bar(100, "00:35", "00:00")
SHAPES = {
    # Jupyter's last state of each bar: consecutive 100% bars with lines between (one compilation each; 1 before)
    "last states": (_bars(DONE, COERCED, COERCED, DONE_LATER, "Epoch 1: loss 2.21", DONE, DONE_LATER),
                    ["compiled"] * 4),
    # a log line glued after a bar's ']', close()'s redraw on the next line (a real notebook showed 97/100 there:
    # 3 compilations before, the redraw a third, unfinished)
    "glued": (_bars("\r" + tqdm_bar(0, "00:00", "?") + "\r" + DONE + COERCED, "\r" + DONE,
                    "\r" + tqdm_bar(0, "00:00", "?") + "\r" + DONE_LATER + COERCED,
                    tqdm_bar(97, "00:35", "00:01")), ["compiled", "compiled"]),
    # mpirun forwarding each frame as a line of its own: the redraw at 100 on the next line is the same bar
    "a frame a line": (_bars(*("[1,0]<stderr>:\r" + tqdm_bar(p, "01:47", "00:00") for p in (0, 45, 100, 100)),
                             "[1,0]<stderr>:\r" + tqdm_bar(0, "00:00", "?")), ["compiled", None]),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_bar_is_counted_once(tmp_path, shape):
    text, results = SHAPES[shape]
    path = write(tmp_path, text)
    _, found, _ = read_compile_log(path)
    assert [c.result for c in found] == results


def test_poprun_berts_bar_and_timing_line_are_one_compilation(tmp_path):
    """Before, the untagged bar and rank 0's timing line were two compilations of two processes."""
    _, found, _ = read_compile_log(write(tmp_path, poprun_bert()))
    assert [(c.process, c.result, c.duration_s, c.duration_from, c.line, c.end_line) for c in found] == [
        ("1,0", "compiled", 600.0, "progress bar", 4, 5), ("1,1", "compiled", 600.0, "progress bar", 7, 9)]
    assert found[0].notes[-1] == ("the script timed its compile or load at 683.659 s ('Compiled/Loaded model in' at "
                                  "line 5)")


def test_an_out_of_memory_error_belongs_to_the_last_compilation_started(tmp_path):
    """The bar reached 100 (PopART allows out of memory with profiling on), then the error: that compilation
    ran out of memory, whatever its bar said; the compilation before it compiled."""
    run = synth.Run()
    run.compile_model(20)
    run.compile_model(30)
    run.popart_error(synth.tile_oom(3, 700_000))
    path = write(tmp_path, run.log())
    _, found, _ = read_compile_log(path)
    assert [(c.result, c.report) for c in found] == [("compiled", None), ("out of memory", 1)]
    report, = read_path(path)
    assert report.position.program == 2


def test_two_compilations_errors_are_two_reports(tmp_path):
    """Before, the out-of-memory messages of two programs of one process landed in one memory report."""
    run = synth.Run()
    for tile in (3, 4):
        run.compile_model(20)
        run.popart_error(synth.tile_oom(tile, 700_000))
    reports = read_path(write(tmp_path, run.log()))
    assert [(r.position.program, [m.tile for m in r.oom_messages]) for r in reports] == [(1, [3]), (2, [4])]


def test_popart_creating_its_cache_directory_is_a_miss(tmp_path):
    """``Specified directory not found. Creating ...`` (devicex, WARN, its quotes and trailing space real, as a
    Graphcore notebook shows it after the bar): the cache was on and empty, so what compiled missed it."""
    text = _bars(DONE + '2023-03-13T10:20:56.031453Z popart:devicex 19074.19074 W: Specified directory not found. '
                 'Creating "/tmp/exe_cache//pyg-a-worked-example" directory ', "Epoch 0 loss: 1.945887", DONE_LATER)
    _, found, _ = read_compile_log(write(tmp_path, text))
    assert [(c.result, c.cache) for c in found] == [("compiled", "miss"), ("compiled", "miss")]
    assert found[0].notes[-1] == ("PopART created the cache directory '/tmp/exe_cache//pyg-a-worked-example': the "
                                  "cache was on and empty (a miss)")


def test_poplars_stated_outcome_is_a_report(tmp_path):
    report, = read_path(ROOT / "sample_reports" / "compile_cold.log")
    t = report.target
    assert (report.format, report.format_name, report.printed.tiles_out_of_memory, report.position.line) == \
        (COMPILE_LOG_FORMAT, "Poplar compile log", 0, 36)
    assert (t.arch, t.num_ipus, t.tiles_per_ipu, t.num_tiles, report.position.program) == ("ipu2", 1, 1472, 1472, 1)
    log = LogBuilder()
    log.compile_phases(construction_ms=900, compile_ms=2100, peak_rss=900.0, overflowed="2 tiles overflowed.")
    overflowed, = read_path(write(tmp_path, log.text()))
    assert overflowed.printed.tiles_out_of_memory == 2
    record = overflowed.position.programs
    assert [(f.index, f.outcome, f.failure, f.report) for f in record.failed] == [
        (1, "out of memory", "2 tile(s) overflowed, as Poplar states", 1)]
    alone = write(tmp_path, "2023-06-29T16:15:28.800239Z PO:ENGINE   79.79 I: Graph compilation finished: zero tiles "
                            "overflowed.\n", "alone.log")
    report, = read_path(alone)  # no Target info line: the tile count is unknown, and said so
    assert (report.num_tiles_known, report.printed.tiles_out_of_memory) == (False, 0)
    assert "the tile count is unknown (no 'Target info:' line before it)" in report.notes


def test_a_stated_outcome_takes_the_target_info_of_its_own_compilation_only(tmp_path):
    """Poplar's Target info line is looked for above a stated outcome, in its process, and no further than the
    previous compilation's outcome."""
    head = "2023-06-29T16:15:27.247227Z PO:ENGINE   79.79 I: "
    text = "".join(head + line + "\n" for line in (
        'Target info: arch: "ipu2", IPUs: 1, tiles per IPU: 1472', "Graph compilation finished: zero tiles overflowed.",
        "Starting phase: lowerProgsAndCompileGraph", "Graph compilation finished: 2 tiles overflowed."))
    tagged = "[1,1]<stderr>:" + head + 'Target info: arch: "ipu21", IPUs: 2, tiles per IPU: 1472\n' + \
        "[1,0]<stderr>:" + head + "Graph compilation finished: zero tiles overflowed.\n"
    first, second = read_path(write(tmp_path, text))
    assert [(r.target.arch, r.target.num_tiles, r.printed.tiles_out_of_memory, r.position.program)
            for r in (first, second)] == [("ipu2", 1472, 0, 1), (None, 0, 2, 2)]
    rank0, = read_path(write(tmp_path, tagged, "tagged.log"))
    assert (rank0.target.arch, rank0.num_tiles_known) == (None, False)  # rank 1's Target info is not rank 0's


def test_a_log_of_compile_lines_only_is_refused_naming_memreport_compiles():
    path = str(ROOT / "sample_reports" / "compile_warm.log")
    with pytest.raises(ReadError) as info:
        read_path(path)
    assert str(info.value) == (
        f"{path}: no memory information found: the log holds compile lines only (1 compilation(s) or cache load(s)), "
        "no memory summary, out-of-memory message or stated outcome (Poplar's 'Graph compilation finished:'); "
        f"`memreport compiles {path}` lists its compilations")


@pytest.mark.parametrize("line,kept", [
    ("Graph compilation:   0%|          | 0/100 [00:00<?]", True),
    ("Graph compilation: 100%|██████████| 100/100 [01:47<00:00]", True),
    ("Graph compilation:  45%|████▌     | 45/100 [00:31<01:11]", False),
    ("2023-06-29T16:15:26.471215Z popart:devicex 79.79 I: Starting compilation", True),
    ("2023-06-29T16:16:13.063227Z popart:devicex 79.79 I: Graph compiled", True),
    ("I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] Begin XLA compilation: c", True),
    ("2023-04-27T10:01:01.026681Z PO:ENGINE   1.1 W: WARNING: The compile time engine option", False),
    ("PO:ENGINE   79.79 I: Starting phase: lowerProgsAndCompileGraph", True),
    ("Compiled/Loaded model in 683.66 secs", True), ("Not compiling engine by request", True),
])
def test_the_byte_level_sift_keeps_the_lines_that_mark_programs(line, kept):
    buf = (line + "\n").encode()
    at = buf.rfind(b"ompil")
    mask = segmentation.sift(np.frombuffer(buf + b" " * 32, np.uint8), np.array([at], np.int64))
    assert bool(mask[0]) is kept
    assert segmentation.sift(np.frombuffer(buf + b" " * 32, np.uint8), np.array([at], np.int64), all_frames=True)[0]\
        or "ompiler" in line or "compile " in line


def test_reports_of_a_log_without_compile_lines_are_its_runs_or_its_programs(tmp_path):
    sweep = read_path(ROOT / "sample_reports" / "sweep.log")
    record = sweep[0].position.programs
    assert (record.count, record.unit, record.failed_count, [f.index for f in record.failed]) == \
        (5, "run", 3, [2, 3, 5])
    assert {r.position.programs for r in sweep} == {record} and {r.position.program for r in sweep} == {None}
    two = read_path(ROOT / "sample_reports" / "trace_two_modules.rep")  # a .rep trace: its compile reports
    record = two[0].position.programs
    assert two[1].position.programs == record
    assert (record.count, record.unit, [(f.index, f.outcome, f.failure, f.report) for f in record.failed]) == \
        (2, "program", [(2, "out of memory", "2 tile(s) out of memory, as its summary printed", 2)])
    text = read_path(ROOT / "sample_reports" / "mk1_summary.txt")[0].position.programs
    assert (text.count, text.unit, text.failed) == (1, "program", ())


def test_a_log_of_four_ranks_that_abort_together(tmp_path):
    reports = read_path(write(tmp_path, synth.ranks_abort_together(4)))
    record = reports[0].position.programs
    assert (record.count, record.unit, [(f.index, f.outcome, f.report, f.tile, f.process) for f in record.failed]) == \
        (4, "run", [(rank + 1, "out of memory", rank + 1, 17 + rank, f"1,{rank}") for rank in range(4)])


def test_an_error_before_a_compilations_first_line_in_view_is_that_compilations(tmp_path):
    """The log begins with PopART's error, then a bar seen only at its total (its start not in the log), then
    the summary the script printed: one report, of that compilation, which ran out of memory."""
    summary = logs.tagged(SMALL_SUMMARY, 0)
    text = ("[1,0]<stderr>:" + logs.popart_error(synth.tile_oom(1, 700_000, 262_144)) +
            "Graph compilation: 100%|##########| 100/100 [00:04<00:00]" + summary)
    path = write(tmp_path, text)
    report, = read_path(path)
    assert (report.position.program, [m.tile for m in report.oom_messages]) == (1, [1])
    _, found, _ = read_compile_log(path)
    assert [(c.process, c.result, c.report, c.failure_text) for c in found] == [
        ("1,0", "out of memory", 1, "tile 1: 700,000 B used of 262,144 B")]


def test_a_bar_or_a_count_of_thousands_of_digits_is_no_figure(tmp_path):
    """Bars are read by ``memreport LOG`` too: a frame of 6,000 digits is no frame (int() refuses past 4,300),
    and an overflow count past 19 digits is unknown, never an error."""
    digits = "9" * 6000
    text = (f"Graph compilation:   0%|          | {digits}/100 [00:00<?]\n"
            f"2023-06-29T16:15:28.800239Z PO:ENGINE   79.79 I: Graph compilation finished: {digits} tiles "
            "overflowed.\n")
    report, = read_path(write(tmp_path, text))
    assert (report.format, report.printed.tiles_out_of_memory) == (COMPILE_LOG_FORMAT, None)
    _, found, _ = read_compile_log(write(tmp_path, text, "again.log"))
    assert [(c.result, c.tiles_overflowed) for c in found] == [("compiled", None)]
