"""The distribution: ``python -m build`` makes an sdist and, from it, a wheel with the metadata the package index
shows, and the wheel, installed in a fresh virtual environment away from the checkout, runs every output, the
Python API, ``%%memreport`` and the GitHub Action's step."""
from __future__ import annotations

import configparser
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import memreport

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_reports"
NAME = "ipu-memreport"
# What the build reads: the package and the files setup.cfg names.
BUILD_INPUTS = ("setup.cfg", "setup.py", "pyproject.toml", "README.md", "LICENSE", "memreport")

pytestmark = pytest.mark.slow


def needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        if os.environ.get("CI"):
            pytest.fail(f"the distribution test needs {module} in CI (the test extra installs it)")
        pytest.skip(f"{module} is not installed (pip install -e '.[test]')")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """(sdist, wheel), the wheel built from the sdist, from a copy of what the build reads."""
    needs("build")
    needs("wheel")
    tmp = tmp_path_factory.mktemp("dist")
    source = tmp / "source"
    source.mkdir()
    for name in BUILD_INPUTS:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(ROOT / name, source / name)
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp / "dist"),
                           str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    sdist, = (tmp / "dist").glob("*.tar.gz")
    wheel, = (tmp / "dist").glob("*.whl")
    return sdist, wheel


def metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as archive:
        name, = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return Parser().parsestr(archive.read(name).decode()), archive.namelist()


def test_the_wheel_holds_what_the_index_shows(built):
    _, wheel = built
    meta, names = metadata(wheel)
    assert wheel.name == f"ipu_memreport-{memreport.__version__}-py3-none-any.whl"
    assert (meta["Name"], meta["Version"], meta["License"]) == (NAME, memreport.__version__, "MIT")
    assert meta["Requires-Python"] == ">=3.9" and meta["Description-Content-Type"] == "text/markdown"
    assert meta["Summary"] == "Per-tile memory of Graphcore IPU programs, from every report Poplar writes"
    assert meta.get_payload().startswith("# memreport\n")  # the README, as the index shows it
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3 :: Only" in classifiers and "Environment :: Console" in classifiers
    assert 'tomli>=1.1; python_version < "3.11"' in meta.get_all("Requires-Dist")
    assert any(n.endswith((".dist-info/licenses/LICENSE", ".dist-info/LICENSE")) for n in names)
    with zipfile.ZipFile(wheel) as archive:
        entry_points, = [archive.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "[console_scripts]\nmemreport = memreport.cli:run\n" in entry_points


def test_the_wheel_carries_every_script_and_style_of_the_page(built):
    _, wheel = built
    _, names = metadata(wheel)
    assets = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "memreport").rglob("*")
                    if p.suffix in (".js", ".mjs", ".css"))
    assert "memreport/render/page/page.css" in assets and "memreport/render/page/js/main.mjs" in assets
    assert sorted(n for n in names if n.endswith((".js", ".mjs", ".css"))) == assets
    modules = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "memreport").rglob("*.py"))
    assert sorted(n for n in names if n.endswith(".py")) == modules


def test_the_sdist_holds_the_license_and_the_build_files(built):
    sdist, _ = built
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    assert {"LICENSE", "README.md", "pyproject.toml", "setup.cfg", "setup.py", "memreport/__init__.py",
            "memreport/render/page/page.css", "memreport/render/page/js/main.mjs"} <= names


def test_the_version_has_one_home():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    assert cfg["metadata"]["version"] == "attr: memreport.__version__" and cfg["metadata"]["name"] == NAME
    assert re.search(r'^__version__ = "(.+)"$', (ROOT / "memreport" / "__init__.py").read_text(), re.MULTILINE)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog and f"## [{memreport.__version__}]" in changelog


# -- installed away from the checkout -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def venv(built, tmp_path_factory) -> tuple[Path, dict[str, str], Path]:
    """A fresh virtual environment holding the wheel (numpy and the rest from the system's packages: nothing
    downloaded), with no path to the checkout: (its bin, the environment to run in, a working directory)."""
    _, wheel = built
    tmp = tmp_path_factory.mktemp("venv")
    # No pip of its own (ensurepip takes seconds): this interpreter's pip installs into it.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(tmp / "env")],
                   check=True, timeout=120)
    bin_dir = tmp / "env" / "bin"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp), "LANG": "C.UTF-8"}
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install",
                              "--no-index", "--no-deps", "--force-reinstall", "--disable-pip-version-check",
                              str(wheel)], env=env, capture_output=True, text=True, timeout=120)
    assert install.returncode == 0, install.stdout + install.stderr
    work = tmp / "work"
    work.mkdir()
    return bin_dir, env, work


