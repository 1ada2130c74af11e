"""memreport's tests, laid out as the package is (tests/render/text/ for memreport/render/text/...)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository's root
SAMPLES = ROOT / "sample_reports"              # the bundled samples (sample_reports/README.md)
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def doc(name: str) -> str:
    """The text of ``docs/<name>``."""
    return (DOCS / name).read_text(encoding="utf-8")


def section(text: str, title: str) -> str:
    """The text from a heading to the next heading of the same or a higher level."""
    level = title.split(" ")[0]
    start = text.index(f"\n{title}\n") + 1
    rest = text[start + len(title):]
    fenced = re.sub(r"^```.*?^```$", lambda m: re.sub(r"[^\n]", " ", m[0]), rest, flags=re.MULTILINE | re.DOTALL)
    following = re.search(rf"^#{{1,{len(level)}}} ", fenced, re.MULTILINE)  # a heading outside code blocks
    return text[start:start + len(title) + following.start()] if following else text[start:]


def code_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block."""
    return [(m[1], m[2]) for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)]
