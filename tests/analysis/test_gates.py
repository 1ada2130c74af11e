"""Gates as pure functions: which tiles fail, by how much, and the one-line message."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import memreport
from memreport.analysis import gates as _gates
from memreport.analysis import summarize, summarize_all
from memreport.analysis.diff import diff_reports
from memreport.analysis.gates import GateResult, Offender
from memreport.analysis.results import GateSetting
from memreport.config import Gates, Origin, Setting
from memreport.errors import UnsupportedOperation
from memreport.model import (
    MemoryReport,
    PrintedSummary,
    StatedTarget,
    SummaryReport,
    Target,
    TileBytes,
    TileDetail,
    TileReport,
)
from memreport.render.words import gate_message
from memreport.units import Percent
from tests.builds import LIMIT, NEW, OLD, empty_tensor_map_report, write_build


class _Judging:
    """The gates as a run sees them: a gate that cannot judge is bad usage (UnsupportedOperation, exit 2)."""

    def __getattr__(self, name):
        found = getattr(_gates, name)
        if not name.startswith(("check_", "judge")):
            return found

        def judged(*args, **kwargs):
            result = found(*args, **kwargs)
            for r in result if isinstance(result, list) else [result]:
                if r.failed is None:
                    raise UnsupportedOperation(gate_message(r))
            return result
        return judged


gates = _Judging()


def facts(r: GateResult) -> tuple:
    """What a gate's result says: gate, source, failed, how many tiles, the worst, and its message."""
    return r.gate, r.source, r.failed, r.failing_tiles, r.worst, gate_message(r)


