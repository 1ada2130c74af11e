"""The layer rule of docs/ARCHITECTURE.md, checked on every import statement in the package.

Every ``import`` and ``from ... import`` counts, at module level, inside
functions and under ``TYPE_CHECKING`` alike: a lazy import is still a
dependency. A module may import its own package's modules and any lower
layer; never a higher layer, never a sibling layer (readers and analysis
know nothing of each other), and no import may close a circle.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "memreport"

# Lowest first. Readers and analysis share a rank: both stand on the model, neither on the other.
LAYERS = [
    ("floor", 0, ("memreport.errors", "memreport.units", "memreport.config")),
    ("model", 1, ("memreport.model",)),
    ("readers", 2, ("memreport.readers",)),
    ("analysis", 2, ("memreport.analysis",)),
    ("render", 3, ("memreport.render",)),
    ("session", 4, ("memreport.session",)),
    ("run", 5, ("memreport.run", "memreport.notebook")),
    ("app", 6, ("memreport", "memreport.__main__", "memreport.cli", "memreport.output", "memreport.progress",
             "memreport.signals", "memreport.action", "memreport.magic")),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> tuple[str, int]:
    """The layer of a module: the longest matching prefix wins (memreport.cli before memreport)."""
    best = None
    for name, rank, prefixes in LAYERS:
        for prefix in prefixes:
            inside = module == prefix or (module.startswith(prefix + ".") and prefix != "memreport")
            if inside and (best is None or len(prefix) > best[2]):
                best = (name, rank, len(prefix))
    assert best is not None, f"{module} is in no layer: add it to LAYERS and docs/ARCHITECTURE.md"
    return best[0], best[1]


def imports_of(module: str) -> set[str]:
    """memreport modules ``module`` imports, resolved to the module (or package) imported."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "memreport")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "memreport":
                continue
            for alias in node.names:  # "from .x import y": y may be a module of its own
                candidate = f"{target}.{alias.name}"
                found.add(candidate if candidate in MODULES else target)
    found.discard(module)
    return {m for m in found if m in MODULES}


GRAPH = {m: imports_of(m) for m in MODULES}


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down_or_within_the_package(module):
    layer, rank = layer_of(module)
    for imported in sorted(GRAPH[module]):
        other, other_rank = layer_of(imported)
        if other == layer:
            continue
        assert other_rank < rank, f"{module} ({layer}) imports {imported} ({other}): an arrow that is not down"


def test_no_import_closes_a_circle():
    seen: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(module: str) -> None:
        seen[module] = 1
        stack.append(module)
        for imported in sorted(GRAPH[module]):
            if seen.get(imported) == 1:
                circle = stack[stack.index(imported):] + [imported]
                pytest.fail("import circle: " + " -> ".join(circle))
            if imported not in seen:
                visit(imported)
        stack.pop()
        seen[module] = 2

    for module in sorted(MODULES):
        if module not in seen:
            visit(module)


def test_the_model_needs_no_numpy_to_import():
    """`memreport --version` and `--help` stay quick: the model, readers' registry and CLI import no numpy."""
    import subprocess
    import sys
    code = ("import sys, memreport.cli, memreport.model, memreport.render; "
            "print('numpy' in sys.modules, 'matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["False", "False"]


READER_FAMILIES = ("memreport.readers.elf", "memreport.readers.documents", "memreport.readers.text")


def family_of(module: str) -> str | None:
    return next((f for f in READER_FAMILIES if module == f or module.startswith(f + ".")), None)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if family_of(m)))
def test_reader_families_do_not_import_each_other(module):
    """A family (ELF/ar, documents, text) stands on the registry, the model and the floor, never on another."""
    family = family_of(module)
    for imported in sorted(GRAPH[module]):
        other = family_of(imported)
        assert other in (None, family), f"{module} ({family}) imports {imported} ({other})"


RENDER_FORMS = tuple(f"memreport.render.{form}" for form in ("text", "data", "picture", "page", "markdown"))
RENDER_SHARED = ("memreport.render.words", "memreport.render.layout", "memreport.render.cells")


