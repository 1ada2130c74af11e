#!/usr/bin/env python3
"""Run the README's examples and compare (or, with --update, rewrite) the outputs it shows.

An example is a fenced ``console`` block of ``$ command`` lines, each
followed by what a terminal shows for it (stdout and stderr as one stream),
or a ``python`` block marked ``<!-- example: python -->``, whose output is
the fenced block right after it, or Markdown shown as it renders: the lines
between ``<!-- rendered: memreport ... -->`` and ``<!-- /rendered -->`` are
the command's output quoted (``> `` before each line), so GitHub renders it
inside a block quote. Every command runs in bash from a scratch
copy of the repository's root (its top-level entries linked, so outputs a
command writes land there), with ``memreport`` on the PATH being this
checkout's and ``COLUMNS=100``; the blocks of a file run in order, in one
scratch directory, so an example may read what an earlier one wrote.

Long outputs are elided only where the Markdown says so, in a comment on the
line before the block: ``<!-- elide: 1-12, /^Top 5 tiles/ 4, -2 -->`` shows
lines 1 to 12 of the output, the 4 lines from the first that matches the
pattern, and the last 2; each run of hidden lines is one ``...`` line. A
block with an elide comment holds one command.

    python scripts/readme_examples.py                      # check README.md and docs/*.md; exit 1 on a difference
    python scripts/readme_examples.py --update             # rewrite the outputs shown
    python scripts/readme_examples.py --update README.md   # only this file
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ELISION = "..."
COLUMNS = "100"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
ELIDE = re.compile(r"<!-- elide: (.*?) -->\n\Z")
PYTHON = re.compile(r"<!-- example: python -->\n\Z")
RENDERED = re.compile(r"^<!-- rendered: (memreport .*?) -->\n(.*?)^<!-- /rendered -->$", re.MULTILINE | re.DOTALL)
PICTURE = re.compile(r"^<!-- picture: (memreport .*?) -->$", re.MULTILINE)


@dataclass
class Example:
    """One block to run: its place in the file, the commands and what the file shows now."""

    start: int              # offset of the block's body in the file
    end: int                # offset just past the body
    commands: list[str]     # bash commands, or [source] of a python example
    shown: str              # the body as the file has it
    elide: str | None = None
    python: bool = False
    quoted: bool = False    # Markdown output shown rendered, in a block quote


def examples(text: str) -> list[Example]:
    """Every example of a Markdown text, in order."""
    found: list[Example] = []
    blocks = list(FENCE.finditer(text))
    for k, block in enumerate(blocks):
        language, body = block[1], block[2]
        before = text[:block.start()]
        if language == "console":
            commands = [line[2:] for line in body.splitlines() if line.startswith("$ ")]
            elide = ELIDE.search(before)
            if elide and len(commands) != 1:
                raise ValueError(f"an elided block holds one command, not {len(commands)}: {commands}")
            found.append(Example(block.start(2), block.end(2), commands, body, elide[1] if elide else None))
        elif language == "python" and PYTHON.search(before) and k + 1 < len(blocks):
            output = blocks[k + 1]
            found.append(Example(output.start(2), output.end(2), [body], output[2], python=True))
    found += [Example(m.start(2), m.end(2), [m[1]], m[2], quoted=True) for m in RENDERED.finditer(text)]
    return sorted(found, key=lambda example: example.start)


def kept_lines(spec: str, lines: list[str]) -> list[int]:
    """The 0-based indices an elide spec keeps, in order."""
    keep: set[int] = set()
    for item in (part.strip() for part in spec.split(",")):
        pattern = re.fullmatch(r"/(.*)/ (\d+)", item)
        if pattern:
            first = next((i for i, line in enumerate(lines) if re.search(pattern[1], line)), None)
            if first is None:
                raise ValueError(f"elide: no output line matches /{pattern[1]}/")
            keep.update(range(first, min(first + int(pattern[2]), len(lines))))
        elif re.fullmatch(r"-\d+", item):
            keep.update(range(max(0, len(lines) + int(item)), len(lines)))
        elif re.fullmatch(r"\d+-\d+", item):
            low, high = map(int, item.split("-"))
            keep.update(range(low - 1, min(high, len(lines))))
        else:
            raise ValueError(f"elide: cannot read {item!r} (N-M, -N or /pattern/ N)")
    return sorted(keep)


def elided(spec: str, output: str) -> str:
    """``output`` with the lines the spec does not keep replaced, each run by one ``...`` line."""
    lines = output.splitlines()
    shown: list[str] = []
    previous = -1
    for index in kept_lines(spec, lines):
        if index != previous + 1:
            shown.append(ELISION)
        shown.append(lines[index])
        previous = index
    if previous != len(lines) - 1:
        shown.append(ELISION)
    return "".join(line + "\n" for line in shown)


class Sandbox:
    """A scratch root: the repository's top-level entries linked, ``memreport`` on the PATH."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="readme-examples-"))
        self.root = self.tmp / "root"
        self.root.mkdir()
        for entry in ROOT.iterdir():
            if entry.name not in (".git", "bench_data"):
                (self.root / entry.name).symlink_to(entry)
        bin_dir = self.tmp / "bin"
        bin_dir.mkdir()
        shim = bin_dir / "memreport"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m memreport "$@"\n')
        shim.chmod(0o755)
        self.env = self.environment(bin_dir)

    @staticmethod
    def environment(bin_dir: Path) -> dict[str, str]:
        """This environment with ``bin_dir`` first on the PATH, this checkout importable, 100 columns."""
        env = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR")}
        env.update(PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", COLUMNS=COLUMNS,
                   PYTHONPATH=str(ROOT), LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
        return env

    def shell(self, command: str) -> str:
        """What a terminal shows for ``command``: stdout and stderr as one stream."""
        done = subprocess.run(["bash", "-c", f"{{ {command}\n}} 2>&1"], cwd=self.root, env=self.env,
                              capture_output=True, text=True, timeout=300)
        return done.stdout

    def python(self, source: str) -> str:
        done = subprocess.run([sys.executable, "-c", source], cwd=self.root, env=self.env, capture_output=True,
                              text=True, timeout=300)
        return done.stdout + done.stderr

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def render(example: Example, sandbox: Sandbox) -> str:
    """The body the block should have, from running it now."""
    if example.python:
        return sandbox.python(example.commands[0])
    if example.quoted:
        return "".join(f"> {line}".rstrip(" ") + "\n" for line in sandbox.shell(example.commands[0]).splitlines())
    parts = []
    for command in example.commands:
        output = sandbox.shell(command)
        if example.elide is not None:
            output = elided(example.elide, output)
        parts.append(f"$ {command}\n{output}")
    return "\n".join(parts)


def results(path: Path) -> Iterator[tuple[Example, str]]:
    """Each example of ``path`` and the body it should have, run in one sandbox."""
    sandbox = Sandbox()
    try:
        for example in examples(path.read_text(encoding="utf-8")):
            yield example, render(example, sandbox)
    finally:
        sandbox.close()


def update(path: Path) -> int:
    """Rewrite the shown outputs of ``path``; how many changed."""
    text = path.read_text(encoding="utf-8")
    changed, pieces, at = 0, [], 0
    for example, body in results(path):
        pieces += [text[at:example.start], body]
        at = example.end
        changed += body != example.shown
    pieces.append(text[at:])
    if changed:
        path.write_text("".join(pieces), encoding="utf-8")
    for command in PICTURE.findall(text):  # pictures are drawn where the comment says, in the repository
        subprocess.run([sys.executable, "-m", *command.split()], cwd=ROOT, env=Sandbox.environment(ROOT), check=True,
                       stdout=subprocess.DEVNULL)
    return changed


def default_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="Markdown files (default: README.md and docs/*.md)")
    parser.add_argument("--update", action="store_true", help="rewrite the outputs shown")
    args = parser.parse_args(argv)
    status = 0
    for path in args.files or default_files():
        if args.update:
            print(f"{path}: {update(path)} example(s) rewritten")
            continue
        for example, body in results(path):
            if body != example.shown:
                status = 1
                line = path.read_text(encoding="utf-8")[:example.start].count("\n") + 1
                print(f"{path}:{line}: the output differs (python scripts/readme_examples.py --update)")
                sys.stdout.writelines(difflib.unified_diff(example.shown.splitlines(True), body.splitlines(True),
                                                           "shown", "now"))
    return status


if __name__ == "__main__":
    sys.exit(main())
