"""analysis/verdict.py: which tiles are out of memory, how many, as far as a source can say, and in words."""
from __future__ import annotations

import pathlib

import numpy as np

import memreport
from memreport import analysis
from memreport.analysis import summarize, summarize_all
from memreport.analysis import verdict as verdict_rules
from memreport.model import (
    OOM_MESSAGES_FORMAT,
    Bin,
    Histogram,
    OutOfMemoryMessage,
    PrintedSummary,
    StatedTarget,
    SummaryReport,
    Target,
    TileBytes,
    TileDetail,
)
from memreport.render import words
from tests.builds import complete, empty_tensor_map_report


def test_out_of_memory_rules():
    limit = 638_976
    report = complete([limit, limit + 1, 0])
    assert analysis.out_of_memory(report).tolist() == [False, True, False]
    assert analysis.count_out_of_memory(report) == 1
    unknown = complete([1, 2], arch=None)
    assert analysis.out_of_memory(unknown) is None and analysis.count_out_of_memory(unknown) is None
    overflowed = complete([1, 2], arch=None, regions={"overflowed": np.array([0, 5])})
    assert analysis.out_of_memory(overflowed).tolist() == [False, True]
    both = complete([limit + 9, 2], regions={"overflowed": np.array([0, 5])})
    assert analysis.count_out_of_memory(both) == 2


# ---------------------------------------------------------------- out-of-memory counts of printed summaries

LIMIT = 638_976
STEP = "cluster_training_step.17"


def summary(bytes_per_tile=LIMIT, printed_limit=LIMIT, oom=2, details=(700_000, 660_001, 600_000),
            peak=700_000, bins=None, num_tiles=1472):
    """A summary as the text reader makes it: its printed Memory Per-Tile kept in info["target"]."""
    bins = bins if bins is not None else (Bin(576, 584, 1468), Bin(584, 592, 2), Bin(640, 648, 1),
                                          Bin(680, 688, 1))
    return SummaryReport(
        source="s.txt", format="poplar-text", target=Target(num_tiles, None, 1, 1472, bytes_per_tile),
        stated=StatedTarget(num_tiles, bytes_per_tile=printed_limit),
        printed=PrintedSummary(histogram=Histogram(8, bins) if bins else None, tiles_out_of_memory=oom,
                               max_excluding_gaps=None if peak is None else TileBytes(5, peak)),
        detailed_tiles=tuple(TileDetail(t, None, b) for t, b in zip((5, 9, 12), details)))


def test_the_printed_count_is_used_when_it_is_for_the_bytes_per_tile_in_use():
    for report in (summary(), summary(printed_limit=None), summary(bytes_per_tile=None, printed_limit=None)):
        status = analysis.out_of_memory_count(report)
        assert (status.count, status.basis, status.reason) == (2, (), None)
        assert words.count_phrase(status) == "2 tile(s) out of memory" and words.count_note(status) is None


def test_an_overridden_bytes_per_tile_never_shows_the_printed_count():
    import memreport
    step = next(r for r in memreport.read_all("sample_reports/trace_two_modules.rep", tile_memory=500_000)
                if r.module == STEP)
    status = analysis.out_of_memory_count(step)
    # All five detailed tiles are over 500,000 B, and the histogram shows no other tile can be.
    assert status.count == 5 and analysis.count_out_of_memory(step) == 5
    assert words.count_phrase(status) == ("5 tile(s) out of memory (from its printed detailed tiles and histogram, "
                                 "for 500,000 B per tile)")
    assert words.reason(status.reason) == \
        "its printed count, 2, is for the 638,976 B per tile it printed, not 500,000 B"
    assert [t.out_of_memory for t in step.top_tiles()] == [True] * 5


def test_a_bound_when_what_was_printed_cannot_settle_the_count():
    # 200,000 B falls inside the 192 - 200 KiB bin: its 194 tiles may lie on either side.
    status = analysis.out_of_memory_count(summary(200_000, bins=(Bin(192, 200, 194), Bin(200, 208, 700),
                                                                 Bin(640, 648, 1), Bin(680, 688, 1)),
                                                  num_tiles=896))
    assert status.count is None and status.at_least == 702
    assert words.count_phrase(status) == ("at least 702 tile(s) out of memory (from its printed histogram; its printed "
                                 "count, 2, is for the 638,976 B per tile it printed, not 200,000 B)")


