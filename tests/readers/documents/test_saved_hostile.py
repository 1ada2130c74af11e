"""Saved reports as untrusted input (issue #26, item 9): every field checked, a ReadError naming its path.

A CI baseline is a file people edit and merge by hand. Before, a histogram
bin without ``low_kib`` or a ``clock_hz`` of ``"abc"`` reached "this is a
memreport bug". The property: whatever is done to a saved document's tree
(a key dropped, a value of the wrong type, NaN, a huge integer, nested
junk), reading it gives reports that go through every output, or a
ReadError, never an UnexpectedError.
"""
from __future__ import annotations

import copy
import json
import tempfile
import warnings

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

import memreport
from memreport.cli import main
from memreport.errors import ReadError
from memreport.readers.documents.saved import reports_from_document
from tests import SAMPLES
from tests.fuzzing import check_outputs, check_reading, hostile_input, hostile_tree, saved_documents, write_case

EXAMPLES = 100


def documents_by_kind() -> dict[str, dict]:
    """One saved document per kind of report: tiles (an archive with symbols), a printed summary with
    out-of-memory messages (a log), a tensor map."""
    kinds = {}
    for doc in saved_documents():
        record = doc["reports"][0]
        kind = "tiles" if record["tile_values"] else "summary" if record["printed"] else "tensor map"
        if kind == "summary" and not record.get("out_of_memory_messages"):
            continue
        if kind == "tiles" and not any(t.get("symbols") for t in record["top_tiles"]):
            continue
        kinds.setdefault(kind, doc)
    assert sorted(kinds) == ["summary", "tensor map", "tiles"]
    return kinds


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hostile_tree())
def test_a_hostile_tree_reads_or_raises_read_error(doc):
    """Straight from the tree, so NaN and infinities reach the reader too (a JSON decoder refuses them)."""
    try:
        reports = reports_from_document(doc)
    except ReadError as exc:
        assert type(exc) is ReadError and "\n" not in str(exc)
        return
    with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_outputs(reports, directory)


@pytest.mark.parametrize("shape", ["saved_json_hostile", "saved_csv_hostile"])
def test_hostile_saved_files_read_or_raise_read_error(shape):
    with tempfile.TemporaryDirectory(prefix="memreport-fuzz-") as directory:
        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(hostile_input(shape))
        def reading_holds(data: bytes) -> None:
            path = write_case(directory, shape, data)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check_reading(path)  # raises on anything but reports or a ReadError naming the file

        reading_holds()


def error_of(doc: dict) -> str:
    with pytest.raises(ReadError) as info:
        reports_from_document(doc)
    assert type(info.value) is ReadError
    return str(info.value)


def changed(kind: str, edit) -> dict:
    doc = copy.deepcopy(documents_by_kind()[kind])
    edit(doc["reports"][0])
    return doc


def drop(node: dict, key: str) -> None:
    del node[key]


