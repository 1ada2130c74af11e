"""Outputs are written whole or not at all, and special files are written, not replaced."""
from __future__ import annotations

import io
import os
import stat
import subprocess
import sys

import pytest

from memreport.errors import MemreportError, WriteError
from memreport.output import check_outputs, temporary_files, write_output, write_outputs


def test_file_is_replaced_whole(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    write_output(str(target), "new report\n")
    assert target.read_text() == "new report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_fifo_is_written_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_output(str(fifo), b"through the pipe")
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_missing_directory_is_a_clear_error(tmp_path):
    with pytest.raises(MemreportError, match=r"nowhere/out\.txt: cannot write: No such file or directory"):
        write_output(str(tmp_path / "nowhere" / "out.txt"), "x")


def test_a_symlinked_output_is_written_through_not_replaced(tmp_path):
    real = tmp_path / "reports" / "memory.txt"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "latest.txt"
    link.symlink_to(real)
    write_output(str(link), "new report\n")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new report\n"
    assert sorted(p.name for p in real.parent.iterdir()) == ["memory.txt"]  # no temporary file left beside it
    dangling = tmp_path / "next.txt"
    dangling.symlink_to(tmp_path / "reports" / "new.txt")
    write_output(str(dangling), "first\n")
    assert dangling.is_symlink() and (tmp_path / "reports" / "new.txt").read_text() == "first\n"


def test_an_existing_file_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path):
    private = tmp_path / "private.txt"
    private.write_text("old")
    private.chmod(0o600)
    write_output(str(private), "new")
    assert stat.S_IMODE(os.stat(private).st_mode) == 0o600
    shared = tmp_path / "shared.txt"
    shared.write_text("old")
    shared.chmod(0o664)
    write_output(str(shared), "new")
    assert stat.S_IMODE(os.stat(shared).st_mode) == 0o664
    old_mask = os.umask(0o027)
    try:
        write_output(str(tmp_path / "fresh.txt"), "new")
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE(os.stat(tmp_path / "fresh.txt").st_mode) == 0o640