def test_more_bytes_per_tile_than_printed_can_only_lower_the_count():
    status = analysis.out_of_memory_count(summary(690_000))
    assert (status.count, status.at_least) == (1, 1)  # tile 5's 700,000 B; 660,001 B now fits
    assert analysis.out_of_memory_count(summary(800_000)).count == 0  # above the printed maximum
    # Without a histogram, the printed count still caps the count from above: 2 known over, at most 2.
    assert analysis.out_of_memory_count(summary(650_000, bins=())).count == 2
    assert analysis.out_of_memory_count(summary(500_000, bins=())).at_least == 3


def test_a_summary_without_an_out_of_memory_line_says_so():
    status = analysis.out_of_memory_count(summary(oom=None, peak=None, bins=(), details=(500_000,)))
    assert status.count is None and status.at_least == 0
    assert words.reason(status.reason) == (
        "the summary printed no out-of-memory line, and nothing else it printed settles it "
                             "for 638,976 B per tile")
    assert "give --tile-memory" not in words.count_phrase(status)
    over = analysis.out_of_memory_count(summary(oom=None, peak=None, bins=(), details=(700_000,)))
    assert (over.count, over.at_least) == (None, 1)
    unknown = analysis.out_of_memory_count(summary(None, None, oom=None, peak=None, bins=()))
    assert words.reason(unknown.reason) == ("the summary printed no out-of-memory line; bytes per tile unknown (give "
                              "--tile-memory or --arch to judge what it printed)")


def test_other_partial_reports_give_their_own_reason():
    tensor_map = empty_tensor_map_report(Target(4))
    assert words.reason(analysis.out_of_memory_count(tensor_map).reason) == "a tensor map counts elements, not bytes"
    assert words.partial_reason(analysis.kind_of(tensor_map).partial()) == "a tensor map counts elements, not bytes"
    assert words.partial_reason(analysis.kind_of(summary()).partial()) == "a text summary does not list every tile"
    messages = next(r for r in memreport.read_all("sample_reports/sweep.log"))
    assert messages.format == OOM_MESSAGES_FORMAT
    assert words.partial_reason(analysis.kind_of(messages).partial()) == \
        "the log holds no memory summary, only out-of-memory messages"
    assert analysis.kind_of(complete([1, 2])).partial() is None
    assert words.reason(analysis.out_of_memory_count(complete([1, 2], arch=None)).reason) == \
        "bytes per tile unknown: give --tile-memory or --arch"


def test_detail_out_of_memory_is_strictly_above_bytes_per_tile():
    report = summary()
    assert [analysis.detail_out_of_memory(report, d) for d in (
        TileDetail(0, None, LIMIT), TileDetail(0, None, LIMIT + 1), TileDetail(0, 9, None))] == [False, True, None]
    assert analysis.detail_out_of_memory(summary(bytes_per_tile=None, printed_limit=None),
                                         TileDetail(0, None, 10 ** 9)) is None


def test_a_non_zero_overflowed_region_is_out_of_memory_without_bytes_per_tile():
    """docs/FORMATS.md §0: excluding gaps above bytes per tile is the same as a non-zero Overflowed region."""
    overflowed = TileDetail(0, 834_416, 834_339, regions={"overflowed": 580_387})
    fits = TileDetail(1, 5_000, 4_000, regions={"overflowed": 0})
    unknown = summary(bytes_per_tile=None, printed_limit=None)
    assert [analysis.detail_out_of_memory(unknown, d) for d in (overflowed, fits)] == [True, None]
    assert analysis.detail_out_of_memory(summary(), overflowed) is True
    # Another bytes per tile than the one the compile used: Poplar's verdict no longer applies, the figures do.
    assert analysis.detail_out_of_memory(summary(bytes_per_tile=900_000), overflowed) is False
    report = summary(None, None, oom=None, peak=None, bins=(), details=())
    report = report.evolve(detailed_tiles=(overflowed, fits))
    status = analysis.out_of_memory_count(report)
    assert (status.count, status.at_least) == (None, 1)
    assert words.count_phrase(status).startswith("at least 1 tile(s) out of memory (from its printed detailed tiles")


def message(kind="tile-memory", tile=0, used=876_476, capacity=638_976, line=3):
    return OutOfMemoryMessage(kind=kind, line=line, text="...", tile=tile, bytes_used=used, bytes_per_tile=capacity)


def test_messages_name_tiles_for_the_bytes_per_tile_they_state():
    report = summary(oom=None, peak=None, bins=(), details=()).evolve(
        oom_messages=(message(tile=3), message(tile=3, line=9), message("exchange", 7, None, None),
                      message("host-stream", None, None, None)))
    assert list(verdict_rules.message_tiles(report)) == [3, 7]
    status = analysis.out_of_memory_count(report)
    assert (status.count, status.at_least, words.basis(status)) == (None, 2, "from its out-of-memory messages")
    # With more bytes per tile than the message's capacity, its tile counts only if it used more than that.
    assert list(verdict_rules.message_tiles(report.evolve(target=Target(1472, None, 1, 1472, 900_000)))) == [7]
    unnamed = summary(oom=None, peak=None, bins=(), details=()).evolve(
        oom_messages=(message("variables", None, None, None),))
    assert analysis.out_of_memory_count(unnamed).at_least == 1  # "one or more tiles"