@pytest.fixture
def old(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_build(tmp_path / "old.a", OLD)
    return memreport.read("old.a")


@pytest.fixture
def new(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_build(tmp_path / "new.a", NEW)
    return memreport.read("new.a")


def text_summary(oom: int = 3, peak: TileBytes | None = TileBytes(1402, 788_976)) -> MemoryReport:
    """A partial report as the text reader makes it: printed figures and two detailed tiles."""
    return SummaryReport(
        source="summary.txt", format="poplar-text", target=Target(1472, None, 1, 1472, LIMIT),
        printed=PrintedSummary(max_excluding_gaps=peak, tiles_out_of_memory=oom, excluding_gaps=400_000_000),
        detailed_tiles=(TileDetail(1402, 790_000, 788_976), TileDetail(17, 701_000, 700_000),
                        TileDetail(5, None, 500_000)))


def test_out_of_memory_names_the_worst_tiles_first(old):
    result = gates.check_out_of_memory(summarize(old))
    assert facts(result) == ("fail-on-oom", "old.a", True, 2,
                                (Offender(7, 700_000, 61_024), Offender(2, 640_000, 1_024)),
                                "2 tile(s) out of memory in old.a: tile 7 by 61,024 B, tile 2 by 1,024 B")


def test_a_full_tile_is_not_out_of_memory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_build(tmp_path / "full.a", [LIMIT, 1_280])
    result = gates.check_out_of_memory(summarize(memreport.read("full.a")))
    assert facts(result) == ("fail-on-oom", "full.a", False, 0, (), "")
    assert gate_message(result) == ""


def test_only_the_five_worst_are_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # Excesses 8, 1, 6, 6, 3, 2, 6, 5 KiB: the tie at 6 KiB is broken by tile id.
    excess = [8, 1, 6, 6, 3, 2, 6, 5]
    write_build(tmp_path / "pod.a", [LIMIT + k * 1024 for k in excess])
    result = gates.check_out_of_memory(summarize(memreport.read("pod.a")))
    assert result.failing_tiles == 8
    assert [(o.tile, o.excess) for o in result.worst] == [(0, 8192), (2, 6144), (3, 6144), (6, 6144), (7, 5120)]
    assert gate_message(result) == ("8 tile(s) out of memory in pod.a: tile 0 by 8,192 B, tile 2 by 6,144 B, "
                              "tile 3 by 6,144 B, tile 6 by 6,144 B, tile 7 by 5,120 B and 3 more")


def test_an_overflowed_region_says_by_how_much():
    # A profile can report an overflowed region on a tile whose total is within bytes per tile.
    report = TileReport("p.json", "json-profile", Target.for_arch("ipu2", 3),
                          excluding_gaps=np.array([100, LIMIT - 10, 5]),
                          regions={"overflowed": np.array([0, 300, 0])})
    result = gates.check_out_of_memory(summarize(report))
    assert result.worst == (Offender(1, LIMIT - 10, 300),)
    assert gate_message(result) == "1 tile(s) out of memory in p.json: tile 1 by 300 B"


def test_out_of_memory_needs_bytes_per_tile():
    report = TileReport("t.elf", "elf", Target(2), excluding_gaps=np.array([1, 2]))
    with pytest.raises(UnsupportedOperation, match=r"--fail-on-oom: t.elf: out-of-memory tiles unknown"):
        gates.check_out_of_memory(summarize(report))


def test_max_tile_is_strictly_above(old):
    assert not gates.check_max_tile(summarize(old), 700_000).failed
    result = gates.check_max_tile(summarize(old), 699_999)
    assert facts(result) == ("max-tile", "old.a", True, 1, (Offender(7, 700_000, 1),),
                                "1 tile(s) above --max-tile 699,999 B in old.a: tile 7 by 1 B")


def test_max_tile_counts_every_tile_above(old):
    result = gates.check_max_tile(summarize(old), 600 * 1024)
    assert result.failing_tiles == 3
    assert gate_message(result) == ("3 tile(s) above --max-tile 614,400 B in old.a: tile 7 by 85,600 B, "
                              "tile 2 by 25,600 B, tile 4 by 24,576 B")


def test_headroom_is_free_bytes_below_bytes_per_tile(old):
    result = gates.check_min_headroom(summarize(old), 16 * 1024)
    # Tile 4 is exactly full: 0 B free, 16,384 B short.
    assert [(o.tile, o.excess) for o in result.worst] == [(7, 77_408), (2, 17_408), (4, 16_384)]
    assert gate_message(result) == ("3 tile(s) with less than 16,384 B free of 638,976 B in old.a: "
                              "tile 7 short by 77,408 B, tile 2 short by 17,408 B, tile 4 short by 16,384 B")
    # Exactly the asked headroom passes: tile 3 of OLD has 438,976 B free.
    exact = TileReport("x", "archive", Target.for_arch("ipu2", 1), excluding_gaps=np.array([LIMIT - 4096]))
    assert not gates.check_min_headroom(summarize(exact), 4096).failed


def test_headroom_needs_bytes_per_tile():
    report = TileReport("t.elf", "elf", Target(1), excluding_gaps=np.array([1]))
    with pytest.raises(UnsupportedOperation, match="--min-headroom: t.elf: bytes per tile unknown"):
        gates.check_min_headroom(summarize(report), 1024)


def test_text_summary_uses_the_printed_count():
    result = gates.check_out_of_memory(summarize(text_summary()))
    assert result.failing_tiles == 3
    assert result.worst == (Offender(1402, 788_976, 150_000), Offender(17, 700_000, 61_024))
    assert gate_message(result) == ("3 tile(s) out of memory in summary.txt (the count it printed; a text summary "
                              "does not list every tile): tile 1402 by 150,000 B, tile 17 by 61,024 B and 1 more")
    assert not gates.check_out_of_memory(summarize(text_summary(oom=0))).failed


def test_text_summary_max_tile_uses_the_printed_maximum():
    result = gates.check_max_tile(summarize(text_summary()), 600_000)
    assert result.failing_tiles is None
    assert result.worst == (Offender(1402, 788_976, 188_976), Offender(17, 700_000, 100_000))
    assert gate_message(result) == (
        "at least 2 tile(s) above --max-tile 600,000 B in summary.txt (from its printed maximum "
        "(excluding gaps) and detailed tiles; a text summary does not list every tile): "
        "tile 1402 by 188,976 B, tile 17 by 100,000 B")
    assert not gates.check_max_tile(summarize(text_summary()), 788_976).failed


def test_text_summary_without_a_maximum_cannot_be_gated():
    with pytest.raises(UnsupportedOperation, match="--max-tile: summary.txt printed no maximum"):
        gates.check_max_tile(summarize(text_summary(peak=None)), 1024)


def test_judge_runs_every_gate_in_force_in_order_with_where_it_was_set(old, new):
    set_in = Origin(".memreport.toml", "gates.max-tile", 3)
    given = Gates(max_tile=Setting(640_000, set_in)).merged(fail_on_oom=True)
    results = [r for summary in summarize_all([old, new]) for r in gates.judge(summary, given)]
    assert [(r.gate, r.source, r.failed, r.failing_tiles, r.origin) for r in results] == [
        ("fail-on-oom", "old.a", True, 2, None), ("max-tile", "old.a", True, 1, set_in),
        ("fail-on-oom", "new.a", True, 2, None), ("max-tile", "new.a", True, 2, set_in)]
    assert gate_message(results[1]) == ("1 tile(s) above --max-tile 640,000 B in old.a: tile 7 by 60,000 B "
                                        "(--max-tile from .memreport.toml, line 3, gates.max-tile)")
    assert gates.judge(summarize(old), Gates()) == []
    assert gates.judge(summarize(old), Gates().merged(fail_on_oom=False, max_tile=None)) == []  # off as given
    assert _gates.in_force(given, _gates.REPORT_GATES) == (
        GateSetting("fail-on-oom", True, None), GateSetting("max-tile", 640_000, set_in))


def test_judge_diff_judges_growth_and_new_with_their_origins(old, new):
    changes = diff_reports(old, new)
    set_in = Origin("pyproject.toml", "tool.memreport.gates.fail-on-growth", 9)
    given = Gates(fail_on_growth=Setting(Percent(Fraction(1), "1"), set_in)).merged(fail_on_oom=True)
    results = gates.judge_diff(changes, summarize(new), given)
    assert [(r.gate, r.failed, r.origin) for r in results] == [("fail-on-growth", True, set_in),
                                                                ("fail-on-oom", True, None)]
    assert gate_message(results[0]).endswith(
        "(--fail-on-growth from pyproject.toml, line 9, tool.memreport.gates.fail-on-growth)")


def test_growth_names_tiles_that_grew_by_more_than_the_limit(old, new):
    result = gates.check_growth(diff_reports(old, new), 4096)
    # Tile 6 grew by exactly 4 KiB: not more than the limit.
    assert facts(result) == ("fail-on-growth", "old.a -> new.a", True, 2,
                                (Offender(3, 443_072, 438_976), Offender(1, 8_192, 4_096)),
                                "2 tile(s) grew by more than 4,096 B from old.a to new.a: "
                                "tile 3 by 443,072 B, tile 1 by 8,192 B")
    assert not gates.check_growth(diff_reports(old, new), 443_072).failed
    assert not gates.check_growth(diff_reports(old, old), 0).failed


def test_growth_on_a_partial_diff_says_what_was_compared(new):
    summary = SummaryReport(source="summary.txt", format="poplar-text", target=Target(8, None, 1, 1472, LIMIT),
                           printed=PrintedSummary(tiles_out_of_memory=1),
                           detailed_tiles=(TileDetail(3, None, 650_000),))
    result = gates.check_growth(diff_reports(new, summary), 0)
    assert gate_message(result) == ("1 tile(s) grew by more than 0 B from new.a to summary.txt (of the 1 tile(s) "
                              "whose bytes both sides state; a text summary does not list every tile): "
                              "tile 3 by 6,928 B")


def _summary(source: str, tile: int, peak: TileBytes, oom: int) -> MemoryReport:
    return SummaryReport(source=source, format="poplar-text", target=Target(8, None, 1, 1472, LIMIT),
                         printed=PrintedSummary(max_excluding_gaps=peak, tiles_out_of_memory=oom),
                         detailed_tiles=(TileDetail(tile, None, 5_000),))


def test_growth_of_summaries_sharing_no_tile_is_not_a_pass():
    old, new = _summary("a.txt", 3, TileBytes(0, 5_780), 0), _summary("b.txt", 4, TileBytes(1, 5_000), 0)
    with pytest.raises(UnsupportedOperation) as caught:
        gates.check_growth(diff_reports(old, new), 4096)
    assert str(caught.value) == ("--fail-on-growth: a.txt -> b.txt: no tile's bytes are stated by both sides "
                                 "(a text summary does not list every tile): nothing to judge")


def test_growth_of_the_printed_maximum_fails_a_partial_diff():
    # Tile 3 is stated on both sides and did not grow; the maximum moved from tile 3 to tile 6 and grew.
    old = SummaryReport(source="a.txt", format="poplar-text", target=Target(8, None, 1, 1472, LIMIT),
                        printed=PrintedSummary(max_excluding_gaps=TileBytes(3, 5_000), tiles_out_of_memory=0),
                        detailed_tiles=(TileDetail(3, None, 5_000),))
    new = _summary("b.txt", 3, TileBytes(6, 20_000), 0)
    result = gates.check_growth(diff_reports(old, new), 4096)
    assert facts(result) == (
        "fail-on-growth", "a.txt -> b.txt", True, None, (Offender(6, 15_000, 10_904),),
        "the largest tile grew by 15,000 B (more than 4,096 B) from a.txt to b.txt: 5,000 B on tile 3 -> "
        "20,000 B on tile 6 (the maxima as printed (of the 1 tile(s) whose bytes both sides state; a text summary "
        "does not list every tile))")
    # With no tile stated on both sides, a maximum that grew still fails the gate.
    moved = _summary("c.txt", 4, TileBytes(1, 834_339), 2)
    assert gates.check_growth(diff_reports(_summary("a.txt", 3, TileBytes(0, 5_780), 0), moved), 4096).failed


def overridden(bytes_per_tile: int, oom: int = 3, details=((1402, 788_976), (17, 700_000), (5, 500_000)),
               peak: TileBytes | None = TileBytes(1402, 788_976)) -> MemoryReport:
    """text_summary() read with --tile-memory: the summary printed 638,976 B per tile (the reader keeps it)."""
    return SummaryReport(
        source="summary.txt", format="poplar-text", target=Target(1472, None, 1, 1472, bytes_per_tile),
        stated=StatedTarget(8, bytes_per_tile=LIMIT),
        printed=PrintedSummary(max_excluding_gaps=peak, tiles_out_of_memory=oom, excluding_gaps=400_000_000),
        detailed_tiles=tuple(TileDetail(t, None, b) for t, b in details))


def test_printed_count_for_other_bytes_per_tile_is_not_the_gates_answer():
    result = gates.check_out_of_memory(summarize(overridden(400_000)))
    assert result.failed and result.failing_tiles is None  # a lower bound, not a count
    assert gate_message(result) == (
        "at least 3 tile(s) out of memory in summary.txt (from its printed detailed tiles; its printed count, 3, "
        "is for the 638,976 B per tile it printed, not 400,000 B): tile 1402 by 388,976 B, tile 17 by 300,000 B, "
        "tile 5 by 100,000 B")
    settled = gates.check_out_of_memory(summarize(overridden(800_000)))  # above the printed maximum: nothing is over
    assert not settled.failed and settled.failing_tiles == 0


def test_a_summary_that_cannot_tell_is_a_usage_error_not_a_pass():
    no_line = overridden(LIMIT, oom=None, peak=None, details=((5, 500_000),))
    with pytest.raises(UnsupportedOperation) as raised:
        gates.check_out_of_memory(summarize(no_line))
    assert str(raised.value) == (
        "--fail-on-oom: summary.txt: out-of-memory tiles unknown (the summary printed no out-of-memory line, and "
        "nothing else it printed settles it for 638,976 B per tile)")
    shown = gates.check_out_of_memory(summarize(overridden(LIMIT, oom=None, peak=None)))  # a detailed tile is over
    assert shown.failed and shown.failing_tiles is None
    assert gate_message(shown).startswith("at least 2 tile(s) out of memory in summary.txt (from its printed detailed "
                                    "tiles; the summary printed no out-of-memory line)")


def test_tensor_maps_and_skipped_members_are_not_called_text_summaries(old, new):
    tensor_map = empty_tensor_map_report(Target(8, bytes_per_tile=LIMIT))
    for check, gate in ((lambda r: gates.check_out_of_memory(summarize(r)), "fail-on-oom"),
                        (lambda r: gates.check_max_tile(summarize(r), 1), "max-tile"),
                        (lambda r: gates.check_min_headroom(summarize(r), 1), "min-headroom")):
        with pytest.raises(UnsupportedOperation, match=f"^--{gate}: tm.json: .*a tensor map counts elements, "
                                                       "not bytes"):
            check(tensor_map)
    values = old.excluding_gaps.copy()
    values[3] = 0
    skipped = TileReport("skip.a", "archive", old.target, excluding_gaps=values,
                           skipped=(memreport.SkippedMember(3, "tile_3.elf", "not an ELF file"),))
    result = gates.check_growth(diff_reports(skipped, new), 0)
    assert "text summary" not in gate_message(result)
    assert "(of the 7 tile(s) whose bytes both sides state; 1 damaged member(s) were skipped: their tiles' bytes are " \
           "unknown)" in gate_message(result)


def test_percent_budgets_round_exactly():
    from fractions import Fraction

    from memreport.units import Percent, parse_budget
    assert parse_budget("92.5%") == Percent(Fraction(185, 2)) and str(parse_budget("92.5%")) == "92.5%"
    assert parse_budget("600KiB") == 614_400
    ninety = parse_budget("90%")
    assert isinstance(ninety, Percent)
    assert (ninety.floor_of(LIMIT), ninety.ceil_of(LIMIT)) == (575_078, 575_079)  # 575,078.4 B
    assert (Percent(Fraction(50)).floor_of(LIMIT), Percent(Fraction(50)).ceil_of(LIMIT)) == (319_488, 319_488)


def test_percent_gates_on_a_text_summary():
    from fractions import Fraction

    from memreport.units import Percent
    summary = summarize(text_summary())  # tiles 1402 (788,976 B), 17 (700,000 B), 5 (500,000 B)
    result = gates.check_max_tile(summary, Percent(Fraction(110), "110"))  # 702,873.6 B
    assert (result.failed, result.worst) == (True, (Offender(1402, 788_976, 86_103),))
    assert gate_message(result).startswith("at least 1 tile(s) above --max-tile 110% (702,873 B of 638,976 B) in "
                                     "summary.txt")
    headroom = gates.check_min_headroom(summary, Percent(Fraction(25), "25"))  # 159,744 B free at least
    assert [o.tile for o in headroom.worst] == [1402, 17, 5]
    assert headroom.worst[2] == Offender(5, 500_000, 500_000 - (LIMIT - 159_744))
    unknown = SummaryReport(source="t.txt", format="poplar-text", target=Target(0, None, None, None, None),
                            detailed_tiles=(TileDetail(0, 10, 10),))
    with pytest.raises(UnsupportedOperation, match=r"--max-tile 90%: t.txt: bytes per tile unknown"):
        gates.check_max_tile(summarize(unknown), Percent(Fraction(90), "90"))
