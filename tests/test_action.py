"""The GitHub Action: action.yml's steps run here as a runner runs them, on the samples, with the environment files
and a fake GitHub for the pull-request comment; exact outputs asserted."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from memreport.action import CUT_NOTE, Inputs, comment, figures, fit, gate_failures, verdict, worse
from tests import README, code_blocks, doc, section
from tests.github import ROOT, TOKEN, FakeGitHub, Runner, action, fake_gh, load_yaml, pull_request_event

SAMPLES = ROOT / "sample_reports"
MARKER = "<!-- memreport: Tile memory / memory / build/archive.a -->"


def markdown(*args: str, cwd) -> str:
    """What ``memreport ARGS --format markdown`` prints, run where the step runs."""
    return subprocess.run([sys.executable, "-m", "memreport", *args, "--format", "markdown"], cwd=cwd,
                          capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
                          ).stdout


@pytest.fixture
def runner(tmp_path):
    """A job whose workspace holds build/archive.a (the Mk2 sample), build/pr.a (the same program, four tiles
    changed) and main.a, the base branch's build."""
    job = Runner(tmp_path, event=pull_request_event())
    (job.workspace / "build").mkdir()
    shutil.copy(SAMPLES / "mk2_1472_tiles.a", job.workspace / "build" / "archive.a")
    shutil.copy(SAMPLES / "mk2_1472_tiles_pr.a", job.workspace / "build" / "pr.a")
    shutil.copy(SAMPLES / "mk2_1472_tiles.a", job.workspace / "main.a")
    return job


# -- action.yml ---------------------------------------------------------------------------------------------------

def test_action_yml_is_a_composite_action_with_the_issues_inputs_and_outputs():
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert list(spec["inputs"]) == ["files", "baseline", "args", "html", "comment", "fail"]
    assert spec["inputs"]["files"]["required"] is True
    assert {k: v["default"] for k, v in spec["inputs"].items() if "default" in v} == {
        "baseline": "", "args": "", "html": "", "comment": "false", "fail": "true"}
    run, = [s for s in spec["runs"]["steps"] if s.get("id") == "memreport"]
    assert {name: out["value"] for name, out in spec["outputs"].items()} == {
        name: f"${{{{ steps.memreport.outputs.{name} }}}}"
        for name in ("verdict", "oom-tiles", "worst-tile", "exit-code", "markdown")}
    # Inputs reach the script through its environment, never pasted into it (a path cannot inject a command).
    assert "inputs." not in run["run"] and all(f"${{{{ inputs.{name} }}}}" in run["env"].values()
                                               for name in spec["inputs"])
    assert run["env"]["GITHUB_TOKEN"] == "${{ env.GITHUB_TOKEN || github.token }}"  # the job's token unless given
    install, = [s for s in spec["runs"]["steps"] if s["name"] == "Install memreport"]
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert '-m pip install --quiet --disable-pip-version-check "$ACTION_PATH"' in install["run"]
    assert all(step["shell"] == "bash" for step in spec["runs"]["steps"])


# -- one report, a diff, several reports --------------------------------------------------------------------------

def test_a_report_goes_to_the_summary_and_the_outputs(runner):
    step = runner.action_step({"files": "build/archive.a"})
    assert step.returncode == 0, step.stderr
    assert {k: v for k, v in step.outputs.items() if k != "markdown"} == {
        "verdict": "3 of 1,472 tiles out of memory", "oom-tiles": "3", "worst-tile": "1402", "exit-code": "0"}
    shown = markdown("build/archive.a", cwd=runner.workspace)
    assert shown.startswith("## memreport: `build/archive.a`\n") and step.summary == shown
    with open(step.outputs["markdown"], encoding="utf-8") as stream:
        assert stream.read() == f"{MARKER}\n{shown}"
    assert step.outputs["markdown"].startswith(str(runner.temp))
    assert "memreport: memreport build/archive.a --format markdown -o " in step.stdout


