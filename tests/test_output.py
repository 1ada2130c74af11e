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
