"""Budget files (.memreport.toml, pyproject.toml's [tool.memreport]): found, checked key by key, resolved per input
with where each gate came from, and the command line over them."""
from __future__ import annotations

import os
from fractions import Fraction

import pytest

from memreport.config import (
    Config,
    Gates,
    Origin,
    Setting,
    budget,
    glob_pattern,
    key_lines,
    load_config,
    option,
)
from memreport.errors import ConfigError, MemreportError
from memreport.units import Percent

EVERY_GATE = """\
# the repository's tile budget
[gates]
max-tile = "600KiB"
min-headroom = 16384   # bytes
fail-on-oom = true
fail-on-growth = "1%"
fail-on-recompile = true

[[gates.files]]
match = "build/ipu1/*.a"
max-tile = "95%"
fail-on-oom = false

[[gates.files]]
match = "*_pr.a"
max-tile = false
"""


def write(directory, text: str, name: str = ".memreport.toml") -> str:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def error(tmp_path, text: str, name: str = ".memreport.toml") -> str:
    write(tmp_path, text, name)
    with pytest.raises(ConfigError) as caught:
        load_config(cwd=tmp_path)
    assert isinstance(caught.value, MemreportError)
    return str(caught.value).replace(str(tmp_path) + os.sep, "")


# -- every key, its values, and where it was set ------------------------------------------------------------------

def test_every_gate_is_read_with_its_file_key_and_line(tmp_path):
    path = write(tmp_path, EVERY_GATE)
    gates = load_config(cwd=tmp_path).gates_for("other.a")
    assert gates == Gates(
        max_tile=Setting(614_400, Origin(path, "gates.max-tile", 3)),
        min_headroom=Setting(16_384, Origin(path, "gates.min-headroom", 4)),
        fail_on_oom=Setting(True, Origin(path, "gates.fail-on-oom", 5)),
        fail_on_growth=Setting(Percent(Fraction(1), "1"), Origin(path, "gates.fail-on-growth", 6)),
        fail_on_recompile=Setting(True, Origin(path, "gates.fail-on-recompile", 7)))
    assert gates.values() == {"max_tile": 614_400, "min_headroom": 16_384, "fail_on_oom": True,
                              "fail_on_growth": Percent(Fraction(1)), "fail_on_recompile": True}
    assert str(gates.max_tile.origin) == f"{path}, line 3 (gates.max-tile)"


def test_no_file_no_gates(tmp_path):
    config = load_config(cwd=tmp_path)
    assert config == Config() and config.path is None
    gates = config.gates_for("build/archive.a")
    assert gates == Gates() and gates.values() == {"max_tile": None, "min_headroom": None, "fail_on_oom": False,
                                                   "fail_on_growth": None, "fail_on_recompile": False}
    assert gates.from_files() == []


@pytest.mark.parametrize("key", ["max-tile", "min-headroom", "fail-on-growth"])
@pytest.mark.parametrize("written,value", [('"600KiB"', 614_400), ("638976", 638_976), ('"1.5KiB"', 1536),
                                           ('"90%"', Percent(Fraction(90))), ('"92.5%"', Percent(Fraction(185, 2))),
                                           ("0", 0), ("false", None)])
def test_budget_keys_take_a_size_bytes_a_percent_or_false(tmp_path, key, written, value):
    write(tmp_path, f"[gates]\n{key} = {written}\n")
    setting = getattr(load_config(cwd=tmp_path).gates_for(), key.replace("-", "_"))
    assert setting.value == value and setting.origin.line == 2 and setting.origin.key == f"gates.{key}"


@pytest.mark.parametrize("key", ["max-tile", "min-headroom", "fail-on-growth"])
@pytest.mark.parametrize("written,problem", [
    ("true", 'must be a size ("600KiB"), a whole number of bytes, a percent ("90%") or false, not true'),
    ("1.5", 'must be a size ("600KiB"), a whole number of bytes, a percent ("90%") or false, not 1.5'),
    ("[1]", 'must be a size ("600KiB"), a whole number of bytes, a percent ("90%") or false, not an array'),
    ('"600KB!"', "not a size: '600KB!' (try \"624KiB\", 638976 or \"90%\")"),
    ('"ninety%"', "not a percent: 'ninety%' (try 90% or 92.5%)"),
    ("-1", "a size must be at least 0 B, not -1"),
    ('"9223372036854775808"', "a size must be below 2**63 B, not a 64-bit number"),
])
def test_a_bad_budget_names_the_file_the_line_and_the_key(tmp_path, key, written, problem):
    assert error(tmp_path, f"[gates]\nfail-on-oom = true\n{key} = {written}\n") == \
        f".memreport.toml: line 3: gates.{key}: {problem}"