def shared(module: str) -> bool:
    return any(module == s or module.startswith(s + ".") for s in RENDER_SHARED)


def form_of(module: str) -> str | None:
    return next((f for f in RENDER_FORMS if module == f or module.startswith(f + ".")), None)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if form_of(m) or shared(m)))
def test_output_forms_do_not_import_each_other(module):
    """render/ is laid out by output form (text, data, picture, page, markdown); a form stands on the three shared
    modules (words, layout, cells) and the registry, never on another form, and the shared modules on no form."""
    form = form_of(module)
    for imported in sorted(GRAPH[module]):
        other = form_of(imported)
        assert other in (None, form), f"{module} ({form or 'shared'}) imports {imported} ({other})"


def test_render_is_forms_and_three_shared_modules():
    """Adding an output form is one package plus one declaration: nothing else lives beside the forms."""
    top = sorted(p.name for p in (PACKAGE / "render").iterdir() if p.name != "__pycache__")
    assert top == ["__init__.py", "cells.py", "data", "layout.py", "markdown", "page", "picture", "text", "words"]


def test_readers_top_level_keeps_the_registry_and_little_else():
    top = sorted(p.name for p in (PACKAGE / "readers").glob("*.py"))
    families = sorted(p.name for p in (PACKAGE / "readers").iterdir() if (p / "__init__.py").exists())
    assert len(top) <= 5, top
    assert families == ["documents", "elf", "text"], families


def test_every_built_in_reader_is_named_by_its_full_module_path():
    from memreport.readers import readers
    from memreport.readers.registry import BUILTIN, _builtin_rank
    for reader in readers():
        rank = _builtin_rank(reader)
        assert rank < len(BUILTIN), reader
        module, home = reader.read.__module__, f"memreport.readers.{BUILTIN[rank]}"
        assert module == home or module.startswith(home + "."), (module, home)


# -- sizes and what renderers may know ------------------------------------------------------------------------

MAX_MODULE_LINES = 500
MAX_CLI_MODULE_LINES = 450
MAX_CLI_LINES = 600  # memreport/cli/ in all (issue #32: 772 before the budget file and trend, which it had to fit)
# Modules allowed past MAX_MODULE_LINES, each with why and until when. Keep this list short and dated.
# A module allowed over the limit, with the reason.
LONG_MODULES: dict[str, str] = {
    "memreport/analysis/results.py": "every result type of analysis in one flat module, types only (issue #29)",
}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_is_over_500_lines(module):
    path = MODULES[module]
    relative = path.relative_to(ROOT).as_posix()
    if relative in LONG_MODULES:
        return
    assert _lines(path) <= MAX_MODULE_LINES, f"{relative}: {_lines(path)} lines; split it by concept"


def test_the_exceptions_to_the_size_rule_are_still_needed():
    for relative in LONG_MODULES:
        assert (ROOT / relative).exists() and _lines(ROOT / relative) > MAX_MODULE_LINES, \
            f"{relative} is short enough now: take it off LONG_MODULES"


def test_the_cli_is_a_package_of_small_click_modules():
    modules = sorted((PACKAGE / "cli").glob("*.py"))
    assert {p.stem for p in modules} >= {"__init__", "shared", "report_command", "diff_command",
                                         "compiles_command", "export_command", "trend_command"}
    for path in modules:
        assert _lines(path) <= MAX_CLI_MODULE_LINES, f"{path.name}: {_lines(path)} lines"
    assert sum(map(_lines, modules)) <= MAX_CLI_LINES, {p.name: _lines(p) for p in modules}


