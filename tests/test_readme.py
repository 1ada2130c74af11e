"""README.md's and docs/' examples, run: pasted output cannot rot, and every option, module, JSON key and CSV
column is documented.

Every ``console`` block and marked ``python`` block is run as
scripts/readme_examples.py runs it (from a scratch copy of the repository's
root, at 100 columns) and must show exactly what the file shows, ``...``
lines only where an ``elide`` comment declares them. The README itself is
checked for what a newcomer needs: at most 400 lines, the two quick-start
commands, every command runnable from the root on files that are there.
"""
from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from memreport.analysis import summarize_all
from memreport.cli import compiles_command, diff_command, export_command, report, trend_command
from tests import DOCS, README, ROOT, code_blocks, doc, section

SAMPLE = "sample_reports/mk2_1472_tiles.a"
SECOND_BUILD = "sample_reports/mk2_1472_tiles_pr.a"
TASKS = ("### Read a failing run's log", "### Look into the worst tile", "### Compare two builds", "### Gate CI",
         "### Check compilations")


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


examples = load_script("readme_examples")


# -- the examples, run ------------------------------------------------------------------------------------------

EXAMPLE_FILES = ["README.md"] + [f"docs/{p.name}" for p in sorted(DOCS.glob("*.md"))
                                 if examples.examples(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_every_example_shows_what_it_prints(name):
    path = ROOT / name
    text = path.read_text(encoding="utf-8")
    for example, body in examples.results(path):
        line = text[:example.start].count("\n") + 1
        assert body == example.shown, (f"{name}:{line}: the example's output changed; check it, then run "
                                       "python scripts/readme_examples.py --update")


def test_the_example_files_are_the_ones_with_examples():
    assert EXAMPLE_FILES == ["README.md", "docs/CI.md", "docs/LOGS.md", "docs/USAGE.md"]


# -- the README, as a newcomer reads it ---------------------------------------------------------------------------

def test_the_readme_is_read_in_five_minutes():
    assert len(README.splitlines()) <= 400
    assert README.index("## Quick start") < README.index("## Speed")  # what it is and how to run it come first


def test_quick_start_is_the_two_commands_ci_runs():
    block, = [body for lang, body in code_blocks(section(README, "## Quick start")) if lang == "sh"]
    first, second = block.splitlines()
    assert first == f"pip install . && memreport {SAMPLE}"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert second in ci and second == "pip install '.[test]' && python scripts/check.py"


def test_the_five_things_people_do_each_have_a_command_that_runs():
    tasks = section(README, "## Five things people do")
    for title in TASKS:
        commands = [c for e in examples.examples(section(tasks, title)) for c in e.commands]
        assert commands and all(c.startswith("memreport ") for c in commands), title


def readme_commands() -> list[str]:
    return [command for example in examples.examples(README) if not example.python for command in example.commands]


def test_every_readme_command_names_files_in_the_repository():
    """Pasted from the root, each command finds its inputs: no run.log or build/archive.a that is not there."""
    named = set()
    for command in readme_commands():
        for word in command.split():
            if "/" in word and not word.startswith("/dev/"):
                assert (ROOT / word).is_file(), f"{word} (in {command}) is not in the repository"
                named.add(word)
    assert {SAMPLE, SECOND_BUILD, "sample_reports/run.log", "sample_reports/compile_recompiling.log"} <= named
    python, = [e.commands[0] for e in examples.examples(README) if e.python]
    for path in re.findall(r'"(sample_reports/[^"]+)"', python):
        assert (ROOT / path).is_file(), path


def test_the_picture_is_memreports_own_and_committed():
    image = re.search(r"!\[[^]]+\]\((docs/images/readme_[\w]+\.png)\)", README)[1]
    command = re.search(r"<!-- picture: (memreport .*) -->", README)[1]
    assert command == f"memreport {SAMPLE} --png {image}"
    assert (ROOT / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but hyphens dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("name", ["README.md", "sample_reports/README.md"] + [f"docs/{p.name}"
                                                                             for p in sorted(DOCS.glob("*.md"))])
def test_every_relative_link_and_anchor_resolves(name):
    path = ROOT / name
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://")):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.exists(), f"{name}: {target}"
        if anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", linked.read_text(encoding="utf-8"), re.MULTILINE)
            assert anchor in {slug(h) for h in headings}, f"{name}: {target}"


def test_docs_cite_no_file_outside_the_repository():
    for path in [ROOT / "README.md", *sorted(DOCS.glob("*.md")), ROOT / "sample_reports" / "README.md"]:
        text = path.read_text(encoding="utf-8")
        assert "../shared" not in text and "/work/" not in text, path


# -- the reference in docs/ ---------------------------------------------------------------------------------------

def memreport_on_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose ``memreport`` is this checkout's, run by this interpreter."""
    return examples.Sandbox.environment(make_shim(tmp_path))


def make_shim(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "memreport"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m memreport "$@"\n')
    shim.chmod(0o755)
    return bin_dir


def shell(command: str, cwd: Path, env: dict[str, str]) -> str:
    """What a terminal shows for ``command``: stdout and stderr as one stream."""
    result = subprocess.run(["bash", "-c", f"{{ {command}\n}} 2>&1"], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=120)
    return result.stdout


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A directory as a CI job has it: main.a (the sample), build/archive.a, pr.a, a profile.pop stand-in."""
    tmp = tmp_path_factory.mktemp("ci")
    shutil.copy(ROOT / SAMPLE, tmp / "main.a")
    shutil.copy(ROOT / SECOND_BUILD, tmp / "pr.a")
    (tmp / "build").mkdir()
    shutil.copy(ROOT / SAMPLE, tmp / "build" / "archive.a")
    (tmp / "profile.pop").write_bytes(b"SQLite format 3\0" + bytes(84))
    return tmp, memreport_on_path(tmp)


def test_damaged_inputs_show_the_real_lines_for_text(tmp_path):
    text = section(doc("USAGE.md"), "## Damaged inputs")
    (tmp_path / "notes.txt").write_text("shopping list\n")
    (tmp_path / "profile.pop").write_bytes(
        b"version https://git-lfs.github.com/spec/v1\n"
        b"oid sha256:e819e48a965d3f7f662b605ed197d8fda44b57de1723962dccfe0306c2b51b66\nsize 191397888\n")
    env = memreport_on_path(tmp_path)
    for name in ("notes.txt", "profile.pop"):
        line = shell(f"memreport {name}", tmp_path, env)
        assert line.startswith(f"memreport: {name}: ") and line in text, line


def test_the_libpva_transcript_is_what_a_terminal_shows(builds):
    cwd, env = builds
    (_, block), = [b for b in code_blocks(section(doc("USAGE.md"), "## The libpva bridge (profile.pop)"))
                   if b[1].startswith("$ ")]
    command, _, expected = block.partition("\n")
    assert shell(command[2:], cwd, env) == expected


def actions_step(yaml: str) -> str:
    """The ``run: |`` script of an Actions step, dedented as Actions passes it to bash."""
    lines = yaml.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "run: |") + 1
    body = []
    for line in lines[start:]:
        if line.strip() and not line.startswith("    "):
            break
        body.append(line[4:])
    return "\n".join(body).strip() + "\n"


def run_step(script: str, cwd: Path, env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    """As GitHub Actions runs a bash step: bash --noprofile --norc -eo pipefail {0}."""
    step = tmp_path / "step.sh"
    step.write_text(script)
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(step)], cwd=cwd, env=env,
                          capture_output=True, text=True)


def test_ci_commands_run_as_documented(builds, tmp_path):
    cwd, env = builds
    text = doc("CI.md")
    sh = [body for lang, body in code_blocks(section(text, "## Gates")) if lang == "sh"][0]
    yaml = [body for lang, body in code_blocks(section(text, "## Gates")) if lang == "yaml"][0]
    script = actions_step(yaml)
    commands = [line.split(" || ")[0] for line in script.splitlines() if line.startswith("memreport ")]
    assert [line for line in sh.splitlines() if line][0] == commands[0]
    for name in ("memory.txt", "memory-diff.json"):
        (cwd / name).unlink(missing_ok=True)
    ci = run_step(script, cwd, env, tmp_path)
    assert ci.returncode == 3, ci.stderr  # the sample has three tiles out of memory: the step fails...
    kept = (cwd / "memory.txt").read_text()  # ...with the report kept, after its verdict
    assert kept.split("\n\n", 2)[1].startswith("To fit tile 1402: ")  # its verdict, its fit plans, then the rest
    assert kept.split("\n\n", 2)[2].startswith("Source:   build/archive.a\n")
    doc_json = json.loads((cwd / "memory-diff.json").read_text())  # and the diff ran all the same
    assert doc_json["schema"] == "memreport-diff/1" and doc_json["tiles"] == []  # main.a and build/archive.a: one build
    # A diff that fails when the report passed fails the step with the diff's status.
    failing = script.replace("--fail-on-oom --max-tile 600KiB", "--max-tile 1MiB").replace(
        "main.a build/archive.a", "build/archive.a pr.a").replace("--fail-on-growth 4KiB", "--fail-on-growth 1")
    ci = run_step(failing, cwd, env, tmp_path)
    assert ci.returncode == 3 and "grew by more than 1 B" in ci.stderr
    passing = failing.replace("--fail-on-growth 1 ", "").replace("--fail-on-growth 1\n", "\n")
    assert run_step(passing, cwd, env, tmp_path).returncode == 0


def test_baseline_steps_run_as_documented(builds, tmp_path):
    cwd, env = builds
    yaml, = [body for lang, body in code_blocks(section(doc("CI.md"), "## Saved reports: baselines for CI"))
             if lang == "yaml"]
    export, diff = [line.split("run: ", 1)[1].split("   #")[0] for line in yaml.splitlines() if "run: " in line]
    assert subprocess.run(["bash", "-c", export], cwd=cwd, env=env).returncode == 0
    shutil.copy(cwd / "memory.json", cwd / "baseline.json")
    assert subprocess.run(["bash", "-c", diff], cwd=cwd, env=env, capture_output=True).returncode == 0


def documented_options() -> str:
    return doc("USAGE.md") + doc("CI.md") + doc("LOGS.md")


def test_every_option_is_documented():
    text = documented_options()
    for command in (report, diff_command, trend_command, compiles_command, export_command):
        for param in command.params:
            if isinstance(param, click.Option):
                for opt in param.opts:
                    if opt not in ("-o", "-h"):
                        assert f"`{opt}" in text or f", {opt}" in text, f"{command.name} {opt}"


def test_every_module_is_in_the_layout():
    layout = code_blocks(doc("LAYOUT.md"))[0][1]
    for path in sorted((ROOT / "memreport").rglob("*.py")):
        if path.name != "__init__.py":
            assert re.search(rf"\b{re.escape(path.stem)}\b", layout), f"{path.relative_to(ROOT)} is not in the layout"
    for package in sorted(p for p in (ROOT / "memreport").rglob("*") if (p / "__init__.py").exists()):
        if package.name != "memreport":
            assert f"{package.name}/" in layout, package


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


def documented_keys(title: str) -> set[str]:
    return set(re.findall(r'"(\w+)":', section(doc("SCHEMA.md"), title)))


def test_every_json_key_the_code_writes_is_in_the_schema(tmp_path):
    import memreport
    from memreport.readers.documents.tensor_map import read_tensor_map
    from memreport.readers.elf.symbols import with_symbols
    from memreport.render.data.report import render_json
    from tests.synth import lowered
    from tests.synth.profile import encode_json, profile_with_everything
    samples = ROOT / "sample_reports"
    reports = [memreport.read(samples / name) for name in ("mk2_1472_tiles.a", "mk1_profile.json",
                                                            "trace_two_modules.rep", "tensor_map.json",
                                                            "mk2_profile.json")]  # program steps: the curve
    reports[0] = with_symbols(reports[0], [1402, 3])
    (tmp_path / "p.json").write_bytes(encode_json(profile_with_everything()))
    reports.append(memreport.read(tmp_path / "p.json"))
    tensor_map = read_tensor_map(str(samples / "tensor_map.json"))
    (tmp_path / "lv.json").write_bytes(lowered.encode(lowered.known_overlaps()[1]))  # a tile's variables, its plan
    variables = memreport.read(tmp_path / "lv.json", tile_memory=1_000)
    docs = [summarize_all(reports[1:2], tensor_map=tensor_map), summarize_all(reports, tiles_asked=[3]),
            summarize_all([variables], tiles_asked=[0]),
            summarize_all(memreport.read_all(samples / "run.log")), summarize_all([log_report(tmp_path)])]
    documented = documented_keys("## memreport/1")
    free_form = (".extra.", ".breakdown.", ".regions.", ".sections.", ".attributed.", ".unattributed.",
                 "breakdown_totals.", "top_tiles_pressure.", ".outcomes.")
    for key in set().union(*(json_keys(json.loads(render_json(d))) for d in docs)):
        name = key.rsplit(".", 1)[-1]
        if key.startswith(("reports[].info.", "reports[].detailed_tiles[].extra")) or any(f in key for f in free_form):
            continue  # free-form: whatever the source held, item, region, section and pressure names
        assert name in documented, key
    assert '"regions": {name: bytes}|null' in section(doc("SCHEMA.md"), "## memreport/1")


def log_report(tmp_path):
    """A report of a log: an out-of-memory message before a summary whose histogram left rows out."""
    import memreport
    from tests.synth import logs
    from tests.synth.text import ELIDED
    path = tmp_path / "elided.log"
    path.write_text(logs.popart_error(logs.tile_memory_message(0, 300_000, 262_144)) + ELIDED)
    return memreport.read(path)


def test_every_diff_json_key_is_in_its_schema(tmp_path):
    env = memreport_on_path(tmp_path)
    doc_json = json.loads(shell(f"memreport diff {SAMPLE} {SECOND_BUILD} --format json --min-change 4KiB", ROOT, env))
    assert doc_json["tile_details"] and doc_json["tile_details"][0]["items"]
    steps = ROOT / "sample_reports" / "mk2_profile.json"  # program steps on both sides: both liveness curves
    stepped = json.loads(shell(f"memreport diff {steps} {steps} --format json", ROOT, env))
    assert doc_json["fit_plans"] and stepped["liveness_peak"]["new"]["peak"]
    documented = documented_keys("## memreport-diff/1")
    for key in json_keys(doc_json) | json_keys(stepped):
        assert key.rsplit(".", 1)[-1] in documented, key


def test_every_trend_json_key_csv_column_and_gate_key_is_documented(tmp_path):
    from memreport.render.data.trend import CSV_COLUMNS
    env = memreport_on_path(tmp_path)
    command = (f"memreport trend {SAMPLE} sample_reports/sweep.log {SECOND_BUILD} --format json "
               "--config sample_reports/budget.toml")
    doc_json = json.loads(shell(f"{command} 2>/dev/null", ROOT, env))
    assert doc_json["tiles"] and doc_json["gates"][1]["origin"]["key"] == "gates.files[0].max-tile"
    documented = documented_keys("## memreport-trend/1") | {"gates"}
    gate_keys = documented_keys("## Gates")
    for key in json_keys(doc_json):
        inside_gates = key.startswith("gates[].")
        assert key.rsplit(".", 1)[-1] in (gate_keys if inside_gates else documented), key
    report = json.loads(shell(f"memreport {SAMPLE} --format json --config sample_reports/budget.toml 2>/dev/null",
                              ROOT, env))
    assert {key.rsplit(".", 1)[-1] for key in json_keys(report) if ".gates[]." in key} <= gate_keys
    assert '"gates": [gate]' in section(doc("SCHEMA.md"), "## memreport/1")
    columns = section(doc("CSV.md"), "## memreport trend")
    for column in CSV_COLUMNS:
        assert f"`{column}`" in columns, column


def test_the_trend_ci_step_runs_as_documented(builds, tmp_path):
    cwd, env = builds
    yaml, = [body for lang, body in code_blocks(section(doc("CI.md"), "## memreport trend: builds over time"))
             if lang == "yaml"]
    command = yaml.split("run: ", 1)[1].strip()
    (cwd / "exports").mkdir(exist_ok=True)
    for name in ("2026-11-01.main.json", "2026-11-02.main.json"):
        exported = subprocess.run(["bash", "-c", f"memreport export pr.a -o exports/{name}"], cwd=cwd, env=env)
        assert exported.returncode == 0
    summary = tmp_path / "summary.md"
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env={**env, "GITHUB_STEP_SUMMARY": str(summary)},
                          capture_output=True, text=True)
    assert done.returncode == 3 and "gate failed: 3 tile(s) out of memory in build/archive.a" in done.stderr
    assert summary.read_text().startswith("## memreport trend: 3 builds, `2026-11-01.main.json` → `archive.a`\n\n"
                                          "**Tile 731 first went over in archive.a**")
    assert (cwd / "trend.html").read_text().startswith("<!DOCTYPE html>")


def test_every_compiles_json_key_and_csv_column_is_documented():
    from memreport.analysis.compiles import summarize_compiles
    from memreport.readers.text.compile_log import read_compile_logs
    from memreport.render.data.compiles import CSV_COLUMNS, render_json
    logs = ROOT / "sample_reports"
    docs = [json.loads(render_json(summarize_compiles(read_compile_logs([logs / name for name in names]))))
            for names in (["compile_cold.log", "compile_warm.log"], ["compile_recompiling.log"])]
    documented = documented_keys("## memreport-compiles/1")
    for doc_json in docs:
        for key in json_keys(doc_json):
            assert key.rsplit(".", 1)[-1] in documented, key
    columns = section(doc("CSV.md"), "## memreport compiles")
    for column in CSV_COLUMNS:
        assert f"`{column}`" in columns, column


def test_every_csv_column_kind_is_documented():
    csv_section = section(doc("CSV.md"), "## memreport")
    for column in ("tensor_elements", "tensor_est_bytes", "tensor_unknown_size_elements", "liveness.alwaysLive",
                   "liveness.notAlwaysLiveMax", "liveness.notAlwaysLive`", ".overlapped", "region.<name>", "source",
                   "module", "oom_message", "oom_bytes_used", "report_line"):
        assert column in csv_section, column
    from memreport.render.data.diff import CSV_HEADER
    assert f"`{','.join(CSV_HEADER)}`" in section(doc("CSV.md"), "## memreport diff")


def test_the_compiles_ci_step_runs_as_documented(tmp_path):
    yaml, = [body for lang, body in code_blocks(section(doc("LOGS.md"), "## Compilations and the executable cache"))
             if lang == "yaml"]
    shutil.copy(ROOT / "sample_reports" / "compile_recompiling.log", tmp_path / "run.log")
    env = memreport_on_path(tmp_path)
    first, second = [line.strip() for line in yaml.splitlines() if line.strip().startswith("memreport ")]
    done = subprocess.run(["bash", "-c", first], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 3 and "gate failed: --fail-on-recompile" in done.stderr
    written = (tmp_path / "compiles.txt").read_text()  # written before the gate
    assert written.startswith("Verdict: 2 compilations (2 compiled): 1 recompilation found\n")
    done = subprocess.run(["bash", "-c", second], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "compiles.json").read_text())["schema"] == "memreport-compiles/1"


def test_the_notebook_extra_is_declared_and_documented():
    import configparser
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    extra = cfg["options.extras_require"]["notebook"].split()
    assert {"pandas>=1.3", "matplotlib-inline>=0.1", "ipykernel>=6"} <= set(extra)
    assert "pip install '.[notebook]'" in doc("PYTHON.md") and "pip install '.[notebook]'" in README


def test_png_naming_is_what_happens():
    from memreport.run import numbered_paths
    row = next(line for line in doc("USAGE.md").splitlines() if line.startswith("| `--png PATH` |"))
    assert "`--png memory.png` writes `memory-1.png`, `memory-2.png`" in row
    assert numbered_paths("memory.png", 2, ".png") == ["memory-1.png", "memory-2.png"]
    assert "a PATH without an extension gets `.png`" in row and numbered_paths("memory", 2, ".png")[0] == "memory-1.png"
