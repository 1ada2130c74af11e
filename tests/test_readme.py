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
from memreport.cli import compiles_command, diff_command, export_command, report

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SAMPLE = "sample_reports/mk2_1472_tiles.a"
ELISION = "..."
# pr.a in the README: the sample with four tiles changed (tile -> .bss variable -> change in bytes).
PR_CHANGES = {1024: {"attention_4/scores": 150_000}, 100: {"relu_3/activations": 12_288},
              731: {"relu_3/activations": -6_144}, 5: {"conv2d_7/momentum": -2_048}}


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
    return make.build(changes=PR_CHANGES)


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A directory holding main.a (the sample), pr.a, build/archive.a and a profile.pop, and an environment."""
    tmp = tmp_path_factory.mktemp("readme")
    shutil.copy(ROOT / SAMPLE, tmp / "main.a")
    (tmp / "pr.a").write_bytes(pr_archive())
    (tmp / "build").mkdir()
    shutil.copy(ROOT / SAMPLE, tmp / "build" / "archive.a")
    (tmp / "profile.pop").write_bytes(b"SQLite format 3\0" + bytes(84))
    return tmp, memreport_on_path(tmp)


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
    """The output's lines are the README block's, where ``...`` lines elide any run of lines."""
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


def test_what_it_shows_is_the_real_output(builds):
    _, env = builds
    text = section("## What it shows")
    assert f"`memreport {SAMPLE}`" in text
    (_, expected), = [b for b in code_blocks(text) if b[0] == ""]
    assert_shown(expected, shell(f"memreport {SAMPLE}", ROOT, env).splitlines())


@pytest.mark.parametrize("title", ["### Symbols on a tile (archives and ELF files)",
                                   "### Categories and liveness (profiles)"])
def test_below_the_tile_shows_real_output(builds, title):
    _, env = builds
    text = section(title)
    command = re.search(r"^`(memreport [^`]+)`", text, re.MULTILINE)[1]
    (_, expected), = [b for b in code_blocks(text) if b[0] == ""]
    assert_shown(expected, shell(command, ROOT, env).splitlines())


def transcripts(text: str) -> list[tuple[str, str]]:
    """(command, what the terminal shows) of every ``$ `` run in the section's transcripts."""
    found = []
    for _, body in code_blocks(text):
        if body.startswith("$ "):
            for run in re.split(r"^\$ ", body, flags=re.MULTILINE)[1:]:
                command, _, expected = run.partition("\n")
                found.append((command, expected.rstrip("\n") + "\n"))
    return found


@pytest.mark.parametrize("title", ["## Saved reports: baselines for CI", "### The libpva bridge (profile.pop)"])
def test_saved_reports_and_libpva_transcripts(builds, title):
    cwd, env = builds
    runs = transcripts(section(title))
    assert runs
    for command, expected in runs:
        assert shell(command, cwd, env) == expected, command


def test_quick_start_runs_the_same_command():
    block = code_blocks(section("## Quick start"))[0][1]
    assert f"memreport {SAMPLE}" in block


def test_ci_transcript_is_what_a_terminal_shows(builds):
    cwd, env = builds
    text = section("## Use in CI")
    transcript, = [body for lang, body in code_blocks(text) if body.startswith("$ ")]
    runs = transcripts(text)
    assert len(runs) == 2
    for command, expected in runs:
        assert shell(command, cwd, env) == expected, command
    # The pasted diff is of the sample and pr.a as built here (the changed tiles, their deltas and symbols).
    for tile, changes in PR_CHANGES.items():
        (symbol, change), = changes.items()
        assert re.search(rf"^\s+{tile}\s+0\s.*\s{re.escape(f'{change:+,}')} B", transcript, re.MULTILINE), tile
        assert re.search(rf"^    symbol   {re.escape(symbol)} \(\.bss\) .*{re.escape(f'{change:+,}')} B", transcript,
                         re.MULTILINE), symbol


def actions_step(yaml: str) -> str:
    """The ``run: |`` script of the README's Actions step, dedented as Actions passes it to bash."""
    lines = yaml.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "run: |") + 1
    body = []
    for line in lines[start:]:
        if line.strip() and not line.startswith("    "):
            break
        body.append(line[4:])
    return "\n".join(body).strip() + "\n"


