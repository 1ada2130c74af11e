"""Legal but extreme inputs at the command line (issue #16): sums past int64, bins, stdout, file names.

Each case comes from the adversarial review's description; the promise is
the same for all: exact figures or one line on stderr with a documented
exit code, never a traceback.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from memreport.cli import main
from memreport.output import temporary_files
from memreport.readers.elf import file as elf
from tests.synth.profile import build_profile, build_tensor_map, encode_json, tensor_entry, wrap


def run(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


def write_profile(tmp_path, excluding, name="p.json", **kwargs):
    path = tmp_path / name
    path.write_bytes(encode_json(wrap(build_profile(np.array(excluding, dtype=np.int64), **kwargs))))
    return path


# ---------------------------------------------------------------- sums (item 5)

def test_two_tiles_of_2_to_the_62_total_exactly(tmp_path):
    path = write_profile(tmp_path, [2 ** 62, 2 ** 62], bytes_per_tile=None, tiles_per_ipu=2)
    text = run(path)
    assert text.exit_code == 0
    assert "  Excluding Gaps: 9,223,372,036,854,775,808 B\n" in text.output  # was -9,223,372,036,854,775,808
    doc = json.loads(run(path, "--format", "json").output)["reports"][0]
    assert doc["totals"]["excluding_gaps"] == 2 ** 63
    assert doc["per_ipu"][0]["excluding_gaps"] == 2 ** 63
    diff = json.loads(run("diff", path, path, "--format", "json").output)
    assert diff["totals"]["old"]["excluding_gaps"] == diff["totals"]["new"]["excluding_gaps"] == 2 ** 63
    assert diff["totals"]["delta"]["excluding_gaps"] == 0


def test_sections_summing_past_int64_are_a_read_error(tmp_path, monkeypatch):
    """Sections of up to a TiB each, in any number (extended numbering): the sum must not wrap. Three NOBITS
    sections of 2**62 stand for the million large ones (the TiB bound lifted so a small file gets there)."""
    monkeypatch.setattr(elf, "MAX_SECTION_BYTES", 2 ** 63)
    names = b"\0.bss\0.shstrtab\0"
    headers = [bytes(64)] + [struct.pack("<IIQQQQIIQQ", 1, 8, 3, 0, 64, 2 ** 62, 0, 0, 8, 0)] * 3
    headers.append(struct.pack("<IIQQQQIIQQ", 6, 3, 0, 0, 64, len(names), 0, 0, 1, 0))
    shoff = 64 + 16
    header = b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HHIQQQIHHHHHH", 2, 248, 1, 0, 0, shoff, 2, 64, 0,
                                                               0, 64, 5, 4)
    path = tmp_path / "big.elf"
    path.write_bytes(header + names.ljust(16, b"\0") + b"".join(headers))
    result = run(path)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (f"memreport: {path}: the sections of tile 0 sum to 13,835,058,055,282,163,712: 2**63 "
                             "or more: no tile memory is that large\n")


def test_tensor_map_estimates_are_exact_and_never_wrap(tmp_path):
    """Byte estimates wrapped to negative with a raw numpy warning (issue #16): exact below 2**63, an error
    at it."""
    tiles = [(0, 2 ** 40 - 1)] * 2 ** 20 + [(1, 5)]  # 8 bytes each: 2**63 - 2**23 B on tile 0, past float's 2**53
    path = tmp_path / "tensor_map.json"
    path.write_bytes(encode_json(build_tensor_map({"m": [tensor_entry("w", tiles, element_type="double")]})))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc = json.loads(run(path, "--format", "json").output)["reports"][0]["tensor_map"]
    assert doc["elements"] == 2 ** 20 * (2 ** 40 - 1) + 5
    assert doc["est_bytes"] == 8 * (2 ** 20 * (2 ** 40 - 1) + 5)
    tiles = [(0, 2 ** 40 - 1)] * (2 ** 20 + 2 ** 19)
    path.write_bytes(encode_json(build_tensor_map({"m": [tensor_entry("w", tiles, element_type="double")]})))
    result = run(path)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (f"memreport: {path}: mappings: the elements or estimated bytes on tile 0 sum to "
                             "13,835,058,055,269,580,800: 2**63 or more: no tile holds that much\n")


# ---------------------------------------------------------------- --bin-kib (item 7)

def test_bin_widths_that_would_make_too_many_bins_are_bad_usage(tmp_path):
    """--bin-kib 1 over tiles 64 GiB apart took 45 s and 3 GB before a MemoryError (issue #16)."""
    path = write_profile(tmp_path, [0, 64 * 2 ** 30], bytes_per_tile=None, tiles_per_ipu=2)
    result = run(path, "--bin-kib", "1")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.endswith("Error: bins of 1 KiB would be 67,108,865 bins for tiles of 0 to 68,719,476,736 B: "
                                  "at most 16,384 (bins of 8,192 KiB fit)\n")
    assert run(path, "--bin-kib", "8192").exit_code == 0


@pytest.mark.parametrize("width,code", [(2 ** 53, 2), (2 ** 60, 2), (2 ** 53 - 1, 0)])
def test_bin_widths_up_to_2_to_the_63_bytes(tmp_path, width, code):
    """--bin-kib 2**53 raised OverflowError: widths of 2**63 B or more are refused at parse time."""
    path = write_profile(tmp_path, [10, 64 * 2 ** 30], bytes_per_tile=None, tiles_per_ipu=2)
    result = run(path, "--bin-kib", width)
    assert result.exit_code == code, result.output
    if code == 0:
        assert f"                   0 - {width} ****************************************      2\n" in result.stdout
    else:
        assert f"Invalid value for '--bin-kib': {width} is not in the range 1<=x<=9007199254740991." in result.stderr


# ---------------------------------------------------------------- stdout and file names (item 8)

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "sample_reports", "mk2_1472_tiles.a")


def memreport(*args, **kwargs) -> subprocess.CompletedProcess:
    """The command in a real process: exit codes, signals and stdout as a shell sees them."""
    return subprocess.run([sys.executable, "-m", "memreport", *map(str, args)], capture_output=True, timeout=120,
                          **kwargs)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_disk_on_stdout_is_one_line_exit_4():
    with open("/dev/full", "wb") as full:
        result = subprocess.run([sys.executable, "-m", "memreport", SAMPLE], stdout=full, stderr=subprocess.PIPE,
                                timeout=60)
    assert (result.returncode, result.stderr) == (4, b"memreport: stdout: cannot write: No space left on device\n")


def test_a_closed_stdout_is_one_line_exit_4():
    result = subprocess.run(["bash", "-c", f'"{sys.executable}" -m memreport "{SAMPLE}" >&-'], capture_output=True,
                            timeout=60)
    assert (result.returncode, result.stderr) == (4, b"memreport: stdout: cannot write: it is closed\n")


def test_an_ascii_stdout_takes_a_non_ascii_member_name(tmp_path):
    from tests.synth.archive import ar_archive, tile_elf
    path = tmp_path / "u.a"
    path.write_bytes(ar_archive([("tïle_0.elf", tile_elf(0, 100))]))
    result = memreport(path, "--format", "csv", env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.splitlines()[1] == b"0,0,t\\xefle_0.elf,100,,false,100,42,16,26"  # not_counted 42


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse names that are not UTF-8")
def test_a_file_name_that_is_not_utf8_with_o_and_png(tmp_path):
    name = os.fsdecode(b"\xff\xfe.a")
    shutil.copy(SAMPLE, tmp_path / name)
    result = memreport(name, "-o", "report.txt", "--png", "memory.png", "--format", "csv", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert (tmp_path / "report.txt").read_bytes().splitlines()[1].startswith(b"0,0,tile_0000.elf,")
    result = memreport(name, "-o", "report.txt", cwd=tmp_path)  # the text shows the bytes escaped, as ls -b does
    assert b"\n\nSource:   \\xff\\xfe.a\n" in (tmp_path / "report.txt").read_bytes()  # after the verdict and plans
    assert (tmp_path / "memory.png").read_bytes().startswith(b"\x89PNG")


def test_a_reader_gone_from_the_pipe_ends_quietly_141():
    process = subprocess.Popen([sys.executable, "-m", "memreport", SAMPLE, "--format", "csv"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.read(100)
    process.stdout.close()  # as `| head -1` does
    assert process.wait(timeout=60) == 141
    assert process.stderr.read() == b""


# ---------------------------------------------------------------- outputs (item 9; #14 item 5)

@pytest.mark.parametrize("args,message", [
    (["-o", "build.a"], "-o build.a is the input build.a: memreport never writes over its inputs"),
    (["--png", "build.a"], "--png build.a is the input build.a: memreport never writes over its inputs"),
    (["-o", "x", "--png", "x"], "-o x and --png x name the same file: each output needs its own"),
    (["--tensor-map", "map.json", "-o", "map.json"],
     "-o map.json is the input map.json: memreport never writes over its inputs"),
    (["-o", "out/"], "-o out/ is a directory: give a file name"),
])
def test_an_output_that_is_an_input_or_another_output_is_bad_usage(tmp_path, args, message):
    shutil.copy(SAMPLE, tmp_path / "build.a")
    (tmp_path / "map.json").write_text("{}")
    before = sorted(os.listdir(tmp_path))
    result = memreport("build.a", *args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.decode().endswith(f"Error: {message}\n")
    assert sorted(os.listdir(tmp_path)) == before
    assert (tmp_path / "build.a").read_bytes() == Path(SAMPLE).read_bytes()


def test_numbered_pictures_must_not_land_on_the_report_either(tmp_path):
    shutil.copy(SAMPLE, tmp_path / "a.a")
    shutil.copy(SAMPLE, tmp_path / "b.a")
    result = memreport("a.a", "b.a", "--png", "m.png", "-o", "m-2.png", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.decode().endswith("Error: -o m-2.png and --png m-2.png name the same file: each output "
                                           "needs its own\n")
    assert sorted(os.listdir(tmp_path)) == ["a.a", "b.a"]


def test_diff_never_writes_over_an_input(tmp_path):
    shutil.copy(SAMPLE, tmp_path / "old.a")
    shutil.copy(SAMPLE, tmp_path / "new.a")
    result = memreport("diff", "old.a", "new.a", "-o", "new.a", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.decode().endswith("Error: -o new.a is the input new.a: memreport never writes over its "
                                           "inputs\n")
    assert (tmp_path / "new.a").read_bytes() == Path(SAMPLE).read_bytes()


@pytest.mark.parametrize("option", ["-o", "--png", "--tensor-map"])
def test_an_empty_path_is_bad_usage_not_ignored(option):
    result = run(SAMPLE, option, "")
    assert result.exit_code == 2
    assert f"Invalid value for '{option}'" in result.stderr and "an empty path names no file" in result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_mid_write_removes_the_temporary_files(tmp_path, signum):
    """SIGTERM/SIGHUP left .memreport-*.tmp files; SIGINT exited 1 "Aborted!". The report is staged, then the
    run blocks writing the picture to a FIFO nobody reads: the signal arrives with a temporary file on disk."""
    os.mkfifo(tmp_path / "pipe.png")

    def as_a_terminal_starts_it() -> None:  # a background job (`check.py &`, nohup) starts with SIGINT ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    process = subprocess.Popen([sys.executable, "-m", "memreport", SAMPLE, "-o", "report.txt", "--png", "pipe.png"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=as_a_terminal_starts_it)
    try:
        deadline = time.monotonic() + 60
        while not list(temporary_files(str(tmp_path))):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        process.send_signal(signum)
        assert process.wait(timeout=60) == 128 + signum
    finally:
        if process.poll() is None:  # never leave a process blocked on the FIFO behind
            process.kill()
            process.wait()
    assert process.stderr.read() == b""
    assert sorted(os.listdir(tmp_path)) == ["pipe.png"]  # no report, no temporary file


# ---------------------------------------------------------------- matplotlib's own words (low)

def test_an_unwritable_home_adds_no_lines_from_matplotlib(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    env["HOME"] = "/proc/no-such-home"  # not writable, not even by root
    result = memreport(SAMPLE, "--png", tmp_path / "m.png", "-o", tmp_path / "r.txt", env=env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_a_missing_glyph_is_one_line_once(tmp_path):
    name = tmp_path / "构建.a"
    shutil.copy(SAMPLE, name)
    result = run(name, "--png", tmp_path / "m.png", "-o", tmp_path / "r.txt")
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("memreport: warning: Glyph ") for line in lines)
    assert len(lines) == len(set(lines))


def test_an_unexpected_failure_outside_the_readers_is_one_line(tmp_path, monkeypatch):
    from memreport.render.text import report as text

    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(text, "render", broken)
    result = run(SAMPLE, "-o", tmp_path / "r.txt")
    assert (result.exit_code, result.stdout) == (1, "")
    assert re.fullmatch(r"memreport: unexpected KeyError at test_hostile\.py:\d+ \('boom'\); this is a "
                        r"memreport bug: please report it with the command and its inputs\n", result.stderr)
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- standard input and closed pipes (issue #33)

RUN_LOG = os.path.join(os.path.dirname(__file__), "..", "..", "sample_reports", "run.log")


@pytest.mark.parametrize("command,option", [([], "-o"), ([], "--html"), ([], "--png"), (["export"], "-o"),
                                            (["diff", "-", RUN_LOG], "-o"), (["compiles"], "-o")])
def test_an_output_that_is_the_file_behind_standard_input_is_refused(tmp_path, command, option):
    """``memreport - -o run.log < run.log`` replaced the log with its report (exit 0): the spool file's name
    says nothing of run.log, so the outputs are checked against the file standard input was opened on."""
    log = tmp_path / "run.log"
    shutil.copy(RUN_LOG, log)
    (tmp_path / "alias.log").hardlink_to(log)
    args = [*command, *([] if "-" in command else ["-"])]
    for output in ("run.log", "alias.log"):
        with open(log, "rb") as stdin:
            result = memreport(*args, option, output, stdin=stdin, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert result.stderr.decode().endswith(f"Error: {option} {output} is the input <stdin>: memreport never "
                                               "writes over its inputs\n")
        assert sorted(os.listdir(tmp_path)) == ["alias.log", "run.log"]
        assert log.read_bytes() == Path(RUN_LOG).read_bytes()
    with open(log, "rb") as stdin:  # another file takes the output
        result = memreport(*args, option, "out.txt", stdin=stdin, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.txt").stat().st_size > 0


def write_diffable(tmp_path) -> tuple[Path, Path]:
    """Two profiles of 4,096 tiles, every tile changed: a diff whose JSON is far over a pipe's 64 KiB."""
    rng = np.random.default_rng(33)
    old = write_profile(tmp_path, rng.integers(1_000, 200_000, 4096), name="old.json")
    new = write_profile(tmp_path, rng.integers(1_000, 200_000, 4096), name="new.json")
    return old, new


def compile_log(tmp_path) -> Path:
    """A log of 120 compilations (a sample's 2, 60 times over): its JSON is about 180 KB."""
    path = tmp_path / "big.log"
    text = (Path(RUN_LOG).parent / "compile_recompiling.log").read_bytes()
    path.write_bytes(text * 60)
    return path


SAMPLE_PR = os.path.join(os.path.dirname(SAMPLE), "mk2_1472_tiles_pr.a")
PIPE_CASES = {  # each writes JSON far over a pipe's 64 KiB to stdout, and files beside it
    "report": ([SAMPLE, SAMPLE_PR, "--png", "memory.png", "--html", "page.html"],
               ["memory-1.png", "memory-2.png", "page.html"]),
    "png": ([SAMPLE, "--png", "memory.png"], ["memory.png"]),
    "html": ([SAMPLE, "--html", "page.html"], ["page.html"]),
    "diff": (["diff", "old.json", "new.json", "--html", "page.html"], ["page.html"]),
    "compiles": (["compiles", "big.log", "--html", "page.html"], ["page.html"]),
}


@pytest.mark.parametrize("case", sorted(PIPE_CASES))
def test_files_asked_for_are_written_when_the_reader_of_stdout_leaves(tmp_path, case):
    """``memreport compiles run.log --html page.html | head -1`` ended 141 with no page.html: the files were
    staged, stdout broke, and the temporary files went with it. Over a real pipe whose reader takes one line and
    closes it (as ``head -1`` does), the run still ends quietly 141, and every file asked for is there whole."""
    write_diffable(tmp_path)
    compile_log(tmp_path)
    before = os.listdir(tmp_path)
    args, files = PIPE_CASES[case]
    process = subprocess.Popen([sys.executable, "-m", "memreport", *args, "--format", "json"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline() == b"{\n"
    process.stdout.close()  # as `| head -1` does, the rest of the output unread
    assert process.wait(timeout=120) == 141
    assert process.stderr.read() == b""
    assert sorted(os.listdir(tmp_path)) == sorted([*before, *files])
    for name in files:  # whole: a page ends with its closing tag, a PNG with its IEND chunk
        data = (tmp_path / name).read_bytes()
        assert data.endswith(b"IEND\xaeB`\x82" if name.endswith(".png") else b"</html>\n"), name


# ---------------------------------------------------------------- names on stderr (issue 33 item 8)

def test_a_name_quoted_on_stderr_is_shown_escaped(tmp_path):
    """An unreadable file's name, a module asked for: each line on stderr shows their control characters escaped,
    as the text does (a terminal would clear the screen, move the cursor back over the line)."""
    from tests.synth.hostile import CLEAR, TERMINAL, archive
    (tmp_path / f"x{CLEAR}\r.bin").write_bytes(b"garbage")
    (tmp_path / "t.a").write_bytes(archive(TERMINAL))
    result = memreport(f"x{CLEAR}\r.bin", "t.a", "-o", "out.txt", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, b"memreport: x\\x1b[2J\\x1b[H\\r.bin: no memory information "
                                                     b"found: looked for a Poplar memory summary (Target, Memory Usage "
                                                     b"or By Tile sections), a 'Tile # N memory usage:' block or an "
                                                     b"out-of-memory message\n")
    result = memreport("t.a", "--module", "\u202e#1", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == b"Error: --module \\u202e#1: t.a holds no such report; it holds 1: #1"
