"""The lowered-variables report (docs/FORMATS.md §11): figures worked out by hand, recognised by content, every
damaged form one ReadError saying where, and the streamed reading equal to the reference one."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memreport.errors import ReadError
from memreport.model import TileReport
from memreport.readers import read_path
from memreport.readers.documents import lowered_vars
from memreport.readers.documents.document import decode_json
from memreport.readers.documents.lowered_vars import lowered_report, report_from_tree
from tests.synth import lowered as synth

COLUMNS = ("tile", "offset", "size", "category", "always_live", "interleaved", "name_index", "var_id",
           "equivalence_class")


def same_reports(a: TileReport, b: TileReport) -> None:
    """Every figure and every variable of two readings equal."""
    for key in ("excluding_gaps", "including_gaps"):
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
    columns = [{k: c.values.tolist() for k, c in r.breakdown.items()} for r in (a, b)]
    assert columns[0] == columns[1]
    assert {k: v.tolist() for k, v in a.regions.items()} == {k: v.tolist() for k, v in b.regions.items()}
    assert (a.notes, a.info, a.target, a.stated) == (b.notes, b.info, b.target, b.stated)
    va, vb = a.variables, b.variables
    assert va is not None and vb is not None
    for key in COLUMNS:
        np.testing.assert_array_equal(getattr(va, key), getattr(vb, key), err_msg=key)
    assert (va.names, va.categories, va.num_tiles, va.tile_memory) == (vb.names, vb.categories, vb.num_tiles,
                                                                      vb.tile_memory)
    ia, ib = va.interference, vb.interference
    assert (ia is None) == (ib is None)
    if ia is not None and ib is not None:
        for key in ("classes", "indptr", "indices"):
            np.testing.assert_array_equal(getattr(ia, key), getattr(ib, key))


def test_the_known_overlaps_give_the_figures_worked_out_by_hand(tmp_path):
    _, doc = synth.known_overlaps()
    path = tmp_path / "vars.json"
    path.write_bytes(synth.encode(doc))
    (report,) = read_path(path)
    assert isinstance(report, TileReport) and report.format == "lowered-vars"
    assert report.format_name == "lowered-variables report"
    assert report.excluding_gaps.tolist() == [1756, 600, 0]
    assert report.including_gaps.tolist() == [4352, 700, 0]
    assert {k: c.values.tolist() for k, c in report.breakdown.items()} == {"variable": [1756, 300, 0],
                                                                           "stack": [0, 300, 0]}
    assert all(c.counted for c in report.breakdown.values()) and report.breakdown_kind == "category"
    assert {k: v.tolist() for k, v in report.regions.items()} == {"non_interleaved": [1500, 600, 0],
                                                                  "interleaved": [256, 0, 0]}
    assert (report.target.num_tiles, report.target.bytes_per_tile, report.target.arch,
            report.target.tiles_per_ipu) == (3, 638_976, None, None)
    assert report.notes == (
        "2 tile(s) hold variables whose ranges overlap (never live at the same time): a shared byte counts once, "
        "for the category of the variable laid lowest (docs/FORMATS.md §11)",
        '1 variable(s) not allocated ("allocated": false): in no tile\'s memory',
        "the report names no architecture and no tiles per IPU: IPUs unknown unless --arch gives them")
    assert report.info == {
        "variables": {"allocated": 6, "not_allocated": 1, "names": 6, "categories": ["variable", "stack"],
                      "equivalence_classes": 3, "interference": True},
        "target_memory": {"tileMemory": 638_976, "interleavedMemoryStart": 524_288,
                          "memoryElementOffsets": [0, 65_536, 131_072], "supervisorInstrFetchDelay": 3}}
    v = report.variables
    assert v.names == ("acts/a", "acts/b", "weights", "momentum", "grad", "scratch")
    assert v.var_id.tolist() == [0, 1, 2, 3, 4, 5] and v.tile.tolist() == [0, 0, 0, 0, 1, 1]
    assert v.equivalence_class.tolist() == [1, 2, -1, -1, 1, 3]
    assert v.frees(0).tolist() == [400, 0, 500, 256] and v.frees(1).tolist() == [200, 300]
    assert v.frees_of(0, [0, 1]) == 1000 and v.frees_of(0, [1]) == 0
    assert [(r.name, r.bytes, r.frees, r.always_live, r.interleaved) for r in v.tile_variables(0)] == [
        ("acts/a", 1000, 400, False, False), ("acts/b", 600, 0, False, False), ("weights", 500, 500, True, False),
        ("momentum", 256, 256, True, True)]


def test_compact_spaced_and_reordered_files_read_the_same(tmp_path):
    _, doc = synth.known_overlaps()
    reference = report_from_tree(json.loads(synth.encode(doc)), "vars.json")
    reordered = dict(reversed(list(doc.items())))  # allocationOrderByTile first, vars last
    for i, data in enumerate((synth.encode(doc), synth.encode(doc, spaced=True), synth.encode(reordered))):
        path = tmp_path / f"vars{i}.json"
        path.write_bytes(data)
        (report,) = read_path(path)
        same_reports(report, reference.evolve(source=str(path)))


def test_content_decides_not_the_name(tmp_path):
    _, doc = synth.known_overlaps()
    path = tmp_path / "lowered.dump"
    path.write_bytes(synth.encode(doc))
    assert read_path(path)[0].format == "lowered-vars"
    ahead = {"someLaterKey": ["x" * 100] * 60, **doc}  # the telling keys past the first 4 KiB: read all the same
    path = tmp_path / "late.json"
    path.write_bytes(synth.encode(ahead))
    assert read_path(path)[0].excluding_gaps.tolist() == [1756, 600, 0]


@pytest.mark.parametrize("name", sorted(synth.damaged()))
def test_each_damaged_form_is_one_read_error_saying_where(tmp_path, name):
    data, words = synth.damaged()[name]
    path = tmp_path / "vars.json"
    path.write_bytes(data)
    with pytest.raises(ReadError) as caught:
        read_path(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and words in message and "\n" not in message


def test_record_errors_give_the_record_s_byte_offset(tmp_path):
    data, _ = synth.damaged()["size a string"]
    with pytest.raises(ReadError) as caught:
        lowered_report(data, "vars.json")
    offset = caught.value.offset
    assert offset is not None and data[offset:].startswith(b'{"var":3,')


def test_equivalence_classes_and_interference_as_the_file_gives_them():
    _, doc = synth.known_overlaps()
    doc["equivalenceClassInterference"] = {"1": [3], "3": [1], "7": []}  # an object keyed by class id
    doc["vars"][0]["info"]["equivalenceClass"] = -1  # Poplar's "none", perhaps
    del doc["vars"][1]["info"]["equivalenceClass"]
    report = lowered_report(synth.encode(doc), "vars.json")
    v = report.variables
    assert v.equivalence_class.tolist() == [-1, -1, -1, -1, 1, 3]
    assert v.interference.classes.tolist() == [1, 3, 7]
    assert v.live_with(4).tolist() == [5]  # grad (class 1) with scratch (class 3)
    assert v.live_with(0) is None  # no class: the file does not say
    assert v.live_with(2).tolist() == [0, 1, 3]  # always live: with everything on its tile


def test_the_fast_reading_takes_every_record_written_alike(monkeypatch):
    """Of a regular file, only the last record (which the list's end follows) goes to the reference reading: the
    streamed reading's point."""
    calls = []
    reference = lowered_vars.record_fields
    monkeypatch.setattr(lowered_vars, "record_fields", lambda *a: calls.append(a[1]) or reference(*a))
    variables = [synth.Var(t % 4, f"w{t % 7}", 64 * t, 64) for t in range(500)]
    for spaced in (False, True):
        data = synth.encode(synth.lowered_doc(variables, 4), spaced=spaced)
        for chunk in (1 << 10, 1 << 20):
            calls.clear()
            report = lowered_report(data, "vars.json", chunk=chunk)
            assert len(report.variables) == 500 and calls == ["vars[499]"]


# Records as real files might vary them: other key orders, escapes, floats, nulls, nested extras, missing keys. A
# document's records share one shape, as Poplar writes them, and a few differ from it; some documents are then
# damaged by a byte.
names = st.text(alphabet='ab/:,[]{} é\u2603', min_size=0, max_size=12)
whole = st.integers(0, 700)
VARIATIONS = ("reorder", "drop", "float", "nested", "swap", "null", "negative", "unallocated", "escape", "control",
              "string")


@st.composite
def records(draw, var_id: int, extras: tuple[str, ...]) -> dict:
    info = {"allocated": True, "tile": draw(st.integers(0, 2)), "name": draw(names), "sizeBytes": draw(whole),
            "alignment": 8, "offset": draw(whole),
            "category": draw(st.sampled_from(["variable", "stack", "vertexCode"])),
            "isConstant": False, "alwaysLive": draw(st.booleans()),
            "equivalenceClass": draw(st.integers(0, 5)), "inInterleavedMem": draw(st.booleans())}
    for key in extras:
        info[key] = {"extra": "s", "nested": {"a": [1, {"b": None}]}, "empty": []}[key]
    variation = draw(st.sampled_from(VARIATIONS)) if draw(st.integers(0, 5)) == 0 else None
    if variation == "reorder":
        info = dict(reversed(list(info.items())))
    elif variation == "drop":
        info.pop(draw(st.sampled_from(sorted(info))))
    elif variation == "float":
        info["sizeBytes"] = float(info["sizeBytes"])  # an integral float: still a whole number
    elif variation == "nested":
        info["offset"] = {"at": info["offset"]}
    elif variation == "swap":  # two keys of one length change places: the same tokens, other fields
        info["alwaysLive"], info["isConstant"] = info["isConstant"], info["alwaysLive"]
        info = {{"alwaysLive": "isConstant", "isConstant": "alwaysLive"}.get(k, k): v for k, v in info.items()}
    elif variation == "null":
        info[draw(st.sampled_from(["equivalenceClass", "name", "tile"]))] = None
    elif variation == "negative":
        info[draw(st.sampled_from(["equivalenceClass", "offset"]))] = -3
    elif variation == "unallocated":
        info = {"allocated": False, "name": info["name"]}
    elif variation == "escape":
        info[draw(st.sampled_from(["name", "category"]))] += draw(st.sampled_from(['"', "\\", "\n", "\u00e9"]))
    elif variation == "control":
        info["name"] += "\x01"
    elif variation == "string":
        info[draw(st.sampled_from(["tile", "alwaysLive", "allocated"]))] = "1"
    return {"var": var_id, "info": info}


@st.composite
def documents(draw) -> bytes:
    extras = tuple(draw(st.lists(st.sampled_from(["extra", "nested", "empty"]), max_size=2, unique=True)))
    items = [draw(records(i, extras)) for i in range(draw(st.integers(0, 30)))]
    doc = {"numTiles": 3, "targetMemoryInfo": {"tileMemory": 1500}, "vars": items,
           "equivalenceClassInterference": [[1], [0], []]}
    data = json.dumps(doc, indent=draw(st.sampled_from([None, 1])),
                      ensure_ascii=draw(st.sampled_from([False, False, False, True]))).encode()
    if draw(st.integers(0, 2)) == 0:  # a byte damaged: anywhere, or one of the punctuation and values between strings
        places = [i for i, c in enumerate(data) if c in b"0123456789tfnul:,{}[] "] or [0]
        at = draw(st.sampled_from(places) | st.integers(0, len(data) - 1))
        data = data[:at] + draw(st.sampled_from([b'"', b"\\", b":", b",", b"{", b"]", b"7", b"-", b" ", b"\x01",
                                                 b"\xff", b"t", b"x", b".", b"0"])) + data[at + 1:]
    return data


def outcome(read) -> object:
    try:
        return read()
    except ReadError as exc:
        return re.sub(r" \(at byte offset \d+\)$", "", exc.message)


def reference_reading(data: bytes) -> TileReport:
    tree = decode_json(data)
    if not lowered_vars.is_lowered_vars(tree):
        raise ReadError("not a lowered-variables report")
    return report_from_tree(tree, "v.json")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.sampled_from([16, 300, 1000, 4096, 1 << 20]))
