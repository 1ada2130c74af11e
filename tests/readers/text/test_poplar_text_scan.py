"""Summaries inside logs and documents (memreport/readers/text/poplar_text/scan.py, prefixes.py; docs/FORMATS.md §8).

Every fixture is written in a layout real logs and documents have: a long
log before the summary, launcher tags, logger headers, progress bars and
colour, the TensorFlow walkthrough's rst (prose, underlines, code-block
lines, indentation, elisions), a Markdown fence, UTF-16.
"""
from __future__ import annotations

import json
import random
import re
import tracemalloc

import numpy as np
import pytest
from click.testing import CliRunner

import memreport
from memreport import analysis
from memreport.cli import main
from memreport.errors import ReadError
from memreport.model import Bin, ReportPosition, TileBytes
from memreport.readers import ReadOptions, read_path
from memreport.readers.text import logtext
from memreport.readers.text.poplar_text import region, scan
from tests.readers.text.conftest import facts
from tests.synth import excerpts, logs
from tests.synth.text import ELIDED, EXCLUDING, OTHER_TEXT, SMALL, SMALL_TEXT, write

NO_MEMORY = ("no memory information found: looked for a Poplar memory summary (Target, Memory Usage or By Tile "
             "sections), a 'Tile # N memory usage:' block or an out-of-memory message")


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """The facts of SMALL_TEXT and OTHER_TEXT read as files of their own."""
    tmp = tmp_path_factory.mktemp("alone")
    return (facts(memreport.read(write(tmp, SMALL_TEXT, "small.txt"))),
            facts(memreport.read(write(tmp, OTHER_TEXT, "other.txt"))))


# ---------------------------------------------------------------- summaries anywhere in a log

def test_summaries_after_a_long_log_one_report_each_in_order(tmp_path, alone):
    text = logs.log_text([logs.Filler(300_000, 1), SMALL_TEXT, logs.Filler(40_000, 2), OTHER_TEXT,
                          logs.Filler(5_000, 3)])
    path = write(tmp_path, text)
    first, second = read_path(path)
    assert (facts(first), facts(second)) == alone
    start1, start2 = logs.line_of(text, "Target:"), logs.line_of(text, "Target:", logs.line_of(text, "Target:"))
    programs = first.position.programs
    assert (first.position, second.position) == (ReportPosition(start1, 1, 2, programs=programs),
                                                 ReportPosition(start2, 2, 2, programs=programs))
    assert (programs.count, programs.unit, [(f.index, f.outcome, f.report) for f in programs.failed]) == \
        (2, "program", [(1, "out of memory", 1), (2, "out of memory", 2)])  # each printed tiles out of memory
    assert first.label == f"{path}#1 (line {start1:,})" and second.label == f"{path}#2 (line {start2:,})"
    assert first.source == second.source == str(path)
    assert memreport.read(path).position.index == 1  # the largest (both print the same totals: the first)


def test_a_summary_alone_in_its_file_keeps_the_plain_name(tmp_path):
    report = memreport.read(write(tmp_path, SMALL_TEXT, "summary.txt"))
    assert report.position == ReportPosition(1, 1, 1, programs=report.position.programs)
    assert report.label == str(tmp_path / "summary.txt")


def test_no_blank_line_before_the_summary(tmp_path, alone):
    """An SDK 3.3 example prints "Attached to IPU 0" and then "Target:" in column 0 (docs/FORMATS.md §8.1)."""
    text = "Using the IPU\nTrying to attach to IPU\nAttached to IPU 0\n" + SMALL_TEXT + "Epoch 1 (99%), accuracy 76%\n"
    report, = read_path(write(tmp_path, text))
    assert facts(report) == alone[0] and report.position.line == 4


