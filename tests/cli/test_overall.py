"""The answer over the whole file first (issue #30): text, --brief, JSON and the Python API say the same; gates
judge what out-of-memory messages state (exit 3, never 2)."""
from __future__ import annotations

import json

from click.testing import CliRunner

import memreport
from memreport.cli import main
from tests.synth.logs import sweep_log

# Six runs on Mk1: runs 2, 3, 4 and 6 die out of memory (262,144 B per tile).
SWEEP = [((72, 128, 1), None), ((72, 256, 1), (0, 525_496)), ((144, 256, 1), (0, 525_496)),
         ((144, 256, 2), (3, 400_000)), ((36, 64, 1), None), ((288, 512, 2), (1_300, 401_000))]
FAILING = ["         run 2 (line 10): out of memory, tile 0, 525,496 B used of 262,144 B",
           "         run 3 (line 15): out of memory, tile 0, 525,496 B used of 262,144 B",
           "         run 4 (line 20): out of memory, tile 3, 400,000 B used of 262,144 B",
           "         run 6 (line 30): out of memory, tile 1300, 401,000 B used of 262,144 B"]
HEADLINE = "4 of 6 runs failed, out of memory; worst: run 2, tile 0, 525,496 B used of 262,144 B"


def run(*args: str):
    return CliRunner().invoke(main, list(args), prog_name="memreport", env={"COLUMNS": "160"})


def _sweep(tmp_path):
    path = tmp_path / "sweep.log"
    path.write_text(sweep_log(SWEEP))
    return str(path)


def test_the_first_and_last_lines_answer_for_the_whole_log(tmp_path):
    path = _sweep(tmp_path)
    result = run(path)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:7] == [
        f"Verdict: {HEADLINE}",
        *FAILING,
        f"         Next: memreport {path} --module '#1'",
        ""]
    assert lines[-1] == f"Verdict: {HEADLINE}"


def test_brief_is_the_answer_and_a_line_per_failing_program(tmp_path):
    path = _sweep(tmp_path)
    result = run(path, "--brief")
    assert result.output.splitlines() == [
        f"Verdict: {HEADLINE}",
        *FAILING,
        f"         Next: memreport {path} --module '#1'",
        "",
        f"Verdict: {HEADLINE}"]


def test_json_and_the_python_api_say_what_the_text_says(tmp_path):
    path = _sweep(tmp_path)
    doc = json.loads(run(path, "--format", "json").output)
    verdict = doc["verdict"]
    assert list(doc) == ["schema", "verdict", "reports", "errors"]
    assert {k: v for k, v in verdict.items() if k not in ("worst", "failing")} == {
        "text": HEADLINE, "unit": "run", "programs": 6, "failed": 4, "out_of_memory": 4, "unknown": 0, "files": 1,
        "reports": 4, "failing_left_out": 0, "next_command": f"memreport {path} --module '#1'"}
    assert verdict["worst"] == verdict["failing"][0] == {
        "text": "run 2 (line 10): out of memory, tile 0, 525,496 B used of 262,144 B", "source": path,
        "unit": "run", "index": 2, "of": 6, "outcome": "out of memory",
        "failure": "tile 0: 525,496 B used of 262,144 B", "report": f"{path}#1", "report_index": 1, "line": 10,
        "place": None, "tile": 0, "bytes": 525_496, "bytes_per_tile": 262_144, "bytes_stated": True,
        "tiles_out_of_memory": None, "tiles_out_of_memory_at_least": 1}
    assert [f["index"] for f in verdict["failing"]] == [2, 3, 4, 6]
    assert [(r["tiles_out_of_memory"], r["tiles_out_of_memory_at_least"]) for r in doc["reports"]] == \
        [(None, 1)] * 4  # the text's "at least 1", where a jq gate sees it
    answer = memreport.verdict(path)
    assert (str(answer), answer.failed, answer.programs, answer.failing) == \
        (HEADLINE, 4, 6, verdict["failing"])
    reports = memreport.read_all(path)
    assert [r.tiles_out_of_memory_at_least for r in reports] == [1, 1, 1, 1]
    assert memreport.verdict(reports) == answer


