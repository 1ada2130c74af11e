"""scripts/check.py: ruff, mypy, pytest, then the page script's node tests; without node, skipped saying so, except
in CI."""
from __future__ import annotations

from types import SimpleNamespace

from tests.scripts import script_module

check = script_module("check")


def run_steps(monkeypatch, node: str | None) -> list[list[str]]:
    ran: list[list[str]] = []
    monkeypatch.setattr(check.subprocess, "run", lambda command, cwd: ran.append(command) or SimpleNamespace(
        returncode=0))
    monkeypatch.setattr(check.shutil, "which", lambda name: node if name == "node" else None)
    return ran


def test_the_node_step_runs_every_page_script_test_after_the_suite(monkeypatch):
    ran = run_steps(monkeypatch, "/usr/bin/node")
    assert check.main(["-k", "page"]) == 0
    assert [c[2] if c[1] == "-m" else c[0] for c in ran] == ["ruff", "mypy", "pytest", "node"]
    assert ran[2][-2:] == ["-k", "page"]
    node = ran[3]
    assert node[:2] == ["node", "--test"] and node[2:] == sorted(node[2:])
    assert {"tests/render/page/js/data.test.mjs", "tests/render/page/js/ticks.test.mjs",
            "tests/render/page/js/zoom.test.mjs"} <= set(node[2:])


def test_without_node_the_step_is_skipped_saying_so_and_fails_in_ci(monkeypatch, capsys):
    monkeypatch.delenv("CI", raising=False)
    ran = run_steps(monkeypatch, None)
    assert check.main([]) == 0 and len(ran) == 3
    assert "== node: skipped: node is not installed here" in capsys.readouterr().out
    monkeypatch.setenv("CI", "true")
    assert check.main([]) == 1
    assert "== node failed: node is not installed" in capsys.readouterr().out
