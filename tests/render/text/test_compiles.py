"""The compiles renderers: exact text, the memreport-compiles/1 record and the CSV, on a history built by hand."""
from __future__ import annotations

import json

from memreport import render
from memreport.analysis.compiles import summarize_compiles
from memreport.model import CompileHistory, CompileLogInfo, CompileTarget, ExecutableLoad, Finding, LineRef
from memreport.render.data.compiles import render_csv, render_json
from memreport.render.text.compiles import render_text
from tests.conftest import flat
from tests.synth.compile_logs import row

HASH = "4961678486983961202"
CACHE_FILE = f"/tmp/exe_cache/{HASH}.popef"
COLD = row("cold.log", 8, end_line=40, process="1,0", framework="popart", time="2023-06-29T16:14:57.810215Z",
           hash=HASH, result="compiled", cache="miss", duration_s=75.253, duration_from="phase timings",
           peak_rss_mb=12008.5, peak_rss_unit="MiB", tiles_overflowed=0, target=CompileTarget("ipu2", 1, 1472),
           cache_file=CACHE_FILE)
WARM = row("warm.log", 6, end_line=14, process="1,0", framework="popart", time="2023-06-29T17:16:14.126239Z",
           hash=HASH, result="loaded", cache="hit", duration_s=0.412, duration_from="timestamps", cache_file=CACHE_FILE,
           notes=("could not load the cached executable: bad magic",))
HISTORY = CompileHistory(
    (CompileLogInfo("cold.log", 1234, 1, 1), CompileLogInfo("warm.log", 567, 1, 1)), (COLD, WARM),
    (ExecutableLoad("cold.log", 55, "1,0", "2023-06-29T16:16:13.063227Z", 1.063, False, 66),
     ExecutableLoad("warm.log", 24, "1,0", None, None, False, 35)))

TEXT = """\
Verdict: 2 compilations (1 compiled, 1 from the cache): no recompilation

Logs: cold.log  1 compilation, 1 executable load
      warm.log  1 compilation, 1 executable load

Compilations (2):
  #  line        rank  time                         framework  hash                 result    cache
  1  cold.log:8  1,0   2023-06-29T16:14:57.810215Z  popart     4961678486983961202  compiled  miss
  2  warm.log:6  1,0   2023-06-29T17:16:14.126239Z  popart     4961678486983961202  loaded    hit

  #  duration      peak RSS  overflowed  target
  1  75.253 s  12,008.5 MiB           0  ipu2, 1 x 1,472 tiles
  2   0.412 s             ?           ?  ?

  #  cache file
  1  /tmp/exe_cache/4961678486983961202.popef
  2  /tmp/exe_cache/4961678486983961202.popef
  ?: the log does not say
  Not stated for any compilation: module, executable hash
  #2: could not load the cached executable: bad magic

Executable loads onto the IPUs: 2 (1.063 s, 1 untimed); 0 reloads (no compilation since the previous
  load)

Findings: none

Total: 1 compiled (75.253 s), 1 loaded from a cache or file (0.412 s), 2 executable loads (1.063 s,
  1 untimed)

Verdict: 2 compilations (1 compiled, 1 from the cache): no recompilation
"""


def test_text():
    assert render_text(summarize_compiles(HISTORY)) == TEXT


def test_text_with_findings_and_no_loads():
    first = row("a.log", 3, module="m", hash="0x1", result="compiled")
    summary = summarize_compiles(CompileHistory((CompileLogInfo("a.log", 9, 2, 0),),
                                                (first, row("a.log", 9, module="m", hash="0x1", result=None,
                                                            end_in_log=False)), ()))
    text = render_text(summary)
    assert "\n\nFindings: none\n\nTotal: 1 compiled (untimed), 1 unfinished (not whole in the log, untimed)\n" in text
    assert flat(text).endswith("Note: no executable loads in the logs (Poplar's 'Loading executable' phase, "
                               "POPLAR_LOG_LEVEL=INFO): compilations after the first run and executable switching "
                               "are not judged Verdict: 2 compilations (1 compiled): no recompilation, 1 unfinished")
    assert text.endswith("\n\nVerdict: 2 compilations (1 compiled): no recompilation, 1 unfinished\n")
    assert "  #  line  time  framework   module  hash  result    cache  duration\n" \
           "  1     3  ?     tensorflow  m       0x1   compiled  ?             ?\n" in text  # one log: its lines
    recompiled = summarize_compiles(CompileHistory(HISTORY.logs, (first, row("a.log", 9, module="m", hash="0x1",
                                                                              result="compiled")), ()))
    assert "\nFindings (1):\n  recompiled: module m compiled twice with the same hash 0x1: a.log:3, a.log:9\n" in \
        render_text(recompiled)


