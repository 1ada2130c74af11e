"""Two small Mk2 builds for the gate and diff tests, written with tests.synth.archive.

Each tile's excluding-gaps bytes are exactly the size given: 1,024 B of
.text, 256 B of .data, the rest .bss (the note section is not counted).
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import memreport
from memreport.model import SkippedMember, Target, TensorMapReport, TileReport
from memreport.model.tensor_map import TensorMap
from tests.synth.archive import ar_archive, tile_elf

LIMIT = 638_976  # ipu2 bytes per tile

# tile:    0        1        2        3        4        5        6        7
OLD = [300_000, 310_000, 640_000, 200_000, 638_976, 100_000, 250_000, 700_000]
NEW = [304_000, 318_192, 630_000, 643_072, 638_976, 96_000, 254_096, 700_000]
# OLD: tiles 2 (+1,024) and 7 (+61,024) out of memory; tile 4 exactly full, so not.
# NEW: tile 2 recovers, tile 3 newly overflows (by 4,096), tile 6 grows by exactly 4 KiB.


def write_build(path: Path, sizes: Sequence[int], e_flags: int = 0x2) -> Path:
    """An archive at ``path`` whose tile ``i`` holds ``sizes[i]`` bytes."""
    members = [(f"tile_{i}.elf", tile_elf(i, 1024, 256, size - 1280, e_flags=e_flags))
               for i, size in enumerate(sizes)]
    path.write_bytes(ar_archive(members, symbol_index=True))
    return path


@pytest.fixture
def builds(tmp_path, monkeypatch):
    """The OLD and NEW builds, read from archives in the test's own folder."""
    monkeypatch.chdir(tmp_path)
    write_build(tmp_path / "old.a", OLD)
    write_build(tmp_path / "new.a", NEW)
    return memreport.read("old.a"), memreport.read("new.a")


def empty_tensor_map_report(target: Target, source: str = "tm.json") -> TensorMapReport:
    """A tensor-map report whose map places nothing: the kind, with no elements to get in the way."""
    none = np.zeros(0, dtype=np.int64)
    return TensorMapReport(source, "tensor-map", target, TensorMap(source, (), none, none, none, 0))


def complete(values, including=None, arch="ipu2", regions=None, bytes_per_tile=None) -> TileReport:
    """A TileReport of every tile's ``values`` (excluding gaps), as an archive reader makes it."""
    values = np.asarray(values, dtype=np.int64)
    return TileReport(source="t", format="archive", target=Target.for_arch(arch, values.size, bytes_per_tile),
                        excluding_gaps=values,
                        including_gaps=None if including is None else np.asarray(including, dtype=np.int64),
                        regions=regions or {})


def one_tile_per_ipu(values, over_at=(), skipped=()) -> TileReport:
    """A report declaring one tile per IPU (issue 33 item 15), 1,000 B per tile: ``over_at`` tiles over it."""
    values = np.asarray(values, dtype=np.int64).copy()
    values[list(over_at)] = 2_000
    values[list(skipped)] = 0  # a skipped member's placeholder
    return TileReport(source="t", format="archive", target=Target(values.size, None, values.size, 1, 1_000),
                      excluding_gaps=values, skipped=tuple(SkippedMember(t, f"t{t}", "damaged") for t in skipped))
