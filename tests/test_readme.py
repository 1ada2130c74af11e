"""README.md's examples, run: pasted output cannot rot, and every option, module and JSON key is documented.

The "What it shows" block is compared line for line, except where it
elides rows with ``...``; the CI transcript is run command by command in a
shell, stdout and stderr together as a terminal shows them.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import click
import pytest

from memreport.analysis import summarize_all
from memreport.cli import diff_command, report
from tests.synth.archive import ar_archive, tile_elf

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SAMPLE = "sample_reports/mk2_1472_tiles.a"
ELISION = "..."
# pr.a in the README: the sample with four tiles changed (tile -> change of its .bss, in bytes).
PR_CHANGES = {1024: 150_000, 100: 12_288, 731: -6_144, 5: -2_048}


def section(title: str) -> str:
    """The README text from a heading to the next heading of the same or a higher level."""
    level = title.split(" ")[0]
    start = README.index(f"\n{title}\n") + 1
    following = re.search(rf"^#{{1,{len(level)}}} ", README[start + len(title):], re.MULTILINE)
    return README[start:start + len(title) + following.start()] if following else README[start:]


def code_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block."""
    return [(m[1], m[2]) for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)]


def memreport_on_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose ``memreport`` is this checkout's, run by this interpreter."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "memreport"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m memreport "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", COLUMNS="200")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return env


def shell(command: str, cwd: Path, env: dict[str, str]) -> str:
    """What a terminal shows for ``command``: stdout and stderr as one stream."""
    result = subprocess.run(["bash", "-c", f"{{ {command}\n}} 2>&1"], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=120)
    return result.stdout


def pr_archive() -> bytes:
    """The README's pr.a: scripts/make_sample_archive.py's archive with PR_CHANGES applied."""
    spec = importlib.util.spec_from_file_location("make_sample_archive", ROOT / "scripts" / "make_sample_archive.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    sizes = make.tile_sizes()
    members = [(f"tile_{tile:04d}.elf", tile_elf(tile, text, data, bss + PR_CHANGES.get(tile, 0), e_flags=0x2))
               for tile, (text, data, bss) in enumerate(sizes)]
    return ar_archive(members, symbol_index=True)


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A directory holding main.a (the sample), pr.a and build/archive.a, and an environment to run in."""
    tmp = tmp_path_factory.mktemp("readme")
    shutil.copy(ROOT / SAMPLE, tmp / "main.a")
    (tmp / "pr.a").write_bytes(pr_archive())
    (tmp / "build").mkdir()
    shutil.copy(ROOT / SAMPLE, tmp / "build" / "archive.a")
    return tmp, memreport_on_path(tmp)


def test_what_it_shows_is_the_real_output(builds):
    _, env = builds
    text = section("## What it shows")
    assert f"`memreport {SAMPLE}`" in text
    (_, expected), = [b for b in code_blocks(text) if b[0] == ""]
    assert_shown(expected, shell(f"memreport {SAMPLE}", ROOT, env).splitlines())


def test_from_a_log_is_the_real_output(tmp_path):
    """The README's 100 MB log, written by the command it names, read as it shows."""
    text = section("## From a log")
    assert "`python scripts/bench_logs.py --sample run.log`" in " ".join(text.split())
    (_, block), = [b for b in code_blocks(text) if b[1].startswith("$ memreport run.log\n")]
    env = memreport_on_path(tmp_path)
    subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_logs.py"), "--sample", "run.log"], cwd=tmp_path,
                   check=True, capture_output=True)
    assert 100_000_000 < (tmp_path / "run.log").stat().st_size < 110_000_000
    assert_shown(block.split("\n", 1)[1], shell("memreport run.log", tmp_path, env).splitlines())


def test_damaged_inputs_show_the_real_lines_for_text(tmp_path):
    text = section("### Damaged inputs")
    (tmp_path / "notes.txt").write_text("shopping list\n")
    (tmp_path / "profile.pop").write_bytes(
        b"version https://git-lfs.github.com/spec/v1\n"
        b"oid sha256:e819e48a965d3f7f662b605ed197d8fda44b57de1723962dccfe0306c2b51b66\nsize 191397888\n")
    env = memreport_on_path(tmp_path)
    for name in ("notes.txt", "profile.pop"):
        line = shell(f"memreport {name}", tmp_path, env)
        assert line.startswith(f"memreport: {name}: ") and line in text, line


def assert_shown(expected: str, actual: list[str]) -> None:
    """``expected`` is ``actual`` but where it elides lines with ``...`` (each shown run appears, in order)."""
    chunks: list[list[str]] = [[]]
    for line in expected.splitlines():
        if line.strip() == ELISION:
            chunks.append([])
        else:
            chunks[-1].append(line)
    assert chunks[0] == actual[:len(chunks[0])], "the output's first lines differ from the README"
    assert chunks[-1] == actual[len(actual) - len(chunks[-1]):], "the output's last lines differ from the README"
    at = len(chunks[0])
    for chunk in chunks[1:-1]:  # each run of shown lines appears as is, in order, between elided rows
        found = next((i for i in range(at, len(actual) - len(chunk) + 1) if actual[i:i + len(chunk)] == chunk), None)
        assert found is not None, f"README lines not in the output, in order: {chunk}"
        at = found + len(chunk)


