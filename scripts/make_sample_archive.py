#!/usr/bin/env python3
"""Make sample_reports/mk2_1472_tiles.a: one Mk2 IPU (1,472 tiles x 624 KiB), three tiles over the limit.

Deterministic (seeded), so re-running it reproduces the committed file byte for byte.
Real Poplar tile ELFs hold all of a tile's memory in .text; to keep the sample
a few MB, each tile here has a small real .text and a .data section, and the
bulk of its memory in a NOBITS .bss section (allocated memory that takes no
file space). memreport counts every SHF_ALLOC section, so the figures are the same.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tests.synth.archive import ar_archive, tile_elf

TILES = 1472
LIMIT = 624 * 1024
OVER = {17: LIMIT + 61_024, 731: LIMIT + 2_048, 1_402: LIMIT + 150_000}


def tile_sizes(seed: int = 2026) -> list[tuple[int, int, int]]:
    """(text, data, bss) bytes per tile: a busy first column, a long tail, three overflows."""
    rng = np.random.default_rng(seed)
    total = rng.normal(300 * 1024, 40 * 1024, TILES).clip(150 * 1024, 560 * 1024).astype(int)
    total[::64] += 120 * 1024  # every 64th tile holds exchange buffers
    total = total.clip(0, LIMIT - 4096)
    for tile, size in OVER.items():
        total[tile] = size
    sizes = []
    for tile, size in enumerate(total.tolist()):
        text = 1024 + (tile * 37) % 1024
        data = 256 + (tile * 11) % 512
        sizes.append((text, data, size - text - data))
    return sizes


def build(seed: int = 2026) -> bytes:
    members = [(f"tile_{tile:04d}.elf", tile_elf(tile, text, data, bss, e_flags=0x2))
               for tile, (text, data, bss) in enumerate(tile_sizes(seed))]
    return ar_archive(members, symbol_index=True)


def main() -> None:
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sample_reports")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=os.path.join(here, "mk2_1472_tiles.a"))
    args = parser.parse_args()
    data = build()
    with open(args.output, "wb") as f:
        f.write(data)
    print(f"wrote {args.output} ({len(data):,} bytes)")


if __name__ == "__main__":
    main()
