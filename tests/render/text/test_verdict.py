"""The verdict first (issue 24): a report's, a diff's and the compilations' opening lines, exact; the report's
last line; the drill-down by default; -q; every line within the width; Poplar's own block untouched."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from click.testing import CliRunner

from memreport.analysis import summarize
from memreport.analysis.compiles import summarize_compiles
from memreport.analysis.diff import diff_reports
from memreport.cli import main
from memreport.model import (
    Column,
    CompileHistory,
    CompileLogInfo,
    OutOfMemoryMessage,
    SummaryReport,
    Target,
    TileReport,
)
from memreport.render import RenderOptions
from memreport.render.text import verdict as vt
from memreport.render.text.report import render_report
from tests import ROOT, SAMPLES
from tests.synth.compile_logs import row


def archive(values=(1000, 640_000, 5000)) -> TileReport:
    return TileReport(
        source="a.a", format="archive", target=Target.for_arch("ipu2", 3), excluding_gaps=np.array(values),
        breakdown={".text": Column(np.array([1000, 40_000, 5000])), ".bss": Column(np.array([0, 600_000, 0]))},
        breakdown_kind="section", tile_names=["t0", "t1", "t2"])


def test_a_report_opens_with_the_count_the_worst_tile_what_is_on_it_and_the_next_command():
    assert vt.report_lines(summarize(archive())) == [
        "Verdict: 1 of 3 tiles out of memory",
        "         Worst tile: 1 (IPU 0), 640,000 B excluding gaps, 100.2% of 638,976 B: 1,024 B over",
        "         Largest on it: section .bss 600,000 B",
        "         Next: memreport a.a --tile 1 --symbols 20"]
    fits = summarize(archive((1000, 2000, 5000)))
    assert vt.report_lines(fits)[:2] == [
        "Verdict: 0 of 3 tiles out of memory",
        "         Worst tile: 2 (IPU 0), 5,000 B excluding gaps, 0.8% of 638,976 B: 633,976 B free"]


def test_the_first_line_closes_the_report_and_the_block_opens_it():
    text = render_report(summarize(archive()))
    lines = text.splitlines()
    assert lines[:5] == [*vt.report_lines(summarize(archive())), ""]
    plans = vt.plan_lines(summarize(archive()))  # the fit plan right after the verdict, then the detail
    assert plans[0].startswith("To fit tile 1: ") and lines[5:5 + len(plans) + 2] == [*plans, "", "Source:   a.a"]
    assert lines[-2:] == ["", "Verdict: 1 of 3 tiles out of memory"]
    assert vt.report_headline(summarize(archive())) == ["Verdict: 1 of 3 tiles out of memory"]


def test_an_unknown_count_is_one_plain_line_not_a_page_of_unknowns():
    unknown = TileReport(source="p", format="archive", target=Target(num_tiles=1), excluding_gaps=np.array([10]))
    assert vt.report_lines(summarize(unknown)) == [
        "Verdict: Tiles out of memory: unknown (bytes per tile unknown: give --tile-memory or --arch)",
        "         Worst tile: 0, 10 B excluding gaps",
        "         Next: memreport p --tile 0 --symbols 20"]


def test_a_report_of_messages_only_says_at_least_with_the_right_plural():
    report = SummaryReport(source="run.log", format="oom-messages", target=Target(0, bytes_per_tile=638_976),
                           oom_messages=(OutOfMemoryMessage("exchange", 12, "...", 3, exchange="x"),))
    assert vt.report_lines(summarize(report)) == ["Verdict: At least 1 tile out of memory"]
    two = SummaryReport(source="run.log", format="oom-messages", target=Target(0, bytes_per_tile=638_976),
                        oom_messages=(OutOfMemoryMessage("exchange", 12, "...", 3, exchange="x"),
                                      OutOfMemoryMessage("exchange", 14, "...", 5, exchange="x")))
    assert vt.report_lines(summarize(two)) == ["Verdict: At least 2 tiles out of memory"]


def test_prose_wraps_with_a_hanging_indent_within_the_width():
    lines = vt.diff_lines(diff_reports(archive(), SummaryReport(source="s.txt", format="poplar-text",
                                                                target=Target.for_arch("ipu2", 3))), 60)
    assert lines[:2] == ["Verdict: Newly out of memory: unknown (a side does not state",
                         "         every tile's bytes); 0 tiles changed (0 grew,"]  # "0 shrank" whole
    assert all(len(line) <= 60 for line in lines)


def test_a_diff_opens_with_newly_out_of_memory_and_the_worst_growth():
    new = archive((1000, 600_000, 700_000))
    assert vt.diff_lines(diff_reports(archive(), new)) == [
        "Verdict: 1 tile newly out of memory; 2 tiles changed (1 grew, 1 shrank)",
        "         Out of memory: 1 tile -> 1 tile",
        "         Worst growth: tile 2, 5,000 B -> 700,000 B (+695,000 B)",
        "         Largest tile: +60,000 B"]


def test_the_compilations_open_with_how_many_recompiled_and_unfinished():
    first = row("a.log", 3, module="m", hash="0x1", result="compiled")
    logs = (CompileLogInfo("a.log", 9, 2, 0),)
    unfinished = summarize_compiles(CompileHistory(logs, (first, row("a.log", 9, module="m", hash="0x1", result=None,
                                                                     end_in_log=False)), ()))
    assert vt.compiles_lines(unfinished) == ["Verdict: 2 compilations (1 compiled): no recompilation, 1 unfinished"]
    twice = summarize_compiles(CompileHistory(logs, (first, row("a.log", 9, module="m", hash="0x1",
                                                                result="compiled")), ()))
    assert vt.compiles_lines(twice) == ["Verdict: 2 compilations (2 compiled): 1 recompilation found",
                                        "         Findings: 1 recompiled"]


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_symbol_tables_for_out_of_memory_tiles_by_default_and_every_top_tile_with_symbols(monkeypatch):
    monkeypatch.chdir(ROOT)
    tables = [line.split(" (")[0] for line in run("sample_reports/mk2_1472_tiles.a").splitlines()
              if line.startswith("Symbols on tile")]
    assert tables == ["Symbols on tile 1402", "Symbols on tile 17", "Symbols on tile 731"]
    tables = [line.split(" (")[0] for line in run("sample_reports/mk2_1472_tiles.a", "--symbols", "2").splitlines()
              if line.startswith("Symbols on tile")]
    assert tables == ["Symbols on tile 1402", "Symbols on tile 17", "Symbols on tile 731", "Symbols on tile 1024",
                      "Symbols on tile 1088"]


def test_brief_is_the_verdict_and_the_top_tiles_only(monkeypatch):
    monkeypatch.chdir(ROOT)
    brief = run("sample_reports/mk2_1472_tiles.a", "-q")
    assert brief == run("sample_reports/mk2_1472_tiles.a", "--brief")
    blocks = brief.split("\n\n")
    assert len(blocks) == 4 and blocks[0].startswith("Verdict: 3 of 1,472 tiles out of memory\n")
    assert blocks[1].startswith("To fit tile 1402: move ")  # -q keeps the fit plan
    assert blocks[2].startswith("Top 5 tiles (by excluding gaps):\n") and blocks[2].endswith("(! = out of memory)")
    assert blocks[3] == "Verdict: 3 of 1,472 tiles out of memory\n"  # the last line, as in the whole report
    assert render_report(summarize(archive()), RenderOptions(brief=True)).count("Verdict:") == 2


def test_poplars_own_block_is_kept_byte_for_byte_after_the_verdict(monkeypatch):
    monkeypatch.chdir(ROOT)
    printed = (SAMPLES / "mk1_summary.txt").read_text().split("\n  By Tile (Excluding Gaps):\n")[1]
    block = "  By Tile (Excluding Gaps):\n" + printed.split("out of memory\n")[0] + "out of memory\n"
    text = run("sample_reports/mk1_summary.txt")
    assert text.startswith("Verdict: 0 of 1,216 tiles out of memory\n") and block in text
    assert block in (ROOT / "tests" / "golden" / "mk1_summary.txt.text").read_text()


def test_every_verdict_line_of_every_sample_fits_80_and_100_columns(monkeypatch):
    import memreport
    # Paths as typed at the repository's root: the Next: command quotes the path, and a clone's absolute
    # path (however deep) is one word no line can break.
    monkeypatch.chdir(ROOT)
    samples = Path("sample_reports")
    for width in (80, 100):
        for name in ("mk2_1472_tiles.a", "mk1_summary.txt", "trace_two_modules.rep", "mk1_profile.json",
                     "mk1_profile.cbor", "tensor_map.json", "run.log"):
            for report in memreport.read_all(samples / name):
                block = vt.report_lines(summarize(report), width)
                assert block[0].startswith("Verdict: ") and len(block) <= 6, name
                assert all(len(line) <= width for line in block), (name, width, block)
        diff = memreport.diff(samples / "mk2_1472_tiles.a", samples / "mk2_1472_tiles_pr.a")
        assert all(len(line) <= width for line in vt.diff_lines(diff, width))
        partial = memreport.diff(samples / "mk1_summary.txt", samples / "mk1_profile.json")
        assert all(len(line) <= width for line in vt.diff_lines(partial, width))
        compiles = memreport.read_compiles(*(samples / f"compile_{n}.log" for n in ("cold", "warm", "recompiling")))
        assert all(len(line) <= width for line in vt.compiles_lines(compiles, width))
