"""Every line of every text output fits the width: COLUMNS=80 and 100, every bundled sample (issue #24).

Each file in sample_reports/ goes through every text output that applies:
the report, ``--brief``, ``--tile`` of its worst tile (of its first report
when the file holds several), ``compiles`` of each log with compile lines,
``diff`` of the two Mk2 archives, several reports at once, a ``trend``, and
a report whose Gates line names the bundled budget file. stdout only:
a one-line error on stderr names its file whole (the project's rule).
Markdown, JSON and CSV are not terminal text (docs/USAGE.md).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import memreport
from memreport.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLES = sorted(p.name for p in (ROOT / "sample_reports").iterdir() if p.name != "README.md")
S = "sample_reports/"
COMPILE_LOGS = [name for name in SAMPLES if name.startswith("compile_")] + ["run.log"]
BUDGET = "budget.toml"  # a budget file, read with --config: no report
REPORTS = [name for name in SAMPLES if not name.startswith("compile_") and name != BUDGET]  # the rest hold reports


def _tile_args(name: str) -> list[str]:
    """``--tile`` of the worst tile of the file's (first) report, or nothing when no tile is known."""
    reports = memreport.read_all(ROOT / S / name)
    top = reports[0].top_tiles(n=1)
    if not top:
        return []
    return ["--tile", str(top[0].tile), *(["--module", "#1"] if len(reports) > 1 else [])]


def _cases() -> list[tuple[str, list[str]]]:
    cases = []
    for name in REPORTS:
        cases += [(name, [S + name]), (f"{name} --brief", [S + name, "--brief"])]
        tile = _tile_args(name)
        if tile:
            cases.append((f"{name} {' '.join(tile)}", [S + name, *tile]))
    cases += [(f"compiles {name}", ["compiles", S + name]) for name in COMPILE_LOGS]
    cases += [("compiles cold warm", ["compiles", S + "compile_cold.log", S + "compile_warm.log"]),
              ("diff mk2", ["diff", S + "mk2_1472_tiles.a", S + "mk2_1472_tiles_pr.a"]),
              ("diff summary profile", ["diff", S + "mk1_summary.txt", S + "mk1_profile.json"]),
              ("several", [S + "sweep.log", S + "mk1_summary.txt"]),
              ("several archives", [S + "mk2_1472_tiles.a", S + "run.log", S + "trace_two_modules.rep"]),
              ("trend", ["trend", S + "mk2_1472_tiles.a", S + "sweep.log", S + "mk2_1472_tiles_pr.a"]),
              ("gated by the budget file", [S + "mk1_summary.txt", "--config", S + BUDGET])]  # passes its gates
    return cases


CASES = _cases()


def test_every_sample_is_covered():
    """A new sample gets its cases; the compile logs are not memory reports (exit 1, one line on stderr)."""
    covered = {arg.removeprefix(S) for _, args in CASES for arg in args}
    assert covered >= set(SAMPLES)
    assert any(args[-2:] == ["--tile", "1402"] for _, args in CASES)  # the archive's worst tile
    bad = CliRunner().invoke(main, [S + COMPILE_LOGS[0]], env={"COLUMNS": "80"})
    assert bad.exit_code == 1 and bad.stdout == "" and bad.stderr.count("\n") == 1


@pytest.mark.parametrize("width", [80, 100])
@pytest.mark.parametrize("case", [name for name, _ in CASES])
def test_no_line_is_wider_than_the_width(case, width, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = dict(CASES)[case]
    result = CliRunner().invoke(main, args, env={"COLUMNS": str(width)}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    wide = [(n, len(line), line) for n, line in enumerate(result.stdout.splitlines(), 1) if len(line) > width]
    assert wide == [], f"{case} at {width} columns"
    assert result.stdout.splitlines()[-1].startswith("Verdict: ")  # what | tail -1 shows


def test_the_width_follows_columns_and_is_100_by_default(monkeypatch):
    """The same run at COLUMNS=80 wraps what fits 100 by default (stdout not a terminal, no COLUMNS)."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("COLUMNS", raising=False)
    args = [S + "run.log", "--brief"]
    default = CliRunner().invoke(main, args).stdout
    assert default == CliRunner().invoke(main, args, env={"COLUMNS": "100"}).stdout
    narrow = CliRunner().invoke(main, args, env={"COLUMNS": "80"}).stdout
    assert "  !    5    0       700,000 B       703,622 B     109.6%  OUT OF MEMORY\n" \
           "                                                          by 61,024 B\n" \
           "          from: detailed\n" in narrow  # narrower columns, the excess and the source under the row
    assert max(len(line) for line in default.splitlines()) == 100
    assert CliRunner().invoke(main, args, env={"COLUMNS": "abc"}).stdout == default  # a bad COLUMNS is ignored


@pytest.mark.parametrize("command", [[], ["diff"], ["compiles"], ["export"]])
def test_every_help_fits_80_columns(command):
    result = CliRunner().invoke(main, [*command, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert [line for line in result.stdout.splitlines() if len(line) > 80] == []