def test_json_record():
    doc = json.loads(render_json(summarize_compiles(HISTORY)))
    assert doc["schema"] == "memreport-compiles/1"
    assert doc["logs"] == [{"source": "cold.log", "size_bytes": 1234, "compilations": 1, "loads": 1},
                           {"source": "warm.log", "size_bytes": 567, "compilations": 1, "loads": 1}]
    assert doc["compilations"][0] == {
        "source": "cold.log", "line": 8, "end_line": 40, "process": "1,0", "framework": "popart",
        "time": "2023-06-29T16:14:57.810215Z", "module": None, "hash": HASH, "executable_hash": None,
        "result": "compiled", "cache": "miss", "duration_s": 75.253, "duration_from": "phase timings",
        "peak_rss_mb": 12008.5, "tiles_overflowed": 0, "target": {"arch": "ipu2", "ipus": 1, "tiles_per_ipu": 1472},
        "cache_file": CACHE_FILE, "not_cacheable": False, "notes": [], "unfinished": False, "not_in_log": [],
        "peak_rss_unit": "MiB", "failure": None, "report": None, "place": None}
    assert doc["compilations"][1]["target"] is None and doc["compilations"][1]["notes"] == [WARM.notes[0]]
    assert doc["loads"][1] == {"source": "warm.log", "line": 24, "end_line": 35, "process": "1,0", "time": None,
                               "duration_s": None, "reload": False, "place": None}
    assert doc["findings"] == [] and doc["notes"] == []
    assert doc["totals"] == {"compilations": 2, "compiled": 1, "loaded": 1, "skipped": 0, "unfinished": 0,
                             "compile_s": 75.253, "compile_untimed": 0, "cache_load_s": 0.412,
                             "cache_load_untimed": 0, "loads": 2, "reloads": 0, "load_s": 1.063, "load_untimed": 1,
                             "compiled_or_loaded": 0, "compiled_or_loaded_s": 0.0, "compiled_or_loaded_untimed": 0,
                             "out_of_memory": 0, "failed": 0}


def test_json_findings_name_their_lines():
    summary = summarize_compiles(HISTORY)
    summary = type(summary)(summary.history, (Finding("late-compile", "m", (LineRef("a.log", 3),)),),
                            summary.totals, ("n",))
    doc = json.loads(render_json(summary))
    assert doc["findings"] == [{"kind": "late-compile", "message": "m", "lines": [{"source": "a.log", "line": 3}]}]
    assert doc["notes"] == ["n"]


def test_csv():
    assert render_csv(summarize_compiles(HISTORY)) == (
        "source,line,end_line,process,framework,time,module,hash,executable_hash,result,cache,duration_s,"
        "duration_from,peak_rss_mb,tiles_overflowed,arch,ipus,tiles_per_ipu,cache_file,not_cacheable,unfinished,"
        "peak_rss_unit,failure,report,place\n"
        f'cold.log,8,40,"1,0",popart,2023-06-29T16:14:57.810215Z,,{HASH},,compiled,miss,75.253,phase timings,12008.5,'
        f"0,ipu2,1,1472,{CACHE_FILE},false,false,MiB,,,\n"
        f'warm.log,6,14,"1,0",popart,2023-06-29T17:16:14.126239Z,,{HASH},,loaded,hit,0.412,timestamps,,,,,,'
        f"{CACHE_FILE},false,false,,,,\n")


def test_declared_in_the_registry():
    assert [(r.name, r.extension) for r in render.renderers("compiles")] == [
        ("text", ".txt"), ("json", ".json"), ("csv", ".csv"), ("markdown", ".md"), ("html", ".html")]
    assert render.render("compiles", "csv", summarize_compiles(HISTORY)).startswith("source,line,")


def test_a_log_of_cache_hits_only_says_nothing_was_compiled():
    summary = summarize_compiles(CompileHistory((CompileLogInfo("warm.log", 567, 1, 1),), (WARM,),
                                                (ExecutableLoad("warm.log", 24, "1,0", None, 1.063, False, 35),)))
    assert "\nTotal: nothing compiled, 1 loaded from a cache or file (0.412 s), 1 executable load (1.063 s)\n" in \
        render_text(summary)


