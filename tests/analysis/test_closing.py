"""The closing table's rows (issue #23): a row per report or run, what each source says and nothing more."""
from __future__ import annotations

import memreport
from memreport.analysis import summarize_all
from memreport.analysis.closing import closing_row
from memreport.analysis.results import ClosingRow, TilesAtLeast
from memreport.model import TileBytes
from memreport.render.words import count_short
from tests import SAMPLES
from tests.synth.logs import cpp_terminate, sweep_log, tile_memory_message


def test_a_row_per_run_with_the_bytes_its_message_states(tmp_path):
    log = tmp_path / "sweep.log"  # three runs on Mk1: the first and last ran out of memory, the second passed
    log.write_text(sweep_log([((72, 128, 1), (0, 525_496)), ((72, 128, 2), None), ((96, 256, 1), (7, 300_000))]))
    archive = SAMPLES / "mk2_1472_tiles.a"
    rows = [closing_row(s) for s in summarize_all([*memreport.read_all(log), memreport.read(archive)])]
    assert [(r.name.short_label, r.line, r.run, r.arch, r.tiles, r.worst, r.worst_from_message,
             count_short(r.out_of_memory)) for r in rows] == [
        (f"{log}#1", 5, "1/3", "ipu1", None, TileBytes(0, 525_496), True, "at least 1"),
        (f"{log}#2", 15, "3/3", "ipu1", None, TileBytes(7, 300_000), True, "at least 1"),
        (str(archive), None, None, "ipu2", 1472, TileBytes(1402, 788_976), False, "3"),
    ]
    assert all(isinstance(r, ClosingRow) for r in rows)


def test_what_a_report_without_a_tile_count_still_implies(tmp_path):
    """ipu1 has 1,216 tiles per IPU: tile 1,300 needs 2 IPUs, so at least 2,432 tiles; tile 0 at least one IPU;
    a report that states its tile count has no bound, nor one whose tiles per IPU are unknown."""
    log = tmp_path / "sweep.log"
    log.write_text(sweep_log([((72, 128, 1), (0, 525_496)), ((288, 512, 2), (1_300, 401_000)),
                              ((288, 512, 4), (3_647, 401_000))]))
    summaries = summarize_all([*memreport.read_all(log), memreport.read(SAMPLES / "mk2_1472_tiles.a")])
    assert [s.tiles_at_least for s in summaries] == [
        TilesAtLeast(1_216, 1, 1_216, 0), TilesAtLeast(2_432, 2, 1_216, 1_300), TilesAtLeast(3_648, 3, 1_216, 3_647),
        None]
    assert [closing_row(s).tiles_at_least for s in summaries] == [1_216, 2_432, 3_648, None]
    unknown = tmp_path / "unknown.log"  # 500,000 B per tile is no arch's: tiles per IPU unknown
    unknown.write_text(cpp_terminate(tile_memory_message(1_300, 600_000, 500_000)))
    assert [s.tiles_at_least for s in summarize_all(memreport.read_all(unknown))] == [None]
