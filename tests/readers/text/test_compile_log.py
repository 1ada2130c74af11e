"""Compile logs: every line kind and logger prefix, then whole runs (cold, warm, recompiling, switching), exactly.

Logs come from tests/synth/compile_logs.py (written from the loggers' format
strings) and from a real SDK 3.3 excerpt; each expected row is worked out
from the lines written, not from the parser.
"""
from __future__ import annotations

import dataclasses
import re
from datetime import timedelta

import pytest

from memreport.errors import ReadError
from memreport.model import CompileTarget, ExecutableLoad
from memreport.readers.text import logtext
from memreport.readers.text.compile_log import NEEDLES, read_compile_log, read_compile_logs
from memreport.readers.text.compile_log.lines import parse, split_line
from tests.synth.compile_logs import (
    CUSTOM_OP,
    WHISPER_EXCERPT,
    Clock,
    LogBuilder,
    Phase,
    popart_cold,
    popart_warm,
    row,
    tf_batch_size_change,
    write,
)

IPU2 = CompileTarget("ipu2", 1, 1472)
NO_START = "its start is not in the log (the log begins during it): its length is unknown"
NO_END = "its end is not in the log (the run stopped or failed during it, or the log ends there)"


# -- lines --------------------------------------------------------------------------------------------------

KINDS = {
    "tf-begin": "Begin XLA compilation: cluster_1  (Hash: 0x1a2b) for ordinal  0",
    "tf-end-xla": "End XLA compilation: cluster_1 (Hash: 0x1a2b)",
    "tf-not-compiled": "Module cluster_1 has not been compiled yet (Hash: 0x9f).",
    "tf-loaded": "Loaded cluster_1 from /tmp/c/277a08fe4c20b50.poplar_exec",
    "tf-miss": "Couldn't find /tmp/c/277a08fe4c20b50.poplar_exec in executable cache",
    "tf-skip": "Skip engine compilation - all outputs are inputs.",
    "tf-engine-begin": "Begin compiling Poplar engine cluster_1",
    "tf-engine-end": "End compiling Poplar engine.",
    "tf-precompiled": "A pre-compiled Poplar program has been saved to /tmp/executables/277a08fe4c20b50"
                      ".poplar_exec",
    "tf-not-cacheable": CUSTOM_OP,
    "tf-cache-off": "Clearing XLA compilation cache of device '/device:IPU:0' while executable caching is disabled. "
                    "To enable the executable cache and potentially save recompilation time set the "
                    "'executable_cache_path' option, e.g 'TF_POPLAR_FLAGS=--executable_cache_path=/path/to/storage'",
    "popart-start": "Starting compilation",
    "popart-compiled": "Graph compiled",
    "popart-not-compiling": "Not compiling engine by request",
    "popart-returning": "Returning CachedExecutable",
    "popart-popef-found": "PopEF file inferred to have hash '4961678486983961202' has been found: "
                          "/c/4961678486983961202.popef",
    "popart-cache-file-found": "PopART cache file has been found: /c/model.popef",
    "popart-hash-matched": "Ir hash matched cached value. Skipping Ir preparation",
    "popart-false-hit": "Cache file hash did not match the IR hash, ignoring false cache hit.",
    "popart-cache-off": "Skipping to load cached PopART executable: user options have disabled it or wrong device "
                        "type.",
    "popart-loading": "Loading serialized PopART executable from /c/4961678486983961202.popef",
    "popart-load-failed": "Failed to load cached PopART executable from /c/1.popef: bad magic",
    "popart-save-dir": "/out is a directory, saving serialized Executablex to /out/executable.popef",
    "popart-saving": "Saving serialized Executablex to /tmp/exe_cache/3.3.0/4961678486983961202.popef",
    "popart-sdk1-saving": "Saving poplar Executable to '/c/exe.poplar'",
    "popart-sdk1-loading": "Loading poplar Executable from '/c/exe'",
    "popart-sdk1-unable": "Unable to load cached poplar::Executable, ir hashes differ",
    "poptorch-cache-dir": "POPTORCH_CACHE_DIR is set: setting cache path to /tmp/poptorch_cache",
    "poptorch-no-cache": "Use poptorch.Options.enableExecutableCaching() to avoid compiling the model once per process",
    "phase-start": "Starting phase: compileGraphTiles [0:1472)",
    "phase-end": "Ending phase: releasing tile vars & symbols",
    "perf": "compileGraphTiles::complete: real 12 ms; user 11 ms; sys 0 ms; max RSS: 11470.2 MiB; diff RSS: 0 "
            "total RSS: 11470.208000 MiB; current heap usage: 0.000000 MiB",
    "target-info": 'Target info: arch: "ipu2", IPUs: 1, tiles per IPU: 1472',
    "compile-finished": "Graph compilation finished: zero tiles overflowed.",
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_line_kind_holds_a_needle_and_parses_bare(kind):
    message = KINDS[kind]
    assert any(needle.decode() in message for needle in NEEDLES), "the scan would never see this line"
    assert parse(message).kind == kind


@pytest.mark.parametrize("text, family, iso, process, message", [
    ("2023-08-22 23:35:02.925033: I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] Graph compiled",
     "tensorflow", "2023-08-22T23:35:02.925033", None, "Graph compiled"),
    ("2023-08-22 23:35:02.925033: I   48213 tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] x",
     "tensorflow", "2023-08-22T23:35:02.925033", None, "x"),
    ("2023-06-29T16:14:58.205011Z PO:GRAPH    79.79 I: Starting phase: graphConstruction",
     "poplar", "2023-06-29T16:14:58.205011Z", None, "Starting phase: graphConstruction"),
    ("09:38:52.878 15288 PO:ENGINE   [I]     Starting phase: smallSubGraphOptimisation",
     "poplar", "09:38:52.878", None, "    Starting phase: smallSubGraphOptimisation"),
    ("2023-04-27T03:39:53.291853Z PL:POPLIN    3888383.3888383 W: poplin::preplanMatMuls() is deprecated!",
     "poplibs", "2023-04-27T03:39:53.291853Z", None, "poplin::preplanMatMuls() is deprecated!"),
    ("2023-06-29T16:15:26.865392Z popart:devicex 79.79 I: ", "popart", "2023-06-29T16:15:26.865392Z", None, ""),
    ("[2019-10-16 13:55:05.359] [popart:devicex] [debug] Creating poplar::Tensor 1",
     "popart", "2019-10-16T13:55:05.359", None, "Creating poplar::Tensor 1"),
    ("[10:21:41.138] [poptorch:cpp] [warning] [DISPATCHER] Type coerced from Long to Int for tensor id 5",
     "poptorch", "10:21:41.138", None, "[DISPATCHER] Type coerced from Long to Int for tensor id 5"),
    ("[10:22:14.731] [poptorch::python] [info] POPTORCH_CACHE_DIR is set: setting cache path to /c",
     "poptorch", "10:22:14.731", None, "POPTORCH_CACHE_DIR is set: setting cache path to /c"),
    # launcher tags, glued bars, colours and redraws (§8.3, §8.5), all seen in public logs
    ("[1,3]<stderr>:2023-04-27T04:30:33.475912Z PO:ENGINE   3906481.3906481 W: WARNING: x",
     "poplar", "2023-04-27T04:30:33.475912Z", "1,3", "WARNING: x"),
    ("Graph compilation: 100%|██████████| 100/100 [00:04<00:00][1,0]<stderr>:2023-08-22T23:49:40.103248Z PO:ENGINE"
     "   3556102.3556102 W: WARNING: y", "poplar", "2023-08-22T23:49:40.103248Z", "1,0", "WARNING: y"),
    ("Graph compilation:   6%|▌         | 6/100 [00:00<00:15]2023-06-29T16:14:58.767310Z PO:GRAPH    79.79 I: "
     "Starting phase: graphConstruction", "poplar", "2023-06-29T16:14:58.767310Z", None,
     "Starting phase: graphConstruction"),
    ("Graph compilation:   0%|          | 0/100 [00:00<?]\x1b[A2022-08-10T15:33:31.393783Z popart:devicex "
     "3944840.3944840 W: The engine option", "popart", "2022-08-10T15:33:31.393783Z", None, "The engine option"),
    ("[1,0]<stderr>:Graph compilation:   3%|▎         | 3/100 [00:00<00:12]\rGraph compilation:  45%|████▌     | "
     "45/100 [00:31<01:11]2023-06-29T16:15:29.089495Z PO:ENGINE   79.79 I:     Starting phase: setXreqTiles",
     "poplar", "2023-06-29T16:15:29.089495Z", "1,0", "    Starting phase: setXreqTiles"),
    ("\x1b[32m2023-06-29T16:15:26.865437Z popart:devicex 79.79 I: Starting compilation\x1b[0m",
     "popart", "2023-06-29T16:15:26.865437Z", None, "Starting compilation"),
    ("Epochs:   0%|          | 0/10 [00:00<?,[23:27:06.753] [poptorch:cpp] [warning] [DISPATCHER] z",
     "poptorch", "23:27:06.753", None, "[DISPATCHER] z"),
    ("Ending phase: Loading executable (duration 607 ms; diff RSS: 0.586426 MB)", None, None, None,
     "Ending phase: Loading executable (duration 607 ms; diff RSS: 0.586426 MB)"),
    # a damaged time is no time: the line is still Poplar's
    ("2023-06-31T29:14:58.205011Z PO:GRAPH    79.79 I: Starting phase: graphConstruction", "poplar", None, None,
     "Starting phase: graphConstruction"),
    ("29:61:52.878 15288 PO:ENGINE   [I] Starting phase: x", "poplar", None, None, "Starting phase: x"),
])
def test_logger_prefixes_tags_and_debris(text, family, iso, process, message):
    line = split_line(text)
    assert (line.family, line.stamp.iso if line.stamp else None, line.process, line.message) == \
        (family, iso, process, message)


def test_values_each_line_states():
    perf = parse("2023-06-29T16:16:15.054564Z PO:PERF     79.79 I: Loading executable: real 925 ms; user 671 ms; "
                 "sys 328 ms; diff RSS: -151.48 total RSS: 11633.903000 MiB; current heap usage: 0.000000 MiB")
    assert (perf.kind, perf.name, perf.ms, perf.rss) == ("perf", "Loading executable", 925.0, 11633.903)
    leaf = parse(KINDS["perf"])
    assert (leaf.name, leaf.rss) == ("compileGraphTiles::complete", 11470.208)  # the larger of max and total
    old = parse("09:38:52.889 15288 PO:ENGINE   [I]       Ending phase: Create adjacencies (duration 30 ms; diff "
                "RSS: 16.4961 MB; total RSS: 2440.24 MB)")
    assert (old.kind, old.name, old.ms, old.rss) == ("phase-end", "Create adjacencies", 30.0, 2440.24)
    older = parse("Ending phase: Loading executable (duration 607 ms; diff RSS: 0.586426 MB)")
    assert (older.name, older.ms, older.rss) == ("Loading executable", 607.0, None)
    assert parse(KINDS["target-info"]).numbers == (1, 1472) and parse(KINDS["target-info"]).text == "ipu2"
    assert parse("Graph compilation finished: 3 tiles overflowed.").numbers == (3,)
    assert parse("Graph compilation finished: some tiles did.").numbers == (None,)  # wording not published
    begin = parse(KINDS["tf-begin"])
    assert (begin.name, begin.hash) == ("cluster_1", "0x1a2b")
    assert parse(KINDS["popart-popef-found"]).hash == "4961678486983961202"


def test_a_message_is_read_only_from_its_own_logger_or_a_bare_line():
    assert parse("[10:21:41.138] [poptorch::python] [info] Graph compiled") is None   # PopART's words, PopTorch's
    assert parse("2023-06-29T16:15:26Z user says: Starting compilation") is None     # quoted, not a message
    assert parse("Loaded checkpoint from ckpt/model.pt") is None                    # not a cache file
    assert parse("2023-06-29T16:14:59.309010Z PO:PERF     79.79 I: MutableGraph.reset()...done") is None


# -- whole runs -----------------------------------------------------------------------------------------------

def test_a_real_sdk33_excerpt(tmp_path):
    path = write(tmp_path, "whisper.log", "\n".join(WHISPER_EXCERPT) + "\n")
    info, found, loads = read_compile_log(path)
    assert found == [row(path, 3, end_line=59, framework="popart", time="2023-06-29T16:14:58.205011Z",
                         hash="4961678486983961202", result="compiled", cache="miss", duration_s=75.253,
                         duration_from="phase timings", peak_rss_mb=12008.5, peak_rss_unit="MiB",
                         tiles_overflowed=0, target=IPU2,
                         cache_file="/tmp/exe_cache/3.3.0/4961678486983961202.popef", report=1)]
    # 28,661 ms of graph construction + 46,592 ms of lowerProgsAndCompileGraph; linkObjs printed max RSS 12008.5.
    assert loads == [ExecutableLoad(path, 67, None, "2023-06-29T16:16:13.990326Z", 1.063, False, 88)]
    assert (info.compilations, info.loads) == (1, 1)


def test_a_cold_and_a_warm_poptorch_run_under_poprun(tmp_path):
    cold = popart_cold()
    warm = popart_warm(Clock(cold.clock.now + timedelta(hours=1)))
    paths = [write(tmp_path, "cold.log", cold), write(tmp_path, "warm.log", warm)]
    history = read_compile_logs(paths)
    compiled = row(paths[0], 8, end_line=40, process="1,0", framework="popart", time="2023-06-29T16:14:57.810215Z",
                   hash="4961678486983961202", result="compiled", cache="miss", duration_s=75.253,
                   duration_from="phase timings", peak_rss_mb=12008.5, peak_rss_unit="MiB", tiles_overflowed=0,
                   target=IPU2,
                   cache_file="/tmp/exe_cache/4961678486983961202.popef", report=1)  # Poplar's stated outcome
    loaded = row(paths[1], 6, end_line=14, process="1,0", framework="popart", time="2023-06-29T17:16:14.126239Z",
                 hash="4961678486983961202", result="loaded", cache="hit", duration_s=0.412,
                 duration_from="timestamps", cache_file="/tmp/exe_cache/4961678486983961202.popef")
    assert history.compilations == (compiled, loaded)
    assert [(ld.source, ld.line, ld.process, ld.duration_s, ld.reload) for ld in history.loads] == [
        (paths[0], 55, "1,0", 1.063, False), (paths[1], 24, "1,0", 1.063, False)]
    assert [(log.compilations, log.loads) for log in history.logs] == [(1, 1), (1, 1)]


def test_a_tensorflow_run_that_recompiles_when_the_batch_size_changes(tmp_path):
    path = write(tmp_path, "train.log", tf_batch_size_change())
    _, found, loads = read_compile_log(path)
    first = row(path, 5, end_line=51, time="2023-06-29T18:14:57.810215", module="cluster_train",
                hash="0x5f1e0b9c3a7d2e11", executable_hash="0x9c4d2a7b18e0f3", result="compiled", cache="miss",
                duration_s=41.0, duration_from="phase timings", peak_rss_mb=6120.5, peak_rss_unit="MiB",
                tiles_overflowed=0, target=IPU2,
                cache_file="/data/tf_cache/9c4d2a7b18e0f3.poplar_exec", report=1)
    second = dataclasses.replace(first, line=71, end_line=117, time="2023-06-29T18:15:41.323239", report=2,
                                 hash="0xa27c04e9d51b6f3", executable_hash="0x3e81f0c2d97a5b4", duration_s=39.5,
                                 peak_rss_mb=6011.25, peak_rss_unit="MiB",
                                 cache_file="/data/tf_cache/3e81f0c2d97a5b4.poplar_exec")
    assert found == [first, second]
    assert [(ld.line, ld.reload) for ld in loads] == [(53, False), (119, False), (134, True), (151, True)]


def test_sdk2_poplar_lines_alone(tmp_path):
    """TensorFlow with POPLAR_LOG_LEVEL=INFO only: older Poplar prefix, timings on the Ending lines."""
    log = LogBuilder(sdk="2")
    log.compile_phases(construction_ms=9000, compile_ms=21000, peak_rss=2440.24)
    log.load_phases(old_form=True, load_ms=607)
    log.compile_phases(construction_ms=8000, compile_ms=20000, peak_rss=2500.5, overflowed="3 tiles overflowed.")
    log.load_phases(old_form=True, load_ms=612)
    log.load_phases(old_form=True, load_ms=607)
    path = write(tmp_path, "sdk2.log", log)
    _, found, loads = read_compile_log(path)
    assert found == [
        row(path, 1, end_line=22, framework="poplar", time="18:14:57.810", result="compiled", duration_s=30.0,
            duration_from="phase timings", peak_rss_mb=2440.24, peak_rss_unit="MB", tiles_overflowed=0, target=IPU2,
            report=1),
        # Poplar states 3 tiles overflowed: the compilation is out of memory, as `memreport sdk2.log` (#2) says
        row(path, 25, end_line=46, framework="poplar", time="18:15:28.417", result="out of memory", duration_s=28.0,
            duration_from="phase timings", peak_rss_mb=2500.5, peak_rss_unit="MB", tiles_overflowed=3, target=IPU2,
            failure="3 tile(s) overflowed, as Poplar states", report=2)]
    assert [(ld.line, ld.time, ld.duration_s, ld.reload) for ld in loads] == [
        (23, "18:15:27.810", 0.607, False), (47, "18:15:56.417", 0.612, False), (49, "18:15:57.029", 0.607, True)]


def test_tensorflow_precompile_custom_ops_no_cache_hit_skip_and_a_cut_log(tmp_path):
    log = LogBuilder()
    log.tf_compile("cluster_pre", "1f", exe_hash="277a08fe4c20b50", cache_dir="/tmp/executables", precompile=True,
                   ms=5000)
    log.tf_compile("cluster_op", "2e", exe_hash="aa", cache_dir="/tmp/executables", custom_ops=True, ms=6000)
    log.tf_compile("cluster_nocache", "3d", ms=7000)
    log.tf_skip("cluster_const", "4c")
    log.tf_hit("cluster_pre", "1f", "277a08fe4c20b50", "/tmp/executables", serialization=True)
    log.tf("Begin XLA compilation: cluster_cut  (Hash: 0x5b) for ordinal  0")
    path = write(tmp_path, "tf.log", log)
    _, found, loads = read_compile_log(path)
    exe = "/tmp/executables/277a08fe4c20b50.poplar_exec"
    assert found == [
        row(path, 1, end_line=11, time="2023-06-29T18:14:57.810215", module="cluster_pre", hash="0x1f",
            executable_hash="0x277a08fe4c20b50", result="precompiled", cache="miss", duration_s=5.0,
            duration_from="timestamps", cache_file=exe),
        row(path, 12, end_line=22, time="2023-06-29T18:15:02.810215", module="cluster_op", hash="0x2e",
            executable_hash="0xaa", result="compiled", cache="miss", duration_s=6.0, duration_from="timestamps",
            cache_file="/tmp/executables/aa.poplar_exec", not_cacheable=True),
        row(path, 23, end_line=31, time="2023-06-29T18:15:08.810215", module="cluster_nocache", hash="0x3d",
            result="compiled", cache="off", duration_s=7.0, duration_from="timestamps"),
        row(path, 32, end_line=34, time="2023-06-29T18:15:15.810215", module="cluster_const", hash="0x4c",
            result="skipped", cache="off", duration_s=0.035, duration_from="timestamps",
            notes=("engine compilation skipped: output is constant",)),
        row(path, 35, end_line=37, time="2023-06-29T18:15:15.845215", module="cluster_pre", hash="0x1f",
            executable_hash="0x277a08fe4c20b50", result="loaded", cache="hit", duration_s=0.84,
            duration_from="timestamps", cache_file=exe),
        row(path, 38, time="2023-06-29T18:15:16.685215", module="cluster_cut", hash="0x5b", end_in_log=False,
            notes=(NO_END,))]
    assert loads == []


def test_popart_up_to_sdk22_and_its_sdk1_cache(tmp_path):
    log = LogBuilder(sdk="2")
    log.popart("session", "Popart version: 1.4.0")
    log.popart("devicex", "Unable to load cached poplar::Executable, ir hashes differ", level="W")
    log.popart("devicex", "Starting Engine compilation", level="W")
    log.clock.tick(5000)
    log.popart("devicex", "Graph compiled", level="W")
    log.popart("devicex", "Saving poplar Executable to '/cache/exe.poplar'", level="W")
    log.popart("devicex", "Loading poplar Executable from '/cache/exe'", level="W")
    log.clock.tick(250)
    log.popart("devicex", "Returing CachedExecutable")
    path = write(tmp_path, "popart14.log", log)
    _, found, _ = read_compile_log(path)
    assert found == [
        row(path, 3, end_line=4, framework="popart", time="2023-06-29T18:14:57.810", result="compiled",
            cache="miss", duration_s=5.0, duration_from="timestamps", cache_file="/cache/exe.poplar",
            notes=("could not load the cached executable: ir hashes differ",)),
        row(path, 6, end_line=7, framework="popart", time="2023-06-29T18:15:02.810", result="loaded", cache="hit",
            duration_s=0.25, duration_from="timestamps", cache_file="/cache/exe")]


def test_each_rank_is_its_own_process(tmp_path):
    """Two poprun instances, lines interleaved: each rank's compilation is assembled from its own lines."""
    zero, one = popart_cold(rank=0), popart_cold(rank=1)
    mixed = [line for pair in zip(zero.lines, one.lines) for line in pair]
    path = write(tmp_path, "two.log", "\n".join(mixed) + "\n")
    _, found, loads = read_compile_log(path)
    assert [(c.line, c.process, c.result, c.cache, c.duration_s, c.hash) for c in found] == [
        (15, "1,0", "compiled", "miss", 75.253, "4961678486983961202"),
        (16, "1,1", "compiled", "miss", 75.253, "4961678486983961202")]
    assert [(ld.process, ld.reload) for ld in loads] == [("1,0", False), ("1,1", False)]


def test_popart_with_its_cache_off_and_a_log_cut_mid_compile(tmp_path):
    log = LogBuilder()
    log.popart("session", "Skipping to load cached PopART executable: user options have disabled it or wrong device "
                          "type.")
    log.popart_compile(ir_hash=None, cache_dir=None, construction_ms=1000, compile_ms=2000, peak_rss=900.0,
                       load=False)
    log.poplar("GRAPH", "Starting phase: graphConstruction")
    path = write(tmp_path, "off.log", log)
    _, found, _ = read_compile_log(path)
    assert [(c.line, c.framework, c.result, c.cache, c.duration_s, c.peak_rss_mb) for c in found] == [
        (6, "popart", "compiled", "off", 3.0, 900.0), (46, "poplar", None, None, None, None)]


def test_the_same_log_in_utf16_with_crlf_and_tiny_chunks(tmp_path, monkeypatch):
    text = tf_batch_size_change().text()
    plain = write(tmp_path, "plain.log", text)
    odd = tmp_path / "odd.log"
    odd.write_bytes(text.replace("\n", "\r\n").encode("utf-16"))
    monkeypatch.setattr(logtext, "CHUNK_BYTES", 997)
    _, want, want_loads = read_compile_log(plain)
    _, got, got_loads = read_compile_log(str(odd))
    assert [dataclasses.replace(c, source=plain) for c in got] == want
    assert [dataclasses.replace(ld, source=plain) for ld in got_loads] == want_loads


# -- what is not a compile log ----------------------------------------------------------------------------------

def test_a_log_without_compile_lines_says_what_was_looked_for(tmp_path):
    path = write(tmp_path, "quiet.log", "epoch 1 loss 0.3\nepoch 2 loss 0.2\n")
    with pytest.raises(ReadError) as caught:
        read_compile_logs([path])
    message = str(caught.value)
    assert message.startswith(f"{path}: no compilation, cache or executable-load lines (looked for TensorFlow's")
    assert "POPLAR_LOG_LEVEL=INFO" in message and "\n" not in message


@pytest.mark.parametrize("make, says", [
    (lambda p: p.write_bytes(b"!<arch>\n\x00\x01\x02" * 100), "not a text log (binary content)"),
    (lambda p: p.mkdir(), "is a directory"),  # the report command's wording
    (lambda p: None, "no such file"),
    (lambda p: p.write_bytes(b""), "empty file"),
])
def test_unreadable_inputs(tmp_path, make, says):
    path = tmp_path / "run.log"
    make(path)
    with pytest.raises(ReadError, match=re.escape(says)):
        read_compile_logs([path])


def test_hostile_lines_are_read_in_linear_time(tmp_path):
    """Long runs of spaces, dots and dates cannot make a pattern backtrack for ever; a line is read up to 16 KiB."""
    lines = ["Ending phase: x" + " " * 300_000 + "y",
             "Skip engine compilation - " + " ." * 200_000,
             "2023-06-29 " * 60_000 + "Starting phase: z",
             "2023-06-29T16:14:58.205011Z PO:GRAPH    79.79 I: Starting phase: " + "g" * 400_000,
             "Loaded m from " + "/" * 300_000 + "x.poplar_exec",
             "real 1 ms; " * 40_000,
             "Graph compilation finished: x" + " " * 300_000 + "y"]
    path = write(tmp_path, "hostile.log", "\n".join(lines) + "\n")
    _, found, loads = read_compile_log(path)
    # "Graph compilation finished" ends the compilation the z-phase began; its start is not in the log
    assert [(c.line, c.framework, c.result, c.not_in_log) for c in found] == [(4, "poplar", "compiled", ("start",))]
    assert loads == []


def test_a_lost_ending_line_does_not_swallow_the_rest_of_the_log(tmp_path):
    """mpirun can cut a line in two with another rank's (§8.3): an Ending line lost must not leave its phase open."""
    log = LogBuilder()
    log.compile_phases(construction_ms=9000, compile_ms=21000, peak_rss=2000.0)
    log.load_phases()
    cut = [i for i, line in enumerate(log.lines) if line.endswith("Ending phase: graphConstruction")][-1]
    log.lines[cut] = log.lines[cut][:40] + "[1,1]<stdout>:[INFO] Epoch 2"
    path = write(tmp_path, "cut.log", log)
    _, found, loads = read_compile_log(path)
    # The outer graph construction's end is lost, and its time with it: the phase timings no longer add up, so
    # the duration is the first phase's start to the last one's end (SDK 3 lines carry UTC dates).
    assert [(c.result, c.duration_s, c.duration_from, c.peak_rss_mb) for c in found] == [
        ("compiled", 30.000012, "timestamps", 2000.0)]
    assert [(ld.line, ld.duration_s, ld.reload) for ld in loads] == [(len(log.lines) - 11, 1.063, False)]


@pytest.mark.parametrize("seed", range(6))
def test_damaged_logs_give_rows_or_one_read_error(tmp_path, seed):
    """Bytes dropped, repeated or flipped anywhere: never an exception other than ReadError, never a hang."""
    import random
    rng = random.Random(seed)
    data = bytearray((tf_batch_size_change().text() + popart_cold(rank=seed % 2).text()).encode())
    for _ in range(40):
        at = rng.randrange(len(data))
        choice = rng.randrange(3)
        if choice == 0:
            del data[at:at + rng.randrange(1, 200)]
        elif choice == 1:
            data[at:at] = data[max(0, at - 300):at]
        else:
            data[at] = rng.randrange(256)
    path = tmp_path / "damaged.log"
    path.write_bytes(bytes(data))
    try:
        _, found, loads = read_compile_log(str(path))
    except ReadError:
        return
    for c in found:
        assert c.result in (None, "compiled", "loaded", "precompiled", "skipped")
        assert c.duration_s is None or c.duration_s >= 0
    assert all(ld.end_line >= ld.line for ld in loads)


# -- default log levels and fragments (issue #23) --------------------------------------------------------------

def test_poptorch_at_its_default_level_under_poprun(tmp_path):
    """Only the bar (frames after \\r, closed by a newline, or glued to the next tag) and the script's timing."""
    log = LogBuilder(rank=0)
    log.script_timing(0.5)  # an unrelated first line would do; a timing with nothing before it is its own row
    log.lines[-1] = "[1,0]<stdout>:---------- Compilation/Loading from Cache Started ---------"
    log.poptorch_bar(611)                                               # line 2: 10:11
    log.script_timing(683.6591004971415)                                # line 3
    log.noise(2)
    rank1 = LogBuilder(rank=1)
    rank1.poptorch_bar(3725, glue="[1,1]<stdout>:Compiled/Loaded model in 3790.25 secs")  # 1:02:05, glued
    log.lines += rank1.lines                                            # line 6
    log.poptorch_bar(200, stop=45)                                      # line 7: the run died at 45%
    log.noise(1)
    path = write(tmp_path, "poprun.log", log)
    _, found, loads = read_compile_log(path)
    script = "the script timed its compile or load at {} s ('Compiled/Loaded model in' at line {})"
    assert found == [
        row(path, 2, end_line=3, process="1,0", framework="popart", result="compiled", duration_s=611.0,
            duration_from="progress bar", notes=(
                "PopTorch's compilation bar reached 100/100 after 10:11 (tqdm's elapsed time, whole seconds)",
                script.format("683.659", 3))),
        row(path, 6, end_line=6, process="1,1", framework="popart", result="compiled", duration_s=3725.0,
            duration_from="progress bar", notes=(
                "PopTorch's compilation bar reached 100/100 after 1:02:05 (tqdm's elapsed time, whole seconds)",
                script.format("3,790.250", 6))),
        row(path, 7, end_line=7, process="1,0", framework="popart", end_in_log=False,
            notes=("PopTorch's compilation bar stopped at 45/100 after 01:30",))]
    assert loads == []


def test_a_script_timing_alone_is_a_compilation_or_a_cache_load(tmp_path):
    log = LogBuilder()
    log.noise(1)
    log.script_timing(12.75)
    log.popart_hit(ir_hash="42", cache_dir="/c", load=False)  # PopART's lines show this one: the timing is a note
    log.script_timing(0.5)
    path = write(tmp_path, "warm.log", log)
    _, found, _ = read_compile_log(path)
    assert [(c.line, c.result, c.duration_s, c.duration_from, c.unfinished) for c in found] == [
        (2, None, 12.75, "script timing", False), (6, "loaded", 0.412, "timestamps", False)]
    assert found[0].notes == ("'Compiled/Loaded model in' says compiled or loaded from the cache, not which (no "
                              "compilation bar or compile line before it; PopTorch draws its bar only while "
                              "compiling)",)
    assert found[1].notes == (
        f"the script timed its compile or load at 0.500 s ('Compiled/Loaded model in' at line {len(log.lines)})",)


def test_the_bar_of_a_compilation_other_lines_show_is_not_counted_twice(tmp_path):
    log = LogBuilder(rank=0)
    log.popart_compile(ir_hash="7", cache_dir="/c", construction_ms=2000, compile_ms=3000, peak_rss=900.0, bar=True)
    log.poptorch_bar(5)
    log.script_timing(6.5)
    path = write(tmp_path, "info.log", log)
    _, found, _ = read_compile_log(path)
    # the glued frames of the first compilation are inside its lines; the second bar is a compilation of its own
    assert [(c.line, c.result, c.duration_s, c.duration_from) for c in found] == [
        (5, "compiled", 5.0, "phase timings"), (len(log.lines) - 1, "compiled", 5.0, "progress bar")]


def test_a_lone_loading_executable_line_is_a_load_of_that_length(tmp_path):
    text = ("Ending phase: Loading executable (duration 607 ms; diff RSS: 0.586426 MB)\n"
            "step 1\n"
            "09:40:01.002 15288 PO:ENGINE   [I] Ending phase: Loading executable (duration 612 ms; diff RSS: 0 MB)\n")
    _, found, loads = read_compile_log(write(tmp_path, "lone.log", text))
    assert found == []
    assert loads == [ExecutableLoad(str(tmp_path / "lone.log"), 1, None, None, 0.607, False, 1),
                     ExecutableLoad(str(tmp_path / "lone.log"), 3, None, "09:40:01.002", 0.612, True, 3)]


def test_tensorflow_at_its_default_level(tmp_path):
    log = LogBuilder()
    log.noise(1)
    log.tf_xla_cluster()
    log.noise(1)
    path = write(tmp_path, "tf.log", log)
    _, found, _ = read_compile_log(path)
    assert [(c.line, c.framework, c.result, c.duration_s, c.unfinished) for c in found] == [
        (2, "tensorflow", "compiled", None, False)]
    assert found[0].notes[0].startswith("TensorFlow's 'Compiled cluster using XLA!', printed once per process")
    vlog = LogBuilder()
    vlog.tf_compile("cluster_1", "1a", ms=1000)
    vlog.tf_xla_cluster()  # after the first compilation VLOG shows: not another one
    _, found, _ = read_compile_log(write(tmp_path, "vlog.log", vlog))
    assert [(c.line, c.module, c.result) for c in found] == [(1, "cluster_1", "compiled")]


def test_fragments_cut_at_either_end_are_unfinished_and_untimed(tmp_path):
    """A trace excerpt that begins inside one compilation and ends inside the next: never a sum of what it shows."""
    whole = LogBuilder()
    whole.compile_phases(construction_ms=9000, compile_ms=21000, peak_rss=2000.0)
    whole.compile_phases(construction_ms=8000, compile_ms=20000, peak_rss=2100.0)
    lines = whole.lines
    starts = [i for i, line in enumerate(lines) if line.endswith("Starting phase: lowerProgsAndCompileGraph")]
    second = [i for i, line in enumerate(lines) if line.endswith("Starting phase: graphConstruction")][2]
    cut = lines[starts[0] + 1:second + 8] + [lines[second].replace("graphConstruction", "lowerControlFlow")]
    path = write(tmp_path, "fragment.log", "\n".join(cut) + "\n")
    _, found, _ = read_compile_log(path)
    assert [(c.line, c.result, c.duration_s, c.not_in_log, c.notes[-1:]) for c in found] == [
        (1, "compiled", None, ("start",), (NO_START,)),
        (second - starts[0], None, None, ("end",), (NO_END,))]
    # the fragment: from inside a compilation to "Starting phase: lowerControlFlow", nothing whole
    inner = LogBuilder()
    inner.phase(Phase("lowerProgs", 60, 500.0, 500.0))
    inner.poplar("ENGINE", "Starting phase: lowerControlFlow")
    _, found, _ = read_compile_log(write(tmp_path, "trace.log", inner))
    assert [(c.result, c.duration_s, c.duration_from, c.not_in_log) for c in found] == [
        (None, None, None, ("start", "end"))]
    tf = LogBuilder()
    tf.tf_compile("cluster_1", "1a", ms=1000)
    _, found, _ = read_compile_log(write(tmp_path, "tf.log", "\n".join(tf.lines[1:]) + "\n"))  # no Begin line
    assert [(c.line, c.module, c.hash, c.result, c.duration_s, c.not_in_log) for c in found] == [
        (1, "cluster_1", "0x1a", "compiled", None, ("start",))]