def test_a_symlink_loop_is_a_clear_error(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(MemreportError, match=r"loop: cannot write: "):
        write_output(str(loop), "x")


# ---------------------------------------------------------------- every output or none (issue #16, #14)

def test_a_failing_output_leaves_every_other_untouched(tmp_path):
    first, second = tmp_path / "report.txt", tmp_path / "missing" / "memory.png"
    first.write_text("yesterday's report")
    with pytest.raises(WriteError, match=r"missing/memory\.png: cannot write: No such file or directory"):
        write_outputs([(str(first), "today's report"), (str(second), b"\x89PNG")])
    assert first.read_text() == "yesterday's report"
    assert list(temporary_files(str(tmp_path))) == []


def test_outputs_are_all_renamed_into_place(tmp_path):
    write_outputs([(str(tmp_path / "a.txt"), "a"), (str(tmp_path / "b.png"), b"b")])
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.png"]


class Stutters:
    """A writer that takes a few bytes at a time, then fails the way a full disk does."""

    def __init__(self, room: int) -> None:
        self.room, self.taken = room, b""

    def write(self, data) -> int:
        if not self.room:
            raise OSError(28, "No space left on device")
        n = min(3, self.room, len(data))
        self.taken += bytes(data[:n])
        self.room -= n
        return n


def test_a_write_cut_short_is_never_taken_for_done():
    """A buffered write that fails part way returns what it wrote: a file was renamed into place cut short."""
    from memreport.output import _write_fully
    writer = Stutters(room=100)
    _write_fully(writer.write, b"0123456789")
    assert writer.taken == b"0123456789"
    with pytest.raises(OSError, match="No space left"):
        _write_fully(Stutters(room=5).write, b"0123456789")


def test_a_disk_that_fills_mid_write_leaves_no_file(tmp_path):
    """RLIMIT_FSIZE stands in for a full disk: the first bytes fit, the rest fail."""
    code = ("import resource, signal\n"
            "from memreport.output import write_outputs\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (10_000, 10_000))\n"
            "try:\n"
            f"    write_outputs([({str(tmp_path / 'big.csv')!r}, 'x' * 1_000_000)])\n"
            "except Exception as exc:\n"
            "    print(type(exc).__name__, exc)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout == f"WriteError {tmp_path / 'big.csv'}: cannot write: File too large\n", result.stderr
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("path,message", [("", "an empty path names no file"),
                                          ("{tmp}/", "{tmp}/: is a directory: give a file name"),
                                          ("{tmp}", "{tmp}: is a directory: give a file name")])
def test_a_directory_or_an_empty_path_is_no_output(tmp_path, path, message):
    with pytest.raises(WriteError) as caught:
        write_output(path.format(tmp=tmp_path), "x")
    assert str(caught.value) == message.format(tmp=tmp_path)
    assert os.listdir(tmp_path) == []


def test_outputs_that_are_inputs_or_each_other_are_refused(tmp_path):
    source = tmp_path / "build.a"
    source.write_bytes(b"!<arch>\n")
    link = tmp_path / "latest.a"
    link.symlink_to(source)
    check_outputs([str(source)], [("-o", "-"), ("--png", str(tmp_path / "m.png"))])  # fine
    cases = [
        ([("-o", str(source))], f"-o {source} is the input {source}: memreport never writes over its inputs"),
        ([("--png", str(link))], f"--png {link} is the input {source}: memreport never writes over its inputs"),
        ([("-o", str(tmp_path / "x")), ("--png", f"{tmp_path}/./x")],
         f"-o {tmp_path / 'x'} and --png {tmp_path}/./x name the same file: each output needs its own"),
        ([("-o", str(tmp_path))], f"-o {tmp_path} is a directory: give a file name"),
    ]
    for outputs, message in cases:
        with pytest.raises(MemreportError) as caught:
            check_outputs([str(source)], outputs)
        assert str(caught.value) == message
    check_outputs([str(source)], [("-o", os.devnull), ("--png", os.devnull)])  # a device takes both


# ---------------------------------------------------------------- stdout (issue #16)

class Stdout(io.TextIOWrapper):
    """A stdout of some encoding over a byte buffer, as the interpreter makes one."""

    def __init__(self, encoding: str) -> None:
        super().__init__(io.BytesIO(), encoding=encoding)


def test_stdout_gets_what_its_encoding_can_carry(monkeypatch):
    out = Stdout("ascii")
    monkeypatch.setattr(sys, "stdout", out)
    write_output("-", "tïle_0.elf, \udcff\udcfe.a\n")  # a member name, and a file name that was not UTF-8
    assert out.buffer.getvalue() == b"t\\xefle_0.elf, \xff\xfe.a\n"
    out = Stdout("utf-8")
    monkeypatch.setattr(sys, "stdout", out)
    write_output("-", "tïle_0.elf, \udcff\udcfe.a\n")
    assert out.buffer.getvalue() == "tïle_0.elf, ".encode() + b"\xff\xfe.a\n"


def test_a_file_keeps_the_bytes_of_a_name_that_was_not_utf8(tmp_path):
    write_output(str(tmp_path / "r.txt"), "Source: \udcff\udcfe.a\n")
    assert (tmp_path / "r.txt").read_bytes() == b"Source: \xff\xfe.a\n"


def test_a_closed_or_full_stdout_is_a_write_error(monkeypatch):
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(WriteError, match=r"^stdout: cannot write: it is closed$"):
        write_output("-", "report")
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            monkeypatch.setattr(sys, "stdout", full)
            with pytest.raises(WriteError, match=r"^stdout: cannot write: No space left on device$"):
                write_output("-", "report")


@pytest.mark.parametrize("encoding", [None, "utf-16", "ascii", "utf-8-sig", "latin-1"])
def test_text_is_encoded_a_chunk_at_a_time_exactly_as_whole(monkeypatch, encoding):
    """Text is written in 1 MiB pieces (a pod's JSON is not held twice); the bytes are those of one encoding:
    one byte-order mark, escapes and file-name bytes (surrogateescape) split across pieces alike."""
    from memreport import output
    text = "tile 1,\udcff\udcfe wéight→Σ\n" * 5 + "\udc80end"
    if encoding == "utf-16":  # file-name bytes go back as bytes only into byte-wide encodings
        text = text.replace("\udcff", "").replace("\udcfe", "").replace("\udc80", "")
    expected = text.encode(encoding or "utf-8", "memreport.output")
    for chunk in (1, 2, 3, 7, len(text), 10 * len(text)):
        monkeypatch.setattr(output, "_TEXT_CHUNK", chunk)
        writer = Stutters(room=10_000)
        output._write_fully(writer.write, text, encoding)
        assert writer.taken == expected, chunk
    output._write_fully(Stutters(room=0).write, "", encoding)  # nothing to write: no call


def test_a_file_gets_text_written_in_pieces_whole(tmp_path, monkeypatch):
    from memreport import output
    monkeypatch.setattr(output, "_TEXT_CHUNK", 4)
    text = "".join(f"{i},é\n" for i in range(1000))
    output.write_outputs([(str(tmp_path / "a.csv"), text)])
    assert (tmp_path / "a.csv").read_bytes() == text.encode("utf-8")


# ---------------------------------------------------------------- this process's descriptors (issue #26 item 2)

WRITE = "import sys; from memreport.output import write_outputs; write_outputs([(sys.argv[1], 'report\\n')])"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/fd and /dev/fd as Linux has them")
@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "link", "/proc/{pid}/fd/1"])
def test_dev_stdout_appended_to_is_appended_to_not_replaced(tmp_path, name):
    """``memreport a.a -o /dev/stdout >> ci.log`` appends: the output goes through the descriptor, whose
    O_APPEND stands; nothing is renamed over ci.log, which keeps its inode and its earlier lines."""
    log = tmp_path / "ci.log"
    log.write_text("earlier step\n")
    inode = log.stat().st_ino
    (tmp_path / "link").symlink_to("/dev/stdout")
    pid_named = WRITE.replace("sys.argv[1]", "sys.argv[1].format(pid=__import__('os').getpid())")
    code = WRITE if "{pid}" not in name else pid_named
    with open(log, "a") as out:
        result = subprocess.run([sys.executable, "-c", code, name], stdout=out, stderr=subprocess.PIPE, text=True,
                                cwd=tmp_path, timeout=60)
    assert (result.returncode, result.stderr) == (0, "")
    assert log.read_text() == "earlier step\nreport\n" and log.stat().st_ino == inode
    assert list(temporary_files(str(tmp_path))) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/fd and /dev/fd as Linux has them")