@pytest.mark.parametrize("key", ["fail-on-oom", "fail-on-recompile"])
def test_flags_are_true_or_false(tmp_path, key):
    write(tmp_path, f"[gates]\n{key} = false\n")
    assert getattr(load_config(cwd=tmp_path).gates_for(), key.replace("-", "_")).value is False
    assert error(tmp_path, f'[gates]\n\n{key} = "yes"\n') == f".memreport.toml: line 3: gates.{key}: " \
                                                            "must be true or false, not 'yes'"
    assert error(tmp_path, f"[gates]\n{key} = 1\n") == f".memreport.toml: line 2: gates.{key}: " \
                                                       "must be true or false, not 1"


def test_budget_as_a_function_of_the_value():
    assert budget("624KiB") == 638_976 and budget(0) == 0 and budget(False) is None
    assert budget("90%") == Percent(Fraction(90))
    with pytest.raises(ValueError, match="or false, not true$"):
        budget(True)
    with pytest.raises(ValueError, match=r"or false, not datetime.date\(2026, 1, 1\) \(date\)$"):
        budget(__import__("datetime").date(2026, 1, 1))  # a TOML date


# -- unknown keys and bad tables ----------------------------------------------------------------------------------

def test_an_unknown_key_is_named_with_the_nearest_known_one(tmp_path):
    assert error(tmp_path, "[gates]\nmax-tile = 1\nmax-tiles = 2\n") == (
        ".memreport.toml: line 3: gates.max-tiles: unknown key (did you mean max-tile? known: max-tile, "
        "min-headroom, fail-on-oom, fail-on-growth, fail-on-recompile, files)")
    assert error(tmp_path, "[gate]\nmax-tile = 1\n") == \
        ".memreport.toml: line 1: gate: unknown key (did you mean gates? known: gates)"
    assert error(tmp_path, "[gates]\nfail-on-oom = true\ncolour = 'red'\n") == (
        ".memreport.toml: line 3: gates.colour: unknown key (known: max-tile, min-headroom, fail-on-oom, "
        "fail-on-growth, fail-on-recompile, files)")


def test_an_unknown_key_of_an_override_is_named_by_its_table(tmp_path):
    text = '[gates]\nmax-tile = 1\n\n[[gates.files]]\nmatch = "a"\n\n[[gates.files]]\nmatch = "b"\nmin-headrom = 1\n'
    assert error(tmp_path, text) == (
        ".memreport.toml: line 9: gates.files[1].min-headrom: unknown key (did you mean min-headroom? known: "
        "max-tile, min-headroom, fail-on-oom, fail-on-growth, fail-on-recompile, match)")


def test_bad_tables(tmp_path):
    assert error(tmp_path, "gates = 3\n") == ".memreport.toml: line 1: gates: must be a table ([gates]), not 3"
    assert error(tmp_path, '[gates.files]\nmatch = "a"\n') == (
        ".memreport.toml: line 1: gates.files: must be an array of tables ([[gates.files]], each with a match)")
    assert error(tmp_path, "[gates]\n[[gates.files]]\nmax-tile = 1\n") == (
        '.memreport.toml: line 2: gates.files[0]: has no match (a glob of the inputs it is for: '
        'match = "build/*.a")')
    assert error(tmp_path, "[[gates.files]]\nmatch = 3\n") == (
        '.memreport.toml: line 2: gates.files[0].match: must be a glob of input paths ("build/*.a"), not 3')
    assert error(tmp_path, '[[gates.files]]\nmatch = ""\n') == (
        '.memreport.toml: line 2: gates.files[0].match: must be a glob of input paths ("build/*.a"), not \'\'')


def test_toml_that_does_not_parse_gives_its_line(tmp_path):
    assert error(tmp_path, "[gates]\nmax-tile = 600KiB\n") == \
        ".memreport.toml: line 2: not TOML: Expected newline or end of document after a statement"
    assert error(tmp_path, "[gates]\n\nmax-tile = KiB\n") == ".memreport.toml: line 3: not TOML: Invalid value"
    assert error(tmp_path, '[gates]\nmax-tile = "600KiB\n') == \
        ".memreport.toml: line 2: not TOML: Illegal character '\\n'"
    assert error(tmp_path, '[gates]\nfail-on-oom = true\nx = """abc') == \
        ".memreport.toml: not TOML: Unterminated string at the end of the file"
    (tmp_path / ".memreport.toml").write_bytes(b"[gates]\nmax-tile = '\xff'\n")
    with pytest.raises(ConfigError, match=r"\.memreport\.toml: not UTF-8 \(byte 20\): TOML is UTF-8$"):
        load_config(cwd=tmp_path)


