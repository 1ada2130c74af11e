"""The gates and ``memreport diff`` as CI runs them: exit codes, stderr lines, output files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memreport.cli import main
from tests.builds import LIMIT, NEW, OLD, write_build

OOM_OLD = "memreport: gate failed: 2 tile(s) out of memory in old.a: tile 7 by 61,024 B, tile 2 by 1,024 B\n"


@pytest.fixture(autouse=True)
def builds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_build(tmp_path / "old.a", OLD)
    write_build(tmp_path / "new.a", NEW)
    write_build(tmp_path / "ok.a", [300_000] * 8)
    write_build(tmp_path / "small.a", OLD[:5])
    write_build(tmp_path / "foreign.a", [2_000] * 8, e_flags=0x7)  # not IPU code: bytes per tile unknown


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("args", [
    ["--fail-on-oom"], ["--max-tile", "600KiB"], ["--max-tile", "638976"], ["--min-headroom", "16KiB"],
    ["--fail-on-oom", "--max-tile", "1MiB", "--min-headroom", "0"],
])
def test_gates_pass_with_exit_0(args):
    result = run("ok.a", *args)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert "0 tile(s) out of memory" in result.stdout


@pytest.mark.parametrize("args, stderr", [
    (["--fail-on-oom"], OOM_OLD),
    (["--max-tile", "600KiB"], "memreport: gate failed: 3 tile(s) above --max-tile 614,400 B in old.a: "
                               "tile 7 by 85,600 B, tile 2 by 25,600 B, tile 4 by 24,576 B\n"),
    (["--max-tile", "699999"], "memreport: gate failed: 1 tile(s) above --max-tile 699,999 B in old.a: "
                               "tile 7 by 1 B\n"),
    (["--min-headroom", "16KiB"], "memreport: gate failed: 3 tile(s) with less than 16,384 B free of 638,976 B "
                                  "in old.a: tile 7 short by 77,408 B, tile 2 short by 17,408 B, "
                                  "tile 4 short by 16,384 B\n"),
])
def test_gates_fail_with_exit_3(args, stderr):
    result = run("old.a", *args)
    assert result.exit_code == 3
    assert result.stderr == stderr
    assert "2 tile(s) out of memory" in result.stdout  # the report is still printed


def test_every_failed_gate_and_file_is_named():
    result = run("ok.a", "old.a", "new.a", "--fail-on-oom", "--max-tile", "700000")
    assert result.exit_code == 3
    assert result.stderr == OOM_OLD + (
        "memreport: gate failed: 2 tile(s) out of memory in new.a: tile 7 by 61,024 B, tile 3 by 4,096 B\n")


def test_max_tile_passes_at_the_limit():
    assert run("old.a", "--max-tile", "700000").exit_code == 0


@pytest.mark.parametrize("fmt", ["text", "json", "csv"])
def test_output_file_is_written_whole_when_a_gate_fails(tmp_path, fmt):
    failed = run("old.a", "--fail-on-oom", "--format", fmt, "-o", "report.out")
    assert failed.exit_code == 3 and failed.stderr == OOM_OLD
    assert failed.stdout == ""
    shown = run("old.a", "--fail-on-oom", "--format", fmt)  # the same run to stdout: the same output, whole
    assert shown.exit_code == 3 and shown.stdout
    assert (tmp_path / "report.out").read_bytes() == shown.stdout.encode()


def test_gates_that_need_bytes_per_tile_are_usage_errors():
    for args, message in ((["--min-headroom", "1KiB"], "--min-headroom: foreign.a: bytes per tile unknown"),
                          (["--fail-on-oom"], "--fail-on-oom: foreign.a: out-of-memory tiles unknown")):
        result = run("foreign.a", *args)
        assert result.exit_code == 2
        assert message in result.stderr
    assert run("foreign.a", "--min-headroom", "1KiB", "--tile-memory", "2KiB").exit_code == 3
    assert run("foreign.a", "--fail-on-oom", "--arch", "ipu1").exit_code == 0


def test_bad_sizes_are_usage_errors():
    result = run("old.a", "--max-tile", "lots")
    assert result.exit_code == 2
    assert "not a size: 'lots'" in result.stderr


def test_text_summary_gates_use_the_printed_figures(tmp_path):
    (tmp_path / "summary.txt").write_text(SUMMARY)
    result = run("summary.txt", "--fail-on-oom", "--max-tile", "600KiB")
    assert result.exit_code == 3
    assert result.stderr == (
        "memreport: gate failed: 3 tile(s) out of memory in summary.txt (the count it printed; a text summary "
        "does not list every tile): tile 1402 by 150,000 B and 2 more\n"
        "memreport: gate failed: at least 1 tile(s) above --max-tile 614,400 B in summary.txt (from its printed "
        "maximum (excluding gaps) and detailed tiles; a text summary does not list every tile): "
        "tile 1402 by 174,576 B\n")
    assert run("summary.txt", "--max-tile", "788976").exit_code == 0


# A Poplar text summary of one Mk2 IPU, laid out as docs/FORMATS.md §1 shows, detailing one tile.
SUMMARY = """\
Target:
  Number of IPUs:         1
  Tiles per IPU:          1,472
  Total Tiles:            1,472
  Memory Per-Tile:        624.0 kB