@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/stderr", "/dev/fd/{fd}", "/proc/self/fd/{fd}"])
def test_descriptors_that_are_pipes_are_written(tmp_path, name):
    """Standard output or error a pipe (it was exit 4: a temporary file beside 'pipe:[...]'), or a descriptor
    passed down (``3>&1``): written through it."""
    read_end, write_end = os.pipe()
    path = name.format(fd=write_end)
    try:
        result = subprocess.run([sys.executable, "-c", WRITE, path], capture_output=True, pass_fds=(write_end,),
                                timeout=60)
        os.close(write_end)
        passed = os.read(read_end, 100)
    finally:
        os.close(read_end)
    assert result.returncode == 0, result.stderr
    got = {"/dev/stdout": result.stdout, "/dev/stderr": result.stderr}.get(name, passed)
    assert got == b"report\n"
    assert result.stdout + result.stderr + passed == b"report\n"  # once, and only there


def test_a_closed_descriptor_is_a_write_error(tmp_path):
    """/dev/fd/N of a descriptor not open: exit 4's error naming the path, nothing written anywhere."""
    result = subprocess.run([sys.executable, "-c", WRITE, "/dev/fd/97"], capture_output=True, text=True, timeout=60,
                            cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    last = result.stderr.splitlines()[-1]
    assert last == "memreport.errors.WriteError: /dev/fd/97: cannot write: Bad file descriptor"
    assert os.listdir(tmp_path) == []


def test_text_through_stdouts_descriptor_is_flushed_in_order(monkeypatch, capfd):
    """What Python buffered for stdout is written before the output that goes through its descriptor."""
    sys.stdout.write("first\n")
    write_output("/dev/stdout", "second\n")
    assert capfd.readouterr().out == "first\nsecond\n"


# ---------------------------------------------------------------- every file read is an input (issue #26 item 3)

@pytest.mark.parametrize("command", [[], ["--png", "{png}"], ["export"], ["diff", "{other}"]])
def test_an_output_over_a_thin_archives_member_is_refused_before_anything_is_written(tmp_path, command):
    """``memreport thin.a -o t0.o`` with t0.o a member: the thin-archive reader lists the files it read on the
    report (resolved: a symlink to the member is the member), and the command refuses (exit 2) before any
    output is written; the member keeps its bytes."""
    from click.testing import CliRunner

    from memreport.cli import main
    from tests.synth.archive import tile_elf
    member = tmp_path / "objs" / "t0.o"
    member.parent.mkdir()
    member.write_bytes(tile_elf(0, 100))
    (tmp_path / "t1.o").write_bytes(tile_elf(1, 200))
    (tmp_path / "alias.o").symlink_to(member)
    names = b"objs/t0.o/\nt1.o/\n"
    header = b"%-16s%-12d%-6d%-6d%-8s%-10d`\n"
    thin = tmp_path / "thin.a"
    thin.write_bytes(b"!<thin>\n" + header % (b"//", 0, 0, 0, b"", len(names)) + names + b"\n" * (len(names) % 2)
                     + header % (b"/0", 0, 0, 0, b"644", 460) + header % (b"/11", 0, 0, 0, b"644", 460))
    original = member.read_bytes()
    fields = {"png": str(tmp_path / "m.png"), "other": str(thin)}
    for output, shown in ((tmp_path / "alias.o", member), (member, member)):
        args = [part.format(**fields) for part in command]
        args = ([args[0], str(thin), *args[1:]] if command and command[0] in ("export", "diff")
                else [str(thin), *args])
        result = CliRunner().invoke(main, [*args, "-o", str(output)])
        assert result.exit_code == 2, result.output
        assert result.output.splitlines()[-1] == (f"Error: -o {output} is the input {shown}: memreport never writes "
                                                  "over its inputs")
        assert member.read_bytes() == original and not (tmp_path / "m.png").exists()
    result = CliRunner().invoke(main, [str(thin), "--format", "csv", "-o", str(tmp_path / "t.csv")])
    assert result.exit_code == 0, result.output
    assert [row.split(",")[2] for row in (tmp_path / "t.csv").read_text().splitlines()[1:]] == ["objs/t0.o", "t1.o"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/stdout as Linux has it")
def test_the_command_line_appends_through_dev_stdout(tmp_path):
    """The issue's own command: ``memreport a.a --format csv -o /dev/stdout >> ci.log``, then into a pipe."""
    from tests.synth.archive import ar_archive, tile_elf
    archive = tmp_path / "a.a"
    archive.write_bytes(ar_archive([("t0", tile_elf(0, 100)), ("t1", tile_elf(1, 300))]))
    command = [sys.executable, "-m", "memreport", str(archive), "--format", "csv"]
    expected = subprocess.run(command, capture_output=True, timeout=60, check=True).stdout
    log = tmp_path / "ci.log"
    log.write_bytes(b"build ok\n")
    with open(log, "ab") as out:
        result = subprocess.run([*command, "-o", "/dev/stdout"], stdout=out, stderr=subprocess.PIPE, timeout=60)
    assert (result.returncode, result.stderr) == (0, b"")
    assert log.read_bytes() == b"build ok\n" + expected and expected.count(b"\n") == 3
    piped = subprocess.run([*command, "-o", "/dev/stdout"], capture_output=True, timeout=60)
    assert (piped.returncode, piped.stdout, piped.stderr) == (0, expected, b"")


# ---------------------------------------------------------------- closed pipes, standard input (issue #33)

class ClosedPipe(io.RawIOBase):
    """A stdout whose reader has gone: every write fails as a pipe's does."""

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_files_are_renamed_into_place_before_a_closed_pipe_ends_the_run(tmp_path, monkeypatch):
    """The reader of stdout left (``| head -1``): the files, written whole, are renamed into place, then the
    BrokenPipeError goes on to end the run quietly; no temporary file is left."""
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BufferedWriter(ClosedPipe())))
    (tmp_path / "page.html").write_text("old page")
    with pytest.raises(BrokenPipeError):
        write_outputs([("-", "text " * 100_000), (str(tmp_path / "page.html"), "<html>new</html>\n"),
                       (str(tmp_path / "m.png"), b"\x89PNG")])
    assert (tmp_path / "page.html").read_text() == "<html>new</html>\n"
    assert (tmp_path / "m.png").read_bytes() == b"\x89PNG"
    assert sorted(os.listdir(tmp_path)) == ["m.png", "page.html"]