def test_ci_commands_run_as_documented(builds, tmp_path):
    cwd, env = builds
    text = section("## Use in CI")
    sh, = [body for lang, body in code_blocks(text) if lang == "sh"]
    yaml, = [body for lang, body in code_blocks(text) if lang == "yaml"]
    script = actions_step(yaml)
    commands = [line.split(" || ")[0] for line in script.splitlines() if line.startswith("memreport ")]
    assert [line for line in sh.splitlines() if line][0] == commands[0]
    for name in ("memory.txt", "memory-diff.json"):
        (cwd / name).unlink(missing_ok=True)
    # As GitHub Actions runs a bash step: bash --noprofile --norc -eo pipefail {0}.
    step = tmp_path / "step.sh"
    step.write_text(script)
    ci = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(step)], cwd=cwd, env=env,
                        capture_output=True, text=True)
    assert ci.returncode == 3, ci.stderr  # the sample has three tiles out of memory: the step fails...
    assert (cwd / "memory.txt").read_text().startswith("Source:   build/archive.a\n")  # ...with the report kept
    doc = json.loads((cwd / "memory-diff.json").read_text())  # and the diff ran all the same
    assert doc["schema"] == "memreport-diff/1" and doc["tiles"] == []  # main.a and build/archive.a are one build
    # A diff that fails when the report passed fails the step with the diff's status.
    failing = script.replace("--fail-on-oom --max-tile 600KiB", "--max-tile 1MiB").replace(
        "main.a build/archive.a", "build/archive.a pr.a").replace("--fail-on-growth 4KiB", "--fail-on-growth 1")
    step.write_text(failing)
    ci = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(step)], cwd=cwd, env=env,
                        capture_output=True, text=True)
    assert ci.returncode == 3 and "grew by more than 1 B" in ci.stderr
    step.write_text(failing.replace("--fail-on-growth 1 ", "").replace("--fail-on-growth 1\n", "\n"))
    assert subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(step)], cwd=cwd, env=env,
                          capture_output=True, text=True).returncode == 0


def test_every_option_is_documented():
    for command in (report, diff_command, compiles_command, export_command):
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
    from memreport.readers.elf.symbols import with_symbols
    from memreport.render.table import render_json
    from tests.readers.documents.test_saved import profile_with_everything
    from tests.synth.profile import encode_json
    samples = ROOT / "sample_reports"
    reports = [memreport.read(samples / name) for name in ("mk2_1472_tiles.a", "mk1_profile.json",
                                                            "trace_two_modules.rep", "tensor_map.json")]
    reports[0] = with_symbols(reports[0], [1402, 3])
    (tmp_path / "p.json").write_bytes(encode_json(profile_with_everything()))
    reports.append(memreport.read(tmp_path / "p.json"))
    tensor_map_path = samples / "tensor_map.json"
    from memreport.readers.documents.tensor_map import read_tensor_map
    doc = json.loads(render_json(summarize_all(reports[1:2], tensor_map=read_tensor_map(str(tensor_map_path)))))
    doc2 = json.loads(render_json(summarize_all(reports, tiles_asked=[3])))
    doc3 = json.loads(render_json(summarize_all([log_report(tmp_path)])))
    schema = section("## JSON schema `memreport/1`")
    documented = set(re.findall(r'"(\w+)":', schema))
    free_form = (".extra.", ".breakdown.", ".regions.", ".sections.", ".attributed.", ".unattributed.",
                 "breakdown_totals.", "top_tiles_pressure.")
    for key in json_keys(doc) | json_keys(doc2) | json_keys(doc3):
        name = key.rsplit(".", 1)[-1]
        if key.startswith(("reports[].info.", "reports[].detailed_tiles[].extra")) or any(f in key for f in free_form):
            continue  # free-form: whatever the source held, item, region, section and pressure names
        assert name in documented, key
    assert "top_tiles[].regions" in schema or '"regions": {name: bytes}|null' in schema


def log_report(tmp_path):
    """A report of a log: an out-of-memory message before a summary whose histogram left rows out."""
    import memreport
    from tests.readers.text.test_poplar_text import ELIDED
    from tests.synth import logs
    path = tmp_path / "run.log"
    path.write_text(logs.popart_error(logs.tile_memory_message(0, 300_000, 262_144)) + ELIDED)
    return memreport.read(path)


def test_every_csv_column_kind_is_documented():
    csv_section = section("## CSV columns")
    for column in ("tensor_elements", "tensor_est_bytes", "tensor_unknown_size_elements", "liveness.alwaysLive",
                   "liveness.notAlwaysLiveMax", "liveness.notAlwaysLive`", ".overlapped", "region.<name>", "source",
                   "module", "oom_message", "oom_bytes_used", "report_line"):
        assert column in csv_section, column
    diff_csv = section("## Use in CI")
    from memreport.render.diff import CSV_HEADER
    assert f"`{','.join(CSV_HEADER)}`" in diff_csv