def run(venv, *args: str) -> subprocess.CompletedProcess:
    _, env, work = venv
    return subprocess.run(list(args), cwd=work, env=env, capture_output=True, text=True, timeout=120)


def test_installed_away_from_the_checkout(venv, tmp_path):
    """One test for the environment (a test of its own would make one each under pytest-xdist)."""
    bin_dir, _, work = venv
    code = ("import importlib.metadata as m, memreport\n"
            "from packaging.requirements import Requirement\n"
            "print(memreport.__file__)\n"
            "for text in m.requires('ipu-memreport'):\n"
            "    r = Requirement(text)\n"
            "    if r.marker is None or r.marker.evaluate({'extra': ''}):  # the extras' are not asked for\n"
            "        assert r.specifier.contains(m.version(r.name), prereleases=True), r\n"
            "print(m.version('ipu-memreport'))\n")
    done = run(venv, str(bin_dir / "python"), "-c", code)
    assert done.returncode == 0, done.stderr
    where, version = done.stdout.splitlines()
    assert where.startswith(str(bin_dir.parent)) and not where.startswith(str(ROOT))
    assert version == memreport.__version__
    # Every output.
    sample = str(SAMPLES / "mk2_1472_tiles.a")
    text = run(venv, str(bin_dir / "memreport"), sample)
    assert text.returncode == 0 and text.stdout.startswith("Verdict: 3 of 1,472 tiles out of memory\n")
    document = run(venv, str(bin_dir / "memreport"), sample, "--format", "json")
    assert json.loads(document.stdout)["reports"][0]["tiles_out_of_memory"] == 3
    page = run(venv, str(bin_dir / "memreport"), sample, "--html", "page.html", "--png", "picture.png", "-o",
               os.devnull)
    assert page.returncode == 0, page.stderr
    assert (work / "picture.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The page, its scripts and styles read from the installed package data, is the checkout's page.
    subprocess.run([sys.executable, "-m", "memreport", sample, "--html", "page.html", "-o", os.devnull], check=True,
                   cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (work / "page.html").read_bytes() == (tmp_path / "page.html").read_bytes()
    # memreport trend over a saved export and an archive, its page too (its script's trend.mjs is package data).
    exported = run(venv, str(bin_dir / "memreport"), "export", sample, "-o", "main.json")
    assert exported.returncode == 0, exported.stderr
    trend = run(venv, str(bin_dir / "memreport"), "trend", "main.json", str(SAMPLES / "mk2_1472_tiles_pr.a"),
                "--label", "main", "--label", "pr", "--html", "trend.html")
    assert trend.returncode == 0 and trend.stdout.startswith("Verdict: Tile 1024 first went over in pr\n"), trend.stderr
    assert "<canvas class=trend id=t0-worst>" in (work / "trend.html").read_text()
    assert run(venv, str(bin_dir / "python"), "-m", "memreport", "--version").stdout == \
        f"memreport, version {memreport.__version__}\n"
    # The API, %%memreport and the GitHub Action's step.
    api = run(venv, str(bin_dir / "python"), "-c",
              f"import memreport; print(memreport.read({str(SAMPLES / 'mk2_1472_tiles.a')!r}).tiles_out_of_memory)")
    assert api.stdout == "3\n", api.stderr
    needs("IPython")
    cell = f"%%memreport\nimport os\nos.write(2, open({str(SAMPLES / 'run.log')!r}, 'rb').read());"
    magic = ("from IPython.core.interactiveshell import InteractiveShell\n"
             "shell = InteractiveShell.instance()\n"
             "shell.run_line_magic('load_ext', 'memreport')\n"
             f"shell.run_cell({cell!r})\n")
    shown = run(venv, str(bin_dir / "python"), "-c", magic)
    assert "\nVerdict: 2 of 1,472 tiles out of memory\n" in shown.stdout, shown.stderr
    outputs = work / "github-output"
    action = subprocess.run([str(bin_dir / "python"), "-m", "memreport.action"], cwd=work, capture_output=True,
                            text=True, timeout=120,
                            env={**venv[1], "INPUT_FILES": str(SAMPLES / "mk2_1472_tiles.a"),
                                 "GITHUB_OUTPUT": str(outputs), "RUNNER_TEMP": str(work)})
    assert action.returncode == 0, action.stdout + action.stderr
    assert "verdict=3 of 1,472 tiles out of memory\n" in outputs.read_text()