def test_a_gate_fails_the_step_with_its_message_unless_fail_is_false(runner):
    step = runner.action_step({"files": "build/archive.a", "args": "--fail-on-oom --max-tile 90%"})
    assert step.returncode == 3 and step.outputs["exit-code"] == "3"
    assert step.outputs["verdict"] == "3 of 1,472 tiles out of memory"
    assert step.stderr.count("memreport: gate failed: ") == 2  # the Markdown run's, once
    assert step.summary.endswith(
        "\n**Gate failed:** 3 tile(s) out of memory in build/archive.a: tile 1402 by 150,000 B, tile 17 by "
        "61,024 B, tile 731 by 2,048 B\n"
        "\n**Gate failed:** 3 tile(s) above --max-tile 90% (575,078 B of 638,976 B) in build/archive.a: tile 1402 "
        "by 213,898 B, tile 17 by 124,922 B, tile 731 by 65,946 B\n")
    passing = runner.action_step({"files": "build/archive.a", "args": "--fail-on-oom", "fail": "false"}, number=2)
    assert passing.returncode == 0 and passing.outputs["exit-code"] == "3"
    assert "::warning::memreport: a gate failed (fail is false: the step passes)" in passing.stdout


def test_a_baseline_runs_a_diff(runner):
    step = runner.action_step({"files": "build/pr.a", "baseline": "main.a", "args": "--fail-on-growth 4KiB",
                               "html": "memory.html"})
    assert step.returncode == 3
    assert {k: v for k, v in step.outputs.items() if k != "markdown"} == {
        "verdict": "1 tile newly out of memory; 4 tiles changed (2 grew, 2 shrank)", "oom-tiles": "3",
        "worst-tile": "1402", "exit-code": "3"}
    assert step.summary.startswith("## memreport diff: `main.a` → `build/pr.a`\n")
    assert step.summary.endswith("\n**Gate failed:** 2 tile(s) grew by more than 4,096 B from main.a to "
                                 "build/pr.a: tile 1024 by 150,000 B, tile 100 by 12,288 B\n")
    page = (runner.workspace / "memory.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "build/pr.a" in page


def test_globs_name_several_reports(runner):
    step = runner.action_step({"files": "build/*.a\n main.a"})
    assert step.returncode == 0, step.stderr
    assert {k: v for k, v in step.outputs.items() if k != "markdown"} == {
        "verdict": "3 of 3 reports have tiles out of memory; worst: build/archive.a, tile 1402, 788,976 B excluding "
                   "gaps of 638,976 B", "oom-tiles": "9", "worst-tile": "1402",
        "exit-code": "0"}
    assert step.summary.startswith("## memreport: 3 reports\n")
    assert "| `build/archive.a` |" in step.summary.split("### ")[0] and "| `main.a` |" in step.summary


def test_what_a_source_cannot_say_is_unknown(runner):
    shutil.copy(SAMPLES / "sweep.log", runner.workspace / "sweep.log")
    step = runner.action_step({"files": "sweep.log"})
    assert step.returncode == 0, step.stderr
    assert (step.outputs["verdict"], step.outputs["oom-tiles"], step.outputs["worst-tile"]) == (
        "3 of 5 runs failed, out of memory; worst: run 2, tile 0, 525,496 B used of 262,144 B", "unknown", "unknown")


# -- what fails the step whatever fail says ---------------------------------------------------------------------

def test_an_input_that_cannot_be_read_fails_the_step(runner):
    (runner.workspace / "notes.txt").write_text("shopping list\n")
    step = runner.action_step({"files": "notes.txt", "fail": "false"})
    assert step.returncode == 1 and step.outputs == {"verdict": "", "oom-tiles": "", "worst-tile": "",
                                                     "exit-code": "1", "markdown": ""}
    assert step.summary.startswith("### memreport failed (exit 1)\n\n```text\nmemreport: notes.txt: no memory "
                                   "information found")


@pytest.mark.parametrize("inputs,message", [
    ({"files": "build/archive.a", "comment": "maybe"}, "comment: true or false, not 'maybe'"),
    ({"files": "build/archive.a", "fail": "no"}, "fail: true or false, not 'no'"),
    ({"files": "build/*.elf"}, "files: no file matches 'build/*.elf'"),
    ({"files": "  \n "}, "files: give the reports or logs to read (paths or globs)"),
    ({"files": "build/*.a", "baseline": "main.a"},
     "baseline: memreport diff compares one build with the baseline; files names 2 (build/archive.a, build/pr.a)"),
    ({"files": "build/archive.a", "args": "--top '3"}, "args: No closing quotation in \"--top '3\""),
])
def test_bad_inputs_fail_the_step_saying_which(runner, inputs, message):
    step = runner.action_step(inputs)
    assert step.returncode == 2 and step.outputs["exit-code"] == "2"
    assert f"::error::{message}\n" in step.stdout
    assert step.summary == f"### memreport did not run\n\n{message}\n"


def test_bad_usage_of_memreport_fails_the_step(runner):
    step = runner.action_step({"files": "build/archive.a", "args": "--top -1", "fail": "false"})
    assert step.returncode == 2 and step.outputs["exit-code"] == "2" and step.outputs["verdict"] == ""
    assert step.summary.startswith("### memreport failed (exit 2)\n\n```text\nUsage: ")


# -- the pull-request comment --------------------------------------------------------------------------------

def test_one_comment_is_added_then_kept_up_to_date(runner):
    with FakeGitHub() as github:
        for i in range(120):  # the comment is found past the first page of 100
            github.comment(7, f"review comment {i}")
        runner.api_url = github.url
        first = runner.action_step({"files": "build/archive.a", "comment": "true"})
        assert first.returncode == 0, first.stderr
        ours = github.comments[7][-1]
        assert ours["body"] == f"{MARKER}\n{first.summary}" and ours["user"]["login"] == "github-actions[bot]"
        assert f"memreport: added {ours['html_url']} on pull request #7" in first.stdout
        (runner.workspace / "build" / "archive.a").write_bytes((SAMPLES / "mk2_1472_tiles_pr.a").read_bytes())
        github.comment(7, "a later review comment")
        second = runner.action_step({"files": "build/archive.a", "comment": "true"}, number=2)
        assert second.returncode == 0, second.stderr
    assert [c["body"] for c in github.comments[7][:120]] == [f"review comment {i}" for i in range(120)]
    assert len(github.comments[7]) == 122 and github.comments[7][120] is ours
    assert ours["body"] == f"{MARKER}\n{second.summary}" and first.summary != second.summary
    assert [(r.method, r.path) for r in github.requests] == [
        ("GET", "/repos/octo/models/issues/7/comments")] * 2 + [("POST", "/repos/octo/models/issues/7/comments")] + [
        ("GET", "/repos/octo/models/issues/7/comments")] * 2 + [("PATCH", f"/repos/octo/models/issues/comments/"
                                                                          f"{ours['id']}")]
    assert {r.authorization for r in github.requests} == {f"Bearer {TOKEN}"}


def comment_environment(tmp_path, github: FakeGitHub, event: dict, **env: str) -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event))
    return {"GITHUB_EVENT_PATH": str(path), "GITHUB_REPOSITORY": "octo/models", "GITHUB_API_URL": github.url,
            "GITHUB_TOKEN": TOKEN, "GITHUB_WORKFLOW": "Tile memory", "GITHUB_JOB": "memory",
            "INPUT_FILES": "build/archive.a", **env}