def _names_from_analysis(module: str, text: str | None = None) -> list[tuple[str, str]]:
    """(analysis module, name) for every name a module imports from memreport.analysis or its modules; a bare
    ``import memreport.analysis...`` or a module imported as a name gives (module, "")."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8") if text is None else text)):
        if isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names if a.name.startswith("memreport.analysis")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                target = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "memreport.analysis" or target.startswith("memreport.analysis."):
                found += [(target, alias.name) for alias in node.names]
            elif target == "memreport":
                found += [("memreport.analysis", "") for alias in node.names if alias.name == "analysis"]
    return found


RENDER_MODULES = sorted(m for m in MODULES if m == "memreport.render" or m.startswith("memreport.render."))


@pytest.mark.parametrize("module", RENDER_MODULES)
def test_renderers_import_only_types_from_analysis(module):
    """Renderers format the Summary; every figure is computed in summarize. So render/ may name analysis's types
    (Summary, TopTile, Verdict...) and nothing that computes."""
    import importlib
    import inspect
    for source, name in _names_from_analysis(module):
        assert name, f"{module} imports the module {source}: import its types by name"
        value = getattr(importlib.import_module(source), name, None)
        assert inspect.isclass(value), f"{module} imports {source}.{name}, which is not a type"


def test_the_type_check_sees_what_it_must_refuse():
    """The rule above reads every form of import a renderer could compute through."""
    text = ("from ..analysis import Summary, summarize\nfrom ..analysis.tiles import message_tiles\n"
            "from .. import analysis\nimport memreport.analysis.verdict\nfrom .poplar import prose\n")
    assert _names_from_analysis("memreport.render.cells", text) == [
        ("memreport.analysis", "Summary"), ("memreport.analysis", "summarize"),
        ("memreport.analysis.tiles", "message_tiles"), ("memreport.analysis", ""), ("memreport.analysis.verdict", "")]


REPORT_KINDS = {"SummaryReport", "TileReport", "TensorMapReport", "OOM_MESSAGES_FORMAT"}
# Branches on the report kind render/ may still take (a ratchet: lower it as figures move into summarize, never
# raise it). render/saved.py is not counted: it writes the model itself, one record per kind, to read it back.
# 23 after the page and Markdown (issue #25); 3 once summarize chose tile_data, own_tensor_map, top_order,
# rows_stated_by and symbols_readable for them (issue #22); 0 since each kind answers for itself (analysis/kinds.py)
# and a renderer asks its Summary's kind (issue #29).
MAX_RENDER_KIND_BRANCHES = 0
# Branches on the report kind anywhere outside the model (issue #29: at most 10): the saved report's writer (a record
# per kind), the symbol reader and the session (only archives and ELF files hold symbol tables).
MAX_KIND_BRANCHES = 10


def _kind_branches(path: Path) -> int:
    """isinstance tests and comparisons naming a report kind, outside assert statements (which only narrow)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    asserted = {id(n) for a in ast.walk(tree) if isinstance(a, ast.Assert) for n in ast.walk(a)}
    found = 0
    for node in ast.walk(tree):
        if id(node) in asserted:
            continue
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
            found += any(getattr(n, "id", None) in REPORT_KINDS for n in ast.walk(node.args[1]))
        elif isinstance(node, ast.Compare):
            found += any(getattr(n, "id", None) in REPORT_KINDS for n in [node.left, *node.comparators])
    return found


def test_renderers_branch_on_the_report_kind_less_and_less():
    counted = {p.name: _kind_branches(p) for p in sorted((PACKAGE / "render").rglob("*.py")) if p.name != "saved.py"}
    assert sum(counted.values()) <= MAX_RENDER_KIND_BRANCHES, {k: v for k, v in counted.items() if v}


def test_report_kinds_are_behaviour_not_branches():
    """Each kind answers totals, maxima, top tiles, the out-of-memory count and why it is partial itself
    (analysis/kinds.py): the package outside the model branches on a report's kind at most 10 times."""
    counted = {str(p.relative_to(PACKAGE)): _kind_branches(p) for p in sorted(PACKAGE.rglob("*.py"))
               if "model" not in p.relative_to(PACKAGE).parts}
    assert sum(counted.values()) <= MAX_KIND_BRANCHES, {k: v for k, v in counted.items() if v}
