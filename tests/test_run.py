"""One function per command run (memreport/run.py): what the click commands and the Python API share (issue #29)."""
from __future__ import annotations

import json

import pytest

from memreport import run, session
from memreport.errors import UnsupportedOperation
from memreport.session import Read
from tests import SAMPLES
from tests.builds import NEW, OLD, write_build

ARCHIVE = str(SAMPLES / "mk2_1472_tiles.a")


def reads(*paths: str) -> list[Read]:
    return session.read_files(paths, session.read_options())


def test_a_report_run_renders_every_output_asked_for_and_judges_its_gates(tmp_path):
    done = run.report(reads(ARCHIVE), fmt="json", output="out.json", png=str(tmp_path / "m.png"),
                      html=str(tmp_path / "m.html"), gates=run.Gates().merged(fail_on_oom=True, max_tile=700_000))
    assert [path for path, _ in done.outputs] == ["out.json", str(tmp_path / "m.png"), str(tmp_path / "m.html")]
    assert json.loads(done.outputs[0][1])["reports"][0]["tiles_out_of_memory"] == 3
    assert done.outputs[1][1][:8] == b"\x89PNG\r\n\x1a\n" and "<!DOCTYPE html>" in done.outputs[2][1]
    assert [(g.gate, g.failed, g.failing_tiles) for g in done.gates] == [("fail-on-oom", True, 3),
                                                                        ("max-tile", True, 1)]
    assert done.exit_code == run.EXIT_GATE
    assert run.gate_messages(done.gates)[0].startswith("3 tile(s) out of memory in ")


def test_a_gate_that_cannot_judge_is_bad_usage(tmp_path):
    tensor_map = str(SAMPLES / "tensor_map.json")
    with pytest.raises(UnsupportedOperation, match=r"^--max-tile: .*tensor_map.json: a tensor map counts elements"):
        run.report(reads(tensor_map), gates=run.Gates().merged(max_tile=1))


def test_a_diff_run_and_the_api_compare_the_same_reports(tmp_path):
    import memreport
    write_build(tmp_path / "old.a", OLD)
    write_build(tmp_path / "new.a", NEW)
    old, new = str(tmp_path / "old.a"), str(tmp_path / "new.a")
    done = run.diff(reads(old), reads(new), fmt="json", gates=run.Gates().merged(fail_on_growth=4096))
    record = json.loads(done.outputs[0][1])
    api = memreport.diff(old, new)
    assert record["newly_out_of_memory"] == list(api.newly_out_of_memory) == [3]
    assert [t["tile"] for t in record["tiles"]] == api.tile_ids.tolist()
    assert done.exit_code == run.EXIT_GATE and done.gates[0].failing_tiles == 2


def test_a_compiles_run_and_an_export_run():
    compiles = run.compiles_of([str(SAMPLES / "compile_cold.log")])
    done = run.compiles(compiles, fmt="csv", gates=run.Gates().merged(fail_on_recompile=True))
    assert done.outputs[0][1].startswith("source,line,") and done.exit_code in (run.EXIT_OK, run.EXIT_GATE)
    exported = run.export(reads(ARCHIVE), output="m.json")
    assert json.loads(exported.outputs[0][1])["schema"] == "memreport/1" and exported.exit_code == run.EXIT_OK