# -- finding the file --------------------------------------------------------------------------------------------

def test_pyproject_tool_memreport(tmp_path):
    path = write(tmp_path, '[project]\nname = "x"\n\n[tool.memreport.gates]\nmax-tile = "90%"\n', "pyproject.toml")
    setting = load_config(cwd=tmp_path).gates_for().max_tile
    assert setting == Setting(Percent(Fraction(90)), Origin(path, "tool.memreport.gates.max-tile", 5))
    assert error(tmp_path, "[tool.memreport.gates]\nmax_tile = 1\n", "pyproject.toml") == (
        "pyproject.toml: line 2: tool.memreport.gates.max_tile: unknown key (did you mean max-tile? known: "
        "max-tile, min-headroom, fail-on-oom, fail-on-growth, fail-on-recompile, files)")


def test_a_pyproject_without_the_table_is_no_budget(tmp_path):
    write(tmp_path, '[project]\nname = "x"\n\n[tool.ruff]\nline-length = 120\n', "pyproject.toml")
    assert load_config(cwd=tmp_path) == Config()
    with pytest.raises(ConfigError, match=r"pyproject\.toml: no \[tool\.memreport\] table$"):
        load_config(tmp_path / "pyproject.toml")


def test_the_budget_file_wins_over_pyproject_and_says_so(tmp_path):
    budget_file = write(tmp_path, "[gates]\nmax-tile = 1\n")
    pyproject = write(tmp_path, "[tool.memreport.gates]\nmax-tile = 2\n", "pyproject.toml")
    config = load_config(cwd=tmp_path)
    assert config.path == budget_file and config.gates_for().max_tile.value == 1
    assert config.notes == (f"{pyproject}'s [tool.memreport] is not read: {budget_file} is",)
    write(tmp_path, '[project]\nname = "x"\n', "pyproject.toml")
    assert load_config(cwd=tmp_path).notes == ()


def test_an_explicit_path_is_read_whatever_its_name(tmp_path):
    path = write(tmp_path, "[gates]\nfail-on-oom = true\n", "ci-budget.toml")
    write(tmp_path, "[gates]\nfail-on-oom = false\n")  # not read: a path was given
    config = load_config(path, cwd=tmp_path)
    assert config.path == path and config.gates_for().fail_on_oom == Setting(True, Origin(path, "gates.fail-on-oom",
                                                                                          2))
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "missing.toml")
    assert str(caught.value) == f"{tmp_path / 'missing.toml'}: cannot read it: No such file or directory"


def test_the_working_directory_is_the_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "[gates]\nmin-headroom = '10%'\n")
    setting = load_config().gates_for().min_headroom
    assert setting == Setting(Percent(Fraction(10)), Origin(".memreport.toml", "gates.min-headroom", 2))


# -- overrides per input --------------------------------------------------------------------------------------------

def test_overrides_apply_to_the_inputs_they_match_the_later_winning(tmp_path):
    path = write(tmp_path, EVERY_GATE)
    config = load_config(cwd=tmp_path)
    ipu1 = config.gates_for(str(tmp_path / "build" / "ipu1" / "model.a"))
    assert ipu1.max_tile == Setting(Percent(Fraction(95)), Origin(path, "gates.files[0].max-tile", 11))
    assert ipu1.fail_on_oom == Setting(False, Origin(path, "gates.files[0].fail-on-oom", 12))
    assert ipu1.min_headroom.origin == Origin(path, "gates.min-headroom", 4)  # not overridden: [gates]'
    pr = config.gates_for("elsewhere/model_pr.a")  # a pattern without "/" matches the file name anywhere
    assert pr.max_tile == Setting(None, Origin(path, "gates.files[1].max-tile", 16))
    assert pr.fail_on_oom.value is True
    both = config.gates_for(str(tmp_path / "build" / "ipu1" / "model_pr.a"))
    assert both.max_tile.value is None and both.fail_on_oom.value is False  # the later table wins its key
    assert config.gates_for(str(tmp_path / "build" / "ipu1" / "deeper" / "model.a")).max_tile.value == 614_400


