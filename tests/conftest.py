"""Shared fixtures: reference readings from pyelftools and GNU ``size -A``."""
from __future__ import annotations

import io
import shutil
import subprocess
import tracemalloc

import pytest
from elftools.elf.elffile import ELFFile

from memreport.readers.elf.ar import iter_members
from tests.builds import builds  # noqa: F401  (a fixture shared by the diff tests)
from tests.synth.archive import ar_archive, tile_elf

# The By Tile block of the adder example in graphcore/tensorflow's
# tensorflow/compiler/plugin/poplar/docs/logging.rst, as Poplar printed it.
MK1_BY_TILE = """\
  By Tile (Excluding Gaps):
    Range (KB) Histogram (Excluding Gaps)               Count (tiles)
         4 - 5 ****************************************  1,215
         5 - 6 *                                             1

    Maximum (Including Gaps): 49,184 (48.0 K) on tile 0
    Maximum (Excluding Gaps): 5,780 (5.6 K) on tile 0
    0 tile(s) out of memory"""


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch):
    """Text is laid out to COLUMNS when set (issue #24): outputs pinned by tests are at the default 100, whatever
    the shell running them exports; a test asking for a width passes COLUMNS to its run."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def archive(tmp_path):
    """Six Mk2 tiles; tile 3 is 2,113 B over the limit."""
    limit = 638_976
    members = [(f"tile_{i}.elf", tile_elf(i, 2000 + i, 100, (limit + 10 if i == 3 else 1000 * i)))
               for i in range(6)]
    path = tmp_path / "build.a"
    path.write_bytes(ar_archive(members, symbol_index=True))
    return path


def pyelftools_sections(data: bytes) -> list[tuple[str, int, int]]:
    """(name, size, flags) of every section but the null one, as pyelftools reads them."""
    elf = ELFFile(io.BytesIO(data))
    return [(s.name, s["sh_size"], s["sh_flags"]) for s in elf.iter_sections() if s["sh_type"] != "SHT_NULL"]


def archive_members(data: bytes) -> list[tuple[str, bytes]]:
    """(name, bytes) of every file member, via memreport's own ar walker."""
    return [(m.name, data[m.data_offset:m.data_offset + m.size]) for m in iter_members(data)]


def size_a(path, tool: str = "size") -> list[tuple[str, dict[str, int]]]:
    """Per member, section -> size as printed by ``size -A`` (or ``llvm-size -A``)."""
    out = subprocess.run([tool, "-A", str(path)], check=True, capture_output=True, text=True).stdout
    members: list[tuple[str, dict[str, int]]] = []
    for line in out.splitlines():
        if "(ex " in line and line.rstrip().endswith(":"):
            members.append((line.split("(ex ")[0].strip(), {}))
        elif members and line and not line.startswith(("section", "Total")):
            fields = line.split()
            if len(fields) >= 3 and fields[1].isdigit():
                members[-1][1][fields[0]] = members[-1][1].get(fields[0], 0) + int(fields[1])
    return members


needs_size = pytest.mark.skipif(shutil.which("size") is None, reason="GNU size is not installed")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("ar") is None,
                               reason="gcc and ar are not installed")


def traced_peak(call):
    """``call()``'s result and the peak of memory Python allocated while it ran (tracemalloc)."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def flat(text: str) -> str:
    """``text`` with every run of white space one space: prose memreport wraps to the width reads the same."""
    return " ".join(text.split())
