"""The Poplar text summary and .rep reader: layouts as Poplar prints them, variants documents make, broken copies."""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from memreport import analysis
from memreport.cli import main
from memreport.errors import ReadError, Truncated, UnsupportedOperation
from memreport.model import Bin, TileBytes
from memreport.readers import ReadOptions, read_path, readers
from tests.readers.text.conftest import facts
from tests.synth import text as synth
from tests.synth.text import ELIDED, EXCLUDING, GRAPH, INCLUDING, SMALL, SMALL_TEXT, small_summary

SAMPLES = Path(__file__).resolve().parents[3] / "sample_reports"


def write(tmp_path: Path, text: str | bytes, name: str = "report.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def read_one(tmp_path: Path, text: str | bytes, name: str = "report.txt", **options):
    reports = read_path(write(tmp_path, text, name), ReadOptions(**options))
    assert len(reports) == 1
    return reports[0]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def poplar_text_reader():
    return next(r for r in readers() if r.name == "poplar-text")


# ---------------------------------------------------------------- the samples

def test_mk1_sample_values_as_printed():
    report, = read_path(SAMPLES / "mk1_summary.txt")
    assert report.format == "poplar-text" and report.per_tile == "partial" and report.module is None
    assert report.kind == "summary" and not hasattr(report, "excluding_gaps")
    t = report.target
    assert (t.num_tiles, t.num_ipus, t.tiles_per_ipu, t.bytes_per_tile, t.clock_hz, t.arch) == \
        (1216, 1, 1216, 262_144, 1.6e9, "ipu1")
    assert "arch ipu1 inferred from the summary's 1,216 tiles per IPU x 262,144 B per tile (it names no arch)" \
        in report.notes
    p = report.printed
    assert p.histogram.bin_kib == 1
    assert p.histogram.bins == (Bin(4, 5, 1215), Bin(5, 6, 1))
    assert p.max_including_gaps == TileBytes(0, 49_184)
    assert p.max_excluding_gaps == TileBytes(0, 5_780)
    assert p.tiles_out_of_memory == 0
    assert (p.including_gaps, p.excluding_gaps) == (23_878_396, 5_355_604)
    assert report.detailed_tiles == ()
    assert report.breakdown_kind == "data type"
    assert report.info["graph"] == {"num_vertices": 1219, "num_edges": 1223, "num_variables": 30_562,
                                    "num_compute_sets": 4}
    assert report.info["target"]["total_memory_bytes"] == 304 * 1024**2
    assert report.info["memory_scope"] == "Total"
    assert report.info["memory_by_region"] == {"non_interleaved": 5_355_604, "interleaved": 0, "overflowed": 0}
    assert report.info["memory_by_data_type"]["Stack"] == 3_852_288
    assert len(report.info["memory_by_data_type"]) == 18
    assert sum(report.info["memory_by_data_type"].values()) == 5_355_604
    vertex = report.info["vertex_data"]
    assert vertex["bytes"] == 14_640
    assert vertex["by_category"] == {"Internal vertex state": 9_736, "Edge pointers": 4_904, "Copy pointers": 0,
                                     "Padding": 0, "Descriptors": 0}
    assert vertex["by_type"]["popops::BinaryOp1DSupervisor<popops::expr::BinaryOpType::ADD,float>"] == 16
    assert "replicas" not in report.info
    assert report.notes[0] == "per-tile values: no tile is detailed; tiles are known only through the histogram"


def test_analysis_returns_the_printed_figures():
    report, = read_path(SAMPLES / "mk1_summary.txt")
    assert analysis.histogram(report) is report.printed.histogram
    assert analysis.count_out_of_memory(report) == 0
    assert analysis.max_including_gaps(report) == TileBytes(0, 49_184)
    assert analysis.max_excluding_gaps(report) == TileBytes(0, 5_780)
    assert analysis.total_including_gaps(report) == 23_878_396
    assert analysis.total_excluding_gaps(report) == 5_355_604
    assert analysis.per_ipu(report) == []
    with pytest.raises(UnsupportedOperation):
        analysis.histogram(report, 8)


def test_rep_sample_two_modules_in_file_order():
    first, second = read_path(SAMPLES / "trace_two_modules.rep")
    assert (first.module, second.module) == ("cluster_vars_init.3", "cluster_training_step.17")
    assert first.info["compile_duration_us"] == 3_912_554
    assert first.info["event_time"] == "2020-06-15 10:21:07 +0100"
    assert first.info["replicas"] == {"num_replicas": 1, "ipus_per_replica": 1, "tiles_per_replica": 1472,
                                      "memory_per_replica_bytes": 1472 * 638_976}
    assert first.target.bytes_per_tile == 638_976 and first.target.num_tiles == 1472
    assert first.printed.histogram.bins == (Bin(3, 4, 968), Bin(4, 5, 504))
    assert (first.printed.max_including_gaps, first.printed.max_excluding_gaps) == \
        (TileBytes(42, 5_200), TileBytes(42, 4_700))
    assert first.detailed_tiles == ()
    assert second.printed.histogram.bin_kib == 8
    assert second.printed.histogram.bins[0] == Bin(128, 136, 1)
    assert second.printed.histogram.bins[-1] == Bin(680, 688, 1)
    assert second.printed.histogram.total == 1472
    assert second.printed.max_excluding_gaps == TileBytes(5, 700_000)
    assert second.printed.tiles_out_of_memory == 2
    assert [d.tile for d in second.detailed_tiles] == [5, 902, 17, 230, 641]
    top = second.detailed_tiles[0]
    assert (top.including_gaps, top.excluding_gaps) == (703_622, 700_000)
    assert top.regions == {"non_interleaved": 507_904, "interleaved": 131_072, "overflowed": 61_024}
    assert top.breakdown["Variables"] == 350_000
    assert top.extra["vertex_data"]["bytes"] == 42_000


# ---------------------------------------------------------------- layouts as Poplar prints them

def test_synthetic_summary_matches_its_per_tile_bytes(tmp_path):
    report = read_one(tmp_path, SMALL_TEXT)
    t = report.target
    assert (t.num_tiles, t.num_ipus, t.tiles_per_ipu, t.bytes_per_tile, t.clock_hz) == (8, 2, 4, 638_976, 1.33e9)
    p = report.printed
    assert p.histogram.bin_kib == 8
    assert p.histogram.bins[0] == Bin(80, 88, 1) and p.histogram.bins[-1] == Bin(680, 688, 1)
    assert p.histogram.total == 8
    assert p.max_including_gaps == TileBytes(5, 705_001)
    assert p.max_excluding_gaps == TileBytes(5, 700_001)
    assert p.tiles_out_of_memory == 2
    assert p.including_gaps == int(INCLUDING.sum()) and p.excluding_gaps == int(EXCLUDING.sum())
    assert [d.tile for d in report.detailed_tiles] == [5, 2, 7, 1, 3]
    for detail in report.detailed_tiles:
        assert detail.excluding_gaps == EXCLUDING[detail.tile]
        assert detail.including_gaps == INCLUDING[detail.tile]
        assert sum(detail.breakdown.values()) == EXCLUDING[detail.tile]
        assert set(detail.regions) == {"non_interleaved", "interleaved", "overflowed"}
    assert report.detailed_tiles[0].regions["overflowed"] == 700_001 - 638_976
    assert report.info["graph"]["num_compute_sets"] == 3
    assert "per-tile values: only the 5 detailed tile(s) (5, 2, 7, 1, 3)" in report.notes[0]
    top = analysis.top_tiles(report, 2)
    assert [(tt.tile, tt.ipu, tt.out_of_memory) for tt in top] == [(5, 1, True), (2, 0, True)]


def test_replica_lines(tmp_path):
    report = read_one(tmp_path, synth.summary_text(small_summary(replicas=2)))
    # 2,555,904 B is printed "2.4 MB": the reader keeps the printed, rounded figure and says so.
    assert report.info["replicas"] == {"num_replicas": 2, "ipus_per_replica": 1, "tiles_per_replica": 4,
                                       "memory_per_replica_bytes": 2_516_582}
    assert "Memory per Replica 2.4 MB is not a whole number of bytes; rounded" in report.notes
    assert facts(report) == facts(read_one(tmp_path, SMALL_TEXT))


@pytest.mark.parametrize("indent", ["    ", "\t", "        "])
def test_reindented_copy(tmp_path, indent):
    shifted = "".join(indent + line if line.strip() else line for line in SMALL_TEXT.splitlines(True))
    assert facts(read_one(tmp_path, shifted)) == facts(read_one(tmp_path, SMALL_TEXT, "plain.txt"))


def test_flattened_copy(tmp_path):
    flat = "\n".join(line.strip() for line in SMALL_TEXT.splitlines()) + "\n"
    assert facts(read_one(tmp_path, flat)) == facts(read_one(tmp_path, SMALL_TEXT, "plain.txt"))


def test_crlf_tabs_and_bom(tmp_path):
    tabbed = re.sub(r"(?m)^((?:    )+)", lambda m: "\t" * (len(m[1]) // 8) + "    " * (len(m[1]) // 4 % 2),
                    SMALL_TEXT)
    tabbed = re.sub(r":( {2,})", ":\t", tabbed)  # a tab between an item and its value
    text = "\ufeff" + tabbed.replace("\n", "\r\n")
    assert facts(read_one(tmp_path, text)) == facts(read_one(tmp_path, SMALL_TEXT, "plain.txt"))


def test_no_scope_heading_and_another_label(tmp_path):
    expected = facts(read_one(tmp_path, SMALL_TEXT, "plain.txt"))
    unlabelled = read_one(tmp_path, SMALL_TEXT.replace("  Total:\n", ""))
    assert facts(unlabelled) == expected
    assert unlabelled.info["memory_scope"] is None
    relabelled = read_one(tmp_path, SMALL_TEXT.replace("  Total:\n", "  Total for all Replicas:\n"), "b.txt")
    assert facts(relabelled) == expected
    assert relabelled.info["memory_scope"] == "Total for all Replicas"


def test_elided_rows_and_items(tmp_path):
    report = read_one(tmp_path, ELIDED)
    hist = report.printed.histogram
    assert hist.bin_kib == 8
    assert [(b.low_kib, b.high_kib, b.count) for b in hist.bins] == [
        (0, 8, 20), (8, 16, 1192), (16, 24, 2), (24, 32, 0), (504, 512, 1), (512, 520, 0), (800, 808, 0),
        (808, 816, 1)]
    assert report.printed.max_including_gaps == TileBytes(0, 834_416)
    assert report.printed.max_excluding_gaps == TileBytes(0, 834_339)
    assert report.printed.tiles_out_of_memory == 2
    assert report.printed.including_gaps is None  # no whole-program Memory Usage block
    assert any("elides some histogram rows" in n for n in report.notes)
    tile, = report.detailed_tiles
    assert (tile.tile, tile.including_gaps, tile.excluding_gaps) == (0, 834_416, 834_339)
    assert tile.regions == {"non_interleaved": 122_880, "interleaved": 131_072, "overflowed": 580_387}
    assert tile.breakdown == {"Variables": 807_658, "Constants": 0, "Stack": 3_168}
    assert tile.extra["vertex_data"] == {
        "bytes": 22_353, "by_category": {"Internal vertex state": 4_152, "Edge pointers": 10_798},
        "by_type": {"poplin::ConvPartial1x1Out<float,float,true,false>": 6_648,
                    "popops::BinaryOp1DSupervisor<popops::expr::BinaryOpType::MULTIPLY,float>": 752}}
    assert tile.extra["elided"] == ["By Data Type", "By Category", "By Type"]


def test_unknown_sections_are_skipped(tmp_path):
    steps = ("Execution steps:\n  Step #0: OnTileExecute cs_1 (12 vertices)\n  Step #1: Copy 4 bytes\n\n"
             "Variable storage:\n  Always live: 1,000 B\n  Some note without a colon\n\n")
    text = SMALL_TEXT.replace("Memory Usage:\n", steps + "Memory Usage:\n", 1) + "\n" + steps
    report = read_one(tmp_path, text)
    assert facts(report) == facts(read_one(tmp_path, SMALL_TEXT, "plain.txt"))
    assert report.info["skipped_sections"] == ["Execution steps", "Variable storage"] * 2


def test_count_wider_than_seven_runs_into_the_bar(tmp_path):
    text = ("Target:\n  Number of IPUs: 1,024\n  Tiles per IPU: 1,472\n  Total Tiles: 1,507,328\n"
            "  Memory Per-Tile: 624.0 kB\n\nBy Tile (Excluding Gaps):\n"
            "  Range (KB) Histogram (Excluding Gaps)               Count (tiles)\n"
            "     1 - 2 ****************************************1,507,327\n"
            "     2 - 3 *                                             1\n\n"
            "  Maximum (Including Gaps): 2,500 (2.4 K) on tile 1,500,000\n"
            "  Maximum (Excluding Gaps): 2,400 (2.3 K) on tile 1500000\n  0 tile(s) out of memory\n")
    report = read_one(tmp_path, text)
    assert report.printed.histogram.bins == (Bin(1, 2, 1_507_327), Bin(2, 3, 1))
    assert report.printed.max_including_gaps == TileBytes(1_500_000, 2_500)
    assert report.printed.max_excluding_gaps == TileBytes(1_500_000, 2_400)


def test_concatenated_summaries_give_one_report_each(tmp_path):
    other = synth.summary_text(synth.summary_from_tiles(
        EXCLUDING // 2, INCLUDING // 2, num_ipus=1, tiles_per_ipu=8, bytes_per_tile=638_976, clock_hz=1.33e9,
        graph=GRAPH))
    first, second = read_path(write(tmp_path, SMALL_TEXT + "\n" + other))
    assert first.printed.max_excluding_gaps == TileBytes(5, 700_001)
    assert second.printed.max_excluding_gaps == TileBytes(5, 350_000)
    assert second.printed.tiles_out_of_memory == 0


def test_old_layout(tmp_path):
    text = ("Target:\n  Number of IPUs: 1\n  Tiles per IPU: 1216\n  Total Tiles: 1216\n\n"
            "Memory Usage :\n  Total : 1234567 bytes\n\nMax tile memory (tile 3): 45678 (150% of mean)\n")
    report = read_one(tmp_path, text)
    assert report.info["old_layout"] == {"max_tile_memory": {"tile": 3, "bytes": 45_678}}
    assert report.info["memory_other"] == {"": {"Total": 1_234_567}}
    assert report.printed.max_excluding_gaps is None  # its gap semantics are not documented
    assert any("old (0.x) layout" in n for n in report.notes)


def test_options_override_bytes_per_tile_and_name_the_arch(tmp_path):
    report = read_one(tmp_path, SMALL_TEXT, tile_memory=1 << 20, arch="ipu2")
    assert report.target.bytes_per_tile == 1 << 20 and report.target.arch == "ipu2"


@pytest.mark.parametrize("text", [SMALL_TEXT, SMALL_TEXT[SMALL_TEXT.index("Memory Usage:"):]],
                         ids=["with-target", "without-target"])
def test_a_zero_bytes_per_tile_override_is_refused_not_ignored(tmp_path, text):
    """As the archive and profile readers refuse it: 0 is a value given, not "no override"."""
    with pytest.raises(ReadError, match=r": bytes_per_tile must be positive, not 0$"):
        read_one(tmp_path, text, tile_memory=0)


# ---------------------------------------------------------------- .rep traces

def test_rep_compile_reports_only(tmp_path):
    other = synth.summary_text(small_summary(detailed=2))
    trace = synth.rep_trace([
        synth.compile_begin("2021-01-02 03:04:05 +0000", "init"),
        synth.compile_end("2021-01-02 03:04:06 +0000", "init", 1_000, SMALL_TEXT),
        synth.load_engine("2021-01-02 03:04:07 +0000", "init"),
        synth.transfer("2021-01-02 03:04:07 +0000", "Device->Host", '{"tensors": []}'),
        synth.execute("2021-01-02 03:04:08 +0000", "init", "Memory Usage:\n  Nonsense: x\n"),
        synth.compile_end("2021-01-02 03:04:09 +0000", "main", 2_000, other),
        synth.execute("2021-01-02 03:04:10 +0000", "main", "Execution:\n  Total cycles: 1\n"),
    ])
    first, second = read_path(write(tmp_path, trace, "trace.bin"))
    assert (first.module, second.module) == ("init", "main")
    assert (first.info["compile_duration_us"], second.info["compile_duration_us"]) == (1_000, 2_000)
    assert facts(first) == facts(read_one(tmp_path, SMALL_TEXT))
    assert [d.tile for d in second.detailed_tiles] == [5, 2]
    crlf = read_path(write(tmp_path, trace.replace("\n", "\r\n"), "crlf.rep"))
    assert [(r.module, facts(r)) for r in crlf] == [(r.module, facts(r)) for r in (first, second)]


def test_rep_error_lines_count_from_the_file_start(tmp_path):
    trace = synth.rep_trace([synth.compile_begin("t", "m"),
                             synth.compile_end("t", "m", 5, SMALL_TEXT.replace("Stack:", "Stack: 1,2x4 B #"))])
    with pytest.raises(ReadError) as info:
        read_path(write(tmp_path, trace, "trace.rep"))
    assert info.value.line == line_of(trace, "Stack: 1,2x4")


def test_rep_json_reports_are_skipped_with_a_warning(tmp_path):
    trace = synth.rep_trace([synth.compile_end("t", "json_module", 5, '{"target": {}}\n'),
                             synth.compile_end("t", "text_module", 5, SMALL_TEXT)])
    with pytest.warns(UserWarning, match="json_module"):
        report, = read_path(write(tmp_path, trace, "trace.rep"))
    assert report.module == "text_module"
    only_json = synth.rep_trace([synth.compile_end("t", "json_module", 5, '{"target": {}}\n')])
    with pytest.warns(UserWarning), pytest.raises(ReadError, match="no text compile report"):
        read_path(write(tmp_path, only_json, "json.rep"))


# ---------------------------------------------------------------- broken copies

def test_bad_number_gives_its_line(tmp_path):
    text = SMALL_TEXT.replace("Constants:  ", "Constants: 1,2x4 B", 1)
    with pytest.raises(ReadError, match="not a byte count") as info:
        read_path(write(tmp_path, text))
    assert info.value.line == line_of(text, "1,2x4")
    assert str(write(tmp_path, text)) in str(info.value)


def test_bad_histogram_row(tmp_path):
    row = synth.histogram_rows(SMALL.histogram)[3]
    text = SMALL_TEXT.replace(row, row.replace("-", "~"))
    with pytest.raises(ReadError, match="histogram row") as info:
        read_path(write(tmp_path, text))
    assert info.value.line == line_of(text, "~")


def test_unequal_bin_widths(tmp_path):
    text = ELIDED.replace("  16 -  24 *", "  16 -  28 *")
    with pytest.raises(ReadError, match="12 KiB wide") as info:
        read_path(write(tmp_path, text))
    assert info.value.line == line_of(text, "16 -  28")


def test_malformed_maximum_and_oom_lines(tmp_path):
    for old, new in (("on tile 0", "on tile zero"), ("2 tile(s) out of memory", "two tile(s) out of memory")):
        text = ELIDED.replace(old, new, 1)
        with pytest.raises(ReadError) as info:
            read_path(write(tmp_path, text))
        assert info.value.line == line_of(text, new)


@pytest.mark.parametrize("cut_after, message", [
    ("Range (KB) Histogram (Excluding Gaps)", "before any histogram row|no rows"),
    ("By Tile (Excluding Gaps):", "after the heading"),
    ("Maximum (Including Gaps)", "before its Maximum lines|out-of-memory"),
    ("Tile # 5 memory usage:", "after the heading"),
    ("  By Data Type:", "after the heading"),
])
def test_file_cut_mid_block(tmp_path, cut_after, message):
    lines = SMALL_TEXT.splitlines(True)
    at = next(i for i, line in enumerate(lines) if cut_after in line)
    with pytest.raises(Truncated, match=message):
        read_path(write(tmp_path, "".join(lines[:at + 1])))


def test_histogram_without_rows_before_the_maximum_lines(tmp_path):
    rows = set(synth.histogram_rows(SMALL.histogram))
    text = "".join(line for line in SMALL_TEXT.splitlines(True) if line.strip("\n")[4:] not in rows)
    with pytest.raises(ReadError, match="no rows") as info:
        read_path(write(tmp_path, text))
    assert info.value.line == line_of(text, "By Tile (Excluding Gaps):")


def test_counts_not_adding_up_warn_and_note(tmp_path):
    text = SMALL_TEXT.replace("Total Tiles:            8", "Total Tiles:            9")
    with pytest.warns(UserWarning, match="counts 8 tiles but the Target has 9"):
        report = read_one(tmp_path, text)
    assert any("counts 8 tiles but the Target has 9" in n for n in report.notes)


def test_elided_rows_are_not_held_against_the_target(tmp_path):
    """Rows left out may hold tiles: a printed total that differs from the Target is no disagreement."""
    text = ELIDED.replace("Total Tiles:            1,216", "Total Tiles:            1,472")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = read_one(tmp_path, text)
    assert report.num_tiles == 1472 and not any("counts" in n for n in report.notes)


def test_matching_counts_do_not_warn(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_one(tmp_path, SMALL_TEXT)


def test_tile_outside_the_target(tmp_path):
    text = SMALL_TEXT.replace("Tile # 7 memory usage:", "Tile # 8 memory usage:")
    with pytest.raises(ReadError, match="names tile 8") as info:
        read_path(write(tmp_path, text))
    assert info.value.line == line_of(text, "Tile # 8")


def test_not_utf8(tmp_path):
    data = SMALL_TEXT.encode().replace(b"Stack:", b"St\xffck:", 1)
    with pytest.raises(ReadError, match="not UTF-8") as info:
        read_path(write(tmp_path, data))
    assert info.value.line == line_of(SMALL_TEXT, "Stack:")


def test_text_without_memory_figures(tmp_path):
    text = "Target:\n  Number of IPUs: 1\n  Tiles per IPU: 4\n  Total Tiles: 4\n  Memory Per-Tile: 624.0 kB\n\n" \
           "Graph:\n  Number of vertices: 3\n\nSome other section:\n  nothing: here\n"
    with pytest.raises(ReadError) as info:
        read_path(write(tmp_path, text))
    assert info.value.message == (
        "no memory information found (a Target section at line 1 gives no memory figures): looked for a Poplar "
        "memory summary (Target, Memory Usage or By Tile sections), a 'Tile # N memory usage:' block or an "
        "out-of-memory message")


# ---------------------------------------------------------------- sniffing

@pytest.mark.parametrize("prefix", [
    SMALL_TEXT.encode(), ELIDED.encode(), SMALL_TEXT.replace("\n", "\r\n").encode(),
    synth.rep_trace([synth.compile_begin("2021-01-02 03:04:05 +0000", "m")]).encode(),
    b"Some log line\nMemory Usage:\n  Total:\n",
    b"[2020-06-15 10:21:07] compile done\nTarget:\n  Number of IPUs: 1\n",
])
def test_accepts_summaries_and_traces(prefix):
    assert poplar_text_reader().accept(prefix[:4096])


@pytest.mark.parametrize("prefix", [
    b"!<arch>\n/               0           0     0     0       8         `\nTarget:\n",
    b"\x7fELF\x01\x01\x01" + b"\0" * 9 + b"Target:\n",
    b"\xd9\xd9\xf7\xa1ftarget",
    b'{"target": "Target:\\n"}\nTarget:\n',
    bytes(range(256)) * 4,
])
def test_rejects_binary_and_json_objects(prefix):
    assert not poplar_text_reader().accept(prefix)


@pytest.mark.parametrize("text", ['[\n  "Target:",\n  {"Memory Usage:": 1}\n]\n',
                                  "Just some notes about a Target: nothing more\n"])
def test_other_text_is_read_and_found_to_hold_no_memory_information(tmp_path, text):
    assert poplar_text_reader().accept(text.encode())
    with pytest.raises(ReadError) as info:
        read_path(write(tmp_path, text))
    assert info.value.message.startswith("no memory information found: looked for a Poplar memory summary")


def test_content_not_extension_decides(tmp_path):
    report = read_one(tmp_path, SMALL_TEXT, "report.json")
    assert report.format == "poplar-text"


@pytest.mark.parametrize("number", ["9,223,372,036,854,775,808", "9999999999999999999"])
def test_numbers_from_2_to_the_63_are_refused_like_every_other_source(tmp_path, number):
    """19 digits and still past int64 (issue #16): once read, `memreport diff` raised OverflowError."""
    text = SMALL_TEXT.replace("2,338,001 B", f"{number} B", 1)
    with pytest.raises(ReadError) as info:
        read_path(write(tmp_path, text))
    value = int(number.replace(",", ""))
    assert str(info.value) == (f"{tmp_path / 'report.txt'}: line {line_of(text, number)}: Including Gaps: "
                               f"{value:,} is too large (2**63 or more)")
    result = CliRunner().invoke(main, ["diff", str(tmp_path / "report.txt"), str(tmp_path / "report.txt")])
    assert (result.exit_code, type(result.exception)) == (1, SystemExit)
    assert result.stderr == f"memreport: {info.value}\n"


def test_the_largest_int64_is_still_a_number(tmp_path):
    text = SMALL_TEXT.replace("2,338,001 B", "9,223,372,036,854,775,807 B", 1)
    report = read_one(tmp_path, text)
    assert report.printed.including_gaps == 2 ** 63 - 1


@pytest.mark.parametrize("value,message", [
    ("4" * 6000 + ".9 MB", "Total Memory: a number of 6,000 digits is too large"),
    ("9,000,000,000,000 GB", "Total Memory: 9,000,000,000,000 GB is too large (2**63 bytes or more)"),
    ("4." + "9" * 30 + " MB", "Total Memory: a fraction of 30 digits is too long"),
])
def test_target_sizes_are_bounded_like_every_number(tmp_path, value, message):
    """A 6,000-digit Total Memory was kept, and JSON output then raised ValueError (found by fuzzing)."""
    text = SMALL_TEXT.replace("Total Memory:           4.9 MB", f"Total Memory:           {value}", 1)
    with pytest.raises(ReadError) as info:
        read_path(write(tmp_path, text))
    assert str(info.value) == f"{tmp_path / 'report.txt'}: line {line_of(text, 'Total Memory')}: {message}"