def test_the_token_given_is_the_one_used(tmp_path, capsys):
    with FakeGitHub() as github:
        comment(comment_environment(tmp_path, github, pull_request_event(), GITHUB_TOKEN="other"), "body")
    assert {r.authorization for r in github.requests} == {"Bearer other"}
    assert capsys.readouterr().out == ("::warning::memreport: the pull request's comment was not written: HTTP "
                                       'Error 401: Unauthorized {"message": "Bad credentials"} (a pull request from a '
                                       "fork gets a read-only token: docs/CI.md shows the two-workflow way)\n")


def test_a_refused_comment_is_a_warning_not_a_failure(runner):
    with FakeGitHub(refuse_writes=True) as github:
        runner.api_url = github.url
        step = runner.action_step({"files": "build/archive.a", "comment": "true"})
    assert step.returncode == 0 and step.outputs["exit-code"] == "0"
    assert ("::warning::memreport: the pull request's comment was not written: HTTP Error 403: Forbidden "
            '{"message": "Resource not accessible by integration"} (a pull request from a fork gets a read-only '
            "token: docs/CI.md shows the two-workflow way)") in step.stdout


def test_no_pull_request_no_comment(tmp_path, capsys):
    with FakeGitHub() as github:
        comment(comment_environment(tmp_path, github, {"ref": "refs/heads/main"}, GITHUB_EVENT_NAME="push"), "body")
    assert github.requests == []
    assert capsys.readouterr().out == "::notice::memreport: no pull request for a push event: no comment\n"


def test_a_comment_on_a_pull_request_counts(tmp_path, capsys):
    event = {"issue": {"number": 9, "pull_request": {"url": "x"}}}
    with FakeGitHub() as github:
        comment(comment_environment(tmp_path, github, event), "<!-- memreport: x -->\nbody")
    made, = github.comments[9]
    assert made["body"] == "<!-- memreport: x -->\nbody"
    assert capsys.readouterr().out == f"memreport: added {made['html_url']} on pull request #9\n"


