"""The synthetic text-report writer against the blocks published in graphcore/tensorflow docs/logging.rst."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from memreport.model import Bin, Histogram, TileBytes
from tests.conftest import MK1_BY_TILE
from tests.synth import text as synth

ROOT = Path(__file__).resolve().parents[2]

# logging.rst's blocks, without the document's four-space indentation.
DOC_TARGET = """\
Target:
  Number of IPUs:         1
  Tiles per IPU:          1,216
  Total Tiles:            1,216
  Memory Per-Tile:        256.0 kB
  Total Memory:           304.0 MB
  Clock Speed (approx):   1,600.0 MHz
"""
DOC_GRAPH = """\
Graph:
  Number of vertices:            1,219
  Number of edges:               1,223
  Number of variables:          30,562
  Number of compute sets:            4
"""
# The imbalanced example's rows (the document elides runs of zero rows; these are the printed ones).
DOC_ROWS = """\
   0 -   8 *                                            20
   8 -  16 ****************************************  1,192
  16 -  24 *                                             2
  24 -  32                                               0
 488 - 496                                               0
 504 - 512 *                                             1
 808 - 816 *                                             1
"""
DOC_TILE = """\
Tile # 0 memory usage:
Memory Usage:
  Total:
    Including Gaps:            834,416 B
    Excluding Gaps:
      By Memory Region:
        Non-interleaved:       122,880 B
        Interleaved:           131,072 B
        Overflowed:            580,387 B
      By Data Type:
          Variables:                           807,658 B
          Constants:                                 0 B
          Host Exchange Packet Headers:          1,160 B
        Vertex Data (22,353B):
          By Category:
            Internal vertex state:          4,152 B
            Edge pointers:                 10,798 B
          By Type:
            poplin::ConvPartial1x1Out<float,float,true,false>                                6,648 B
            popops::BinaryOp1DSupervisor<popops::expr::BinaryOpType::MULTIPLY,float>           752 B
"""


def test_target_and_graph_blocks():
    assert "\n".join(synth.target_lines(1, 1216, 262_144, 1.6e9)) + "\n" == DOC_TARGET
    graph = {"Number of vertices": 1219, "Number of edges": 1223, "Number of variables": 30_562,
             "Number of compute sets": 4}
    assert "\n".join(synth.graph_lines(graph)) + "\n" == DOC_GRAPH


def test_by_tile_block():
    lines = synth.by_tile_lines(Histogram(1, (Bin(4, 5, 1215), Bin(5, 6, 1))), TileBytes(0, 49_184),
                                TileBytes(0, 5_780), 0)
    assert "\n".join(lines) + "\n" == (MK1_BY_TILE + "\n")


def test_rows_pad_both_bounds_to_the_widest():
    counts = {0: 20, 8: 1192, 16: 2, 24: 0, 488: 0, 504: 1, 808: 1}
    rows = synth.histogram_rows(Histogram(8, tuple(Bin(lo, lo + 8, n) for lo, n in counts.items())))
    assert "\n".join(rows) + "\n" == DOC_ROWS
    assert all(len(row) == 58 for row in rows)


def test_bar_lengths_and_wide_counts():
    rows = synth.histogram_rows(Histogram(1, (Bin(0, 1, 12_345_678), Bin(1, 2, 1), Bin(2, 3, 0))))
    assert rows[0] == "     0 - 1 " + "*" * 40 + "12,345,678"
    assert rows[1].split()[3:] == ["*", "1"]
    assert rows[2] == "     2 - 3 " + " " * 40 + "      0"


def test_tile_block():
    scope = synth.MemoryScope(
        including_gaps=834_416, regions={"non_interleaved": 122_880, "interleaved": 131_072, "overflowed": 580_387},
        data_types={"Variables": 807_658, "Constants": 0, "Host Exchange Packet Headers": 1_160},
        vertex_data=22_353, vertex_by_category={"Internal vertex state": 4_152, "Edge pointers": 10_798},
        vertex_by_type={"poplin::ConvPartial1x1Out<float,float,true,false>": 6_648,
                        "popops::BinaryOp1DSupervisor<popops::expr::BinaryOpType::MULTIPLY,float>": 752})
    assert "\n".join(synth.tile_lines(0, scope)) + "\n" == DOC_TILE


def test_summary_from_tiles_is_consistent():
    ex = np.array([10_000, 20_000, 700_000, 5_000])
    summary = synth.summary_from_tiles(ex, ex + 100, num_ipus=1, tiles_per_ipu=4, bytes_per_tile=638_976,
                                       clock_hz=1.33e9, graph={}, detailed=2)
    assert summary.histogram.total == 4
    assert summary.tiles_out_of_memory == 1
    assert summary.max_excluding_gaps == TileBytes(2, 700_000)
    assert [t for t, _ in summary.tiles] == [2, 1]
    assert summary.memory.excluding_gaps == int(ex.sum())
    assert sum(summary.memory.data_types.values()) == int(ex.sum())
    tile2 = summary.tiles[0][1]
    assert tile2.regions["overflowed"] == 700_000 - 638_976
    with pytest.raises(ValueError):
        synth.summary_from_tiles(ex[:3], ex[:3], num_ipus=1, tiles_per_ipu=4, bytes_per_tile=638_976,
                                 clock_hz=1.33e9, graph={})


def test_rep_wrapper_layout():
    trace = synth.rep_trace([synth.compile_begin("2020-01-02 03:04:05 +0000", "m"),
                             synth.compile_end("2020-01-02 03:04:06 +0000", "m", 12, "Target:\n")])
    assert trace == ("-" * 70 + "\n=> @ 2020-01-02 03:04:05 +0000: Compile begin: m\n\n"
                     + "-" * 70 + "\n=> @ 2020-01-02 03:04:06 +0000: Compile end: m\nDuration: 12 us\nTarget:\n\n")


def test_samples_are_up_to_date():
    spec = importlib.util.spec_from_file_location("make_text_samples", ROOT / "scripts" / "make_text_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, make in module.SAMPLES.items():
        assert (ROOT / "sample_reports" / name).read_text(encoding="utf-8") == make(), name
    mk1 = (ROOT / "sample_reports" / "mk1_summary.txt").read_text(encoding="utf-8")
    assert mk1.startswith(DOC_TARGET + "\n" + DOC_GRAPH + "\nMemory Usage:\n")
    assert mk1.endswith("\n" + (MK1_BY_TILE + "\n"))
