"""Findings, totals and the recompile gate, on histories built by hand and on whole synthetic runs."""
from __future__ import annotations

import dataclasses
from datetime import timedelta

from memreport.analysis.compiles import check_recompile, compile_totals, summarize_compiles
from memreport.model import Compilation, CompileHistory, CompileLogInfo, ExecutableLoad, Finding, LineRef
from memreport.readers.text.compile_log import read_compile_logs
from memreport.render.words import gate_message
from tests.synth.compile_logs import Clock, LogBuilder, popart_cold, popart_warm, row, tf_batch_size_change, write


def history(*compilations: Compilation, loads: tuple[ExecutableLoad, ...] = ()) -> CompileHistory:
    sources = dict.fromkeys(c.source for c in compilations)
    return CompileHistory(tuple(CompileLogInfo(s, 0, 0, 0) for s in sources), compilations, loads)


def tf(source: str, line: int, module: str, hash_: str, exe: str | None = None, **fields) -> Compilation:
    return row(source, line, module=module, hash=hash_, executable_hash=exe, **{"result": "compiled", **fields})


def test_a_module_compiled_twice_by_one_process_and_once_each_by_two():
    h = history(tf("a.log", 10, "m", "0x1"), tf("a.log", 90, "m", "0x1"),
                tf("b.log", 5, "m", "0x1", process="1,0"), tf("b.log", 6, "m", "0x1", process="1,1"),
                tf("b.log", 7, "other", "0x2", result="skipped"), tf("b.log", 8, "other", "0x2", result="skipped"))
    found = summarize_compiles(h).findings
    assert found == (Finding("recompiled", "module m compiled twice with the same hash 0x1: a.log:10, a.log:90",
                             (LineRef("a.log", 10), LineRef("a.log", 90))),)
    gate, = check_recompile(summarize_compiles(h))
    assert (gate.gate, gate.failed, gate.source) == ("fail-on-recompile", True, "a.log, b.log")
    assert gate_message(gate) == \
        "--fail-on-recompile: module m compiled twice with the same hash 0x1: a.log:10, a.log:90"


def test_unnamed_compilations_repeat_by_hash_and_anonymous_ones_cannot():
    popart = {"framework": "popart", "result": "compiled", "cache": "off"}
    h = history(row("a.log", 1, hash="42", **popart), row("a.log", 50, hash="42", **popart),
                row("a.log", 80, framework="poplar", result="compiled"),
                row("a.log", 99, framework="poplar", result="compiled"))
    summary = summarize_compiles(h)
    assert [f.message for f in summary.findings] == ["executable 42 compiled twice: a.log:1, a.log:50"]
    assert summary.notes == (
        "2 compilations with no module and no hash: repeats among them cannot be told apart (Poplar's lines "
        "name neither; TensorFlow's VLOG lines, TF_CPP_VMODULE=poplar_compiler=1, name modules; PopART names a hash "
        "only in a cache file name)",
        "no executable loads in the logs (Poplar's 'Loading executable' phase, POPLAR_LOG_LEVEL=INFO): "
        "compilations after the first run and executable switching are not judged")
    assert not check_recompile(summarize_compiles(history(h.compilations[0], h.compilations[2])))[0].failed


def test_a_hash_compiled_again_with_the_cache_on_is_a_cache_that_does_not_work():
    h = history(tf("cold.log", 4, "m", "0x1", "0xe1", cache="miss"),
                tf("warm.log", 4, "m", "0x1", "0xe1", cache="miss", process="1,3"),
                tf("warm.log", 9, "n", "0x2", "0xe2", cache="off"),
                tf("warm.log", 20, "n", "0x2", "0xe2", cache="miss"),
                tf("warm.log", 30, "p", "0x3", "0xe3", cache="miss", not_cacheable=True),
                tf("warm.log", 40, "p", "0x3", "0xe3", cache="miss", process="1,1"))
    cache = [f for f in summarize_compiles(h).findings if f.kind == "cache-not-working"]
    assert cache == [Finding(
        "cache-not-working",
        "module m compiled again once with the cache on (warm.log:4) although it was compiled with the cache on at "
        "cold.log:4: the cache is not working (is its directory kept between runs, shared by every process and "
        "writable?)", (LineRef("cold.log", 4), LineRef("warm.log", 4)))]


def test_hash_drift_names_each_hash_once():
    h = history(tf("a.log", 1, "m", "0x1"), tf("a.log", 2, "m", "0x2", result="loaded"), tf("a.log", 3, "m", "0x1"),
                tf("a.log", 4, "m", "0x3", result=None))
    drift, = [f for f in summarize_compiles(h).findings if f.kind == "hash-drift"]
    assert drift.lines == (LineRef("a.log", 1), LineRef("a.log", 2))
    assert drift.message.startswith("module m has 2 different hashes (0x1, 0x2): each is a new program;")


def test_totals_say_how_much_is_untimed():
    h = history(tf("a.log", 1, "m", "0x1", duration_s=2.5, duration_from="timestamps"), tf("a.log", 2, "m", "0x2"),
                tf("a.log", 3, "m", "0x1", result="loaded", duration_s=0.5, duration_from="timestamps"),
                tf("a.log", 4, "m", "0x1", result="precompiled", duration_s=1.0, duration_from="phase timings"),
                tf("a.log", 5, "k", "0x9", result="skipped"), tf("a.log", 6, "k", "0x8", result=None, end_in_log=False),
                tf("a.log", 11, "k", "0x7", result="compiled", start_in_log=False),
                row("a.log", 12, framework="popart", duration_s=683.5, duration_from="script timing"),
                row("a.log", 13, framework="popart"),
                loads=(ExecutableLoad("a.log", 7, None, None, 0.25, False, 8),
                       ExecutableLoad("a.log", 9, None, None, None, True, 10)))
    t = compile_totals(h)
    # the start-cut compilation at line 11 is compiled and unfinished (untimed); the two outcomes no line states
    # (a script's "Compiled/Loaded model in", timed once) are neither compiled nor loaded
    assert (t.compilations, t.compiled, t.loaded, t.skipped, t.unfinished) == (9, 4, 1, 1, 2)
    assert (t.compile_s, t.compile_untimed, t.cache_load_s, t.cache_load_untimed) == (3.5, 2, 0.5, 0)
    assert (t.compiled_or_loaded, t.compiled_or_loaded_s, t.compiled_or_loaded_untimed) == (2, 683.5, 1)
    assert (t.loads, t.reloads, t.load_s, t.load_untimed) == (2, 1, 0.25, 1)