@pytest.mark.parametrize("dress", [
    pytest.param(lambda t: logs.tagged(t, 0), id="mpirun-tag"),
    pytest.param(lambda t: logs.ci_timestamped(t), id="ci-timestamps"),
    pytest.param(lambda t: logs.poprun_logged(t), id="poprun-header"),
    pytest.param(lambda t: logs.literal(t, "service_1  | "), id="docker-compose"),
    pytest.param(lambda t: logs.literal(t, "# "), id="comment"),
    pytest.param(lambda t: logs.indented(t, "\t"), id="tab-indented"),
])
def test_a_prefix_every_line_shares_is_taken_off(tmp_path, alone, dress):
    text = logs.log_text([logs.Filler(20_000, 4), dress(SMALL_TEXT), logs.Filler(2_000, 5)])
    report, = read_path(write(tmp_path, text))
    assert facts(report) == alone[0]


def test_two_ranks_printing_at_once_give_two_summaries(tmp_path, alone):
    both = logs.interleave(logs.tagged(SMALL_TEXT, 0), logs.tagged(OTHER_TEXT, 1))
    text = logs.log_text([logs.Filler(5_000, 6), both, logs.Filler(1_000, 7)])
    first, second = read_path(write(tmp_path, text))
    assert (facts(first), facts(second)) == alone
    assert second.position.line == first.position.line + 1


def test_log_lines_inside_a_summary_are_passed_over(tmp_path, alone):
    """stderr's logger lines interleaved with a summary printed on stdout (docs/FORMATS.md §8.1)."""
    lines = SMALL_TEXT.splitlines(True)
    noise = ["2023-04-27T04:30:33.475912Z PO:ENGINE   3906481.3906481 W: WARNING: slow host\n",
             "[10:21:41.138] [poptorch:cpp] [warning] Type coerced from Long to Int for tensor id 5\n"]
    text = "".join(line + (noise[k % 2] if k % 9 == 4 else "") for k, line in enumerate(lines))
    report, = read_path(write(tmp_path, text))
    assert facts(report) == alone[0]


def test_a_header_on_the_first_line_only(tmp_path, alone):
    """A Python logger prints a multi-line record with one header (``logger.info(session.getSummaryReport())``)."""
    text = "2023-08-22 23:35:02,925 INFO: " + SMALL_TEXT + "2023-08-22 23:35:03,001 INFO: done\n"
    report, = read_path(write(tmp_path, text))
    assert facts(report) == alone[0]


def test_colour_and_a_glued_progress_bar(tmp_path, alone):
    """An ANSI-coloured ``Target:`` heading is read (issue #16), and so is a summary glued to a tqdm bar."""
    coloured = SMALL_TEXT.replace("Target:\n", "\x1b[1;32mTarget:\x1b[0m\n").replace(
        "Memory Usage:\n", "\x1b[1mMemory Usage:\x1b[0m\n", 1)
    bar = "Graph compilation: 100%|██████████| 100/100 [00:48<00:00]"
    text = logs.log_text([logs.Filler(3_000, 8), bar + coloured])
    report, = read_path(write(tmp_path, text))
    assert facts(report) == alone[0]


def test_utf16_with_its_bom_as_powershell_writes_it(tmp_path, alone):
    path = tmp_path / "run.log"
    path.write_bytes(logs.log_text([logs.Filler(6_000, 9), SMALL_TEXT]).replace("\n", "\r\n").encode("utf-16"))
    report, = read_path(path)
    assert facts(report) == alone[0]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_summary_in_a_utf16_log_appended_to_a_utf8_one(tmp_path, alone, codec):
    """Issue #26: a UTF-8 log (a summary in it) to which a PowerShell log (UTF-16 with its BOM, CRLF, a
    summary) was appended: both summaries read, each at its line as an editor decoding each part shows it."""
    first = logs.log_text([logs.Filler(3_000, 9), OTHER_TEXT])
    second = logs.log_text([logs.Filler(2_000, 8), SMALL_TEXT]).replace("\n", "\r\n")
    path = tmp_path / "run.log"
    path.write_bytes(first.encode() + "\ufeff".encode(codec) + second.encode(codec))
    reports = read_path(path)
    assert [facts(r) for r in reports] == [alone[1], alone[0]]
    whole = first + second.replace("\r\n", "\n")
    assert [r.position.line for r in reports] == [logs.line_of(whole, "Target:"),
                                                  logs.line_of(whole, "Target:", logs.line_of(whole, "Target:"))]


