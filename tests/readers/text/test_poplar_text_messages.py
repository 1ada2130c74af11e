"""Out-of-memory messages as a source (memreport/readers/text/poplar_text/messages.py; docs/FORMATS.md §8.6).

Each message is written as the framework that prints it wraps it (PopART's
log line, a C++ ``what()``, a Python traceback, PopTorch's and TensorFlow's
exception text), inside a log. A report says what the messages state and
never more.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import memreport
from memreport import analysis
from memreport.cli import main
from memreport.model import OutOfMemoryMessage
from memreport.readers import read_path
from memreport.readers.text.poplar_text.messages import find_messages
from memreport.render import words
from memreport.render.words import message_description as describe
from memreport.render.words import next_command
from tests.readers.text.conftest import facts
from tests.synth import logs
from tests.synth.text import OTHER_TEXT, SMALL_TEXT

CAPACITY = 638_976


def write(tmp_path: Path, text: str, name: str = "run.log") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def one(text: str) -> OutOfMemoryMessage:
    found, = find_messages(text, 7)
    return found


@pytest.mark.parametrize("text", [
    logs.tile_memory_message(0, 876_476, CAPACITY),
    "Memory allocation error : " + logs.tile_memory_message(0, 876_476, CAPACITY),
    logs.popart_error(logs.tile_memory_message(0, 876_476, CAPACITY)).strip(),
    "  what():  " + logs.tile_memory_message(0, 876_476, CAPACITY),
    logs.tensorflow_error(logs.tile_memory_message(0, 876_476, CAPACITY)).strip(),
    "popart_core.popart_exception: " + logs.tile_memory_message(0, 876_476, CAPACITY),
], ids=["bare", "memory-allocation-error", "popart-log", "what", "tensorflow", "traceback"])
def test_tile_memory_in_every_wrapper(text):
    m = one(text)
    assert (m.kind, m.tile, m.bytes_used, m.bytes_per_tile, m.line) == ("tile-memory", 0, 876_476, CAPACITY, 7)
    assert describe(m) == "tile 0: 876,476 B used, tiles have 638,976 B: out of memory by 237,500 B"


def test_every_kind_with_what_it_states():
    exchange = one(logs.exchange_message(0))
    assert (exchange.kind, exchange.tile, exchange.exchange) == \
        ("exchange", 0, "cs19_98/scatterAdd/multiUpdateAdd_ExchangePre")
    code = one(logs.code_message(0))
    assert (code.kind, code.tile, code.code_offset, code.bytes_used) == ("code", 0, 638_976, None)
    stream = one(logs.host_stream_error().splitlines()[0])
    assert (stream.kind, stream.stream_bytes, stream.buffer_index, stream.tile) == \
        ("host-stream", 149_766_584, 1, None)
    old_stream = one("Out of memory. Data-stream is larger than remaining host buffer 1 memory.")
    assert (old_stream.kind, old_stream.buffer_index, old_stream.stream_bytes) == ("host-stream", 1, None)
    variables = one(logs.cpp_terminate(logs.variables_message("./report_OOM/profile.pop"), "").splitlines()[1])
    assert (variables.kind, variables.saved_path, variables.tile) == ("variables", "./report_OOM/profile.pop", None)
    assert one(logs.variables_message()).saved_path is None
    poptorch = one(logs.poptorch_profile_line("/runs/7/report/profile.pop"))
    assert (poptorch.kind, poptorch.saved_path) == ("profile-saved", "/runs/7/report/profile.pop")
    tf = one(logs.tensorflow_saved("reports/cluster_3/graph.txt"))
    assert (tf.kind, tf.saved_path) == ("report-saved", "reports/cluster_3/graph.txt")
    assert one("The ouf of memory summary JSON report saved to x/graph.json").kind == "report-saved"  # SDK 1.2
    assert list(find_messages("0 tile(s) out of memory", 1)) == []
    assert list(find_messages("[INFO] Host memory usage: 12.5 GiB", 1)) == []


def test_a_log_of_messages_only_is_a_report_of_what_they_state(tmp_path):
    text = logs.log_text([
        logs.Filler(40_000, 1),
        logs.popart_error(logs.tile_memory_message(5, 700_001, CAPACITY)),
        logs.popart_error(logs.tile_memory_message(1, 674_752, CAPACITY)),
        logs.tensorflow_error(logs.exchange_message(3)),
        logs.popart_error(logs.code_message(7)),
        logs.python_traceback(logs.code_message(7)),  # the same error, raised: it ends the program
        logs.Filler(2_000, 2)])
    path = write(tmp_path, text)
    report, = read_path(path)
    assert report.format == "oom-messages" and report.per_tile == "partial"
    assert [(m.kind, m.tile, m.line) for m in report.oom_messages] == [
        ("tile-memory", 5, logs.line_of(text, "on tile 5")), ("tile-memory", 1, logs.line_of(text, "on tile 1")),
        ("exchange", 3, logs.line_of(text, "Tile 3 receives")), ("code", 7, logs.line_of(text, "tile 7 _poplar"))]
    assert not report.num_tiles_known and report.target.bytes_per_tile == CAPACITY
    assert report.printed == memreport.PrintedSummary() and report.detailed_tiles == ()
    status = analysis.out_of_memory_count(report)
    assert (status.count, status.at_least) == (None, 4)
    assert words.count_phrase(status) == (
        "at least 4 tile(s) out of memory (from its out-of-memory messages; the log holds no "
                                 "memory summary, only out-of-memory messages)")
    out = CliRunner().invoke(main, [str(path)], env={"COLUMNS": "300"}).stdout  # the path and Target unwrapped
    first = logs.line_of(text, "on tile 5")
    assert f"Source:   {path} (line {first:,})\nFormat:   out-of-memory messages\n" \
           f"Target:   ipu2, at least 1,472 tiles (1 IPU x 1,472; not stated), 638,976 B (624.0 KiB) per tile\n" in out
    assert "Out of memory:\n  at least 4 tile(s) out of memory" in out
    assert (f"  line {first:,}  tile-memory  tile 5: 700,001 B used, tiles have 638,976 B: out of memory by "
            "61,025 B\n") in out
    assert "Memory Usage:" not in out and "By Tile" not in out
    doc = json.loads(CliRunner().invoke(main, [str(path), "--format", "json"]).stdout)["reports"][0]
    assert doc["target"]["num_tiles"] is None and doc["tiles_out_of_memory"] is None
    assert doc["out_of_memory_messages"][0] == {
        "kind": "tile-memory", "line": first, "tile": 5, "bytes_used": 700_001, "bytes_per_tile": CAPACITY,
        "exchange": None, "code_offset": None, "stream_bytes": None, "buffer_index": None, "saved_path": None,
        "archive": None, "next_command": None,
        "description": "tile 5: 700,001 B used, tiles have 638,976 B: out of memory by 61,025 B",
        "text": "Memory allocation error : " + logs.tile_memory_message(5, 700_001, CAPACITY),  # header off
        "place": None}
    assert any(n.startswith("out-of-memory count: at least 4 tile(s)") for n in doc["notes"])
    csv = CliRunner().invoke(main, [str(path), "--format", "csv"]).stdout.splitlines()
    assert csv == ["tile,ipu,member,excluding_gaps,including_gaps,out_of_memory,oom_message,oom_bytes_used,stated_by",
                   "5,0,,,,true,tile-memory,700001,message", "1,0,,,,true,tile-memory,674752,message",
                   "3,0,,,,true,exchange,,message", "7,0,,,,true,code,,message"]  # the IPU: ipu2's tiles per IPU
    gate = CliRunner().invoke(main, [str(path), "--fail-on-oom", "-o", str(tmp_path / "out.txt")])
    assert gate.exit_code == 3
    assert gate.stderr == (f"memreport: gate failed: at least 4 tile(s) out of memory in {path} (line {first:,}) "
                           "(from its out-of-memory messages; the log holds no memory summary, only out-of-memory "
                           "messages): tile 5 by 61,025 B, tile 1 by 35,776 B, tile(s) 3, 7 (named by its "
                           "out-of-memory messages)\n")


def test_a_saved_profile_points_to_the_archive_beside_it(tmp_path):
    (tmp_path / "report_OOM").mkdir()
    (tmp_path / "report_OOM" / "archive.a").write_bytes(b"!<arch>\n")
    text = logs.cpp_terminate(logs.variables_message("./report_OOM/profile.pop"), "")
    report, = read_path(write(tmp_path, text))
    m, = report.oom_messages
    assert m.archive == str(tmp_path / "report_OOM" / "archive.a")  # beside the log: the run's directory
    assert next_command(m) == f"memreport {tmp_path / 'report_OOM' / 'archive.a'}"
    assert describe(m) == (
        "one or more tiles cannot hold their variables (which ones, the message does not say); a report was saved "
        f"at ./report_OOM/profile.pop: run `memreport {tmp_path / 'report_OOM' / 'archive.a'}`")
    assert (analysis.out_of_memory_count(report).at_least, analysis.out_of_memory_count(report).count) == (1, None)


def test_a_saved_profile_without_an_archive_says_what_is_needed(tmp_path):
    text = logs.poptorch_profile_line(str(tmp_path / "nowhere" / "profile.pop"))
    m, = memreport.read(write(tmp_path, text)).oom_messages
    assert m.archive is None and next_command(m) is None
    assert describe(m).endswith(
        "(no archive.a beside it: memreport reads the archive.a that the engine option autoReport.all also saves "
        "there, or a text summary printed from the profile (printProfileSummary, PopART's getSummaryReport()))")


def test_tensorflow_saved_its_summary_run_memreport_on_it(tmp_path):
    m, = memreport.read(write(tmp_path, logs.tensorflow_saved("./cluster_3/graph.txt"))).oom_messages
    assert next_command(m) == "memreport ./cluster_3/graph.txt"


def test_a_host_stream_is_not_tile_memory(tmp_path):
    path = write(tmp_path, logs.host_stream_error())
    report = memreport.read(path)
    status = analysis.out_of_memory_count(report)
    assert (status.count, status.at_least) == (None, 0)
    assert status.reason is not None
    assert "host stream buffers, which are host memory, not tile memory" in words.reason(status.reason)
    result = CliRunner().invoke(main, [str(path), "--fail-on-oom"])
    assert result.exit_code == 2 and "out-of-memory tiles unknown" in result.stderr


def test_a_summary_carries_the_messages_before_it(tmp_path):
    """Two summaries, the second after an out-of-memory message: the message is the second's."""
    message = logs.tile_memory_message(5, 700_001, CAPACITY)
    text = logs.log_text([logs.Filler(30_000, 3), OTHER_TEXT, logs.Filler(20_000, 4), logs.popart_error(message),
                          logs.python_traceback(message), logs.Filler(3_000, 5), SMALL_TEXT])
    first, second = read_path(write(tmp_path, text))
    assert first.oom_messages == ()
    m, = second.oom_messages
    assert (m.tile, m.bytes_used, m.line) == (5, 700_001, logs.line_of(text, "Memory allocation error"))
    assert facts(second) == facts(memreport.read(write(tmp_path, SMALL_TEXT, "small.txt")))
    summary = analysis.summarize(second)
    assert summary.oom.count == 2 and [t.out_of_memory for t in summary.top[:2]] == [True, True]
    assert not any("another compile" in n for n in second.notes)


