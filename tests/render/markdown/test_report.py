"""Markdown for pull requests and job summaries: the verdict first, escaped names, and never past 65,536
characters, saying what was left out."""
from __future__ import annotations

import os
import shutil

import numpy as np
from click.testing import CliRunner

import memreport
from memreport.analysis import summarize, summarize_all
from memreport.cli import main
from memreport.model import Target, TileReport
from memreport.render.markdown.blocks import LIMIT, cell, code
from memreport.render.markdown.report import render_report
from tests import SAMPLES as _SAMPLES
from tests.builds import NEW, OLD, write_build

SAMPLES = str(_SAMPLES)


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), prog_name="memreport")
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_report_leads_with_the_verdict_then_the_top_tiles_and_the_histogram(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(os.path.join(SAMPLES, "mk2_1472_tiles.a"), "mk2.a")
    text = run("mk2.a", "--format", "markdown", "--top", "3")
    assert text.startswith(
        "## memreport: `mk2.a`\n\n"
        "ELF archive · ipu2, 1 IPU x 1,472 tiles = 1,472 tiles, 638,976 B (624.0 KiB) per tile\n\n"
        "**3 of 1,472 tiles out of memory**  \n"
        "Worst tile: 1402 (IPU 0), 788,976 B excluding gaps, 123.5% of 638,976 B: 150,000 B over  \n"
        "Largest on it: symbol conv2d\\_7/weights (.bss) 393,288 B  \n"
        "Next: `memreport mk2.a --tile 1402 --symbols 20`\n\n"
        "- To fit tile 1402: move conv2d\\_7/momentum (157,315 B, .bss) off it; that frees 157,315 B of the "
        "150,000 B over.\n"
        "- To fit tile 17: move conv2d\\_7/momentum (139,491 B, .bss) off it; that frees 139,491 B of the "
        "61,024 B over.\n"
        "- To fit tile 731: move conv2d\\_7/momentum (127,702 B, .bss) off it; that frees 127,702 B of the "
        "2,048 B over.\n\n"
        "| Tile | IPU | Excluding gaps | % of tile | Member | Out of memory | Largest sections |\n"
        "| ---: | ---: | ---: | ---: | --- | --- | --- |\n"
        "| 1402 | 0 | 788,976 B | 123.5% | tile\\_1402.elf | **OUT OF MEMORY by 150,000 B** "
        "| .bss 786,960 B, .text 1,698 B, .data 318 B |\n"
        "| 17 | 0 | 700,000 B | 109.6% | tile\\_0017.elf | **OUT OF MEMORY by 61,024 B** "
        "| .bss 697,904 B, .text 1,653 B, .data 443 B |\n"
        "| 731 | 0 | 641,024 B | 100.3% | tile\\_0731.elf | **OUT OF MEMORY by 2,048 B** "
        "| .bss 638,960 B, .text 1,447 B, .data 617 B |\n\n"
        "<details><summary>By Tile (Excluding Gaps)</summary>\n\n```text\nBy Tile (Excluding Gaps):\n"
        "  Range (KB) Histogram (Excluding Gaps)               Count (tiles)\n"
        "   144 - 152 *                                             1\n")
    assert text.endswith("  3 tile(s) out of memory\n```\n\n</details>\n\n"
                         "- an ELF archive holds no gap information: including gaps is unknown\n")


def test_a_diff_lists_the_newly_out_of_memory_and_the_changed_tiles(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_build(tmp_path / "old.a", OLD)
    write_build(tmp_path / "new.a", NEW)
    text = run("diff", "old.a", "new.a", "--format", "markdown", "--top", "2")
    assert text.startswith(
        "## memreport diff: `old.a` → `new.a`\n\n"
        "**1 tile newly out of memory; 6 tiles changed (4 grew, 2 shrank)**  \n"
        "Out of memory: 2 tiles -\\> 2 tiles  \n"
        "Worst growth: tile 3, 200,000 B -\\> 643,072 B (+443,072 B)\n\n"
        "|  | Old | New | Change |\n| --- | ---: | ---: | ---: |\n"
        "| Total, excluding gaps | 3,138,976 B | 3,584,336 B | +445,360 B |\n"
        "| Largest tile | 700,000 B (tile 7) | 700,000 B (tile 7) | +0 B |\n"
        "| Tiles out of memory | 2 | 2 | +0 |\n\n"
        "**Newly out of memory** (1): 3\n\n**No longer out of memory** (1): 2\n\n"
        "### Largest changes (6 tiles changed)\n\n"
        "| Tile | IPU | Old | New | Change |  |\n| ---: | ---: | ---: | ---: | ---: | --- |\n"
        "| 3 | 0 | 200,000 B | 643,072 B | +443,072 B | **newly out of memory** |\n"
        "| 2 | 0 | 640,000 B | 630,000 B | -10,000 B |  |\n\n"
        "4 more changed tiles: the JSON and CSV outputs list every one.\n\n"
        "<details><summary>Tile 3: +443,072 B below the tile</summary>\n\n")


def test_compiles_lead_with_the_findings(tmp_path, monkeypatch):
    from tests.synth.compile_logs import tf_batch_size_change
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.log").write_text(tf_batch_size_change().text())
    lines = run("compiles", "train.log", "--format", "markdown").splitlines()
    assert lines[:3] == ["## memreport compiles: `train.log`", "", "**4 findings**  "]
    assert [line.split("**")[1] for line in lines if line.startswith("- **")] == [
        "recompiled", "hash-drift", "late-compile", "executable-switching"]
    assert lines[-8:] == ["<details><summary>Compilations</summary>", "",
                          "| # | Line | Module or hash | Result | Cache | Duration |",
                          "| ---: | --- | --- | --- | --- | ---: |",
                          "| 1 | train.log:5 | cluster\\_train | compiled | miss | 41.0 s |",
                          "| 2 | train.log:71 | cluster\\_train | compiled | miss | 39.5 s |", "", "</details>"]


def test_names_are_escaped_in_cells_and_code_spans():
    assert cell("</script> | *x* `y`\nz") == "&lt;/script\\> \\| \\*x\\* \\`y\\` z"
    assert code("a ``b`` c") == "```a ``b`` c```"
    assert code("`x") == "`` `x ``"
    report = TileReport("</script>|`x`.a", "archive", Target(2, "ipu2", 1, 2, 1000), np.array([5, 2000]))
    text = render_report([summarize(report)])
    assert text.startswith("## memreport: ``</script>|`x`.a``\n\n")


def test_the_text_stays_within_a_comment_at_any_scale_and_says_what_was_left_out():
    rng = np.random.default_rng(1)
    wide = rng.integers(0, 16_000 * 1024, 94_208)  # 1 KiB bins: 16,000 histogram rows
    reports = [TileReport(f"pod{i}.a", "archive", Target(94_208, "ipu2", 64, 1472, 638_976), wide)
               for i in range(40)]
    text = render_report(summarize_all(reports, bin_kib=1))
    assert len(text) <= LIMIT
    assert text.count(" of 94,208 tiles out of memory**") == 40  # every verdict, before any histogram
    assert text.startswith("## memreport: 40 reports\n\n**40 of 40 reports have tiles out of memory; worst: pod0.a, "
                           "tile 45165, 16,383,717 B excluding gaps of 638,976 B**  \n"
                           "pod0.a: out of memory, tile 45165, 16,383,717 B excluding gaps of 638,976 B  \n")
    assert ("35 more failed: --brief and the JSON list every one  \n"
            "Next: `memreport pod0.a --tile 45165 --symbols 20`\n\n| Report |") in text
    assert text.count("| `pod") == 40  # the table of reports, whole, before any report's own blocks
    assert text.count("- To fit tile ") == 120  # every report's fit plans (three), before any histogram
    assert text.count(" rows left out)") == 7  # seven histograms cut to their first and last rows
    assert text.count("... (15,845 rows left out)") == 1 and text.count("... (15,989 rows left out)") == 6
    assert text.rstrip("\n").splitlines()[-1] == (
        "_Left out to stay within GitHub's 65,536 characters: part of the By Tile histogram of 7 reports (pod0.a, "
        "pod1.a, pod2.a, ...); the By Tile histogram of 33 reports (pod7.a, pod8.a, pod9.a, ...). The text and "
        "JSON outputs hold everything._")
    small = render_report([summarize(memreport.read(os.path.join(SAMPLES, "mk1_profile.json")))])
    assert "Left out" not in small


def test_a_table_of_reports_too_long_for_a_comment_keeps_its_first_rows():
    reports = [TileReport(f"logs/rank-{i:04d}-of-1024/build/archive.a", "archive", Target(4, "ipu2", 1, 4, 638_976),
                          np.array([1, 2, 3, 700_000])) for i in range(1024)]
    text = render_report(summarize_all(reports))
    assert len(text) <= LIMIT
    assert text.startswith("## memreport: 1,024 reports\n\n**1,024 of 1,024 reports have tiles out of memory; worst: "
                           "logs/rank-0000-of-1024/build/archive.a, tile 3, 700,000 B excluding gaps of 638,976 B**")
    assert text.count("| `logs/rank-") == 20 and "... and 1,004 more reports" in text
    assert "part of the table of reports" in text.rstrip("\n").splitlines()[-1]