def test_an_error_in_an_appended_utf16_part_names_its_line_not_an_offset(tmp_path):
    """Offsets in the appended part are its transcoding's, not the file's: an error there gives the line only."""
    path = tmp_path / "run.log"
    lone_surrogate = b"\x00\xd8"
    path.write_bytes(b"step 1\n" + "\ufeffMemory Usage:\r\n  Total:\r\n    Including Gaps: 5".encode("utf-16-le") +
                     lone_surrogate + " B\r\n".encode("utf-16-le"))
    with pytest.raises(ReadError) as error:
        read_path(path)
    assert (error.value.line, error.value.offset, error.value.message) == (4, None, "not UTF-8 text")


def test_a_summary_after_a_traceback_and_before_a_zero_filled_tail(tmp_path, alone):
    """A crashed machine leaves NULs where the log's tail should be: they end the summary, nothing more."""
    text = logs.python_traceback("something else went wrong", "RuntimeError") + SMALL_TEXT
    path = tmp_path / "run.log"
    path.write_bytes(text.encode() + b"\x00" * 5000)
    report, = read_path(path)
    assert facts(report) == alone[0]


def test_text_holding_no_memory_information_is_named(tmp_path):
    path = write(tmp_path, logs.log_text([logs.Filler(50_000, 10)]))
    with pytest.raises(ReadError) as info:
        read_path(path)
    assert str(info.value) == f"{path}: {NO_MEMORY}"
    result = CliRunner().invoke(main, [str(path)])
    assert result.exit_code == 1 and result.stderr == f"memreport: {path}: {NO_MEMORY}\n"


def test_a_git_lfs_pointer_is_named(tmp_path):
    """graphcore/popliner's tests/efficientnet/profile.pop, as a checkout without LFS holds it (§10.4)."""
    path = tmp_path / "profile.pop"
    path.write_bytes(b"version https://git-lfs.github.com/spec/v1\n"
                     b"oid sha256:e819e48a965d3f7f662b605ed197d8fda44b57de1723962dccfe0306c2b51b66\n"
                     b"size 191397888\n")
    result = CliRunner().invoke(main, [str(path)])
    assert result.exit_code == 1
    assert result.stderr == (f"memreport: {path}: a Git LFS pointer, not the file itself (the real file: "
                             "191,397,888 bytes, oid sha256:e819e48a...): fetch it with `git lfs pull`\n")


# ---------------------------------------------------------------- excerpts as documents paste them

def test_the_tensorflow_walkthrough_as_published(tmp_path):
    """rst prose, underlines, ``.. code-block:: text`` and blank lines between Target, Graph and Memory Usage
    blocks indented four spaces; then another program's By Tile block with ``.`` elisions, and its tile."""
    path = write(tmp_path, excerpts.TF_WALKTHROUGH, "logging.rst")
    first, second = read_path(path)
    assert first.target.arch == "ipu1" and first.num_tiles == 1216 and first.target.bytes_per_tile == 262_144
    assert first.info["graph"] == {"num_vertices": 1219, "num_edges": 1223, "num_variables": 30_562,
                                   "num_compute_sets": 4}
    assert first.info["vertex_data"]["bytes"] == 14_640
    assert (first.printed.including_gaps, first.printed.excluding_gaps) == (23_878_396, 5_355_604)
    assert first.printed.histogram.bins == (Bin(4, 5, 1215), Bin(5, 6, 1))
    assert first.printed.tiles_out_of_memory == 0
    hist = second.printed.histogram
    assert [(b.low_kib, b.count) for b in hist.bins] == [
        (0, 20), (8, 1192), (16, 2), (24, 0), (32, 0), (488, 0), (496, 0), (504, 1), (512, 0), (520, 0),
        (784, 0), (792, 0), (800, 0), (808, 1)]
    assert hist.elided_before == (5, 10)
    assert not second.num_tiles_known and second.target.bytes_per_tile is None
    assert second.printed.max_excluding_gaps == TileBytes(0, 834_339)
    assert second.printed.tiles_out_of_memory == 2
    tile, = second.detailed_tiles
    assert (tile.tile, tile.including_gaps, tile.excluding_gaps) == (0, 834_416, 834_339)
    assert tile.regions["overflowed"] == 580_387
    assert tile.extra["vertex_data"]["bytes"] == 22_353
    assert tile.extra["elided"] == ["By Data Type", "By Category", "By Type"]
    assert tile.breakdown["Control Code"] == 0 and "Vertex Code" not in tile.breakdown  # elided: not invented
    text = excerpts.TF_WALKTHROUGH
    assert (first.position.line, second.position.line) == \
        (logs.line_of(text, "    Target:"), logs.line_of(text, "    By Tile", logs.line_of(text, "Maximum")))


