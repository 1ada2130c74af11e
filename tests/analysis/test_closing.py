"""The closing table's rows (issue #23): a row per report or run, what each source says and nothing more."""
from __future__ import annotations

from pathlib import Path

import memreport
from memreport.analysis import summarize_all
from memreport.analysis.closing import ClosingRow
from memreport.model import TileBytes
from tests.synth.logs import sweep_log

SAMPLES = Path(__file__).resolve().parent.parent.parent / "sample_reports"


def test_a_row_per_run_with_the_bytes_its_message_states(tmp_path):
    log = tmp_path / "sweep.log"  # three runs on Mk1: the first and last ran out of memory, the second passed
    log.write_text(sweep_log([((72, 128, 1), (0, 525_496)), ((72, 128, 2), None), ((96, 256, 1), (7, 300_000))]))
    archive = SAMPLES / "mk2_1472_tiles.a"
    rows = [s.closing_row for s in summarize_all([*memreport.read_all(log), memreport.read(archive)])]
    assert [(r.source, r.line, r.run, r.arch, r.tiles, r.worst, r.worst_from_message, r.out_of_memory.short())
            for r in rows] == [
        (f"{log}#1", 5, "1/3", "ipu1", None, TileBytes(0, 525_496), True, "at least 1"),
        (f"{log}#2", 15, "3/3", "ipu1", None, TileBytes(7, 300_000), True, "at least 1"),
        (str(archive), None, None, "ipu2", 1472, TileBytes(1402, 788_976), False, "3"),
    ]
    assert all(isinstance(r, ClosingRow) for r in rows)


def test_the_verdict_over_several_reports_counts_at_least_and_says_how_many_cannot_say():
    from memreport.analysis.closing import Closing
    from memreport.analysis.verdict import OutOfMemoryCount

    def row(count: OutOfMemoryCount) -> ClosingRow:
        return ClosingRow("r", None, None, None, None, None, count)

    exact, none, at_least, unknown = (OutOfMemoryCount(3, 3), OutOfMemoryCount(0), OutOfMemoryCount(None, 2),
                                      OutOfMemoryCount(None))
    assert Closing((row(exact), row(none), row(at_least))).verdict == "2 of 3 reports have tiles out of memory"
    assert Closing((row(none), row(at_least))).verdict == "1 of 2 reports has tiles out of memory"
    assert Closing((row(none), row(unknown), row(unknown))).verdict == \
        "0 of 3 reports have tiles out of memory (2 cannot say)"