def test_unfinished_and_undetermined_compilations():
    cut = row("a.log", 3, framework="poplar", result="compiled", start_in_log=False, peak_rss_mb=2440.24,
              peak_rss_unit="MB", notes=("its start is not in the log (the log begins during it): its length is "
                                         "unknown",))
    script = row("a.log", 40, framework="popart", duration_s=12.5, duration_from="script timing")
    summary = summarize_compiles(CompileHistory((CompileLogInfo("a.log", 9, 2, 0),), (cut, script), ()))
    text = render_text(summary)
    assert "  #  line  time  framework  result    cache  duration    peak RSS\n" \
           "  1     3  ?     poplar     compiled  ?             ?  2,440.2 MB\n" \
           "  2    40  ?     popart     ?         ?      12.500 s           ?\n" in text
    assert "\nTotal: 1 compiled (untimed), 1 compiled or loaded, the log does not say which (12.500 s),\n" \
           "  1 unfinished (not whole in the log, untimed)\n" in text  # a count stays with its noun
    assert "\nNote: 1 compilation began before the log did (a fragment of a log), untimed: a.log:3\n" in text
    doc = json.loads(render_json(summary))
    assert [(c["unfinished"], c["not_in_log"], c["peak_rss_unit"]) for c in doc["compilations"]] == [
        (True, ["start"], "MB"), (False, [], None)]
    assert (doc["totals"]["unfinished"], doc["totals"]["compiled_or_loaded"], doc["totals"]["compiled_or_loaded_s"],
            doc["totals"]["compiled_or_loaded_untimed"]) == (1, 1, 12.5, 0)
    assert render_csv(summary).splitlines()[1:] == ["a.log,3,,,poplar,,,,,compiled,,,,2440.24,,,,,,false,true,MB,,,",
                                                    "a.log,40,,,popart,,,,,,,12.5,script timing,,,,,,,false,false,,,,"]


def test_json_and_csv_carry_a_failed_compilations_outcome_report_and_place(tmp_path):
    """Issue #30: a notebook's compilation that ran out of memory says so, what its error states, which memory
    report of the file holds the error (#N as `memreport NB.ipynb` numbers them) and where it is."""
    from memreport.readers.text.compile_log import read_compile_logs
    from tests.synth.programs import course_notebook
    path = tmp_path / "course.ipynb"
    path.write_bytes(course_notebook()[0])
    summary = summarize_compiles(read_compile_logs([str(path)]))
    doc = json.loads(render_json(summary))
    assert [(c["result"], c["failure"], c["report"], c["place"]) for c in doc["compilations"]][4:] == [
        ("compiled", None, None, "cell 5 [3], line 1"),
        ("out of memory", "tile 12: 702,344 B used of 638,976 B", 1, "cell 5 [3], line 4"),
        ("out of memory", "variables do not fit onto one or more tiles", 2, "cell 6 [4], line 1")]
    assert render_csv(summary).splitlines()[6].endswith(
        ',out of memory,,,,,,,,,,false,true,,"tile 12: 702,344 B used of 638,976 B",1,"cell 5 [3], line 4"')


def test_a_notebooks_compilations_are_placed_in_cells_and_say_how_they_failed(tmp_path):
    from memreport import read_compiles
    from memreport.render.text.compiles import render_text
    from tests.synth.programs import course_notebook
    path = tmp_path / "course.ipynb"
    path.write_bytes(course_notebook()[0])
    lines = render_text(read_compiles(path)).splitlines()
    start = lines.index("Compilations (7):")
    assert lines[start + 1:start + 13] == [
        "  #  line                time  framework  result         report  cache   duration",
        "  1  cell 2 [1], line 1  ?     popart     compiled            -  ?      107.000 s",
        "  2  cell 2 [1], line 6  ?     popart     compiled            -  ?       35.000 s",
        "  3  cell 3 [2], line 1  ?     popart     compiled            -  ?      107.000 s",
        "  4  cell 3 [2], line 6  ?     popart     compiled            -  ?       35.000 s",
        "  5  cell 5 [3], line 1  ?     popart     compiled            -  ?      107.000 s",
        "  6  cell 5 [3], line 4  ?     popart     out of memory      #1  ?              ?",
        "  7  cell 6 [4], line 1  ?     popart     out of memory      #2  ?              ?",
        "  ?: the log does not say",
        "  -: none (no error ended it, so it left no memory report of its own)",
        "  #6: out of memory: tile 12: 702,344 B used of 638,976 B",
        "  #7: out of memory: variables do not fit onto one or more tiles"]