def test_elision_lines_stay_in_the_rendered_histogram(tmp_path):
    result = CliRunner().invoke(main, [str(write(tmp_path, excerpts.TF_WALKTHROUGH, "logging.rst"))])
    assert result.exit_code == 0
    block = result.stdout[result.stdout.index("      32 -  40"):result.stdout.index("     504 - 512")]
    assert block.splitlines() == [
        "      32 -  40                                               0",
        "           ...",
        "     488 - 496                                               0",
        "     496 - 504                                               0"]


@pytest.mark.parametrize("excerpt", [excerpts.TF_WIDE_TILE, excerpts.TF_BARE_TILE], ids=["wide-table", "bare-literal"])
def test_a_detailed_tile_on_its_own(tmp_path, excerpt):
    """``Tile # 0 memory usage:`` alone: one detailed tile, out of memory by its Overflowed region; the tile
    count and bytes per tile stay unknown (docs/FORMATS.md §8.2)."""
    path = write(tmp_path, excerpt, "tile.rst")
    report = memreport.read(path)
    tile, = report.detailed_tiles
    assert (tile.tile, tile.including_gaps, tile.excluding_gaps) == (0, 834_416, 834_339)
    assert tile.breakdown["Variables"] == 807_658 and len(tile.breakdown) == 11
    assert tile.extra["vertex_data"]["by_type"]["poplin::ConvPartial1x1Out<float,float,true,false>"] == 6_648
    assert tile.extra["vertex_data"]["by_type"][
        "popops::BinaryOp1DSupervisor<popops::expr::BinaryOpType::MULTIPLY,float>"] == 752
    assert not report.num_tiles_known and report.target.bytes_per_tile is None
    summary = analysis.summarize(report)
    assert [t.out_of_memory for t in summary.top] == [True]
    assert (summary.oom.count, summary.oom.at_least) == (None, 1)
    doc = json.loads(CliRunner().invoke(main, [str(path), "--format", "json"]).stdout)
    assert doc["reports"][0]["target"]["num_tiles"] is None
    assert doc["reports"][0]["top_tiles"][0]["out_of_memory"] is True
    text = CliRunner().invoke(main, [str(path)]).stdout
    assert "\n  !    0    ?       834,339 B       834,416 B" in text  # 101 columns in the fixed ones: narrowed


def test_a_memory_usage_block_without_target(tmp_path):
    """The tile count is the histogram's total (never 0); bytes per tile stays unknown unless given."""
    block = SMALL_TEXT[SMALL_TEXT.index("Memory Usage:"):SMALL_TEXT.index("Tile # ")]
    report = memreport.read(write(tmp_path, "For instance:\n\n" + logs.indented(block) + "\nThat is all.\n"))
    assert report.num_tiles == 8 and report.target.bytes_per_tile is None and report.target.arch is None
    assert "the summary has no Target section: the tile count is its histogram's total, 8" in report.notes
    assert report.printed.tiles_out_of_memory == 2
    given = memreport.read(tmp_path / "run.log", tile_memory="624KiB")
    assert given.target.bytes_per_tile == 638_976 and given.num_tiles == 8


