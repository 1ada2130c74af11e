"""Headless Chromium for the page tests, driven by Playwright (Debian's chromium: Playwright cannot download
its own browsers here).

Tests skip, saying why, only when no chromium is installed and the CI
variable is unset; in CI (``.ci/run`` installs chromium) a missing browser
fails them instead.
"""
from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str | None:
    """``MEMREPORT_CHROMIUM``, else Debian's /usr/bin/chromium, else chromium on PATH."""
    for candidate in (os.environ.get("MEMREPORT_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def launch() -> Iterator[Any]:
    """A browser for a module of tests (skipped with a reason where chromium or playwright is missing locally)."""
    path = chromium_path()
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "playwright is not installed (pip install -e '.[test]')"
    if path is None:
        missing = "no chromium (apt-get install chromium, or set MEMREPORT_CHROMIUM)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"the page tests need a browser in CI: {missing}")
        pytest.skip(missing)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Opened:
    """A page loaded from file://, with every console message, page error, request and dialog it caused."""

    page: Any
    console: list[tuple[str, str]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[tuple[str, str]]:
        return [(kind, text) for kind, text in self.console if kind in ("error", "warning", "pageerror")]


def wait_until(page: Any, predicate: str, timeout: float = 10.0) -> None:
    """Poll ``predicate`` (a JavaScript function's source) until it returns true.

    Playwright's ``wait_for_function`` evaluates its predicate with ``eval`` inside the page, which the
    page's Content-Security-Policy forbids (no 'unsafe-eval'); ``page.evaluate`` goes through the DevTools
    protocol, which the policy does not govern.
    """
    deadline = time.monotonic() + timeout
    while not page.evaluate(predicate):
        if time.monotonic() > deadline:
            raise AssertionError(f"not true after {timeout:g} s: {predicate}")
        time.sleep(0.02)


def open_page(browser: Any, path: str, *, javascript: bool = True, width: int = 1280) -> Opened:
    """Load ``path``, routing every request: only the page itself is let through; others are recorded, aborted."""
    context = browser.new_context(java_script_enabled=javascript, viewport={"width": width, "height": 900})
    page = context.new_page()
    url = "file://" + os.path.abspath(path)
    opened = Opened(page)
    page.on("console", lambda m: opened.console.append((m.type, m.text)))
    page.on("pageerror", lambda e: opened.console.append(("pageerror", str(e))))
    page.on("dialog", lambda d: (opened.dialogs.append(d.message), d.dismiss()))

    page.on("request", lambda r: opened.requests.append(r.url))

    def route(r: Any) -> None:  # a safety net: nothing but the page may load, whatever the policy says
        if r.request.url == url:
            r.continue_()
        else:
            r.abort()

    page.route("**/*", route)
    page.goto(url)
    if javascript:
        page.wait_for_selector("body[data-ready]", state="attached", timeout=30_000)
    return opened


def clean(opened: Opened, path: Any) -> None:
    """No console error or warning, no dialog, and the page itself the only request."""
    assert opened.problems == []
    assert opened.dialogs == []
    assert opened.requests == ["file://" + os.path.abspath(path)]


def drawn(page: Any, selector: str) -> dict:
    """How many pixels of the canvas are painted, and how many are red (out of memory)."""
    return page.eval_on_selector(selector, """c => {
        const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data; let painted = 0, red = 0;
        for (let i = 0; i < d.length; i += 4) {
            if (d[i + 3] && (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240)) painted++;
            if (d[i] > 150 && d[i + 1] < 80 && d[i + 2] < 80) red++;
        }
        return {painted, red};
    }""")
