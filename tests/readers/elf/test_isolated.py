"""isolated: work in a forked child, its result's arrays sent out of band (never pickled beside the arrays)."""
from __future__ import annotations

import io
import subprocess
import sys

import numpy as np

from memreport.readers.elf.isolated import _receive, frames


def test_a_frame_writes_an_arrays_memory_as_it_lies_not_a_pickled_copy():
    rows = np.arange(1 << 20, dtype=np.int64)  # 8 MiB
    head, payload, *buffers = frames(b"r", {"rows": rows, "names": ["t0", "t1"]})
    assert len(buffers) == 1
    assert np.shares_memory(np.frombuffer(buffers[0], dtype=np.int64), rows)
    assert buffers[0].nbytes == rows.nbytes
    assert len(payload) < 1000  # the names and where the array goes, not its 8 MiB
    assert len(head) == 13 + 8


def test_a_frame_read_back_rebuilds_its_arrays_over_the_bytes_read():
    rows = np.arange(100_000, dtype=np.int32)
    sent = {"rows": rows, "sizes": rows.astype(np.int64)[::-1].copy(), "flags": rows % 3 == 0, "names": ["a", "é"]}
    stream = io.BufferedReader(io.BytesIO(b"".join(bytes(part) for part in frames(b"r", sent))))
    frame, value = _receive(stream)
    assert frame == b"r"
    assert value["names"] == ["a", "é"]
    for name in ("rows", "sizes", "flags"):
        assert value[name].dtype == sent[name].dtype
        assert np.array_equal(value[name], sent[name])
        base = value[name]
        while isinstance(base, np.ndarray):
            base = base.base
        assert isinstance(base, memoryview) and isinstance(base.obj, bytearray)  # the bytes read: no copy
    assert value["rows"].flags.writeable
    assert _receive(stream) is None  # the end of the pipe


def test_a_frame_cut_short_is_no_value():
    whole = b"".join(bytes(part) for part in frames(b"r", np.arange(1000)))
    for cut in (5, 13, 30, len(whole) - 1):
        assert _receive(io.BufferedReader(io.BytesIO(whole[:cut]))) is None


def test_the_childs_result_and_progress_arrive_in_the_parent():
    code = ("import numpy as np\n"
            "from memreport.readers.elf import isolated\n"
            "seen = []\n"
            "def work(send):\n"
            "    send(1, 2)\n"
            "    send(3, 4)\n"
            "    return {'rows': np.arange(3_000_000, dtype=np.int32), 'names': [f't{i}' for i in range(5)]}\n"
            "found = isolated.run(work, lambda *args: seen.append(args))\n"
            "print(seen, found['names'], found['rows'].dtype, int(found['rows'].sum()), found['rows'].size)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == ("[(1, 2), (3, 4)] ['t0', 't1', 't2', 't3', 't4'] int32 4499998500000 3000000\n")