def test_sdk3_target_with_replica_lines_in_a_markdown_fence(tmp_path):
    """The EIDF kubectl log (SDK 3.3, Bow): Target and Graph only, cut with ``...``: no memory figures; with a
    Memory Usage block after it (as Poplar prints it), read whole, arch inferred."""
    with pytest.raises(ReadError, match=r"\(a Target section at line 8 gives no memory figures\)"):
        read_path(write(tmp_path, excerpts.EIDF_MARKDOWN, "L4.md"))
    memory = SMALL_TEXT[SMALL_TEXT.index("Memory Usage:"):SMALL_TEXT.index("  By Tile")]
    text = excerpts.EIDF_MARKDOWN.replace("\n...\n\nEpoch", "\n" + memory + "\n...\n\nEpoch")
    report = memreport.read(write(tmp_path, text, "L4-whole.md"))
    assert report.target.arch == "ipu2" and report.num_tiles == 1472 and report.target.clock_hz == 1.85e9
    assert report.info["replicas"] == {"num_replicas": 1, "ipus_per_replica": 1, "tiles_per_replica": 1472,
                                       "memory_per_replica_bytes": 897 * 1024 ** 2}
    assert report.info["graph"]["num_vertices"] == 5466
    assert report.printed.including_gaps == SMALL.memory.including_gaps
    assert "arch ipu2 inferred from the summary's 1,472 tiles per IPU x 638,976 B per tile (it names no arch)" \
        in report.notes


def test_no_arch_is_inferred_from_figures_no_arch_has(tmp_path):
    report = memreport.read(write(tmp_path, SMALL_TEXT, "summary.txt"))
    assert report.target.arch is None and not any("inferred" in n for n in report.notes)


def test_flattened_elided_excerpt_reads_as_before(tmp_path):
    """The repository's own ELIDED excerpt (indented four, ``.`` lines) gives the same figures inside a log."""
    text = logs.log_text([logs.Filler(10_000, 11), ELIDED, logs.Filler(1_000, 12)])
    report = memreport.read(write(tmp_path, text))
    assert facts(report) == facts(memreport.read(write(tmp_path, ELIDED, "elided.txt")))


# ---------------------------------------------------------------- bounds: memory by the summary, time by the file