Memory Usage:
  Total:
    Including Gaps:         500,000,000 B
    Excluding Gaps:
      By Memory Region:
        Non-interleaved:    442,830,000 B
        Interleaved:                  0 B
        Overflowed:                   0 B

  By Tile (Excluding Gaps):
    Range (KB) Histogram (Excluding Gaps)               Count (tiles)
     288 - 296 ****************************************  1,469
     624 - 632 *                                             1
     680 - 688 *                                             1
     768 - 776 *                                             1

    Maximum (Including Gaps): 790,000 (771.5 K) on tile 1402
    Maximum (Excluding Gaps): 788,976 (770.5 K) on tile 1402
    3 tile(s) out of memory

Tile # 1402 memory usage:
Memory Usage:
  Total:
    Including Gaps:         790,000 B
    Excluding Gaps:
      By Memory Region:
        Non-interleaved:    638,976 B
        Interleaved:              0 B
        Overflowed:         150,000 B
"""


# ---- memreport diff ---------------------------------------------------------------------------------


def test_diff_prints_the_changes_and_exits_0():
    result = run("diff", "old.a", "new.a", "--top", "2")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout.split("\n\n", 1)[1].startswith("Old: old.a (ELF archive, per tile: complete)\n")
    assert "Newly out of memory (1): tile 3\nNo longer out of memory (1): tile 2\n" in result.stdout
    assert "  4 more changed tiles (--top to show more; --format json or csv lists all)\n\n" in result.stdout
    assert result.stdout.endswith("Below the tile (largest change first):\n"
                                  "  Tile 3 (IPU 0): 200,000 B -> 643,072 B, +443,072 B\n"
                                  "    section  .bss  198,720 B -> 641,792 B  +443,072 B\n"
                                  "  Tile 2 (IPU 0): 640,000 B -> 630,000 B, -10,000 B\n"
                                  "    section  .bss  638,720 B -> 628,720 B  -10,000 B\n\n"
                                  "Fit plans of the 1 tile over in both builds: none grew in NEW (no more items to "
                                  "move, no more bytes\n  over)\n\n"
                                  "Verdict: 1 tile newly out of memory; 6 tiles changed (4 grew, 2 shrank)\n")


def test_diff_of_identical_builds_is_empty():
    result = run("diff", "old.a", "old.a", "--fail-on-growth", "0")
    assert result.exit_code == 0
    assert result.stdout.endswith("\n\nNo tile changed.\n\n"
                                  "Fit plans of the 2 tiles over in both builds: none grew in NEW (no more items to "
                                  "move, no more bytes\n  over)\n\n"
                                  "Verdict: No tile newly out of memory; 0 tiles changed (0 grew, 0 shrank)\n")
    doc = json.loads(run("diff", "old.a", "old.a", "--format", "json").stdout)
    assert doc["tiles"] == [] and doc["totals"]["delta"]["excluding_gaps"] == 0


def test_diff_of_mismatched_tile_counts_is_exit_1():
    result = run("diff", "old.a", "small.a")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "memreport: diff: old.a has 8 tiles but small.a has 5\n"


def test_diff_of_an_unreadable_file_is_exit_1():
    result = run("diff", "old.a", "missing.a")
    assert result.exit_code == 1
    assert result.stderr == "memreport: missing.a: no such file\n"


def test_fail_on_growth(tmp_path):
    assert run("diff", "old.a", "new.a", "--fail-on-growth", "443072").exit_code == 0
    result = run("diff", "old.a", "new.a", "--fail-on-growth", "4KiB", "--format", "csv", "-o", "changes.csv")
    assert result.exit_code == 3
    assert result.stderr == ("memreport: gate failed: 2 tile(s) grew by more than 4,096 B from old.a to new.a: "
                             "tile 3 by 443,072 B, tile 1 by 8,192 B\n")
    assert (tmp_path / "changes.csv").read_text().splitlines()[:2] == [
        "tile,ipu,old,new,delta,kind,item,section,change", "3,0,200000,643072,443072,tile,,,"]


def test_diff_fail_on_oom_checks_the_new_build():
    assert run("diff", "old.a", "ok.a", "--fail-on-oom").exit_code == 0
    result = run("diff", "ok.a", "old.a", "--fail-on-oom", "--format", "json")
    assert result.exit_code == 3
    assert result.stderr == OOM_OLD
    assert json.loads(result.stdout)["newly_out_of_memory"] == [2, 7]


def test_diff_json_schema_and_options():
    doc = json.loads(run("diff", "old.a", "new.a", "--format", "json", "--top", "1").stdout)
    assert list(doc) == ["schema", "old", "new", "per_tile", "compared_tiles", "tiles", "newly_out_of_memory",
                         "no_longer_out_of_memory", "totals", "max_excluding_gaps", "notes", "min_change",
                         "unlisted_tiles", "sort", "tile_details", "fit_plans", "liveness_peak", "gates"]
    assert doc["schema"] == "memreport-diff/1"
    assert len(doc["tiles"]) == 6  # --top limits the text only
    assert doc["old"]["bytes_per_tile"] == LIMIT
    doc = json.loads(run("diff", "old.a", "new.a", "--format", "json", "--tile-memory", "1MiB").stdout)
    assert doc["new"]["bytes_per_tile"] == 1024 ** 2
    assert doc["newly_out_of_memory"] == [] and doc["no_longer_out_of_memory"] == []


def test_diff_needs_two_files():
    result = run("diff", "old.a")
    assert result.exit_code == 2
    assert "Missing argument 'NEW'" in result.stderr


def test_diff_refuses_tensor_maps_as_bad_usage():
    tensor_map = Path(__file__).resolve().parents[2] / "sample_reports" / "tensor_map.json"
    for args in ((tensor_map, tensor_map), ("old.a", tensor_map)):
        result = run("diff", *map(str, args))
        assert result.exit_code == 2, result.output
        assert f"diff: {tensor_map}: a tensor map counts elements, not bytes" in result.stderr
        assert result.stdout == ""


def test_diff_with_a_skipped_member_compares_totals_over_the_compared_tiles(tmp_path):
    from tests.synth.archive import ar_archive, tile_elf
    members = [(f"tile_{i}.elf", tile_elf(i, 1024, 256, size - 1280)) for i, size in enumerate(OLD)]
    members[7] = ("tile_7.elf", b"garbage, not an ELF at all")  # 700,000 B and out of memory in old.a
    (tmp_path / "damaged.a").write_bytes(ar_archive(members, symbol_index=True))
    result = run("diff", "damaged.a", "old.a", "--skip-bad-members")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"""\
