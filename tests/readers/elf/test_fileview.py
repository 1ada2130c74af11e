"""FileView: byte ranges by pread; a file that shrinks under it is a FileChanged, never a crash."""
from __future__ import annotations

import errno
import os
import subprocess
import sys

import pytest

from memreport.errors import FileChanged, ReadError
from memreport.readers.elf.fileview import FileView, LeasedMapping


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


# ---------------------------------------------------------------- the mapping under a read lease (Linux)

needs_leases = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="read leases are Linux's")


@needs_leases
def test_a_lease_maps_the_file_and_a_writer_breaks_it(opened):
    path, fd = opened
    mapping = LeasedMapping.open(fd, 1024)
    assert mapping is not None and not mapping.broken()
    assert mapping.mapped[250:260] == path.read_bytes()[250:260]
    # A writer that will not wait (O_NONBLOCK, as coreutils truncate opens) is told to try again, and the lease
    # is now being broken: the reader must let go.
    code = f"import os\ntry:\n    os.open({str(path)!r}, os.O_WRONLY | os.O_NONBLOCK)\nexcept OSError as e:\n" \
           "    print(e.errno)\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == str(errno.EAGAIN)
    assert mapping.broken()
    mapping.close()  # the lease goes with it: the writer may go on
    with open(path, "r+b"):
        pass


@needs_leases
def test_no_lease_no_mapping_while_someone_writes(opened):
    path, fd = opened
    with open(path, "ab"):
        assert LeasedMapping.open(fd, 1024) is None  # the reader copies instead
