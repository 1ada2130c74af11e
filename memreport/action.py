"""The GitHub Action's step (action.yml at the repository's root): ``python -m memreport.action``.

It reads the action's inputs from ``INPUT_FILES``, ``INPUT_BASELINE``, ``INPUT_ARGS``, ``INPUT_HTML``,
``INPUT_COMMENT`` and ``INPUT_FAIL`` (action.yml sets them), runs the memreport command twice (``python -m
memreport``: GitHub Markdown, then JSON, docs/SCHEMA.md; ``memreport diff BASELINE FILE`` with a baseline),
appends the Markdown to ``$GITHUB_STEP_SUMMARY``, writes the outputs ``verdict``, ``oom-tiles``,
``worst-tile``, ``exit-code`` and ``markdown`` to ``$GITHUB_OUTPUT``, keeps one pull-request comment up to date
(found by its hidden header) through GitHub's REST API when ``comment`` is on, and exits with memreport's
status: a failed gate (3) fails the step unless ``fail`` is false; an input that cannot be read or bad usage
always does. It imports nothing else of memreport: the command's exit status, Markdown and JSON are its contract.
"""
from __future__ import annotations

import glob
import html
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

COMMENT_LIMIT = 65_536  # characters of a GitHub comment
CUT_NOTE = "_Cut to fit a pull-request comment: the job summary holds the whole._"
GATE_FAILED = 3
USAGE = 2
MAX_PAGES = 100  # of 100 comments each
OUTPUTS = ("verdict", "oom-tiles", "worst-tile", "exit-code", "markdown")


class ActionError(Exception):
    """A bad input or environment: the step fails with exit status 2, saying which."""


@dataclass(frozen=True)
class Inputs:
    """The action's inputs, checked."""

    files: tuple[str, ...]
    baseline: str | None
    args: tuple[str, ...]
    html: str | None
    comment: bool
    fail: bool

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Inputs:
        def text(name: str) -> str:
            return environ.get(f"INPUT_{name.upper()}", "").strip()

        words = [w for line in text("files").splitlines() for w in _split(line, "files")]
        if not words:
            raise ActionError("files: give the reports or logs to read (paths or globs)")
        return cls(tuple(words), text("baseline") or None, tuple(_split(text("args"), "args")), text("html") or None,
                   _flag(text("comment"), "comment", False), _flag(text("fail"), "fail", True))