def test_messages_that_disagree_with_the_summary_say_so(tmp_path):
    lines = "".join(logs.popart_error(logs.tile_memory_message(t, 300_000, 262_144)) for t in range(3))
    report = memreport.read(write(tmp_path, lines + SMALL_TEXT))
    assert "the out-of-memory message at line 1 states 262,144 B per tile; the summary's Target 638,976 B" \
        in report.notes
    assert ("the out-of-memory messages name 3 tile(s), but the summary printed 2 tile(s) out of memory: they may "
            "come from another compile") in report.notes


def test_messages_naming_tiles_the_summary_has_not_are_their_own_report(tmp_path):
    text = logs.popart_error(logs.tile_memory_message(1000, 700_000, CAPACITY)) + SMALL_TEXT
    alone, summary = read_path(write(tmp_path, text))
    assert alone.format == "oom-messages" and alone.oom_messages[0].tile == 1000
    assert summary.oom_messages == () and summary.num_tiles == 8
    assert (alone.position.index, summary.position.index) == (1, 2)


def test_several_processes_keep_their_own_messages(tmp_path):
    text = (logs.tagged(logs.popart_error(logs.tile_memory_message(2, 700_000, CAPACITY)), 1, "stderr")
            + logs.tagged(SMALL_TEXT, 0))
    summary, alone = sorted(read_path(write(tmp_path, text)), key=lambda r: r.format, reverse=True)
    assert summary.format == "poplar-text" and summary.oom_messages == ()
    assert [m.tile for m in alone.oom_messages] == [2]


