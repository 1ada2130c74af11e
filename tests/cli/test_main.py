"""The command as users run it: formats, outputs, exit codes and one-line errors."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from memreport import __version__
from memreport.cli import main

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "sample_reports", "mk2_1472_tiles.a")


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result


def test_text_is_the_default(archive):
    result = run(archive)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "  By Tile (Excluding Gaps):\n    Range (KB) Histogram (Excluding Gaps)" in out
    assert "    1 tile(s) out of memory\n" in out
    assert "Top 5 tiles (by excluding gaps):" in out
    assert "OUT OF MEMORY by 2,113 B" in out  # 2,003 + 100 + 638,986 - 638,976


def test_json_and_csv_carry_the_same_figures(archive):
    doc = json.loads(run(archive, "--format", "json", "--top", "2").output)
    (r,) = doc["reports"]
    rows = list(csv.DictReader(io.StringIO(run(archive, "--format", "csv").output)))
    assert len(rows) == r["target"]["num_tiles"] == 6
    assert sum(int(row["excluding_gaps"]) for row in rows) == r["totals"]["excluding_gaps"]
    assert sum(row["out_of_memory"] == "true" for row in rows) == r["tiles_out_of_memory"] == 1
    assert max(int(row["excluding_gaps"]) for row in rows) == r["max_excluding_gaps"]["bytes"]
    assert [t["tile"] for t in r["top_tiles"]] == [3, 5]
    assert rows[3][".text"] == "2003" and rows[3]["member"] == "tile_3.elf"


def test_several_files_give_one_report_each(archive, tmp_path):
    doc = json.loads(run(archive, SAMPLE, "--format", "json").output)
    assert [r["source"] for r in doc["reports"]] == [str(archive), SAMPLE]
    text = run(archive, SAMPLE).output
    assert text.count("By Tile (Excluding Gaps):") == 2


def test_output_file(archive, tmp_path):
    out = tmp_path / "r.json"
    result = run(archive, "--format", "json", "-o", out)
    assert result.exit_code == 0 and result.output == ""
    assert json.loads(out.read_text())["schema"] == "memreport/1"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".memreport-")] == []


def test_options(archive):
    doc = json.loads(run(archive, "--format", "json", "--tile-memory", "4KiB", "--bin-kib", "64").output)
    (r,) = doc["reports"]
    assert r["target"]["bytes_per_tile"] == 4096
    assert r["tiles_out_of_memory"] == 4  # tiles 2-5 exceed 4,096 B
    assert r["histogram"]["bin_kib"] == 64
    assert json.loads(run(archive, "--format", "json", "--arch", "ipu1").output)["reports"][0]["target"][
        "tiles_per_ipu"] == 1216


@pytest.mark.parametrize("args,message", [
    (["--format", "xml"], "Invalid value for '--format'"),
    (["--tile-memory", "lots"], "not a size: 'lots'"),
    (["--top", "-1"], "Invalid value for '--top'"),
    (["--arch", "ipu3"], "Invalid value for '--arch'"),
    ([], None),
])
def test_bad_usage_exits_2(archive, args, message):
    result = run(*(args + ([archive] if args else [])))
    assert result.exit_code == 2
    if message:
        assert message in result.output


def test_unreadable_inputs_exit_1_with_one_line(tmp_path, archive):
    (tmp_path / "notes.txt").write_text("shopping list\n")
    (tmp_path / "empty").write_bytes(b"")
    cases = {
        str(tmp_path / "missing.a"): "no such file",
        str(tmp_path): "is a directory",
        str(tmp_path / "empty"): "empty file",
        str(tmp_path / "notes.txt"): "no memory information found: looked for a Poplar memory summary",
    }
    alone = run(archive).output
    for path, message in cases.items():
        # os.environ as the child's: a curses setupterm earlier in the session may have put COLUMNS in the C one
        proc = subprocess.run([sys.executable, "-m", "memreport", str(archive), path], capture_output=True, text=True,
                              env=dict(os.environ))
        assert proc.returncode == 1, (path, proc.stderr)
        assert proc.stdout == alone  # the good file is still reported (issue #23)
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        assert proc.stderr.startswith(f"memreport: {path}: {message}")


def test_version_and_help():
    assert run("--version").output == f"memreport, version {__version__}\n"
    help_text = run("--help").output
    assert help_text.startswith("Usage: memreport [OPTIONS] FILE...")
    for option in ("--format", "--output", "--top", "--tile-memory", "--arch", "--bin-kib", "Exit status"):
        assert option in help_text


def test_console_script_runs_the_sample():
    proc = subprocess.run(["memreport", SAMPLE], capture_output=True, text=True)
    assert proc.returncode == 0
    assert "    3 tile(s) out of memory" in proc.stdout
    assert "Maximum (Excluding Gaps): 788,976 (770.5 K) on tile 1402" in proc.stdout


@pytest.mark.parametrize("value,message", [
    ("0", "Invalid value for '--tile-memory': bytes per tile must be at least 1 B, not 0"),
    ("9223372036854775808", "Invalid value for '--tile-memory': bytes per tile must be below 2**63 B"),
    ("16EiB", "Invalid value for '--tile-memory': not a size: '16EiB'"),
])
def test_impossible_tile_memory_is_a_usage_error_not_the_files(archive, value, message):
    for args in ([archive], ["diff", archive, archive]):
        result = run(*args, "--tile-memory", value)
        assert result.exit_code == 2, result.output
        assert message in result.stderr
        assert str(archive) not in result.stderr  # the input is fine: it is not blamed


def test_sizes_below_2_63_and_zero_limits_where_they_make_sense(archive):
    assert run(archive, "--max-tile", "0").exit_code == 3  # every tile holds something
    assert run(archive, "--min-headroom", "0").exit_code == 3  # tile 3 is over: no headroom at all
    result = run(archive, "--max-tile", str(2 ** 63))
    assert result.exit_code == 2 and "must be below 2**63 B" in result.stderr


def test_read_refuses_impossible_tile_memory_as_the_callers_error(archive):
    import memreport
    for value in (0, "0KiB", 2 ** 63):
        with pytest.raises(ValueError, match="bytes per tile must be"):
            memreport.read(archive, tile_memory=value)


def test_report_and_diff_share_their_read_and_output_options():
    from memreport.cli import diff_command, report
    def options(command):
        return {p.name: p for p in command.params if isinstance(p, __import__("click").Option)}
    ours, theirs = options(report), options(diff_command)
    for name in ("tile_memory", "arch", "skip_bad_members", "fmt", "output"):
        a, b = ours[name], theirs[name]
        assert (a.opts, a.type.name, a.default, a.is_flag) == (b.opts, b.type.name, b.default, b.is_flag), name
    for name in ("tile_memory", "arch", "skip_bad_members"):
        assert ours[name].help == theirs[name].help, name


def test_tensor_map_adds_per_tile_tensor_columns_to_csv():
    profile = os.path.join(os.path.dirname(SAMPLE), "mk1_profile.json")
    tensor_map = os.path.join(os.path.dirname(SAMPLE), "tensor_map.json")
    result = run(profile, "--format", "csv", "--tensor-map", tensor_map)
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0][-3:] == ["tensor_elements", "tensor_est_bytes", "tensor_unknown_size_elements"]
    alone = list(csv.reader(io.StringIO(run(tensor_map, "--format", "csv").stdout)))
    mapped = {row[0]: row[-3:] for row in alone[1:]}
    assert len(rows) == 1217 and rows[1][-3:] == mapped["0"] == ["269", "1065", "0"]
    assert all(row[-3:] == mapped.get(row[0], ["0", "0", "0"]) for row in rows[1:])  # unmapped tiles hold none
    assert rows[1][:6] == ["0", "0", "", "5780", "49184", "false"]  # the report's own columns are unchanged

    summary = os.path.join(os.path.dirname(SAMPLE), "mk1_summary.txt")
    both = list(csv.reader(io.StringIO(run(summary, profile, "--format", "csv", "--tensor-map", tensor_map).stdout)))
    assert both[0][-6:] == ["tensor_elements", "tensor_est_bytes", "tensor_unknown_size_elements", "stated_by",
                            "source", "module"]
    assert [(row[0], row[-6:-3], row[-3]) for row in both[1:3]] == [
        ("0", mapped["0"], "maximum"), ("0", mapped["0"], "per-tile")]


def test_a_tensor_map_of_another_program_is_refused():
    tensor_map = os.path.join(os.path.dirname(SAMPLE), "tensor_map.json")  # the Mk1 program's: tiles 0..1215
    for other in ("mk2_1472_tiles.a", "trace_two_modules.rep"):
        result = run(os.path.join(os.path.dirname(SAMPLE), other), "--tensor-map", tensor_map)
        assert result.exit_code == 1
        assert result.stderr.startswith(f"memreport: {tensor_map}: the tensor map spans tiles 0 to 1,215: exactly 1 "
                                        "ipu1 IPU(s) of 1,216 tiles, but ")
        assert result.stderr.endswith(" has 1,472 tiles of 1,472 per IPU: a tensor map of another program?\n")
        assert result.stderr.count("\n") == 1


def test_help_lists_the_commands_and_how_to_report_a_file_named_like_one(tmp_path, monkeypatch):
    runner = CliRunner()
    out = runner.invoke(main, ["--help"]).output
    assert out.startswith("Usage: memreport [OPTIONS] FILE...\n")
    commands = out.split("Commands (memreport COMMAND --help for each):\n")[1]
    assert commands.split("\n\n")[0] == (
        "  diff      Compare two builds tile by tile (excluding-gaps bytes).\n"
        "  trend     Builds in order, and when each tile out of memory went over.\n"
        "  compiles  Every compilation, cache hit and recompilation in a run's logs.\n"
        "  export    Save reports as memreport/1 JSON that memreport reads back.")
    assert "A file whose name is a command's is reported with a path: memreport ./diff" in out
    monkeypatch.chdir(tmp_path)
    with open(os.path.join(os.path.dirname(SAMPLE), "mk1_summary.txt"), "rb") as f:
        (tmp_path / "diff").write_bytes(f.read())
    result = runner.invoke(main, ["./diff"])
    assert result.exit_code == 0 and result.output.split("\n\n", 1)[1].startswith("Source:   ./diff\n")


def test_dash_reads_standard_input_named_stdin():
    summary = os.path.join(os.path.dirname(SAMPLE), "mk1_summary.txt")
    with open(summary, "rb") as f:
        data = f.read()
    result = CliRunner().invoke(main, ["-", "--format", "json"], input=data)
    assert result.exit_code == 0, result.output
    (doc,) = json.loads(result.stdout)["reports"]
    assert doc["source"] == "<stdin>" and doc["format"] == "poplar-text"
    assert doc["max_excluding_gaps"] == {"tile": 0, "bytes": 5780}
    with open(SAMPLE, "rb") as f:  # an archive on stdin: read, and its top tiles' symbols too
        archive = CliRunner().invoke(main, ["-", "--top", "1"], input=f.read())
    assert archive.exit_code == 0 and "\n\nSource:   <stdin>\n" in archive.stdout
    assert "Symbols on tile 1402 (tile_1402.elf)" in archive.stdout
    diffed = CliRunner().invoke(main, ["diff", "-", summary], input=data)
    assert diffed.stdout.split("\n\n", 1)[1].startswith("Old: <stdin> (Poplar text summary")
    bad = CliRunner().invoke(main, ["-"], input=b"shopping list\n")
    assert bad.exit_code == 1 and bad.stderr.startswith("memreport: <stdin>: no memory information found")
    assert CliRunner().invoke(main, ["-", "-"], input=data).exit_code == 2


def test_color_is_off_for_files_and_pipes_unless_always(tmp_path, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    plain = run(SAMPLE)
    assert plain.exit_code == 0 and "\x1b[" not in plain.stdout
    always = run(SAMPLE, "--color", "always")
    assert "\x1b[31m  !   1402     0         788,976 B     123.5%  tile_1402.elf  OUT OF MEMORY by 150,000 B\x1b[0m\n" \
        in always.stdout
    assert always.stdout.replace("\x1b[31m", "").replace("\x1b[33m", "").replace("\x1b[0m", "") == plain.stdout
    assert "\x1b[" not in run(SAMPLE, "--color", "never").stdout
    out = tmp_path / "r.txt"
    assert run(SAMPLE, "-o", str(out)).exit_code == 0 and "\x1b[" not in out.read_text()
    assert "\x1b[31m" in run(SAMPLE, "--color", "always", "--format", "text").stdout
    assert "\x1b[" not in run(SAMPLE, "--color", "always", "--format", "csv").stdout
    assert run(SAMPLE, "--color", "sometimes").exit_code == 2


def test_the_command_freezes_the_collector_on_its_way_out(monkeypatch):
    """The console script (and python -m memreport) is run(): main, then gc.freeze so the interpreter's exit
    does not walk every object the run made; a failing run too. main itself, which tests call, never freezes."""
    import configparser
    import gc

    from memreport import cli
    config = configparser.ConfigParser()
    config.read(os.path.join(os.path.dirname(__file__), "..", "..", "setup.cfg"))
    assert config["options.entry_points"]["console_scripts"].split() == ["memreport", "=", "memreport.cli:run"]
    frozen = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    for argv in (["--version"], ["/nonexistent.a"]):
        monkeypatch.setattr(sys, "argv", ["memreport", *argv])
        with pytest.raises(SystemExit):
            cli.run()
    assert frozen == [True, True]
    CliRunner().invoke(main, ["--version"])
    assert frozen == [True, True]


@pytest.mark.parametrize("given, seen", [(None, "1"), ("4", "4")])
def test_the_command_gives_openblas_one_thread_unless_told(monkeypatch, given, seen):
    """numpy's OpenBLAS starts a pool of spinning threads (0.1 s of CPU) that memreport never uses."""
    from memreport import cli
    if given is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", given)
    found = []
    monkeypatch.setattr(cli, "main", lambda **kw: found.append(os.environ.get("OPENBLAS_NUM_THREADS")))
    monkeypatch.setattr("gc.freeze", lambda: None)
    cli.run()
    assert found == [seen]


def test_the_command_imports_no_numpy_before_run():
    """run() sets the thread count before numpy loads: importing the command's module must not load numpy."""
    code = "import sys, memreport.cli; print('numpy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_every_command_short_help_is_a_whole_sentence_that_fits_80_columns():
    for name, command in main.commands.items():
        short = command.get_short_help_str(limit=70)
        assert short.endswith(".") and not short.endswith("..."), name
        assert len("  compiles  " + short) <= 80, name


def test_a_mistyped_command_is_named_not_read_as_a_file(tmp_path, monkeypatch):
    """`memreport dif a b` is bad usage naming the command meant (issue #29), not three missing files; a file
    of that name is still read."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["dif", "a.a", "b.a"], prog_name="memreport")
    assert result.exit_code == 2
    assert "dif: no such file or command; did you mean 'memreport diff'?" in result.output
    (tmp_path / "dif").write_text("not a report")
    assert CliRunner().invoke(main, ["dif"], prog_name="memreport").exit_code == 1  # read (and refused) as a file
