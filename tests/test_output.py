"""Outputs are written whole or not at all, and special files are written, not replaced."""
from __future__ import annotations

import os
import stat

import pytest

from memreport.errors import MemreportError
from memreport.output import write_output


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
