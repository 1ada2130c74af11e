"""Shared fixtures: reference readings from pyelftools and GNU ``size -A``."""
from __future__ import annotations

import io
import shutil
import subprocess

import pytest
from elftools.elf.elffile import ELFFile

from memreport.readers.ar import iter_members


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