def test_every_diff_json_key_is_in_its_schema(builds):
    cwd, env = builds
    doc = json.loads(shell("memreport diff main.a pr.a --format json --min-change 4KiB", cwd, env))
    assert doc["tile_details"] and doc["tile_details"][0]["items"]
    schema = section("## Use in CI")
    documented = set(re.findall(r'"(\w+)":', schema))
    for key in json_keys(doc):
        assert key.rsplit(".", 1)[-1] in documented, key


def test_the_notebook_extra_is_declared_and_documented():
    import configparser
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    extra = cfg["options.extras_require"]["notebook"].split()
    assert {"pandas>=1.3", "matplotlib-inline>=0.1", "ipykernel>=6"} <= set(extra)
    assert "pip install '.[notebook]'" in section("## Python and notebooks")


def test_png_naming_is_what_happens(tmp_path):
    from memreport.cli import numbered_paths
    row = next(line for line in README.splitlines() if line.startswith("| `--png PATH` |"))
    assert "`--png memory.png` writes `memory-1.png`, `memory-2.png`" in row
    assert numbered_paths("memory.png", 2, ".png") == ["memory-1.png", "memory-2.png"]
    assert "a PATH without an extension gets `.png`" in row and numbered_paths("memory", 2, ".png")[0] == "memory-1.png"


def test_docs_cite_no_file_outside_the_repository():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "sample_reports" / "README.md"]:
        text = path.read_text(encoding="utf-8")
        assert "../shared" not in text and "/work/" not in text, path
# -- memreport compiles ----------------------------------------------------------------------------------------

COMPILES = "## Compilations and the executable cache"


@pytest.fixture(scope="module")
def run_logs(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """cold.log, warm.log (a PopTorch run and its warm rerun) and train.log (TensorFlow recompiling), as run.log too."""
    from datetime import timedelta

    from tests.readers.text.test_compile_log import popart_cold, popart_warm, tf_batch_size_change
    from tests.synth.compile_logs import Clock
    tmp = tmp_path_factory.mktemp("compiles")
    cold = popart_cold()
    (tmp / "cold.log").write_text(cold.text())
    (tmp / "warm.log").write_text(popart_warm(Clock(cold.clock.now + timedelta(hours=1))).text())
    (tmp / "train.log").write_text(tf_batch_size_change().text())
    shutil.copy(tmp / "train.log", tmp / "run.log")
    return tmp, memreport_on_path(tmp)


def test_compiles_transcripts_are_what_a_terminal_shows(run_logs):
    cwd, env = run_logs
    transcripts = [body for lang, body in code_blocks(section(COMPILES)) if body.startswith("$ ")]
    assert len(transcripts) == 2
    for transcript in transcripts:
        command, _, expected = transcript.partition("\n")
        assert shell(command[2:], cwd, env) == expected.rstrip("\n") + "\n", command


def test_compiles_ci_commands_run_as_documented(run_logs):
    cwd, env = run_logs
    yaml, = [body for lang, body in code_blocks(section(COMPILES)) if lang == "yaml"]
    commands = [line.strip() for line in yaml.splitlines() if line.strip().startswith("memreport ")]
    first = subprocess.run(["bash", "-c", commands[0]], cwd=cwd, env=env, capture_output=True, text=True)
    assert first.returncode == 3 and "gate failed: --fail-on-recompile" in first.stderr
    assert (cwd / "compiles.txt").read_text().startswith("Logs: run.log")  # written before the gate
    second = subprocess.run(["bash", "-c", commands[1]], cwd=cwd, env=env, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert json.loads((cwd / "compiles.json").read_text())["schema"] == "memreport-compiles/1"


def test_every_compiles_json_key_and_csv_column_is_documented(run_logs):
    from memreport.analysis.compiles import summarize_compiles
    from memreport.readers.text.compile_log import read_compile_logs
    from memreport.render.compiles import CSV_COLUMNS, render_json
    cwd, _ = run_logs
    docs = [json.loads(render_json(summarize_compiles(read_compile_logs([cwd / name for name in names]))))
            for names in (["cold.log", "warm.log"], ["train.log"])]
    schema = section("### JSON schema `memreport-compiles/1`")
    documented = set(re.findall(r'"(\w+)":', schema))
    for doc in docs:
        for key in json_keys(doc):
            assert key.rsplit(".", 1)[-1] in documented, key
    columns = section("### CSV columns `memreport compiles`")
    for column in CSV_COLUMNS:
        assert f"`{column}`" in columns, column


def test_standard_input_example_is_the_real_output(tmp_path):
    block, = [body for _, body in code_blocks(section("## Command line")) if body.startswith("$ cat ")]
    command, expected = block.split("\n", 1)
    env = memreport_on_path(tmp_path)
    assert shell(command[2:], ROOT, env) == expected