def test_a_path_pattern_is_relative_to_the_budget_files_directory(tmp_path, monkeypatch):
    (tmp_path / "repo" / "build").mkdir(parents=True)
    write(tmp_path / "repo", '[[gates.files]]\nmatch = "build/**/*.a"\nfail-on-oom = true\n')
    config = load_config(cwd=tmp_path / "repo")
    monkeypatch.chdir(tmp_path / "repo" / "build")
    assert config.gates_for("x.a").fail_on_oom.value is True  # build/x.a from the file's directory
    assert config.gates_for("sub/y/x.a").fail_on_oom.value is True
    assert config.gates_for("x.elf").fail_on_oom.value is False
    monkeypatch.chdir(tmp_path)
    assert config.gates_for("build/x.a").fail_on_oom.value is False  # tmp/build, not repo/build


@pytest.mark.parametrize("pattern,path,matched", [
    ("*.a", "x.a", True), ("*.a", "b/x.a", False), ("build/*.a", "build/x.a", True),
    ("build/*.a", "build/sub/x.a", False), ("build/**/*.a", "build/x.a", True),
    ("build/**/*.a", "build/s/t/x.a", True), ("**", "a/b", True), ("tile_?.a", "tile_1.a", True),
    ("tile_?.a", "tile_10.a", False), ("[ab].a", "b.a", True), ("[!ab].a", "b.a", False), ("[!ab].a", "c.a", True),
    ("a+b(1).a", "a+b(1).a", True), ("a.a", "aXa", False),
])
def test_globs(pattern, path, matched):
    assert (glob_pattern(pattern).fullmatch(path) is not None) is matched


# -- the command line wins -------------------------------------------------------------------------------------

def test_the_command_line_wins_and_an_option_not_given_does_not(tmp_path):
    path = write(tmp_path, EVERY_GATE)
    gates = load_config(cwd=tmp_path).gates_for("x.a")
    merged = gates.merged(max_tile=Percent(Fraction(80)), fail_on_oom=None, min_headroom=None, fail_on_growth=0)
    assert merged.max_tile == Setting(Percent(Fraction(80))) and merged.fail_on_growth == Setting(0)
    assert merged.fail_on_oom == Setting(True, Origin(path, "gates.fail-on-oom", 5))
    assert gates.merged(fail_on_oom=False).fail_on_oom == Setting(False)  # --no-fail-on-oom, say
    assert [name for name, _ in merged.from_files()] == ["--min-headroom", "--fail-on-oom", "--fail-on-recompile"]
    with pytest.raises(TypeError, match="no gate max_tiles"):
        gates.merged(max_tiles=1)
    assert option("fail_on_growth") == "--fail-on-growth" and option("max-tile") == "--max-tile"


# -- lines of keys, found in the text ------------------------------------------------------------------------

def test_key_lines_skip_multi_line_strings_and_arrays():
    text = ('title = """\n[gates]\nmax-tile = 3\n"""\nx = [\n  "[gates]",\n  "y = 1",\n]\n'
            "[gates]\n'quoted key' = 1\ngates.dotted = 2\n")
    lines = key_lines(text)
    assert lines[("title",)] == 1 and lines[("x",)] == 5 and lines[("gates",)] == 9
    assert ("gates", "max-tile") not in lines and ("y",) not in lines
    assert lines[("gates", "quoted key")] == 10 and lines[("gates", "gates", "dotted")] == 11


def test_key_lines_of_inline_tables_and_their_arrays(tmp_path):
    text = ('[gates]\nfiles = [\n  { match = "a", max-tile = 1 },\n  # a comment { not a table\n'
            '  { match = "b", max-tile = "x" },\n]\n')
    assert key_lines(text)[("gates", "files", 1)] == 5
    assert error(tmp_path, text) == ".memreport.toml: line 5: gates.files[1].max-tile: not a size: 'x' " \
                                    "(try \"624KiB\", 638976 or \"90%\")"
    assert error(tmp_path, "gates = { fail-on-oom = 'no' }\n") == \
        ".memreport.toml: line 1: gates.fail-on-oom: must be true or false, not 'no'"


def test_key_lines_count_arrays_of_tables_and_their_subtables():
    text = '[[a]]\nx = 1\n[a.sub]\ny = 2\n[[a]]\nx = 3\n[a.sub]\ny = 4\n[[a.deep]]\nz = "5 \\" ]"\n'
    lines = key_lines(text)
    assert lines[("a", 0, "x")] == 2 and lines[("a", 0, "sub", "y")] == 4
    assert lines[("a", 1, "x")] == 6 and lines[("a", 1, "sub", "y")] == 8 and lines[("a", 1, "deep", 0, "z")] == 10
