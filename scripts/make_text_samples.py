#!/usr/bin/env python3
"""Make sample_reports/mk1_summary.txt and sample_reports/trace_two_modules.rep (Poplar text layouts).

mk1_summary.txt reproduces the summary walked through in graphcore/tensorflow's
docs/logging.rst (one Mk1 IPU, 1,216 tiles). trace_two_modules.rep is a
TensorFlow 1.x Trace_Event_Report.rep with two compile reports (a variable
initialiser and a training step) and an Execute event, built from seeded
per-tile sizes so every printed figure is consistent. Deterministic: re-running
reproduces both files byte for byte; ``--check`` only compares.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from memreport.model import KIB, Bin, Histogram, TileBytes
from tests.synth import text as synth

MK2_BYTES_PER_TILE = 624 * KIB
INIT_MODULE = "cluster_vars_init.3"
MAIN_MODULE = "cluster_training_step.17"


def mk1_summary() -> str:
    """The logging.rst report, figures as printed there."""
    data_types = dict(zip(synth.DATA_TYPES, [
        39_108, 0, 10_512, 0, 3_852_288, 14_640, 0, 0, 0, 0, 851_272, 170_788, 60_792, 351_328, 0, 4_876, 0, 0]))
    memory = synth.MemoryScope(
        including_gaps=23_878_396,
        regions={"non_interleaved": 5_355_604, "interleaved": 0, "overflowed": 0},
        data_types=data_types, vertex_data=14_640,
        vertex_by_category={"Internal vertex state": 9_736, "Edge pointers": 4_904, "Copy pointers": 0,
                            "Padding": 0, "Descriptors": 0},
        vertex_by_type={"poprand::SetSeedSupervisor": 34_048,
                        "popops::ScaledAddSupervisor<float,float,true>": 60,
                        "popops::BinaryOp1DSupervisor<popops::expr::BinaryOpType::ADD,float>": 16})
    return synth.summary_text(synth.TextSummary(
        num_ipus=1, tiles_per_ipu=1216, bytes_per_tile=256 * KIB, clock_hz=1.6e9,
        graph={"Number of vertices": 1_219, "Number of edges": 1_223, "Number of variables": 30_562,
               "Number of compute sets": 4},
        memory=memory, histogram=Histogram(1, (Bin(4, 5, 1_215), Bin(5, 6, 1))),
        max_including_gaps=TileBytes(0, 49_184), max_excluding_gaps=TileBytes(0, 5_780), tiles_out_of_memory=0))


def module_tiles(seed: int = 2020) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(excluding, including) gaps per tile for each module of the trace, one Mk2 IPU."""
    rng = np.random.default_rng(seed)
    tiles = 1472
    init_ex = 3 * KIB + rng.integers(0, 1536, tiles)
    init_in = init_ex + rng.integers(0, 512, tiles)
    init_ex[42], init_in[42] = 4_700, 5_200  # the peak, above every drawn size
    main_ex = rng.normal(200 * KIB, 24 * KIB, tiles).astype(np.int64).clip(64 * KIB, 400 * KIB)
    # A few heavy tiles (ids below 1,000 so no tile number needs a thousands separator):
    # two over the 624 KiB limit, three close to it.
    for tile, size in {5: 700_000, 902: 660_001, 17: 600_000, 230: 580_500, 641: 555_555}.items():
        main_ex[tile] = size
    main_in = main_ex + rng.integers(0, 6 * KIB, tiles)
    return {INIT_MODULE: (init_ex, init_in), MAIN_MODULE: (main_ex, main_in)}


def trace() -> str:
    """A .rep trace: compile begin/end for each module, a load, a transfer and an execution."""
    graphs = {INIT_MODULE: {"Number of vertices": 1_474, "Number of edges": 1_480, "Number of variables": 2_950,
                            "Number of compute sets": 3},
              MAIN_MODULE: {"Number of vertices": 96_120, "Number of edges": 251_337,
                            "Number of variables": 181_402, "Number of compute sets": 412}}
    reports = {}
    for module, (ex, inc) in module_tiles().items():
        detailed = 5 if module == MAIN_MODULE else 0  # Poplar details tiles only when memory is imbalanced
        reports[module] = synth.summary_text(synth.summary_from_tiles(
            ex, inc, num_ipus=1, tiles_per_ipu=1472, bytes_per_tile=MK2_BYTES_PER_TILE, clock_hz=1.33e9,
            graph=graphs[module], detailed=detailed, replicas=1))
    execution = ("Execution:\n\n"
                 "  Total cycles:                                  2,871,334 (approx 2,158.9 microseconds)\n"
                 "  Tile average compute cycles (including idle threads): 1,002,113.4 (34.9% of total)\n"
                 "  (synthetic execution summary: memreport skips Execute events)\n")
    return synth.rep_trace([
        synth.compile_begin("2020-06-15 10:21:03 +0100", INIT_MODULE),
        synth.compile_end("2020-06-15 10:21:07 +0100", INIT_MODULE, 3_912_554, reports[INIT_MODULE]),
        synth.compile_begin("2020-06-15 10:21:07 +0100", MAIN_MODULE),
        synth.compile_end("2020-06-15 10:22:41 +0100", MAIN_MODULE, 93_870_112, reports[MAIN_MODULE]),
        synth.load_engine("2020-06-15 10:22:42 +0100", MAIN_MODULE),
        synth.transfer("2020-06-15 10:22:42 +0100", "Host->Device",
                       '{"tensors":[{"name":"XLA_Args/features","size":1048576}]}'),
        synth.execute("2020-06-15 10:22:43 +0100", MAIN_MODULE, execution),
    ])


SAMPLES = {"mk1_summary.txt": mk1_summary, "trace_two_modules.rep": trace}


def main() -> None:
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sample_reports")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-d", "--directory", default=here)
    parser.add_argument("--check", action="store_true", help="compare with the files on disk; write nothing")
    args = parser.parse_args()
    stale = []
    for name, make in SAMPLES.items():
        path = os.path.join(args.directory, name)
        data = make().encode("utf-8")
        if args.check:
            with open(path, "rb") as f:
                if f.read() != data:
                    stale.append(path)
            continue
        with open(path, "wb") as f:
            f.write(data)
        print(f"wrote {path} ({len(data):,} bytes)")
    if stale:
        sys.exit("out of date: " + ", ".join(stale))


if __name__ == "__main__":
    main()