def _split(text: str, name: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise ActionError(f"{name}: {exc} in {text!r}") from None


def _flag(value: str, name: str, default: bool) -> bool:
    if not value:
        return default
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ActionError(f"{name}: true or false, not {value!r}")


def expand(patterns: tuple[str, ...]) -> list[str]:
    """The files the inputs name: each glob's matches in sorted order (``**`` spans directories), each plain
    path as given (memreport names one that is missing); a glob that matches nothing is an ActionError."""
    found: list[str] = []
    for pattern in patterns:
        if glob.has_magic(pattern):
            matches = sorted(p for p in glob.glob(pattern, recursive=True) if not os.path.isdir(p))
            if not matches:
                raise ActionError(f"files: no file matches {pattern!r}")
            found += matches
        else:
            found.append(pattern)
    return [f"./{p}" if p.startswith("-") else p for p in found]  # never read as an option


def commands(inputs: Inputs, files: list[str], markdown: str, document: str) -> tuple[list[str], list[str]]:
    """The two memreport runs: Markdown (with the page, if asked) and JSON; the action's options after ``args``."""
    memreport = [sys.executable, "-m", "memreport"]
    if inputs.baseline is not None:
        if len(files) != 1:
            raise ActionError(f"baseline: memreport diff compares one build with the baseline; files names "
                              f"{len(files)} ({', '.join(files)})")
        memreport += ["diff", inputs.baseline, files[0]]
    else:
        memreport += files
    memreport += inputs.args
    page = ["--html", inputs.html] if inputs.html else []
    return [*memreport, "--format", "markdown", "-o", markdown, *page], [*memreport, "--format", "json", "-o", document]


def verdict(markdown: str) -> str:
    """The verdict as plain text: the Markdown's first bold line, its escapes and entities undone."""
    match = re.search(r"^\*\*(.+?)\*\*\s*$", markdown, re.MULTILINE)
    if match is None:
        return ""
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", match[1]))


def figures(document: dict[str, Any]) -> dict[str, str]:
    """``oom-tiles`` and ``worst-tile`` from memreport's JSON: a report's (memreport/1, over every report) or a
    diff's new build (memreport-diff/1); "unknown" where the source cannot say."""
    if document.get("schema", "").startswith("memreport-diff/"):
        oom = [document["totals"]["new"]["tiles_out_of_memory"]]
        maxima = [document["max_excluding_gaps"]["new"]]
    else:
        oom = [r["tiles_out_of_memory"] for r in document["reports"]]
        maxima = [r["max_excluding_gaps"] for r in document["reports"]]
    known = [m for m in maxima if m is not None]
    worst = max(known, key=lambda m: m["bytes"]) if known and len(known) == len(maxima) else None
    return {"oom-tiles": str(sum(oom)) if oom and None not in oom else "unknown",
            "worst-tile": str(worst["tile"]) if worst is not None else "unknown"}


def marker(environ: Mapping[str, str]) -> str:
    """The comment's hidden header: one comment per workflow, job and files."""
    name = " / ".join((environ.get("GITHUB_WORKFLOW", ""), environ.get("GITHUB_JOB", ""),
                       " ".join(environ.get("INPUT_FILES", "").split())))
    while "--" in name:
        name = name.replace("--", "-")
    return f"<!-- memreport: {name.replace('>', '')} -->"


def gate_failures(stderr: str) -> str:
    """The gates that failed, as Markdown after the report: memreport's stderr lines ``memreport: gate failed:``."""
    failed = [line.split(": gate failed: ", 1)[1] for line in stderr.splitlines() if ": gate failed: " in line]
    escaped = [re.sub(r"([\\`*_\[\]<>#|~])", r"\\\1", line) for line in failed]
    return "".join(f"\n**Gate failed:** {line}\n" for line in escaped)


def fit(body: str, limit: int = COMMENT_LIMIT) -> str:
    """``body`` cut at a paragraph to at most ``limit`` characters, with a note, its code block and folded
    sections closed."""
    if len(body) <= limit:
        return body
    room = limit - len(CUT_NOTE) - 64
    cut = body.rfind("\n\n", 0, room)
    kept = body[:cut if cut > 0 else room]
    if len(re.findall(r"^```", kept, re.MULTILINE)) % 2:
        kept += "\n```"
    kept += "\n</details>" * max(kept.count("<details>") - kept.count("</details>"), 0)
    return f"{kept}\n\n{CUT_NOTE}\n"


def pull_request(environ: Mapping[str, str]) -> int | None:
    """The pull request the workflow runs for, from its event (pull_request, pull_request_target, or a comment
    on one); None for any other event."""
    path = environ.get("GITHUB_EVENT_PATH")
    if not path or not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as stream:
        event = json.load(stream)
    if isinstance(event.get("pull_request"), dict):
        return int(event["pull_request"]["number"])
    issue = event.get("issue")
    if isinstance(issue, dict) and issue.get("pull_request"):
        return int(issue["number"])
    return None


class Comments:
    """A pull request's comments through GitHub's REST API (``GITHUB_API_URL``, ``GITHUB_TOKEN``)."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.api = environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
        self.repository = environ.get("GITHUB_REPOSITORY", "")
        self.token = environ.get("GITHUB_TOKEN", "")
        if not self.token or not self.repository:
            raise ActionError("comment: needs GITHUB_TOKEN and GITHUB_REPOSITORY (set on GitHub's runners)")

    def request(self, method: str, url: str, body: dict[str, Any] | None = None) -> tuple[Any, str]:
        """The response's JSON and its ``Link`` header."""
        request = urllib.request.Request(
            url, method=method, data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Bearer {self.token}", "Accept": "application/vnd.github+json",
                     "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "memreport-action",
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response), response.headers.get("Link", "")

    def find(self, number: int, header: str) -> int | None:
        """The id of the first comment that starts with ``header`` (following the pages' ``next`` links)."""
        url: str | None = f"{self.api}/repos/{self.repository}/issues/{number}/comments?per_page=100"
        for _ in range(MAX_PAGES):
            if url is None:
                break
            page, link = self.request("GET", url)
            found = next((c["id"] for c in page if str(c.get("body", "")).startswith(header)), None)
            if found is not None:
                return int(found)
            next_page = re.search(r'<([^>]+)>;\s*rel="next"', link)
            url = next_page[1] if next_page else None
        return None

    def keep(self, number: int, header: str, body: str) -> str:
        """Update the comment that starts with ``header``, or add one: which it did, and the comment's URL."""
        found = self.find(number, header)
        if found is None:
            made, _ = self.request("POST", f"{self.api}/repos/{self.repository}/issues/{number}/comments",
                                   {"body": body})
            return f"added {made.get('html_url', '')}".strip()
        made, _ = self.request("PATCH", f"{self.api}/repos/{self.repository}/issues/comments/{found}",
                               {"body": body})
        return f"updated {made.get('html_url', '')}".strip()


def annotate(kind: str, message: str) -> None:
    """A workflow command: ``::error::``, ``::warning::``, ``::notice::`` (shown on the run's page)."""
    escaped = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::{kind}::{escaped}", flush=True)


def write_outputs(path: str | None, values: Mapping[str, str]) -> None:
    """Append ``name=value`` lines to ``$GITHUB_OUTPUT`` (a value of several lines between delimiters)."""
    for name, value in values.items():
        print(f"{name}: {value}", flush=True)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as stream:
        for name, value in values.items():
            if "\n" in value:
                delimiter = f"ghadelimiter_{uuid.uuid4()}"
                stream.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
            else:
                stream.write(f"{name}={value}\n")


def append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as stream:
            stream.write(text if text.endswith("\n") else text + "\n")


def worse(status: int, other: int) -> int:
    """The status to report of two runs: a failure to run outranks a failed gate, which outranks a pass."""
    rank = {0: 0, GATE_FAILED: 1}
    return max(status, other, key=lambda s: (rank.get(s, 2), s))


def main(environ: Mapping[str, str] = os.environ) -> int:
    """The action's step; returns its exit status."""
    summary = environ.get("GITHUB_STEP_SUMMARY")
    try:
        inputs = Inputs.from_env(environ)
        files = expand(inputs.files)
        work = tempfile.mkdtemp(prefix="memreport-", dir=environ.get("RUNNER_TEMP") or None)
        report, document = os.path.join(work, "report.md"), os.path.join(work, "memreport.json")
        markdown_run, json_run = commands(inputs, files, report, document)
    except ActionError as exc:
        annotate("error", str(exc))
        append(summary, f"### memreport did not run\n\n{exc}\n")
        write_outputs(environ.get("GITHUB_OUTPUT"), {**dict.fromkeys(OUTPUTS, ""), "exit-code": str(USAGE)})
        return USAGE
    print("memreport:", shlex.join(["memreport", *markdown_run[3:]]), flush=True)
    shown = subprocess.run(markdown_run, capture_output=True, text=True)
    sys.stderr.write(shown.stderr)
    made = subprocess.run(json_run, capture_output=True, text=True)
    if made.returncode != shown.returncode:
        sys.stderr.write(made.stderr)
    status = worse(shown.returncode, made.returncode)
    return finish(environ, inputs, status, report, document, shown.stderr)


def finish(environ: Mapping[str, str], inputs: Inputs, status: int, report: str, document: str,
           stderr: str) -> int:
    """Summary, outputs and comment from what the runs wrote; the step's exit status."""
    summary = environ.get("GITHUB_STEP_SUMMARY")
    values = {**dict.fromkeys(OUTPUTS, ""), "exit-code": str(status)}
    body = None
    if os.path.exists(report):
        with open(report, encoding="utf-8") as stream:
            markdown = stream.read() + gate_failures(stderr)
        body = fit(f"{marker(environ)}\n{markdown}")
        values["markdown"] = os.path.join(os.path.dirname(report), "comment.md")
        with open(values["markdown"], "w", encoding="utf-8") as stream:
            stream.write(body)
        values["verdict"] = verdict(markdown)
        append(summary, markdown)
    else:
        lines = stderr.strip() or "(nothing on stderr)"
        fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", lines)), default=0))
        append(summary, f"### memreport failed (exit {status})\n\n{fence}text\n{lines}\n{fence}\n")
    if os.path.exists(document):
        with open(document, encoding="utf-8") as stream:
            values.update(figures(json.load(stream)))
    write_outputs(environ.get("GITHUB_OUTPUT"), values)
    if inputs.comment and body is not None:
        comment(environ, body)
    if status == GATE_FAILED and not inputs.fail:
        annotate("warning", "memreport: a gate failed (fail is false: the step passes)")
        return 0
    return status


def comment(environ: Mapping[str, str], body: str) -> None:
    """Keep the pull request's comment up to date; a failure to is a warning, never the step's failure."""
    number = pull_request(environ)
    if number is None:
        annotate("notice", f"memreport: no pull request for a {environ.get('GITHUB_EVENT_NAME', 'this')} event: "
                           "no comment")
        return
    try:
        done = Comments(environ).keep(number, marker(environ), body)
    except ActionError as exc:
        annotate("warning", f"memreport: {exc}")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = exc.read().decode("utf-8", "replace")[:300] if isinstance(exc, urllib.error.HTTPError) else ""
        annotate("warning", f"memreport: the pull request's comment was not written: {exc} {reason}".strip()
                 + " (a pull request from a fork gets a read-only token: docs/CI.md shows the two-workflow way)")
    else:
        print(f"memreport: {done} on pull request #{number}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
