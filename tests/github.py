"""GitHub Actions, run here: action.yml's steps as a runner runs them (its expressions, bash -eo pipefail, the
environment files) and a fake REST API for pull-request comments (a local HTTP server, and a ``gh`` that talks
to it through the real ``jq``)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "ghs_fake_token"
REPOSITORY = "octo/models"


def load_yaml(text: str) -> Any:
    yaml = pytest.importorskip("yaml", reason="pyyaml is in the test extra (pip install -e '.[test]')")
    return yaml.safe_load(text)


def action() -> dict[str, Any]:
    return load_yaml((ROOT / "action.yml").read_text(encoding="utf-8"))


_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def evaluate(text: str, contexts: dict[str, Any]) -> str:
    """``${{ a.b.c }}`` and ``${{ a.b || c.d }}`` (the forms action.yml and docs/CI.md use in values) replaced as
    Actions does; any other expression fails the test."""
    def value(expression: str) -> str:
        for alternative in expression.split("||"):
            assert re.fullmatch(r"\s*[\w-]+(\.[\w-]+)+\s*", alternative), \
                f"an expression the test runner does not know: {expression}"
            found: Any = contexts
            for part in alternative.strip().split("."):
                found = found.get(part, "") if isinstance(found, dict) else ""
            if found not in ("", None):
                return str(found)
        return ""
    return _EXPRESSION.sub(lambda m: value(m[1]), text)


def outputs(path: Path) -> dict[str, str]:
    """``$GITHUB_OUTPUT``'s values: ``name=value`` lines and ``name<<DELIMITER`` blocks."""
    found: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines()) if path.exists() else iter(())
    for line in lines:
        if "<<" in line and "=" not in line.split("<<")[0]:
            name, delimiter = line.split("<<", 1)
            body = []
            for inner in lines:
                if inner == delimiter:
                    break
                body.append(inner)
            found[name] = "\n".join(body)
        else:
            name, _, value = line.partition("=")
            found[name] = value
    return found


@dataclass
class Step:
    """One composite step's run: its exit status, what it printed, and the environment files it wrote."""

    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


@dataclass
class Runner:
    """A runner's job: a workspace, RUNNER_TEMP, the environment files, the event; memreport is this checkout."""

    root: Path
    event: dict[str, Any] = field(default_factory=dict)
    event_name: str = "pull_request"
    api_url: str = "http://127.0.0.1:9"  # nothing listens: a test that comments starts a FakeGitHub

    def __post_init__(self) -> None:
        self.workspace = self.root / "workspace"
        self.temp = self.root / "runner-temp"
        for directory in (self.workspace, self.temp, self.root / "files"):
            directory.mkdir(parents=True, exist_ok=True)
        # The install step's virtual environment, stood in for: its python runs this checkout.
        venv_bin = self.temp / "memreport-venv" / "bin"
        venv_bin.mkdir(parents=True, exist_ok=True)
        shim = venv_bin / "python"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        shim.chmod(0o755)

    def environment(self, step_number: int) -> dict[str, str]:
        files = self.root / "files"
        event = files / "event.json"
        event.write_text(json.dumps(self.event))
        return {"PATH": os.environ["PATH"], "HOME": str(self.root), "PYTHONPATH": str(ROOT), "CI": "true",
                "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(self.workspace), "RUNNER_TEMP": str(self.temp),
                "GITHUB_OUTPUT": str(files / f"output-{step_number}"),
                "GITHUB_STEP_SUMMARY": str(files / f"summary-{step_number}"), "GITHUB_EVENT_PATH": str(event),
                "GITHUB_EVENT_NAME": self.event_name, "GITHUB_REPOSITORY": REPOSITORY,
                "GITHUB_API_URL": self.api_url, "GITHUB_WORKFLOW": "Tile memory", "GITHUB_JOB": "memory",
                "GITHUB_ACTION_PATH": str(ROOT)}

    def run(self, script: str, env: dict[str, str], number: int) -> Step:
        path = self.root / "files" / f"step-{number}.sh"
        path.write_text(script)
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(path)], cwd=self.workspace,
                              env=env, capture_output=True, text=True, timeout=120)
        files = self.root / "files"
        summary = files / f"summary-{number}"
        return Step(done.returncode, done.stdout, done.stderr, outputs(files / f"output-{number}"),
                    summary.read_text(encoding="utf-8") if summary.exists() else "")

    def action_step(self, inputs: dict[str, str], name: str = "Run memreport", env: dict[str, str] | None = None,
                    number: int = 1) -> Step:
        """action.yml's step ``name`` with ``inputs`` (the rest at their defaults), as a runner runs it."""
        spec = action()
        given = {key: str(value.get("default", "")) for key, value in spec["inputs"].items()}
        unknown = set(inputs) - set(given)
        assert not unknown, f"not inputs of the action: {unknown}"
        given.update(inputs)
        step, = [s for s in spec["runs"]["steps"] if s["name"] == name]
        assert step["shell"] == "bash"
        return self.step(step, {"inputs": given}, env, number)

    def step(self, step: dict[str, Any], contexts: dict[str, Any], env: dict[str, str] | None = None,
             number: int = 1) -> Step:
        """A ``run:`` step with its ``env:``, its expressions evaluated in ``contexts`` (and env, runner, github)."""
        base = {**self.environment(number), **(env or {})}
        contexts = {"env": base, "runner": {"temp": str(self.temp)},
                    "github": {"action_path": str(ROOT), "token": TOKEN, "event": self.event,
                               "repository": REPOSITORY}, **contexts}
        step_env = {**base, **{k: evaluate(str(v), contexts) for k, v in step.get("env", {}).items()}}
        return self.run(evaluate(step["run"], contexts), step_env, number)