def test_one_report_of_one_program_is_its_own_answer():
    doc = json.loads(run("sample_reports/mk2_1472_tiles.a", "--format", "json").output)
    assert doc["verdict"]["text"] == "3 of 1,472 tiles out of memory"
    assert (doc["verdict"]["unit"], doc["verdict"]["programs"], doc["verdict"]["failed"]) == ("report", 1, 1)
    assert doc["reports"][0]["tiles_out_of_memory_at_least"] == 3
    assert not run("sample_reports/mk2_1472_tiles.a").output.startswith("Verdict: 1 of 1")


def test_gates_judge_the_bytes_a_message_states(tmp_path):
    path = _sweep(tmp_path)
    for gate in (["--max-tile", "90%"], ["--max-tile", "150%"], ["--min-headroom", "1KiB"], ["--fail-on-oom"]):
        result = run(path, *gate, "-o", str(tmp_path / "out.txt"))
        assert result.exit_code == 3, (gate, result.output)
    result = run(path, "--max-tile", "90%", "-o", str(tmp_path / "out.txt"))
    assert (f"memreport: gate failed: at least 1 tile(s) above --max-tile 90% (235,929 B of 262,144 B) in {path}#1 "
            "(line 10) (from the bytes used its out-of-memory messages state; the log holds no memory summary, only "
            "out-of-memory messages): tile 0 by 289,567 B") in result.output.replace("\n", " ")
    partly = run(path, "--max-tile", "180%", "-o", str(tmp_path / "out.txt"))  # run 4 states 152.6%: over in 2
    assert partly.exit_code == 3 and partly.output.count("memreport: gate failed: ") == 2
    assert f"memreport: gate not judged: --max-tile: {path}#3 (line 20) printed no maximum" in partly.output
    beyond = run(path, "--max-tile", "250%", "-o", str(tmp_path / "out.txt"))  # no message states that much
    assert beyond.exit_code == 2 and "printed no maximum" in beyond.output


def test_a_notebooks_reports_are_placed_in_cells_and_their_compilations(tmp_path):
    from tests.synth.programs import course_notebook
    path = tmp_path / "course.ipynb"
    path.write_bytes(course_notebook()[0])
    lines = run(str(path)).output.splitlines()
    start = lines.index(f"Reports in {path} (2):")
    assert lines[start + 1:start + 4] == [
        "  Source  Where                Compilation  Arch    Tiles  Worst tile       Bytes   OOM tiles",
        "  #1      cell 5 [3], line 4           6/7  ipu2  >=1,472          12  702,344 B*  at least 1",
        "  #2      cell 6 [4], line 10          7/7  ?           ?           ?          ?   at least 1"]
    assert lines[0] == ("Verdict: 2 of 7 compilations failed, out of memory; worst: compilation 6, tile 12, 702,344 B "
                        "used of 638,976 B")


def test_a_notebooks_messages_are_placed_in_their_cells_in_text_page_and_picture(tmp_path):
    from memreport.analysis import summarize_all
    from memreport.render.page.report import messages_table
    from memreport.render.picture.plot import figure
    from tests.synth.programs import course_notebook
    path = tmp_path / "course.ipynb"
    path.write_bytes(course_notebook()[0])
    text = run(str(path)).output
    assert ("Out-of-memory messages (1):\n  cell 6 [4], line 10  variables  one or more tiles cannot hold their "
            "variables (which ones, the message does not say)\n") in text
    second = summarize_all(memreport.read_all(path))[1]
    assert messages_table(second).count("<td>cell 6 [4], line 10</td>") == 1
    fig = figure(second)
    assert any(t.get_text().startswith("cell 6 [4], line 10: one or more tiles cannot hold their variables")
               for ax in fig.axes for t in ax.texts)