# ---------------------------------------------------------------- numbers out of range (issue #33 item 14)

@pytest.mark.parametrize("used,why", [
    ("123456789012345678901", "a number of 21 digits is too large"),
    ("9,223,372,036,854,775,808", "9,223,372,036,854,775,808 is too large (2**63 or more)"),
])
def test_a_message_with_a_number_out_of_range_is_not_read_and_the_rest_is(tmp_path, used, why):
    """One out-of-memory message with a 20-digit number refused the whole log: that message is not read (a note
    says which line and why), the summary and the other messages are."""
    bad = logs.tile_memory_message(0, 1, CAPACITY).replace(" 1 bytes used", f" {used} bytes used")
    text = logs.log_text([logs.Filler(4_000, 1), logs.popart_error(bad),
                          logs.popart_error(logs.tile_memory_message(5, 700_001, CAPACITY)), SMALL_TEXT])
    refused: list[str] = []
    assert list(find_messages(bad, 9, None, refused)) == []
    assert refused == [f"the out-of-memory message at line 9 is not read: {why}"]
    with pytest.raises(memreport.ReadError) as caught:
        list(find_messages(bad, 9))  # without a list to say it in: refused as before
    assert str(caught.value) == f"line 9: out-of-memory message: {why}"
    report, = read_path(write(tmp_path, text))
    line = logs.line_of(text, used)
    assert [(m.tile, m.bytes_used) for m in report.oom_messages] == [(5, 700_001)]
    assert f"the out-of-memory message at line {line:,} is not read: {why}" in report.notes
    assert report.printed.including_gaps is not None  # the summary after it is read
    alone = write(tmp_path, logs.log_text([logs.Filler(4_000, 1), logs.popart_error(bad)]), "alone.log")
    with pytest.raises(memreport.ReadError) as caught:
        read_path(alone)
    assert str(caught.value).startswith(f"{alone}: no memory information found (the out-of-memory message at line "
                                        f"{line:,} is not read: {why}): looked for ")


def test_many_messages_out_of_range_are_eight_notes_and_a_count(tmp_path):
    bad = [logs.tile_memory_message(tile, 1, CAPACITY).replace(" 1 bytes", " 99999999999999999999 bytes")
           for tile in range(20)]
    text = logs.log_text([*map(logs.popart_error, bad), SMALL_TEXT])
    report, = read_path(write(tmp_path, text))
    unread = [note for note in report.notes if "not read" in note]
    lines = [logs.line_of(text, f"on tile {tile}:") for tile in range(8)]
    assert unread == [f"the out-of-memory message at line {line:,} is not read: a number of 20 digits is too large"
                      for line in lines] + ["12 more out-of-memory message(s) not read"]