Verdict: No tile newly out of memory; 0 tiles changed (0 grew, 0 shrank)
         Out of memory: 1 tile -> 1 tile

Old: damaged.a (ELF archive, per tile: partial)
New: old.a (ELF archive, per tile: complete)
Tiles:  8, 638,976 B per tile
Note:   OLD (damaged.a) has 1 tile(s) of unknown bytes (damaged members skipped): they are not
        compared
Note:   totals, maxima and out-of-memory counts of both sides are over the 7 compared tile(s) only:
        a tile skipped on one side is left out of both

Compared tiles                          Old                 New  Delta
Total, excluding gaps           {sum(OLD) - 700_000:,} B         {sum(OLD) - 700_000:,} B   +0 B
Maximum, excluding gaps  640,000 B (tile 2)  640,000 B (tile 2)   +0 B
Tiles out of memory                       1                   1     +0

Newly out of memory: none among the compared tiles
No longer out of memory: none among the compared tiles

No compared tile changed.

Fit plans of the 1 tile over in both builds: none grew in NEW (no more items to move, no more bytes
  over)

Verdict: No tile newly out of memory; 0 tiles changed (0 grew, 0 shrank)
"""
    doc = json.loads(run("diff", "damaged.a", "old.a", "--skip-bad-members", "--format", "json").stdout)
    assert doc["totals"]["delta"] == {"excluding_gaps": 0, "including_gaps": None, "tiles_out_of_memory": 0}


def _summary_file(path: Path, peak_tile: int, peak: int) -> None:
    """A Mk1 text summary detailing no tile: its Maximum lines name ``peak_tile``."""
    import numpy as np

    from tests.synth.text import summary_from_tiles, summary_text
    excluding = np.full(1216, 4_500)
    excluding[peak_tile] = peak
    path.write_text(summary_text(summary_from_tiles(
        excluding, excluding + 100, num_ipus=1, tiles_per_ipu=1216, bytes_per_tile=262_144, clock_hz=1.6e9,
        graph={"Number of vertices": 1}, detailed=0)))


def test_growth_between_summaries_compares_their_maximum_lines(tmp_path):
    _summary_file(tmp_path / "summary_a.txt", 0, 5_780)
    _summary_file(tmp_path / "summary_b.txt", 0, 834_339)
    result = run("diff", "summary_a.txt", "summary_b.txt", "--fail-on-growth", "4KiB")
    assert result.exit_code == 3
    assert result.stderr == (
        "memreport: gate failed: 1 tile(s) grew by more than 4,096 B from summary_a.txt to summary_b.txt (of the "
        "1 tile(s) whose bytes both sides state; a text summary does not list every tile): tile 0 by 828,559 B\n")
    assert "     0    0  5,780 B  834,339 B  +828,559 B\n" in result.stdout
    assert "Tiles out of memory                     0                   1          +1\n" in result.stdout
    doc = json.loads(run("diff", "summary_a.txt", "summary_b.txt", "--format", "json").stdout)
    assert doc["newly_out_of_memory"] is None and doc["no_longer_out_of_memory"] is None


def test_growth_between_summaries_stating_no_common_tile_is_exit_2(tmp_path):
    _summary_file(tmp_path / "summary_a.txt", 0, 5_780)
    _summary_file(tmp_path / "summary_b.txt", 3, 5_000)  # the maximum moved to tile 3 and shrank
    result = run("diff", "summary_a.txt", "summary_b.txt", "--fail-on-growth", "4KiB")
    assert result.exit_code == 2
    assert "--fail-on-growth: summary_a.txt -> summary_b.txt: no tile's bytes are stated by both sides (a text " \
           "summary does not list every tile): nothing to judge" in result.stderr


# Percent budgets (issue 24): of each report's own bytes per tile, exact. 90% of 638,976 B is 575,078.4 B.
@pytest.mark.parametrize("sizes, args, code, stderr", [
    ([319_488, 2_000], ["--max-tile", "50%"], 0, ""),              # exactly 50%: not above it
    ([319_489, 2_000], ["--max-tile", "50%"], 3, "memreport: gate failed: 1 tile(s) above --max-tile 50% "
                                                 "(319,488 B of 638,976 B) in pct.a: tile 0 by 1 B\n"),
    ([575_078, 2_000], ["--max-tile", "90%"], 0, ""),              # 57,507,800 <= 57,507,840
    ([2_000, 575_079], ["--max-tile", "90%"], 3, "memreport: gate failed: 1 tile(s) above --max-tile 90% "
                                                 "(575,078 B of 638,976 B) in pct.a: tile 1 by 1 B\n"),
    ([591_052, 2_000], ["--max-tile", "92.5%"], 0, ""),            # 92.5% is 591,052.8 B
    ([591_053, 2_000], ["--max-tile", "92.5%"], 3, "memreport: gate failed: 1 tile(s) above --max-tile 92.5% "
                                                   "(591,052 B of 638,976 B) in pct.a: tile 0 by 1 B\n"),
    ([575_078, 2_000], ["--min-headroom", "10%"], 0, ""),          # 63,898 B free: not below 63,897.6 B
    ([575_079, 2_000], ["--min-headroom", "10%"], 3, "memreport: gate failed: 1 tile(s) with less than 10% "
                                                     "(63,898 B) free of 638,976 B in pct.a: tile 0 short by 1 B\n"),
    ([638_976, 2_000], ["--min-headroom", "0%", "--max-tile", "100%"], 0, ""),
])
def test_percent_budgets_at_their_boundaries(tmp_path, sizes, args, code, stderr):
    write_build(tmp_path / "pct.a", sizes)
    result = run("pct.a", *args)
    assert (result.exit_code, result.stderr) == (code, stderr)


def test_a_percent_is_of_each_reports_own_tile_memory(tmp_path):
    write_build(tmp_path / "pct.a", [300_000, 2_000])
    result = run("pct.a", "pct.a", "--max-tile", "50%", "--tile-memory", "512KiB")
    assert result.exit_code == 3  # 50% of 524,288 B is 262,144 B
    assert result.stderr.count("(262,144 B of 524,288 B) in pct.a: tile 0 by 37,856 B\n") == 2


def test_a_percent_of_unknown_tile_memory_is_bad_usage():
    for args in (["--max-tile", "90%"], ["--min-headroom", "10%"]):
        result = run("foreign.a", *args)
        assert result.exit_code == 2
        assert "foreign.a: bytes per tile unknown" in result.stderr and "give --tile-memory or --arch" in \
            result.stderr
    assert run("foreign.a", "--max-tile", "90%", "--tile-memory", "2KiB").exit_code == 3
    result = run("diff", "foreign.a", "foreign.a", "--fail-on-growth", "1%")
    assert result.exit_code == 2
    assert "Error: --fail-on-growth 1%: foreign.a: bytes per tile unknown, so a percent of them is too (give " \
           "--tile-memory or --arch, or a budget in bytes)\n" in result.stderr


@pytest.mark.parametrize("text", ["90%%", "-5%", "1e2%", "nan%", "%", "ninety%"])
def test_bad_percents_are_usage_errors(text):
    result = run("old.a", "--max-tile", text)
    assert result.exit_code == 2
    assert f"not a percent: {text!r} (try 90% or 92.5%)" in result.stderr


def test_fail_on_growth_in_percent(tmp_path):
    # 1% of 638,976 B is 6,389.76 B: a growth of 6,389 B passes, 6,390 B fails.
    write_build(tmp_path / "a.a", [100_000, 200_000])
    write_build(tmp_path / "b.a", [106_389, 200_000])
    write_build(tmp_path / "c.a", [106_390, 200_000])
    assert run("diff", "a.a", "b.a", "--fail-on-growth", "1%").exit_code == 0
    result = run("diff", "a.a", "c.a", "--fail-on-growth", "1%")
    assert result.exit_code == 3
    assert result.stderr == ("memreport: gate failed: 1 tile(s) grew by more than 1% of 638,976 B (6,389 B) from "
                             "a.a to c.a: tile 0 by 6,390 B\n")