def pull_request_event(number: int = 7) -> dict[str, Any]:
    return {"action": "synchronize", "number": number, "pull_request": {"number": number, "head": {"sha": "abc"}}}


# -- a fake REST API for issue comments ------------------------------------------------------------------------------

@dataclass
class Request:
    method: str
    path: str
    authorization: str
    body: dict[str, Any] | None


class FakeGitHub:
    """Issue comments on 127.0.0.1: list (pages with ``Link`` headers), add, update; every request kept."""

    def __init__(self, comments: dict[int, list[dict[str, Any]]] | None = None, refuse_writes: bool = False,
                 per_page_cap: int = 100) -> None:
        self.comments = comments or {}
        self.requests: list[Request] = []
        self.refuse_writes = refuse_writes
        self.per_page_cap = per_page_cap
        self.next_id = 1000
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                fake.handle(self, "GET")

            def do_POST(self) -> None:
                fake.handle(self, "POST")

            def do_PATCH(self) -> None:
                fake.handle(self, "PATCH")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeGitHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def comment(self, number: int, body: str, login: str = "someone") -> dict[str, Any]:
        self.next_id += 1
        made = {"id": self.next_id, "body": body, "user": {"login": login},
                "html_url": f"https://github.com/{REPOSITORY}/pull/{number}#issuecomment-{self.next_id}"}
        self.comments.setdefault(number, []).append(made)
        return made

    def handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        url = urlparse(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        body = json.loads(handler.rfile.read(length)) if length else None
        self.requests.append(Request(method, url.path, handler.headers.get("Authorization", ""), body))
        if handler.headers.get("Authorization") not in (f"Bearer {TOKEN}", f"token {TOKEN}"):
            return self.reply(handler, 401, {"message": "Bad credentials"})
        if method != "GET" and self.refuse_writes:
            return self.reply(handler, 403, {"message": "Resource not accessible by integration"})
        listing = re.fullmatch(rf"/repos/{REPOSITORY}/issues/(\d+)/comments", url.path)
        single = re.fullmatch(rf"/repos/{REPOSITORY}/issues/comments/(\d+)", url.path)
        if listing and method == "GET":
            return self.page(handler, int(listing[1]), parse_qs(url.query))
        if listing and method == "POST":
            return self.reply(handler, 201, self.comment(int(listing[1]), body["body"], "github-actions[bot]"))
        if single and method == "PATCH":
            for comments in self.comments.values():
                for made in comments:
                    if made["id"] == int(single[1]):
                        made["body"] = body["body"]
                        return self.reply(handler, 200, made)
        return self.reply(handler, 404, {"message": "Not Found"})

    def page(self, handler: BaseHTTPRequestHandler, number: int, query: dict[str, list[str]]) -> None:
        size = min(int(query.get("per_page", ["30"])[0]), self.per_page_cap)
        page = int(query.get("page", ["1"])[0])
        comments = self.comments.get(number, [])
        shown = comments[(page - 1) * size:page * size]
        link = ""
        if page * size < len(comments):
            link = f'<{self.url}/repos/{REPOSITORY}/issues/{number}/comments?per_page={size}&page={page + 1}>; ' \
                   'rel="next"'
        self.reply(handler, 200, shown, link)

    @staticmethod
    def reply(handler: BaseHTTPRequestHandler, status: int, body: Any, link: str = "") -> None:
        data = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        if link:
            handler.send_header("Link", link)
        handler.end_headers()
        handler.wfile.write(data)


# -- gh, as far as the documented workflow uses it --------------------------------------------------------------------

FAKE_GH = r'''
import json, os, re, subprocess, sys, urllib.request

args = sys.argv[1:]
assert args and args[0] == "api", args
method, paginate, jq, fields, path = None, False, None, {}, None
i = 1
while i < len(args):
    if args[i] == "-X":
        method, i = args[i + 1], i + 2
    elif args[i] == "--paginate":
        paginate, i = True, i + 1
    elif args[i] == "--jq":
        jq, i = args[i + 1], i + 2
    elif args[i] in ("-F", "--field"):
        key, _, value = args[i + 1].partition("=")
        if value.startswith("@"):
            with open(value[1:], encoding="utf-8") as stream:
                value = stream.read()
        fields[key], i = value, i + 2
    elif path is None and not args[i].startswith("-"):
        path, i = args[i], i + 1
    else:
        sys.exit(f"fake gh: an argument the documented workflow does not use: {args[i]}")
method = method or ("POST" if fields else "GET")
url = os.environ["GITHUB_API_URL"] + "/" + path.lstrip("/")
if paginate and "per_page=" not in url:
    url += ("&" if "?" in url else "?") + "per_page=100"
token = os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN")
while url:
    request = urllib.request.Request(url, method=method, data=json.dumps(fields).encode() if fields else None,
                                     headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        text, link = response.read().decode(), response.headers.get("Link", "")
    if jq:
        done = subprocess.run(["jq", "-r", jq], input=text, capture_output=True, text=True, check=True)
        sys.stdout.write(done.stdout)
    else:
        sys.stdout.write(text + "\n")
    following = re.search(r'<([^>]+)>;\s*rel="next"', link) if paginate else None
    url = following[1] if following else None
'''


def fake_gh(directory: Path) -> Path:
    """A directory holding ``gh`` (api calls against ``GITHUB_API_URL``, ``--jq`` through jq), for PATH."""
    if shutil.which("jq") is None:
        if os.environ.get("CI"):
            pytest.fail("the documented workflow's test needs jq in CI (.ci/run installs it)")
        pytest.skip("jq is not installed (apt-get install jq)")
    directory.mkdir(parents=True, exist_ok=True)
    gh = directory / "gh"
    gh.write_text(f"#!{sys.executable}\n{FAKE_GH}")
    gh.chmod(0o755)
    return directory
