"""Jupyter notebooks (memreport/readers/text/ipynb.py; issue #30).

Fixtures (tests/synth/programs.py): nbformat 4 notebooks as Jupyter writes
them (keys sorted, multiline strings as lists), a kernel running ``train()``
twice (two PopTorch models each) then a call that does not fit and one with
profiling on; several streams per cell, stdout and stderr; a picture;
IPython's tracebacks with ANSI colours; the error printed by PopART's two
loggers and raised; ``\\r`` applied as JupyterLab saves it, or kept as
VS Code keeps it.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from memreport.errors import ReadError
from memreport.readers import read_path
from memreport.readers.text.compile_log import read_compile_logs
from memreport.readers.text.ipynb import is_notebook
from tests.synth import programs as synth

# The course notebook's cells that print, as Jupyter numbers them: (cell, execution count).
CELLS = [(2, 1), (3, 2), (5, 3), (6, 4)]


def write(tmp_path: Path, data: bytes, name: str = "course.ipynb") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("name", ["course.ipynb", "course.json", "course"])
@pytest.mark.parametrize("applied", [True, False])
def test_a_notebook_is_read_by_its_content(tmp_path, name, applied):
    data, placed = synth.course_notebook(applied=applied)
    assert placed == CELLS
    path = write(tmp_path, data, name)
    first, second = read_path(path)
    assert [(r.label, r.position.program, r.position.where) for r in (first, second)] == [
        (f"{path}#1 (cell 5 [3], line 4)", 6, "cell 5 [3], line 4"),
        (f"{path}#2 (cell 6 [4], line 10)", 7, "cell 6 [4], line 10")]
    assert [(m.kind, m.tile, m.where) for r in (first, second) for m in r.oom_messages] == [
        ("tile-memory", 12, "cell 5 [3], line 4"), ("variables", None, "cell 6 [4], line 10")]
    record = first.position.programs
    assert (record.count, record.unit, record.by_outcome) == (7, "compilation", {"compiled": 5, "out of memory": 2})
    assert [(f.index, f.where, f.report) for f in record.failed] == [
        (6, "cell 5 [3], line 4", 1), (7, "cell 6 [4], line 10", 2)]


def test_memreport_compiles_reads_a_notebook_with_its_places(tmp_path):
    path = write(tmp_path, synth.course_notebook()[0])
    history = read_compile_logs([path])
    found = history.compilations
    assert [(c.result, c.place) for c in found] == [
        ("compiled", "cell 2 [1], line 1"), ("compiled", "cell 2 [1], line 6"),
        ("compiled", "cell 3 [2], line 1"), ("compiled", "cell 3 [2], line 6"),
        ("compiled", "cell 5 [3], line 1"), ("out of memory", "cell 5 [3], line 4"),
        ("out of memory", "cell 6 [4], line 1")]
    assert [c.report for c in found] == [None] * 5 + [1, 2]
    assert str(found[5].ref) == f"{path}, cell 5 [3], line 4"
    assert history.logs[0].size_bytes == Path(path).stat().st_size  # the notebook's size, not its text's


def test_a_failed_call_is_its_own_run_its_traceback_ended_by_its_final_line(tmp_path):
    first, second = read_path(write(tmp_path, synth.course_notebook()[0]))
    assert first.notes[-2].startswith("run 1 of 2 in the log (cell 5 [3], lines 4-17): it failed: Python error: "
                                      "Error: In poptorch/source/LowerToPopart.cpp:1064: 'popart_exception':")
    assert second.notes[-2] == ("run 2 of 2 in the log (cell 6 [4], lines 3-10): it failed: Python error: Error: In "
                                "poptorch/source/LowerToPopart.cpp:1064: 'popart_exception': Out of memory: Cannot "
                                "fit all var...")  # the run from its traceback (the bar is no run's line) to its end
    assert not any(n.startswith("the log holds ") for n in first.notes)  # its programs are its 7 compilations


def test_streams_as_one_string_pictures_and_cells_that_print_nothing(tmp_path):
    run = synth.Run()
    run.out("Epoch 1: loss 2.21\n")
    run.popart_error(synth.tile_oom(4, 700_000))
    cell = synth.code_cell(7, run, applied=True, extra=[synth.PNG])
    for output in cell["outputs"]:
        if output["output_type"] == "stream":
            output["text"] = "".join(output["text"])  # a string, not a list of lines: both are nbformat 4
    cells = [synth.markdown_cell("# notes\n"), synth.code_cell(None, source="import poptorch"), cell]
    report, = read_path(write(tmp_path, synth.notebook(cells)))
    assert (report.position.where, report.oom_messages[0].tile) == ("cell 3 [7], line 2", 4)


def test_colours_in_stream_text_are_dropped(tmp_path):
    run = synth.Run()
    run.out(f"\x1b[31m2023-10-02T14:05:12.118204Z popart:devicex 1.1 E: Memory allocation error : "
            f"{synth.tile_oom(5, 700_001)}\x1b[0m\n", synth.STDERR)
    report, = read_path(write(tmp_path, synth.notebook([synth.code_cell(1, run)])))
    assert report.oom_messages[0].text == f"Memory allocation error : {synth.tile_oom(5, 700_001)}"


@pytest.mark.parametrize("data,message", [
    (b'{"cells": [{"cell_type": "code",', "a notebook that is not valid JSON: Expecting"),
    (b'{"nbformat": 3, "worksheets": [], "metadata": {}}',
     "a Jupyter notebook of nbformat 3: memreport reads nbformat 4"),
    (b'{"cells": [{"cell_type": "markdown", "source": []}], "nbformat": 4}',
     "a Jupyter notebook whose code cells printed nothing"),
    (b'{"cells": [{"cell_type": "code", "outputs": [{"output_type": "stream", "text": 5}]}], "nbformat": 4}',
     "a stream output's text is neither a string nor a list of strings"),
])
def test_notebooks_that_cannot_be_read_are_refused_in_one_line(tmp_path, data, message):
    path = write(tmp_path, data)
    with pytest.raises(ReadError) as info:
        read_path(path)
    assert str(info.value).startswith(f"{path}: ") and message in str(info.value)
    assert "\n" not in str(info.value)


def test_only_a_notebook_is_taken_for_one():
    notebook = synth.course_notebook()[0]
    assert is_notebook(notebook[:4096]) and is_notebook(b'\xef\xbb\xbf{"nbformat": 4, "cells": []}')
    assert not is_notebook(json.dumps({"graphProfile": {}, "cells": [1]}).encode())
    assert not is_notebook(b'{"schema": "memreport/1", "reports": [], "cell_type": "code"}')