def test_a_message_marks_a_detailed_tile_the_summary_cannot_judge():
    report = summary(None, None, oom=None, peak=None, bins=(), details=(500_000, 400_000))
    report = report.evolve(oom_messages=(message(tile=9),))
    assert [t.out_of_memory for t in analysis.top_tiles(report)] == [None, True]


# ---------------------------------------------------------------- which histogram bins hold out-of-memory tiles

def test_bins_of_complete_data_are_judged_tile_by_tile():
    at_limit = complete([LIMIT, 400_000, 10_000])
    hist = analysis.histogram(at_limit, 8)
    assert analysis.bins_out_of_memory(at_limit, hist)[-1] is False  # full is not out of memory
    over = complete([LIMIT + 1, 400_000])
    hist = analysis.histogram(over, 5)  # 620 - 625 KiB straddles the limit (624 KiB) and holds the tile
    assert (hist.bins[-1].low_kib, hist.bins[-1].high_kib) == (620, 625)
    assert analysis.bins_out_of_memory(over, hist)[-1] is True
    assert analysis.bins_out_of_memory(complete([1, 2], arch=None), hist) == [None] * len(hist.bins)


def test_printed_bins_are_red_only_when_they_must_hold_an_out_of_memory_tile():
    bins = (Bin(616, 624, 10), Bin(624, 632, 5), Bin(632, 640, 0), Bin(640, 648, 1))
    # 624 KiB is the limit exactly: 624 - 632 holds tiles above it but one might sit at 638,976 B exactly.
    report = summary(oom=None, peak=None, details=(), bins=bins, num_tiles=16)
    assert analysis.bins_out_of_memory(report, report.printed.histogram) == [False, None, False, True]
    known = summary(oom=None, peak=None, details=(640_000,), bins=bins, num_tiles=16)  # tile 5 in 624 - 632
    assert analysis.bins_out_of_memory(known, known.printed.histogram) == [False, True, False, True]
    exact = summary(oom=1, peak=None, details=(), bins=bins, num_tiles=16)  # the one is in 640 - 648
    assert analysis.bins_out_of_memory(exact, exact.printed.histogram) == [False, False, False, True]


def test_every_view_of_a_detailed_tile_asks_the_one_rule(monkeypatch):
    """Top tiles, CSV, dataframe, picture, diff and gate all follow detail_out_of_memory, whatever it says."""
    import csv
    import io

    from memreport.analysis import gates
    from memreport.analysis.diff import diff_reports
    from memreport.render.data import csv as table
    from memreport.render.picture import plot
    monkeypatch.setattr(verdict_rules, "detail_out_of_memory", lambda report, d: d.tile % 2 == 1)
    report = SummaryReport(
        source="s.txt", format="poplar-text", target=Target(4, None, 1, 4, LIMIT),
        printed=PrintedSummary(tiles_out_of_memory=2),
        detailed_tiles=tuple(TileDetail(t, None, 100 * t) for t in (1, 2, 3)))
    assert [t.out_of_memory for t in analysis.top_tiles(report)] == [True, False, True]
    rows = list(csv.DictReader(io.StringIO(table.render_csv(summarize_all([report])))))
    assert [r["out_of_memory"] for r in rows] == ["true", "false", "true"]
    assert memreport.notebook.public(report).to_dataframe()["out_of_memory"].tolist() == [True, False, True]
    fig = plot.figure(summarize(report))
    ax = next(a for a in fig.axes if a.get_title(loc="left").startswith("Detailed tiles"))
    red = [tuple(p.get_facecolor()[:3]) == tuple(int(plot.OOM_COLOUR[i:i + 2], 16) / 255 for i in (1, 3, 5))
           for p in ax.containers[-1]]
    assert red == [True, False, True]
    old = complete([0, 0, 0, 0], bytes_per_tile=LIMIT)
    assert [t.out_of_memory for t in summarize(report).stated] == [True, False, True]
    assert diff_reports(old, report).newly_out_of_memory is None  # a summary does not state every tile
    assert [o.tile for o in gates.check_out_of_memory(summarize(report)).worst] == [3, 1]


# ---------------------------------------------------------------- the Verdict the Summary carries