@pytest.mark.parametrize("kind,edit,message", [
    ("summary", lambda r: drop(r["printed"]["histogram"]["bins"][0], "low_kib"),
     "reports[0].printed.histogram.bins[0].low_kib is missing"),
    ("summary", lambda r: r["printed"]["histogram"].update(bin_kib=0),
     "reports[0].printed.histogram.bin_kib must be positive, not 0"),
    ("summary", lambda r: r["printed"]["histogram"].update(elided_before=[1.5]),
     "reports[0].printed.histogram.elided_before[0] must be a whole number, not a number 1.5"),
    ("summary", lambda r: r["printed"].update(max_including_gaps={"tile": "3"}),
     "reports[0].printed.max_including_gaps.tile must be a whole number, not a string '3'"),
    ("summary", lambda r: r["stated_target"].update(clock_hz="abc"),
     "reports[0].stated_target.clock_hz must be a number, not a string 'abc'"),
    ("summary", lambda r: r["stated_target"].update(clock_hz=[1]), "reports[0].stated_target.clock_hz must be a "
                                                                   "number, not a list"),
    ("summary", lambda r: r["stated_target"].update(clock_hz=float("nan")),
     "reports[0].stated_target.clock_hz must be a finite number >= 0, not a number nan"),
    ("summary", lambda r: r["stated_target"].update(whole_ipus="yes"),
     "reports[0].stated_target.whole_ipus must be true or false, not a string 'yes'"),
    ("summary", lambda r: r["stated_target"].update(source_kind=3),
     "reports[0].stated_target.source_kind must be a string, not a number 3"),
    ("summary", lambda r: r["stated_target"].update(arch="ipu9"),
     "reports[0].stated_target.arch: unknown arch 'ipu9' (one of ipu1, ipu2, ipu21)"),
    ("summary", lambda r: r["stated_target"].update(num_tiles=10**9),
     "reports[0].stated_target: 1,000,000,000 tiles is beyond any IPU system (at most 2,097,152)"),
    ("summary", lambda r: r["target"].update(clock_hz={}), "reports[0].target.clock_hz must be a number, "
                                                           "not an object"),
    ("summary", lambda r: r["out_of_memory_messages"][0].update(line=True),
     "reports[0].out_of_memory_messages[0].line must be a whole number, not a boolean True"),
    ("summary", lambda r: r["out_of_memory_messages"][0].update(kind=None),
     "reports[0].out_of_memory_messages[0].kind must be a string, not null"),
    ("summary", lambda r: r.update(detailed_tiles={"tile": 1}), "reports[0].detailed_tiles must be a list, "
                                                                "not an object"),
    ("summary", lambda r: r.update(position={"line": 3, "index": 1}), "reports[0].position.count is missing"),
    ("tiles", lambda r: r["overrides"].update(tile_memory=0), "reports[0].overrides.tile_memory must be positive, "
                                                              "not 0"),
    ("tiles", lambda r: r["overrides"].update(arch=["ipu2"]), "reports[0].overrides.arch must be a string, "
                                                              "not a list"),
    ("tiles", lambda r: r["tile_values"]["breakdown"][".text"].update(counted=1),
     "reports[0].tile_values.breakdown..text.counted must be true or false, not a number 1"),
    ("tiles", lambda r: r["tile_values"].update(excluding_gaps=[1, 2, 2**64]),
     "reports[0].tile_values.excluding_gaps[2] = 18446744073709551616 is too large for 64 bits"),
    ("tiles", lambda r: r["tile_values"].update(regions=[]), "reports[0].tile_values.regions must be an object, "
                                                             "not a list"),
    ("tiles", lambda r: r.update(skipped_members=5), "reports[0].skipped_members must be a list, not a number 5"),
    ("tiles", lambda r: r.update(skipped_members=[{"tile": 0, "member": "t0", "reason": ["damaged"]}]),
     "reports[0].skipped_members[0].reason must be a string, not a list"),
    ("tiles", lambda r: r["top_tiles"][0]["symbols"].update(has_symbol_table="no"),
     "reports[0].top_tiles[0].symbols.has_symbol_table must be true or false, not a string 'no'"),
    ("tiles", lambda r: r["top_tiles"][0]["symbols"].update(symbols=[{"name": "f"}]),
     "reports[0].top_tiles[0].symbols.symbols[0].section is missing"),
    ("tiles", lambda r: r["top_tiles"][0]["symbols"].update(sections={".text": -4}),
     "reports[0].top_tiles[0].symbols.sections..text must be non-negative, not -4"),
    ("tiles", lambda r: r.update(liveness_steps=[{"bytes": 4, "children": "x"}]),
     "reports[0].liveness_steps[0].children must be a list, not a string 'x'"),
    ("tiles", lambda r: r.update(source_notes=["ok", 7]), "reports[0].source_notes[1] must be a string, "
                                                          "not a number 7"),
    ("tiles", lambda r: r.update(info=[1]), "reports[0].info must be an object, not a list"),
    ("tiles", lambda r: r.update(info={"run": {"steps": [1, float("inf")]}}),
     "reports[0].info.run.steps[1] must be a finite number, not inf (NaN and Infinity are not JSON)"),
    ("summary", lambda r: r["detailed_tiles"][0].update(extra={"memory_scope": float("nan")}),
     "reports[0].detailed_tiles[0].extra.memory_scope must be a finite number, not nan (NaN and Infinity are "
     "not JSON)"),
    ("tensor map", lambda r: r["tensor_map_data"]["tensors"][0].__setitem__(5, 1),
     "reports[0].tensor_map_data.tensors[0][5] must be true or false, not a number 1"),
    ("tensor map", lambda r: r["tensor_map_data"]["tensors"][0].__setitem__(3, 7),
     "reports[0].tensor_map_data.tensors[0][3] must be a list of whole numbers, not a number 7"),
    ("tensor map", lambda r: r["tensor_map_data"]["tensors"][0].__setitem__(0, None),
     "reports[0].tensor_map_data.tensors[0][0] must be a string, not null"),
    ("tensor map", lambda r: r["tensor_map_data"].update(tensors=[[1, 2]]),
     "reports[0].tensor_map_data.tensors[0] must be a list of 9 fields, not a list"),
    ("tensor map", lambda r: drop(r["tensor_map_data"], "pair_tile"), "reports[0].tensor_map_data.pair_tile is "
                                                                      "missing"),
])
def test_each_field_is_checked_and_named(kind, edit, message):
    assert error_of(changed(kind, edit)) == message


def test_the_issues_reproducers_exit_1_naming_the_field(tmp_path):
    for value, expected in (("abc", "a string 'abc'"), ([1], "a list")):
        doc = changed("summary", lambda r, v=value: r["stated_target"].update(clock_hz=v))
        path = tmp_path / "baseline.json"
        path.write_text(json.dumps(doc))
        result = CliRunner().invoke(main, [str(path)])
        assert result.exit_code == 1, result.output
        assert result.output == (f"memreport: {path}: reports[0].stated_target.clock_hz must be a number, "
                                 f"not {expected}\n")


def test_a_member_name_that_is_no_string_is_named_by_its_index(tmp_path):
    document = json.loads(CliRunner().invoke(main, [str(SAMPLES / "mk2_1472_tiles.a"), "--format", "json"]).stdout)
    document["reports"][0]["tile_values"]["tile_names"][1400] = 1400
    (tmp_path / "saved.json").write_text(json.dumps(document))
    with pytest.raises(ReadError, match=r"reports\[0\]\.tile_values\.tile_names\[1400\] must be a string, not a "
                                        r"number 1400"):
        memreport.read(tmp_path / "saved.json")
