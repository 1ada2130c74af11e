"""FileView: byte ranges by pread; a file that shrinks under it is a FileChanged, never a crash."""
from __future__ import annotations

import os

import pytest

from memreport.errors import FileChanged, ReadError
from memreport.readers.fileview import FileView


@pytest.fixture
def opened(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(range(256)) * 4)
    fd = os.open(path, os.O_RDONLY)
    yield path, fd
    os.close(fd)


def test_slices_read_like_bytes(opened):
    path, fd = opened
    view = FileView(fd)
    data = path.read_bytes()
    assert len(view) == 1024
    assert view[:8] == data[:8]
    assert view[250:260] == data[250:260]
    assert view[1000:2000] == data[1000:]  # clipped at the end, as bytes slices are
    assert view[2000:3000] == b""
    assert view.read(1020, 100) == data[1020:]


def test_only_slices_are_taken(opened):
    view = FileView(opened[1])
    with pytest.raises(TypeError):
        view[3]
    with pytest.raises(TypeError):
        view[-4:]
    with pytest.raises(TypeError):
        view[0:10:2]


def test_bytes_appended_after_opening_are_not_seen(opened):
    path, fd = opened
    view = FileView(fd)
    with open(path, "ab") as f:
        f.write(b"more")
    assert len(view) == 1024
    assert view[1020:] == path.read_bytes()[1020:1024]


def test_a_file_that_shrinks_is_a_file_changed_error(opened):
    path, fd = opened
    view = FileView(fd)
    os.truncate(path, 100)
    assert view[:100] == bytes(range(100))  # what is still there reads as before
    with pytest.raises(FileChanged) as caught:
        view.read(50, 100)
    assert str(caught.value) == ("the file shrank while it was read (1,024 bytes when opened, 100 bytes now): was it "
                                 "rewritten in place? (at byte offset 100)")
    assert isinstance(caught.value, ReadError)