def test_no_token_no_comment(tmp_path, capsys):
    with FakeGitHub() as github:
        comment({**comment_environment(tmp_path, github, pull_request_event()), "GITHUB_TOKEN": ""}, "body")
    assert github.requests == [] and capsys.readouterr().out == (
        "::warning::memreport: comment: needs GITHUB_TOKEN and GITHUB_REPOSITORY (set on GitHub's runners)\n")


# -- the pieces -------------------------------------------------------------------------------------------

def test_the_verdict_is_the_markdowns_bold_line_as_text():
    assert verdict("## x\n\nA · b\n\n**3 of 1,472 tiles out of memory**  \nWorst\n") == \
        "3 of 1,472 tiles out of memory"
    assert verdict("**At least 1 tile \\*out\\* of `x\\_y` &gt;= 2 &amp; 3**\n") == \
        "At least 1 tile *out* of `x_y` >= 2 & 3"
    assert verdict("no bold line\n") == ""


def test_a_comment_too_long_is_cut_at_a_paragraph_with_its_blocks_closed():
    body = "# t\n\n" + "para\n\n" * 10 + "<details><summary>s</summary>\n\n```text\n" + "x\n\n" * 200
    cut = fit(body, limit=400)
    assert len(cut) <= 400 and cut.endswith(f"x\n```\n</details>\n\n{CUT_NOTE}\n")
    assert cut.startswith("# t\n\npara\n\n") and fit("short", 400) == "short"
    before = fit("# t\n\n<details>\n\n```text\n" + "x\n" * 200, limit=300)  # no paragraph in the block
    assert before == f"# t\n\n<details>\n</details>\n\n{CUT_NOTE}\n"
    plain = fit("a\n\n" * 500, limit=300)
    kept = plain[:-len(CUT_NOTE) - 3]
    assert plain.endswith(f"\n\n{CUT_NOTE}\n") and kept == "a\n\n" * kept.count("\n\n") + "a" and len(plain) <= 300


def test_gate_messages_are_escaped_markdown():
    assert gate_failures("Verdict\nmemreport: gate failed: 1 tile(s) in a_b*.a: tile 3 by 1 B\nother\n") == \
        "\n**Gate failed:** 1 tile(s) in a\\_b\\*.a: tile 3 by 1 B\n"


def test_the_worse_status_of_two_runs():
    assert worse(0, 3) == 3 and worse(3, 1) == 1 and worse(2, 3) == 2 and worse(0, 0) == 0 and worse(4, 1) == 4


def test_inputs_split_like_a_shell():
    inputs = Inputs.from_env({"INPUT_FILES": "'my build/a.a' b.a\n  c.a  \n", "INPUT_ARGS": "--top 3",
                              "INPUT_COMMENT": "TRUE"})
    assert inputs == Inputs(("my build/a.a", "b.a", "c.a"), None, ("--top", "3"), None, True, True)


def test_the_figures_of_a_diff_against_a_text_summary_are_its_new_sides(tmp_path):
    """A diff's figures are its new build's: the out-of-memory count and maximum a text summary printed."""
    document = json.loads(subprocess.run(
        [sys.executable, "-m", "memreport", "diff", str(SAMPLES / "mk2_1472_tiles.a"), str(SAMPLES / "run.log"),
         "--format", "json", "--tile-memory", "624KiB"], capture_output=True, text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}).stdout)
    assert figures(document) == {"oom-tiles": "2", "worst-tile": "5"}
    assert figures({**document, "totals": {"new": {"tiles_out_of_memory": None}}}) == {
        "oom-tiles": "unknown", "worst-tile": "5"}


# -- docs/CI.md's workflows, run -------------------------------------------------------------------------------

def documented_workflows() -> list[dict]:
    return [load_yaml(body) for lang, body in code_blocks(section(doc("CI.md"), "## The GitHub Action"))
            if lang == "yaml"]


def steps_of(workflow: dict) -> list[dict]:
    job, = workflow["jobs"].values()
    return job["steps"]


def memreport_step(workflow: dict) -> dict:
    step, = [s for s in steps_of(workflow) if s.get("uses") == "OWNER/memreport@REF"]
    return step


def inputs_of(step: dict) -> dict[str, str]:
    """A step's ``with:`` as Actions passes it: every value a string (YAML's true is "true")."""
    return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in step["with"].items()}