SAMPLE = str(__import__("pathlib").Path(__file__).resolve().parents[2] / "sample_reports" / "mk2_1472_tiles.a")


def test_the_verdict_of_an_archive_names_the_worst_tile_its_excess_and_what_is_on_it():
    import memreport
    whole = summarize(memreport.read(SAMPLE))
    verdict = whole.verdict
    assert (verdict.count.count, verdict.num_tiles, verdict.bytes_per_tile) == (3, 1472, 638_976)
    assert verdict.worst == TileBytes(1402, 788_976) and verdict.worst_ipu == 0
    assert verdict.largest_on_worst == analysis.Largest("section", ".bss", 786_960)  # no symbols read here
    assert verdict.look_into is not None and words.look_into(verdict.look_into) == \
        f"memreport {SAMPLE} --tile 1402 --symbols 20"
    assert verdict.excess == 150_000 and verdict.free == 0 and round(verdict.share, 4) == 1.2348
    assert verdict.printed_count is None and verdict.messages == () and not verdict.judged
    assert words.count_lines(whole) == ["Out of memory: 3 tiles"]
    fits = summarize(complete([100, 200], bytes_per_tile=LIMIT)).verdict
    assert (fits.excess, fits.free, fits.worst, fits.largest_on_worst) == (0, LIMIT - 200, TileBytes(1, 200), None)
    unknown = summarize(complete([100, 200], arch=None)).verdict
    assert (unknown.excess, unknown.share, words.count_title(unknown.count)) == \
        (None, None, "out-of-memory tiles unknown")


def test_the_verdict_of_a_summary_keeps_the_printed_count_beside_a_recount():
    as_printed = summarize(summary())
    printed = as_printed.verdict
    assert printed.printed_count == 2 and words.count_lines(as_printed) == ["Out of memory (printed): 2 tiles"]
    assert printed.largest_on_worst is None and words.count_title(printed.count) == "2 tiles out of memory"
    recounted = summarize(summary(bytes_per_tile=900_000))
    assert words.count_lines(recounted) == ["Out of memory (printed): 2 tiles",
                                       "Out of memory (recounted for 900,000 B per tile): 0 tiles"]
    note = words.count_note(recounted.oom)
    assert recounted.verdict.judged and note is not None
    assert note.startswith("out-of-memory count: 0 tile(s) out of memory")


def test_the_verdict_words_every_message_and_names_each_next_command_once():
    saved = OutOfMemoryMessage(kind="report-saved", line=5, text="...", saved_path="out/graph.json")
    report = summary(oom=None, peak=None, bins=(), details=()).evolve(
        oom_messages=(message(tile=3), saved, message(tile=4, line=7), saved))
    verdict = summarize(report).verdict
    assert [words.message_description(m) for m in verdict.messages][:2] == [
        "tile 3: 876,476 B used, tiles have 638,976 B: out of memory by 237,500 B",
        "the compile ran out of tile memory (TensorFlow); a report was saved at out/graph.json: run "
        "`memreport out/graph.json`"]
    assert [words.next_command(m) for m in verdict.messages] == [None, "memreport out/graph.json", None,
                                                         "memreport out/graph.json"]
    assert words.next_commands(verdict.messages) == ("memreport out/graph.json",)
    assert list(verdict.message_tiles) == [3, 4] and verdict.count.at_least == 2


def test_the_next_command_quotes_the_path_a_log_names():
    """A path a log names is one argument of the command suggested: a shell reads none of it (issue 33)."""
    saved = OutOfMemoryMessage(kind="report-saved", line=5, text="...", saved_path="out/x; rm -rf ~|$(id).json")
    assert words.next_command(saved) == "memreport 'out/x; rm -rf ~|$(id).json'"
    archive = OutOfMemoryMessage(kind="profile-saved", line=5, text="...", archive="a b/archive.a")
    assert words.next_command(archive) == "memreport 'a b/archive.a'"


def test_the_command_to_look_into_the_worst_tile_picks_its_report_among_several(tmp_path):
    run = pathlib.Path(SAMPLE).with_name("run.log").read_text()
    log = tmp_path / "two runs.log"
    log.write_text(run + run)
    first, second = (words.look_into(s.verdict.look_into) for s in summarize_all(memreport.read_all(log)))
    assert first == f"memreport '{log}' --module '#1' --tile 5"  # '#' would start a shell comment unquoted
    assert second == f"memreport '{log}' --module '#2' --tile 5"
    alone = summarize_all(memreport.read_all(pathlib.Path(SAMPLE).with_name("run.log")))
    assert [words.look_into(s.verdict.look_into).split(" ", 2)[2] for s in alone] == ["--tile 5"]
