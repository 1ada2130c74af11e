#!/usr/bin/env python3
"""Make sample_reports/mk2_1472_tiles.a: one Mk2 IPU (1,472 tiles x 624 KiB), three tiles over the limit.

Deterministic (seeded), so re-running it reproduces the committed file byte for byte.
Real Poplar tile ELFs hold all of a tile's memory in .text; to keep the sample
a few MB, each tile here has a small real .text and a .data section, and the
bulk of its memory in a NOBITS .bss section (allocated memory that takes no
file space). memreport counts every SHF_ALLOC section, so the figures are the same.
Each tile has a symbol table laid out as poplibs' codelets and a linker leave
it (docs/FORMATS.md §5): vertex entry points ``__runCodelet_...``, one whose
size sits on a local label, one whose ``.size`` counts from a ``_START`` label
before it, a C++ vertex's ``compute()``, variables in ``.data`` and ``.bss``,
and some bytes no symbol covers.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tests.synth.archive import (
    STB_LOCAL,
    STT_FUNC,
    STT_NOTYPE,
    STT_OBJECT,
    Sym,
    ar_archive,
    bss,
    data,
    elf_file,
    note,
    section_symbols,
    text,
)

TILES = 1472
LIMIT = 624 * 1024
OVER = {17: LIMIT + 61_024, 731: LIMIT + 2_048, 1_402: LIMIT + 150_000}
CONV = "__runCodelet_poplin__ConvPartial1x1Out___half_half_true_false"
SCALED_ADD = "__runCodelet_popops__ScaledAddSupervisor___float_float_float_true_false"
CAST = "__runCodelet_popfloat__experimental__CastFloatToGf8Supervisor"
BROADCAST = "_ZN6popops9BroadcastIfE7computeEv"  # popops::Broadcast<float>::compute()


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
        text_bytes = 1024 + (tile * 37) % 1024
        data_bytes = 256 + (tile * 11) % 512
        sizes.append((text_bytes, data_bytes, size - text_bytes - data_bytes))
    return sizes


def bss_symbols(tile: int, size: int) -> dict[str, int]:
    """The variables of a tile's .bss, in address order; what they leave (a few hundred bytes) has no symbol."""
    gap = 256 + (tile % 7) * 64
    usable = max(size - gap, 0)
    weights = usable // 2
    momentum = usable // 5
    return {"conv2d_7/weights": weights, "conv2d_7/momentum": momentum,
            "relu_3/activations": usable - weights - momentum}


def member(tile: int, text_bytes: int, data_bytes: int, bss_bytes: int,
           changes: Mapping[str, int] | None = None) -> bytes:
    """One tile ELF; ``changes`` grows (or shrinks, or adds) .bss variables by the bytes given."""
    variables = bss_symbols(tile, bss_bytes)
    for name, delta in (changes or {}).items():
        variables[name] = variables.get(name, 0) + delta
        bss_bytes += delta
    sections = [text(text_bytes), data(data_bytes), bss(bss_bytes), note(16 + tile % 7)]
    conv, scaled, broadcast = text_bytes * 2 // 5, text_bytes // 4, text_bytes // 8
    cast_at = conv + scaled + broadcast
    syms = section_symbols(sections, f"tile_{tile:04d}.S") + [
        Sym(CONV, ".text", 0, conv, STT_FUNC),
        Sym(SCALED_ADD + "_START", ".text", conv, 0, STT_NOTYPE, STB_LOCAL),
        Sym(SCALED_ADD, ".text", conv + 4, scaled, STT_FUNC),  # .size counts from _START: runs 4 bytes on
        Sym(BROADCAST, ".text", conv + scaled, broadcast, STT_FUNC),
        Sym(CAST, ".text", cast_at, 0, STT_FUNC),  # the size is on the local label below
        Sym("castFloatToGf8Supervisor", ".text", cast_at, text_bytes // 10, STT_NOTYPE, STB_LOCAL),
        Sym("vertexState", ".data", 0, data_bytes - 16, STT_OBJECT),
    ]
    at = 0
    for name, size in variables.items():
        syms.append(Sym(name, ".bss", at, size, STT_OBJECT))
        at += size
    return elf_file(sections, e_flags=0x2, symbols=syms)


def build(seed: int = 2026, changes: Mapping[int, Mapping[str, int]] | None = None) -> bytes:
    """The archive; ``changes`` maps tiles to .bss variable changes (the README's pr.a)."""
    members = [(f"tile_{tile:04d}.elf", member(tile, t, d, b, (changes or {}).get(tile)))
               for tile, (t, d, b) in enumerate(tile_sizes(seed))]
    return ar_archive(members, symbol_index=True)


def main() -> None:
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sample_reports")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=os.path.join(here, "mk2_1472_tiles.a"))
    args = parser.parse_args()
    blob = build()
    with open(args.output, "wb") as f:
        f.write(blob)
    print(f"wrote {args.output} ({len(blob):,} bytes)")


if __name__ == "__main__":
    main()