def export(source, target, cwd) -> None:
    subprocess.run([sys.executable, "-m", "memreport", "export", str(source), "-o", str(target)], cwd=cwd,
                   check=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_the_documented_workflow_gates_and_comments(runner):
    workflow, _, _ = documented_workflows()
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}
    step = memreport_step(workflow)
    shutil.copy(SAMPLES / "mk2_1472_tiles_pr.a", runner.workspace / "build" / "archive.a")
    export(SAMPLES / "mk2_1472_tiles.a", runner.workspace / "baseline.json", runner.workspace)
    with FakeGitHub() as github:
        runner.api_url = github.url
        done = runner.action_step(inputs_of(step))
    assert done.returncode == 3 and done.outputs["verdict"] == \
        "1 tile newly out of memory; 4 tiles changed (2 grew, 2 shrank)"
    assert "**Gate failed:** 3 tile(s) out of memory in build/archive.a" in done.summary
    comment, = github.comments[7]
    assert comment["body"] == f"{MARKER}\n{done.summary}"
    upload = steps_of(workflow)[-1]
    assert (runner.workspace / upload["with"]["path"]).read_text().startswith("<!DOCTYPE html>")


def test_the_two_documented_workflows_comment_on_a_pull_request_from_a_fork(runner, tmp_path):
    _, pull_request, comment = documented_workflows()
    assert pull_request["permissions"] == {"contents": "read"}  # the fork's side writes nothing
    triggers = comment.get("on", comment.get(True))  # YAML 1.1 reads the key on as true
    assert triggers == {"workflow_run": {"workflows": ["Tile memory"], "types": ["completed"]}}
    memory = runner.action_step(inputs_of(memreport_step(pull_request)), number=2)
    assert memory.returncode == 3  # the sample has tiles out of memory: the step fails, the comment is kept
    keep, upload = steps_of(pull_request)[-2:]
    kept = runner.step(keep, {"steps": {"memory": {"outputs": memory.outputs}}}, number=3)
    assert kept.returncode == 0, kept.stderr
    artifact = runner.workspace / upload["with"]["path"]
    assert (artifact / "pr-number").read_text() == "7\n"
    assert (artifact / "comment.md").read_text() == f"{MARKER}\n{memory.summary}"
    # The comment workflow, in a job of its own: the artifact downloaded where it says, then its script.
    download, post = steps_of(comment)
    job = Runner(tmp_path / "comment-job", event={"workflow_run": {"id": 42, "event": "pull_request"}},
                 event_name="workflow_run")
    shutil.copytree(artifact, job.workspace / download["with"]["path"])
    bin_dir = fake_gh(tmp_path / "bin")
    with FakeGitHub() as github:
        github.comment(7, "<!-- not ours -->")
        job.api_url = github.url
        env = {"PATH": f"{bin_dir}:{job.environment(1)['PATH']}"}
        first = job.step(post, {}, env)
        assert first.returncode == 0, first.stderr
        (job.workspace / "memreport-comment" / "comment.md").write_text(f"{MARKER}\nthe next push\n")
        second = job.step(post, {}, env, number=2)
        assert second.returncode == 0, second.stderr
        (job.workspace / "memreport-comment" / "pr-number").write_text("7; rm -rf /\n")
        refused = job.step(post, {}, env, number=3)
    assert [c["body"] for c in github.comments[7]] == ["<!-- not ours -->", f"{MARKER}\nthe next push\n"]
    assert [(r.method, r.path) for r in github.requests] == [
        ("GET", "/repos/octo/models/issues/7/comments"), ("POST", "/repos/octo/models/issues/7/comments"),
        ("GET", "/repos/octo/models/issues/7/comments"),
        ("PATCH", f"/repos/octo/models/issues/comments/{github.comments[7][1]['id']}")]
    assert refused.returncode == 1 and refused.stderr == "not a pull-request number: 7; rm -rf /\n"


def test_the_readmes_action_step_runs(runner):
    block, = [body for lang, body in code_blocks(section(README, "### Gate CI")) if lang == "yaml"]
    step, = load_yaml(block)
    assert step["uses"] == "OWNER/memreport@REF"
    shutil.copy(SAMPLES / "mk2_1472_tiles_pr.a", runner.workspace / "build" / "archive.a")
    with FakeGitHub() as github:
        runner.api_url = github.url
        done = runner.action_step(inputs_of(step))
    assert done.returncode == 3 and done.outputs["verdict"] == \
        "1 tile newly out of memory; 4 tiles changed (2 grew, 2 shrank)"
    assert [c["body"] for c in github.comments[7]] == [f"{MARKER}\n{done.summary}"]
