"""The tests' own layout (issue #29 item 7): a test module never imports from another test module.

What several test modules share lives where it is meant to be found: input
generators in ``tests/synth/<kind>.py``, the small builds in
``tests/builds.py``, constants and path helpers in ``tests/__init__.py``,
the fuzzing strategies in ``tests/fuzzing.py``, pytest fixtures and
comparison helpers in the nearest common ``conftest.py``. A test module
that imports another's helpers makes running, moving or deleting one test
file break another, and hides the helper from whoever looks for it.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests import ROOT

TESTS = ROOT / "tests"
# Every Python file under tests/, helpers (conftest.py, tests/synth/...) as well as test modules.
SOURCES = sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def module_of(path: Path) -> str:
    """``tests/readers/text/test_compile_log.py`` -> ``tests.readers.text.test_compile_log``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


TEST_MODULES = {module_of(p) for p in SOURCES if p.name.startswith("test_")}


def imported_modules(path: Path, source: str) -> set[str]:
    """Every module (or name in a module) the file at ``path`` holding ``source`` imports from ``tests``, lazy
    imports included, relative ones resolved: ``from tests.a import test_b`` counts as importing
    ``tests.a.test_b``."""
    package = module_of(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""]) if node.level \
                else node.module or ""
            base = base.rstrip(".")
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name == "tests" or name.startswith("tests.")}


def test_the_scan_sees_the_import_forms_it_must_refuse():
    """Absolute, relative, ``import a.b`` and a module imported by name from its package, inside a function too."""
    source = ("from tests.readers.text.test_compile_log import row\n"
              "from .test_poplar_text import facts\n"
              "from . import test_poplar_text_scan\n"
              "def f():\n    import tests.analysis.test_trend\n"
              "from tests.synth.text import summary_text\n")
    assert imported_modules(TESTS / "readers" / "text" / "test_probe.py", source) & TEST_MODULES == {
        "tests.readers.text.test_compile_log", "tests.readers.text.test_poplar_text",
        "tests.readers.text.test_poplar_text_scan", "tests.analysis.test_trend"}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(TESTS).as_posix())
def test_no_file_under_tests_imports_from_a_test_module(path):
    others = sorted(imported_modules(path, path.read_text(encoding="utf-8")) & TEST_MODULES - {module_of(path)})
    assert not others, (f"{path.relative_to(ROOT)} imports from {', '.join(others)}: move what it needs to "
                        "tests/synth/<kind>.py, tests/builds.py, tests/__init__.py or the nearest conftest.py")