# -- whole runs ------------------------------------------------------------------------------------------------

def test_a_cold_and_a_warm_run_find_nothing(tmp_path):
    cold = popart_cold()
    warm = popart_warm(Clock(cold.clock.now + timedelta(hours=1)))
    summary = summarize_compiles(read_compile_logs([write(tmp_path, "cold.log", cold),
                                                    write(tmp_path, "warm.log", warm)]))
    assert summary.findings == () and summary.notes == ()
    assert not check_recompile(summary)[0].failed


def test_the_recompiling_tensorflow_run(tmp_path):
    path = write(tmp_path, "train.log", tf_batch_size_change())
    summary = summarize_compiles(read_compile_logs([path]))
    ref = [LineRef(path, n) for n in (5, 71, 64, 134, 151)]
    assert summary.findings == (
        Finding("recompiled", f"module cluster_train compiled twice with 2 different hashes: {ref[0]}, {ref[1]}",
                (ref[0], ref[1])),
        Finding("hash-drift", "module cluster_train has 2 different hashes (0x5f1e0b9c3a7d2e11, 0xa27c04e9d51b6f3): "
                              "each is a new program; its shapes, batch size or constants changed (the usual causes in "
                              f"Graphcore's recompilation note): {ref[0]}, {ref[1]}", (ref[0], ref[1])),
        Finding("late-compile", f"1 compilation began after the first executable load ended at {ref[2]} (after "
                                f"warm-up): {ref[1]}", (ref[2], ref[1])),
        Finding("executable-switching", "2 executable loads with no compilation since the previous load, 2.126 s: "
                                        "the run switches between executables, reloading one onto the IPUs each time: "
                                        f"{ref[3]}, {ref[4]}", (ref[3], ref[4])))
    assert check_recompile(summary)[0].failed


def test_executable_switching_between_two_tensorflow_modules(tmp_path):
    """Two modules compiled once each, then run in turn: every run reloads one (Graphcore's tech note)."""
    log = LogBuilder()
    for module, hlo, exe in (("cluster_fwd", "11", "e11"), ("cluster_bwd", "22", "e22")):
        log.tf_compile(module, hlo, exe_hash=exe, cache_dir="/c", ms=20000, poplar=True)
        log.load_phases()
    for _ in range(3):
        log.load_phases(load_ms=700)
        log.noise()
    path = write(tmp_path, "switch.log", log)
    summary = summarize_compiles(read_compile_logs([path]))
    kinds = [f.kind for f in summary.findings]
    assert kinds == ["late-compile", "executable-switching"]
    switching = summary.findings[1]
    assert len(switching.lines) == 3 and ", 2.514 s:" in switching.message  # 3 x (138 + 700) ms
    assert summary.totals.reloads == 3 and not check_recompile(summary)[0].failed


def test_a_warm_run_that_compiles_again_and_a_custom_op_module(tmp_path):
    cold, warm = LogBuilder(), LogBuilder()
    for log in (cold, warm):
        log.tf_compile("cluster_1", "aa", exe_hash="e0a", cache_dir="/c", ms=9000)
        log.tf_compile("cluster_op", "bb", exe_hash="e0b", cache_dir="/c", ms=3000, custom_ops=True)
    paths = [write(tmp_path, "cold.log", cold), write(tmp_path, "warm.log", warm)]
    summary = summarize_compiles(read_compile_logs(paths))
    assert [(f.kind, [str(r) for r in f.lines]) for f in summary.findings] == [
        ("recompiled", [f"{paths[0]}:1", f"{paths[1]}:1"]),
        ("recompiled", [f"{paths[0]}:11", f"{paths[1]}:11"]),
        ("cache-not-working", [f"{paths[0]}:1", f"{paths[1]}:1"]),
        ("not-cacheable", [f"{paths[0]}:11"]), ("not-cacheable", [f"{paths[1]}:11"])]
    assert summary.findings[3].message == (
        f"module cluster_op at {paths[0]}:11 cannot be cached: it holds custom user operations not marked hashable "
        "('is_hashable'), so every run compiles it again")
    gates = check_recompile(summary)
    assert [g.failed for g in gates] == [True, True]


def test_an_unfinished_compilation_is_noted_not_counted_as_a_recompile():
    first = tf("a.log", 1, "m", "0x1")
    h = history(first, dataclasses.replace(first, line=9, result=None, end_in_log=False),
                dataclasses.replace(first, line=20, start_in_log=False), dataclasses.replace(first, line=30))
    summary = summarize_compiles(h)
    assert [f.lines for f in summary.findings] == [(LineRef("a.log", 1), LineRef("a.log", 20), LineRef("a.log", 30))]
    assert summary.notes[:2] == (
        "1 compilation did not end in the log (the run stopped or failed during it, or the log ends there), untimed: "
        "a.log:9",
        "1 compilation began before the log did (a fragment of a log), untimed: a.log:20")
