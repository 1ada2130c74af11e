"""The read progress bar: callback plumbing from the ar reader to click, without a terminal."""
from __future__ import annotations

import io

from click.testing import CliRunner

from memreport import cli, progress
from memreport.readers import ReadOptions, read_path
from memreport.readers.elf import ar
from tests.synth.archive import ar_archive, tile_elf


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def archive(tmp_path, members: int = 10):
    path = tmp_path / "a.a"
    path.write_bytes(ar_archive([(f"t{i}", tile_elf(i, 100 + i)) for i in range(members)]))
    return path


def test_no_bar_unless_stderr_is_a_terminal():
    options = ReadOptions()
    assert progress.with_progress(options, "x", io.StringIO()) == (options, None)
    with_bar, bar = progress.with_progress(options, "x", FakeTerminal())
    assert bar is not None and with_bar.progress is bar
    mine = ReadOptions(progress=lambda done, total: None)
    assert progress.with_progress(mine, "x", FakeTerminal()) == (mine, None)  # a caller's own callback wins


def test_reader_drives_the_bar_after_the_delay(tmp_path, monkeypatch):
    monkeypatch.setattr(ar, "BATCH_MEMBERS", 4)
    path = archive(tmp_path)
    out, clock = FakeTerminal(), Clock()
    bar = progress.ReadProgress("reading a.a", out, delay=1.0, clock=clock)
    seen = []

    def callback(done, total):
        seen.append((done, total))
        clock.now += 0.6  # each batch takes 0.6 s: the bar appears at the second report
        bar(done, total)

    read_path(str(path), ReadOptions(progress=callback))
    bar.close()
    size = path.stat().st_size
    assert len(seen) == 3 and seen[-1] == (size, size)
    assert all(d1 <= d2 for (d1, _), (d2, _) in zip(seen, seen[1:]))
    text = out.getvalue()
    assert "reading a.a" in text and "100%" in text and text.endswith("\n")


def test_quick_reads_draw_nothing(tmp_path):
    out = FakeTerminal()
    bar = progress.ReadProgress("quick", out, delay=1.0, clock=Clock())
    read_path(str(archive(tmp_path)), ReadOptions(progress=bar))
    bar.close()
    assert out.getvalue() == ""


def test_cli_output_is_unchanged_without_a_terminal(tmp_path):
    path = archive(tmp_path)
    result = CliRunner().invoke(cli.main, [str(path), "--format", "json"])
    assert result.exit_code == 0
    assert result.output.startswith("{")  # stdout holds the JSON alone: no bar was mixed in


def test_files_read_one_after_another_get_a_bar_each_the_last_closed_at_the_end():
    term = FakeTerminal()
    closed = []
    with progress.file_bars(term) as bar_for:
        first = bar_for("a.log")
        first.close = lambda: closed.append("a.log")
        second = bar_for("b.log")  # a's bar is done once b's begins
        second.close = lambda: closed.append("b.log")
        assert isinstance(first, progress.ReadProgress) and second.label == "b.log" and closed == ["a.log"]
    assert closed == ["a.log", "b.log"]
    with progress.file_bars(io.StringIO()) as bar_for:  # not a terminal: no bar
        assert bar_for("a.log") is None