def test_quick_start_runs_the_same_command():
    block = code_blocks(section("## Quick start"))[0][1]
    assert f"memreport {SAMPLE}" in block


def test_ci_transcript_is_what_a_terminal_shows(builds):
    cwd, env = builds
    text = section("## Use in CI")
    transcript, = [body for lang, body in code_blocks(text) if body.startswith("$ ")]
    runs = re.split(r"^\$ ", transcript, flags=re.MULTILINE)[1:]
    assert len(runs) == 2
    for run in runs:
        command, _, expected = run.partition("\n")
        assert shell(command, cwd, env) == expected.rstrip("\n") + "\n", command
    # The pasted diff is of the sample and pr.a as built here (the changed tiles and their deltas).
    for tile, change in PR_CHANGES.items():
        assert re.search(rf"^\s+{tile}\s+0\s.*\s{re.escape(f'{change:+,}')} B", transcript, re.MULTILINE), tile


def test_ci_commands_run_as_documented(builds):
    cwd, env = builds
    text = section("## Use in CI")
    sh, = [body for lang, body in code_blocks(text) if lang == "sh"]
    yaml, = [body for lang, body in code_blocks(text) if lang == "yaml"]
    commands = [line.strip() for line in yaml.splitlines() if line.strip().startswith("memreport ")]
    assert [line for line in sh.splitlines() if line][0] == commands[0]
    first = subprocess.run(["bash", "-c", commands[0]], cwd=cwd, env=env, capture_output=True, text=True)
    assert first.returncode == 3  # the sample has three tiles out of memory
    assert (cwd / "memory.txt").read_text().startswith("Source:   build/archive.a\n")  # written before the gate
    second = subprocess.run(["bash", "-c", commands[1]], cwd=cwd, env=env, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr  # main.a and build/archive.a are the same build here
    doc = json.loads((cwd / "memory-diff.json").read_text())
    assert doc["schema"] == "memreport-diff/1" and doc["tiles"] == []


def test_every_option_is_documented():
    for command in (report, diff_command):
        for param in command.params:
            if isinstance(param, click.Option):
                for opt in param.opts:
                    if opt not in ("-o", "-h"):
                        assert f"`{opt}" in README or f", {opt}" in README, f"{command.name} {opt}"


def test_every_module_is_in_the_layout():
    layout = code_blocks(section("## Layout of the code"))[0][1]
    folders = ["memreport"] + sorted(f"memreport/{p.name}" for p in (ROOT / "memreport").iterdir()
                                     if (p / "__init__.py").exists())
    for folder in folders:
        for path in sorted((ROOT / folder).glob("*.py")):
            name = path.stem
            assert re.search(rf"\b{re.escape(name)}\b", layout), f"{folder}/{path.name} is not in the layout"
    for package in sorted(p.name for p in (ROOT / "memreport").iterdir() if (p / "__init__.py").exists()):
        assert f"{package}/" in layout, package


def json_keys(value, prefix: str = "") -> set[str]:
    """Every key path of a JSON value, lists looked into (``top_tiles[].regions``)."""
    keys = set()
    if isinstance(value, dict):
        for key, item in value.items():
            keys.add(prefix + key)
            keys |= json_keys(item, f"{prefix}{key}.")
    elif isinstance(value, list):
        for item in value:
            keys |= json_keys(item, prefix[:-1] + "[].")
    return keys


def test_every_json_key_the_code_writes_is_in_the_schema(tmp_path):
    import memreport
    from memreport.render.table import render_json
    samples = ROOT / "sample_reports"
    reports = [memreport.read(samples / name) for name in ("mk2_1472_tiles.a", "mk1_profile.json",
                                                            "trace_two_modules.rep", "tensor_map.json")]
    tensor_map_path = samples / "tensor_map.json"
    from memreport.readers.tensor_map import read_tensor_map
    doc = json.loads(render_json(summarize_all(reports[1:2], tensor_map=read_tensor_map(str(tensor_map_path)))))
    doc2 = json.loads(render_json(summarize_all(reports + [log_report(tmp_path)])))
    schema = section("## JSON schema `memreport/1`")
    documented = set(re.findall(r'"(\w+)":', schema))
    for key in json_keys(doc) | json_keys(doc2):
        name = key.rsplit(".", 1)[-1]
        if key.startswith(("reports[].info.", "reports[].detailed_tiles[].extra")) or ".extra." in key or \
                ".breakdown." in key or ".regions." in key:
            continue  # free-form: whatever the source held, item and region names
        assert name in documented, key
    assert "top_tiles[].regions" in schema or '"regions": {name: bytes}|null' in schema


def log_report(tmp_path):
    """A report of a log: an out-of-memory message before a summary whose histogram left rows out."""
    import memreport
    from tests.readers.test_poplar_text import ELIDED
    from tests.synth import logs
    path = tmp_path / "run.log"
    path.write_text(logs.popart_error(logs.tile_memory_message(0, 300_000, 262_144)) + ELIDED)
    return memreport.read(path)


def test_every_csv_column_kind_is_documented():
    csv_section = section("## CSV columns")
    for column in ("tensor_elements", "tensor_est_bytes", "tensor_unknown_size_elements", "liveness.alwaysLive",
                   "liveness.notAlwaysLiveMax", ".overlapped", "region.<name>", "source", "module", "oom_message",
                   "oom_bytes_used", "report_line"):
        assert column in csv_section, column