def test_an_output_that_is_the_file_behind_standard_input_is_refused(tmp_path):
    log = tmp_path / "run.log"
    log.write_text("log")
    st = log.stat()
    spool = tmp_path / "spool"  # what the command reads: standard input copied to a file
    spool.write_text("log")
    with pytest.raises(MemreportError) as caught:
        check_outputs([str(spool)], [("-o", "-"), ("--html", str(log))], (st.st_dev, st.st_ino))
    assert str(caught.value) == f"--html {log} is the input <stdin>: memreport never writes over its inputs"
    check_outputs([str(spool)], [("--html", str(log))])  # from somewhere else (a pipe): no file of its own
    check_outputs([str(spool)], [("-o", str(tmp_path / "r.txt"))], (st.st_dev, st.st_ino))
def test_terminal_width_and_no_color(monkeypatch):
    from memreport.output import terminal_options
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=(100, 24): os.terminal_size((132, 40)))
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)
    assert terminal_options("-", "auto") == (132, True)
    assert terminal_options("out.txt", "auto") == (100, False)  # not a terminal: 100 columns
    monkeypatch.setenv("NO_COLOR", "1")
    assert terminal_options("-", "auto") == (132, False)
    assert terminal_options("-", "always") == (132, True)
    monkeypatch.setenv("NO_COLOR", "")
    assert terminal_options("-", "auto") == (132, True)


@pytest.mark.parametrize("columns,terminal,width", [
    ("80", False, 80), ("80", True, 80), (" 120 ", False, 120),  # COLUMNS when set, to a file too
    ("10", False, 40), ("0", True, 132), ("-5", False, 100), ("abc", True, 132), ("", False, 100),  # floor 40; bad
    (None, True, 132), (None, False, 100)])
def test_the_width_is_columns_then_the_terminals_then_100(monkeypatch, columns, terminal, width):
    from memreport import output
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=(100, 24): os.terminal_size((132, 40)))
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert output.text_width(terminal) == width
    assert output.output_width("-", "markdown") is None  # Markdown, JSON and CSV are not laid out to a width


def test_a_narrow_terminal_gets_at_least_40_columns(monkeypatch):
    from memreport import output
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=(100, 24): os.terminal_size((20, 40)))
    monkeypatch.delenv("COLUMNS", raising=False)
    assert output.text_width(True) == 40


