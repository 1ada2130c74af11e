"""memreport/1 JSON read back: the same reports, byte for byte (report -> JSON -> report -> JSON)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import memreport
from memreport.analysis import summarize_all
from memreport.cli import main
from memreport.errors import ReadError
from memreport.model import Column, MemoryReport, Target, TileReport
from memreport.readers.elf.symbols import with_symbols
from memreport.render.data.report import render_json
from tests import SAMPLES
from tests.readers.documents.conftest import same_model
from tests.synth import profile as synth_profile
from tests.synth.profile import profile_with_everything
from tests.synth.seeds import SUFFIXES, seeds
from tests.synth.symbols import archive_with_damage

ROOT = Path(__file__).resolve().parents[3]


def saved(reports: list[MemoryReport], tmp_path: Path, name: str = "saved.json", **summary) -> tuple[str, Path]:
    text = render_json(summarize_all(reports, **summary))
    path = tmp_path / name
    path.write_text(text)
    return text, path


@pytest.mark.parametrize("name", sorted(SUFFIXES))
def test_every_seed_round_trips_byte_for_byte(name, tmp_path):
    source = tmp_path / f"input{SUFFIXES[name]}"
    source.write_bytes(seeds()[name])
    reports = memreport.read_all(source)
    first, path = saved(reports, tmp_path)
    again = memreport.read_all(path)
    assert len(again) == len(reports)
    for a, b in zip(reports, again):
        same_model(a, b)
    second, _ = saved(again, tmp_path, "again.json")
    assert second == first


@pytest.mark.parametrize("sample", ["mk2_1472_tiles.a", "mk1_profile.json", "mk1_profile.cbor", "mk1_summary.txt",
                                    "trace_two_modules.rep", "tensor_map.json"])
def test_the_samples_round_trip_with_symbols_and_asked_tiles(sample, tmp_path):
    reports = memreport.read_all(ROOT / "sample_reports" / sample)
    reports = [with_symbols(r, [1402, 17, 3]) if r.format == "archive" else r for r in reports]
    first, path = saved(reports, tmp_path, top=5, tiles_asked=[3])
    again = memreport.read_all(path)
    for a, b in zip(reports, again):
        same_model(a, b)
    assert saved(again, tmp_path, "again.json", top=5, tiles_asked=[3])[0] == first


def test_a_profile_with_overlaps_regions_and_program_steps(tmp_path):
    path = tmp_path / "p.json"
    path.write_bytes(synth_profile.encode_json(profile_with_everything()))
    report = memreport.read(path)
    assert report.liveness_steps is not None and report.liveness_steps[0].children[1].name == "step/b"
    first, saved_path = saved([report], tmp_path)
    again = memreport.read(saved_path)
    same_model(report, again)
    assert saved([again], tmp_path, "b.json")[0] == first
    doc = json.loads(first)["reports"][0]
    assert doc["tile_values"]["breakdown"]["variable.overlapped"] == {"values": [7, 8, 9, 10], "absent": None,
                                                                      "counted": False}
    assert doc["liveness_steps"][0]["children"][1] == {"bytes": 40, "name": "step/b", "children": []}


def test_skipped_members_absent_sections_and_symbols_round_trip(tmp_path):
    report = with_symbols(memreport.read(archive_with_damage(tmp_path), skip_bad_members=True), [0, 1])
    assert report.per_tile == "partial" and report.breakdown[".text"].present is not None
    first, path = saved([report], tmp_path, tiles_asked=[1])
    again = memreport.read(path)
    same_model(report, again)
    assert again.per_tile == "partial" and set(again.symbols) == {0, 1}
    assert saved([again], tmp_path, "b.json", tiles_asked=[1])[0] == first


def test_a_saved_list_of_the_largest_symbols_keeps_its_counts(tmp_path):
    from memreport.render import RenderOptions
    report = with_symbols(memreport.read(archive_with_damage(tmp_path), skip_bad_members=True), [0])
    text = render_json(summarize_all([report]), RenderOptions(symbols=2))
    path = tmp_path / "cut.json"
    path.write_text(text)
    table = memreport.read(path).symbols[0]
    assert len(table.symbols) == 2 and table.num_symbols == 8 and table.omitted == 6
    assert table.attributed == report.symbols[0].attributed
    assert render_json(summarize_all([memreport.read(path)]), RenderOptions(symbols=2)) == text


@pytest.mark.parametrize("options", [{"arch": "ipu1"}, {"tile_memory": 600 * 1024},
                                     {"arch": "ipu21", "tile_memory": 5}])
def test_overrides_apply_again_and_new_ones_replace_them(options, tmp_path):
    archive = ROOT / "sample_reports" / "mk2_1472_tiles.a"
    original = memreport.read(archive, **options)
    first, path = saved([original], tmp_path)
    again = memreport.read(path)  # no options: the ones it was saved with
    assert again.target == original.target and again.notes == original.notes
    assert saved([again], tmp_path, "b.json")[0] == first
    for later in ({"arch": "ipu2"}, {"tile_memory": 1 << 20}, {"arch": "ipu1", "tile_memory": 1 << 19}):
        merged = {**options, **later}
        assert memreport.read(path, **later).target == memreport.read(archive, **merged).target
        assert memreport.read(path, **later).notes == memreport.read(archive, **merged).notes


def test_a_report_built_by_hand_keeps_its_target(tmp_path):
    report = TileReport("x.a", "archive", Target(num_tiles=2, bytes_per_tile=100), np.array([50, 150]),
                        breakdown={".text": Column(np.array([50, 150]))}, breakdown_kind="section",
                        notes=("made by hand",))
    _, path = saved([report], tmp_path)
    again = memreport.read(path, tile_memory=1000)  # nothing stated, so nothing to override
    same_model(report, again)
    assert again.tiles_out_of_memory == 1


def test_key_order_does_not_matter(tmp_path):
    reports = memreport.read_all(ROOT / "sample_reports" / "trace_two_modules.rep")
    first, path = saved(reports, tmp_path)
    path.write_text(json.dumps(json.loads(first), sort_keys=True))  # "reports" before "schema": sniffed as JSON
    again = memreport.read_all(path)
    assert json.loads(saved(again, tmp_path, "b.json")[0]) == json.loads(first)  # the same, keys in another order


def test_documents_that_cannot_be_read_back(tmp_path):
    def error(doc) -> str:
        path = tmp_path / "x.json"
        path.write_text(json.dumps(doc))
        with pytest.raises(ReadError) as info:
            memreport.read_all(path)
        return str(info.value).split(": ", 1)[1]
    archive = memreport.read(ROOT / "sample_reports" / "mk2_1472_tiles.a")
    good = json.loads(render_json(summarize_all([archive])))
    old = json.loads(json.dumps(good))
    for key in ("stated_target", "overrides", "source_notes", "tile_values", "printed", "liveness_steps",
                "tensor_map_data", "selected_tiles", "breakdown_totals", "liveness"):
        del old["reports"][0][key]
    assert error(old) == ("reports[0] lacks stated_target, overrides, source_notes: it was written by a memreport "
                          "that did not save reports to be read back; write it again with this one (memreport "
                          "export FILE -o OUT.json)")
    short = json.loads(json.dumps(good))
    short["reports"][0]["tile_values"]["breakdown"][".bss"]["values"] = [1, 2, 3]
    assert error(short) == "reports[0].tile_values.breakdown..bss.values has 3 values for 1,472 tiles"
    assert error({"schema": "memreport-diff/1", "tiles": []}).startswith("a memreport diff (memreport-diff/1) "
                                                                         "compares two reports and is not one")
    assert error({"schema": "memreport/1", "reports": {}}) == "reports must be a list of reports"
    none = json.loads(json.dumps(good))
    none["reports"][0]["tile_values"] = None
    assert error(none) == "reports[0] holds none of tile_values, printed or tensor_map_data: nothing to read back"
    bad_target = json.loads(json.dumps(good))
    bad_target["reports"][0]["target"]["arch"] = "ipu9"
    assert error(bad_target) == "reports[0].target: unknown arch 'ipu9'"


def test_a_stated_target_its_own_figures_contradict_is_a_read_error(tmp_path):
    """A saved tensor map whose stated tile count was edited below the map's: one line naming the file (it was
    "this is a memreport bug")."""
    saved = tmp_path / "tm.json"
    assert CliRunner().invoke(main, ["export", str(SAMPLES / "tensor_map.json"), "-o", str(saved)]).exit_code == 0
    doc = json.loads(saved.read_text())
    doc["reports"][0]["stated_target"]["num_tiles"] = 0
    saved.write_text(json.dumps(doc))
    with pytest.raises(ReadError, match=r"^.*tm\.json: the tensor map uses 1,216 tiles, the target has 0$"):
        memreport.read_all(saved)