def test_the_streamed_reading_is_the_reference_reading(data, chunk):
    streamed = outcome(lambda: lowered_report(data, "v.json", chunk=chunk))
    reference = outcome(lambda: reference_reading(data))
    if isinstance(reference, str) or isinstance(streamed, str):
        assert isinstance(reference, str) and isinstance(streamed, str)
        if not reference.startswith("not a lowered"):
            assert streamed == reference
    else:
        same_reports(streamed, reference)


EDITS = [  # one record in the middle of a regular file, changed: read as the reference reads it, or refused as it is
    (b'"isConstant":false', b'"isConstant":fxlse'), (b'"alignment":8', b'"alignment":8x'),
    (b'"alignment":8', b'"alignment":08'), (b'"alignment":8', b'"alignment":-'), (b'"tile":0', b'"tile":0.0'),
    (b'"tile":0', b'"tile":0.5'), (b'"tile":0', b'"tile" :0'), (b',"name":', b',"name";'), (b'"tile":0', b'"tile":-0'),
    (b'{"var":4', b' {"var":4'), (b'{"var":4', b'["var":4'), (b'"name":"w4"', b'"name":"w\x014"'),
    (b'"name":"w4"', b'"name":"w\\"4"'), (b'"name":"w4"', b'"name":"w\xff4"'), (b'"var":4', b'"vaq":4'),
    (b'"sizeBytes":64', b'"sizeBytes":6400000000000000000000'), (b'"alwaysLive":false', b'"alwaysLive":null'),
    (b'"equivalenceClass":0', b'"equivalenceClass":null'), (b'"equivalenceClass":0', b'"equivalenceClass":"0"'),
    (b'}},{"var":5', b'}} ,{"var":5'), (b'}},{"var":5', b'}}},{"var":5'),
    (b'"inInterleavedMem":false}', b'"inInterleavedMem":false,}'),
]


@pytest.mark.parametrize(("old", "new"), EDITS)
def test_one_record_written_otherwise_reads_as_the_reference_reads_it(old, new):
    data = synth.encode(synth.lowered_doc([synth.Var(0, f"w{t}", 64 * t, 64) for t in range(10)], 1))
    at = data.find(old, data.find(b'"var":4') - 2)
    assert at > 0
    data = data[:at] + new + data[at + len(old):]
    streamed = outcome(lambda: lowered_report(data, "v.json"))
    reference = outcome(lambda: reference_reading(data))
    if isinstance(reference, str) or isinstance(streamed, str):
        assert streamed == reference
    else:
        same_reports(streamed, reference)