def test_memory_is_bounded_by_the_summary_not_the_file(tmp_path, monkeypatch, alone):
    monkeypatch.setattr(logtext, "CHUNK_BYTES", 1 << 20)
    path = tmp_path / "run.log"
    logs.write_log(str(path), [logs.Filler(24 << 20, 13), SMALL_TEXT])
    tracemalloc.start()
    try:
        report, = read_path(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert facts(report) == alone[0]
    assert peak < 8 << 20, f"{peak:,} bytes at peak for a {path.stat().st_size:,}-byte log"


def test_blank_lines_after_a_summary_end_it(tmp_path, alone):
    path = tmp_path / "run.log"
    path.write_bytes(SMALL_TEXT.encode() + b"\n" * 3_000_000 + b"...\n" * 1_000_000)
    report, = read_path(path)
    assert facts(report) == alone[0]


def test_a_summary_that_runs_on_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr(region, "MAX_SUMMARY_LINES", 500)
    path = write(tmp_path, "Memory Usage:\n  Total:\n    Including Gaps: 10 B\n" + "      x y\n" * 1000)
    with pytest.raises(ReadError) as info:
        read_path(path)
    assert str(info.value) == f"{path}: line 1: a memory summary runs on past 500 lines: Poplar prints none so long"


def test_lines_that_only_look_like_summaries_are_not_reports(tmp_path):
    text = ("GPU Memory Usage:\n  used: 12 GB\n  free: 4 GB\n" * 3 + "Total Memory: 12.0 GB\n"
            "Tile # 3 memory usage:\n  lots\n")
    with pytest.raises(ReadError, match="no memory information found"):
        read_path(write(tmp_path, text))


def test_several_reports_in_csv_carry_their_line(tmp_path):
    text = logs.log_text([logs.Filler(2_000, 14), SMALL_TEXT, OTHER_TEXT])
    path = write(tmp_path, text)
    out = CliRunner().invoke(main, [str(path), "--format", "csv"]).stdout.splitlines()
    assert out[0].endswith(",source,module,report_line")
    lines = {row.rsplit(",", 1)[1] for row in out[1:]}
    assert lines == {str(r.position.line) for r in read_path(path)}
    assert len(out) == 1 + 5 + 2  # the detailed tiles of both


def test_read_options_reach_every_report_of_a_log(tmp_path):
    text = logs.log_text([SMALL_TEXT, logs.Filler(1_000, 15), OTHER_TEXT])
    reports = read_path(write(tmp_path, text), ReadOptions(tile_memory=700_000))
    assert [r.target.bytes_per_tile for r in reports] == [700_000, 700_000]
    assert [analysis.count_out_of_memory(r) for r in reports] == [1, 1]
    assert int((EXCLUDING > 700_000).sum()) == 1


def test_a_line_of_digits_is_searched_in_linear_time(tmp_path, alone):
    """A fuzzed log line of 100,000 digits took half a minute: a digit run was tried from every digit."""
    assert scan._START.search("0123" * 100_000 + " Memory allocation error") is None
    text = "[1,0]<stderr>:" + "023" * 40_000 + " E: Memory allocation error : " + \
        logs.tile_memory_message(1, 700_000, 638_976) + "\n" + SMALL_TEXT
    report = memreport.read(write(tmp_path, text))
    assert facts(report) == alone[0] and report.oom_messages == ()  # rank 0's message, not the untagged run's


@pytest.mark.parametrize("line,kept", [
    (b"Memory Usage:", True), (b"  Total Memory:           897.0 MB", True), (b"Tile # 1,234 memory usage:", True),
    (b"Out of memory on tile 0", True), (b"remaining host buffer 12 memory.", True),
    (b"Max tile memory (tile 3)", True),
    (b"2 tile(s) out of memory", True), (b"in exchange: total memory in exchange 'x'", True),
    (b"[INFO] Host memory usage: 12.5 GiB", False), (b"the dataset is memory mapped", False), (b"emory", False),
])
def test_which_needles_are_worth_a_line(line, kept):
    buf = bytearray(line + b"\n")
    assert scan.worth_reading(buf, buf.find(b"emory")) is kept
    at = np.array([buf.find(b"emory")])
    sifted = scan.may_be_worth_reading(np.frombuffer(buf, np.uint8), at).tolist()
    assert sifted == at.tolist() or not kept  # the sift may let through what worth_reading turns away, not the reverse


@pytest.mark.parametrize("seed", range(4))
def test_the_vectorised_sift_lets_through_every_line_worth_reading(seed):
    """may_be_worth_reading narrows the "emory" hits a window at a time: whatever it drops, worth_reading drops."""
    rng = random.Random(seed)
    pieces = [b"Memory", b"memory", b"M", b"m", b"of ", b"Total ", b"total ", b"Max tile ", b"buffer 12 ", b"1",
              b" ", b"x", b"Tile # 3 ", b"Usage", b" usage", b"Per-Tile", b" per Replica", b"\n", b"emory", b"e"]
    buf = bytearray(b"".join(rng.choice(pieces) for _ in range(4000)))
    data = np.frombuffer(buf, np.uint8)
    at = [m.start() for m in re.finditer(b"(?=emory)", bytes(buf))]
    sifted = set(scan.may_be_worth_reading(data, np.array(at, np.int64)).tolist())
    kept = {a for a in at if scan.worth_reading(buf, a)}
    assert kept and kept <= sifted and len(sifted) < len(at)
    assert sorted(sifted) == list(scan.may_be_worth_reading(data, np.array(at, np.int64)))
