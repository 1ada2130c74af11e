"""The array-producing JSON and CBOR decoders against the ordinary ones (orjson/json, cbor2).

A profile read through them must give the same report, and a damaged one
the same error, as one read the ordinary way.
"""
from __future__ import annotations

import random

import numpy as np
import orjson
import pytest

from memreport.errors import ReadError
from memreport.readers import ReadOptions
from memreport.readers.documents import bulk_decode, profile
from memreport.readers.documents.document import decode_cbor, decode_json
from tests.readers.documents.conftest import same
from tests.synth.profile import build_profile, encode_cbor, encode_json, wrap

TILES = 700  # enough for every per-tile list to take the array path


def doc(seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    excluding = rng.integers(0, 300_000, TILES)
    excluding[::7] = 0
    return build_profile(excluding, including_gaps=excluding + rng.integers(0, 5000, TILES), num_ipus=1,
                         tiles_per_ipu=TILES, bytes_per_tile=262_144, always_live=excluding // 3,
                         not_always_live_max=excluding - excluding // 3)


def read(path, fast: bool, monkeypatch):
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(profile, "decode_json_arrays", lambda data: None)
            m.setattr(profile, "decode_cbor_arrays", lambda data: None)
        reader = profile.read_json if str(path).endswith(".json") else profile.read_cbor
        try:
            report = reader(str(path), b"", ReadOptions())[0]
        except ReadError as exc:
            return ("error", type(exc).__name__, str(exc))
    return ("report", report.target, report.excluding_gaps.tolist(),
            None if report.including_gaps is None else report.including_gaps.tolist(),
            [(k, c.values.tolist(), c.counted) for k, c in report.breakdown.items()],
            {k: v.tolist() for k, v in report.regions.items()}, report.notes, report.info)


@pytest.mark.parametrize("wrapped", [False, True])
@pytest.mark.parametrize("indent", [False, True])
def test_json_tree_is_the_reference_tree_with_arrays(wrapped, indent):
    document = wrap(doc()) if wrapped else doc()
    document["executionProfile" if wrapped else "extra"] = {"perTile": list(range(1000))}  # not memory
    data = encode_json(document, indent=indent)
    tree = bulk_decode.decode_json_arrays(data)
    assert tree is not None and same(tree, decode_json(data))
    memory = (tree["graphProfile"] if wrapped else tree)["memory"]
    assert isinstance(memory["byTile"]["total"], np.ndarray)
    assert isinstance(tree["executionProfile" if wrapped else "extra"]["perTile"], list)


@pytest.mark.parametrize("wrapped", [False, True])
def test_cbor_tree_is_the_reference_tree_with_arrays(wrapped):
    document = wrap(doc()) if wrapped else doc()
    document["memory" if not wrapped else "graphProfile"]["memory" if wrapped else "byTile"]["negatives"] = \
        [-1, -24, -25, -256, -70000, -(2 ** 40), 2 ** 40, 2 ** 62] * 40
    data = encode_cbor(document)
    tree = bulk_decode.decode_cbor_arrays(data)
    assert tree is not None and same(tree, decode_cbor(data))


def test_json_declines_what_it_cannot_vouch_for():
    assert bulk_decode.decode_json_arrays(b'{"a": "\\" [1,2]", "memory": {}}') is None  # an escape
    assert bulk_decode.decode_json_arrays(b'{"memory": {"byTile": {"total": [1, 2]}}}') is None  # short lists
    body = b",".join(b"%d" % i for i in range(400))
    for bad in (b"01," + body, body + b",1.5", body + b",", b"+1," + body, b"1 2," + body, b"-0," + body,
                body + b",99999999999999999999"):
        assert bulk_decode._int_list(bad) is None, bad[:20]
    assert bulk_decode._int_list(b" -7,\n\t" + body + b"\r\n").tolist() == [-7] + list(range(400))
    assert bulk_decode._int_list(b" -7 ,\n" + body) is None  # valid, but not as json.dump writes: left to orjson


@pytest.mark.parametrize("mixed", [False, True])
@pytest.mark.parametrize("encoding", ["json", "cbor"])
def test_damaged_profiles_read_exactly_like_the_reference(tmp_path, monkeypatch, encoding, mixed):
    rng = random.Random(3)
    document = mixed_doc(300) if mixed else doc()  # mixed: integers of several widths (CBOR decoded as a chain)
    from memreport.readers.documents import cbor_ints
    monkeypatch.setattr(cbor_ints, "CHAIN_MIN_ITEMS", 256)
    base = encode_json(document, indent=True) if encoding == "json" else encode_cbor(document)
    path = tmp_path / f"p.{encoding}"
    outcomes = set()
    for trial in range(80 if mixed else 300):  # the mixed profile has 54 lists to the other's 9
        blob = bytearray(base)
        for _ in range(rng.choice([1, 1, 3])):
            at = rng.randrange(len(blob))
            if encoding == "json":
                blob[at] = ord(rng.choice('0123456789,-. "[]{}x\n+'))
            else:
                blob[at] = rng.randrange(256)
        if rng.random() < 0.1:
            blob = blob[:rng.randrange(len(blob))]
        path.write_bytes(bytes(blob))
        expected = read(path, False, monkeypatch)
        outcomes.add(expected[0])
        assert read(path, True, monkeypatch) == expected, trial
    assert outcomes == {"report", "error"}


def test_random_integer_lists_match_orjson():
    rng = random.Random(5)
    alphabet = [b"0", b"1", b"9", b"-", b",", b" ", b"\n", b"\t", b"+", b"."]
    for _ in range(20_000):
        body = b"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9)))
        values = bulk_decode._int_list(body)
        if values is None:
            continue
        assert orjson.loads(b"[" + body + b"]") == values.tolist(), body


def with_booleans(document: dict, tiles: dict[int, bool]) -> dict:
    total = [int(v) for v in document["memory"]["byTile"]["total"]]
    for tile, flag in tiles.items():
        total[tile] = flag
    document["memory"]["byTile"]["total"] = total
    return document


@pytest.mark.parametrize("suffix", [".json", ".cbor"])
@pytest.mark.parametrize("tiles,first", [({5: True, 9: False}, "[5] must be an integer, not a boolean True"),
                                         ({0: False}, "[0] must be an integer, not a boolean False")])
def test_a_boolean_in_a_per_tile_list_is_refused_alike_by_both_paths(tmp_path, monkeypatch, suffix, tiles, first):
    """true/false are not byte counts: numpy and array.array would read them as 1 and 0."""
    document = with_booleans(doc(), tiles)
    path = tmp_path / f"profile{suffix}"
    path.write_bytes(encode_json(document) if suffix == ".json" else encode_cbor(document))
    expected = ("error", "ReadError", f"memory.byTile.total{first}")
    assert read(path, True, monkeypatch) == read(path, False, monkeypatch) == expected


def test_the_json_fast_path_declines_a_list_holding_true_or_false():
    assert bulk_decode._int_list(b"1000,true,false,1000") is None
    assert bulk_decode._int_list(b"1000, 7 ,false") is None
    assert bulk_decode._int_list(b"1000, 7") is not None


def nested_maps(maps: int, lists: int) -> bytes:
    """A profile-like CBOR document: ``maps`` maps (one key each) around ``lists`` nested lists."""
    return b"\xd9\xd9\xf7" + b"\xa1\x66memory" + b"\xa1\x61a" * (maps - 1) + b"\x81" * lists + b"\x00"


@pytest.mark.parametrize("maps,lists", [(200, 200), (10, 246), (10, 247), (16, 240), (16, 241), (17, 200),
                                        (3, 2)])
def test_hand_walked_maps_count_towards_the_nesting_limit(tmp_path, monkeypatch, maps, lists):
    """cbor2 counts nesting afresh in each decode(): the maps the fast path walks must count too."""
    data = nested_maps(maps, lists)
    path = tmp_path / "deep.cbor"
    path.write_bytes(data)
    fast, reference = read(path, True, monkeypatch), read(path, False, monkeypatch)
    assert fast == reference
    deep = maps + lists > 256
    assert deep == ("maximum container nesting depth (256) exceeded" in str(reference))
    tree = bulk_decode.decode_cbor_arrays(data)
    if deep:
        assert tree is None
    elif tree is not None:
        assert same(tree, decode_cbor(data))


# ---------------------------------------------------------------- tensor maps (issue #16, item 12)

def pairs_same(tree, reference) -> bool:
    """Trees equal, (n, 2) arrays standing for lists of [tile, elements] pairs."""
    if isinstance(tree, np.ndarray):
        return isinstance(reference, list) and tree.tolist() == reference
    return same(tree, reference) if not isinstance(tree, (dict, list)) else (
        type(tree) is type(reference) and len(tree) == len(reference) and all(
            pairs_same(a, b) for a, b in (zip(tree.values(), reference.values()) if isinstance(tree, dict)
                                          else zip(tree, reference))))


def tensor_map_json(indent: bool = False) -> bytes:
    from tests.synth.profile import build_tensor_map, tensor_entry
    rng = np.random.default_rng(5)
    tensors = [tensor_entry(f"t{i}[[0]]", [(int(t), int(e)) for t, e in zip(rng.integers(0, 1472, 40),
                                                                            rng.integers(0, 2 ** 40, 40))])
               for i in range(30)]
    tensors.append(tensor_entry("empty", []))
    return encode_json(build_tensor_map({"cluster[[1]]": tensors, "other": tensors[:2]}), indent=indent)


@pytest.mark.parametrize("indent", [False, True])
def test_tensor_map_pairs_become_arrays_of_the_same_pairs(indent, monkeypatch):
    data = tensor_map_json(indent)
    tree = bulk_decode.decode_tensor_map_json(data)
    assert tree is not None and pairs_same(tree, decode_json(data))
    assert isinstance(tree["mappings"]["other"][0][7], np.ndarray)
    monkeypatch.setattr(bulk_decode, "PAIR_CHUNK", 5)  # a list parsed in pieces reads the same
    assert pairs_same(bulk_decode.decode_tensor_map_json(data), decode_json(data))


@pytest.mark.parametrize("pairs", [b"[[1,2,3],[4]]", b"[[1,2][3,4]]", b"[[01,2]]", b"[[1,,2]]", b"[[1,2],,[3,4]]",
                                   b"[[-1,2]]", b"[[1,2.5]]", b"[[1e3,2]]", b"[[1,2],[3,4],]", b"[[1, 2]\v]",
                                   b"[[99999999999999999999,1]]"])
def test_pair_lists_json_would_refuse_or_read_otherwise_are_left_to_the_reference(pairs):
    data = b'{"mappings": {"m": [["w", 0, [4], "float", 0, 0, 4, ' + pairs + b']]}}'
    tree = bulk_decode.decode_tensor_map_json(data)
    if tree is not None:  # declined pair lists stay lists, decoded the ordinary way
        assert isinstance(tree["mappings"]["m"][0][7], list) and tree == decode_json(data)


def test_a_large_tensor_map_reads_in_a_few_times_its_size(tmp_path):
    """A tensor map took 11x its size (orjson: a list and two ints per pair); now the pairs go to arrays."""
    from memreport.readers import read_path
    from tests.conftest import traced_peak
    from tests.synth.profile import build_tensor_map, tensor_entry
    pairs = [(t % 1472, 1000 + t) for t in range(300_000)]
    path = tmp_path / "tensor_map.json"
    path.write_bytes(encode_json(build_tensor_map({"m": [tensor_entry("w", pairs[:150_000]),
                                                        tensor_entry("b", pairs[150_000:], element_type="half")]})))
    size = path.stat().st_size
    (report,), peak = traced_peak(lambda: read_path(path))
    assert report.tensor_map.elements_by_tile.sum() == sum(e for _, e in pairs)
    assert peak < 5 * size, (peak, size)  # 25 times before


def test_many_open_pair_brackets_decode_in_linear_time():
    """Found by fuzzing: 32,000 "[[1,," before the one "]]" made every "[[" parse to it (30 s for 196 KB)."""
    import time
    data = b'{"mappings": {"m": [["w", 0, [4], "float", 0, 0, 4, ' + b"[[1,, " * 100_000 + b"[[0, 1]]]]}}"
    started = time.monotonic()
    assert bulk_decode.decode_tensor_map_json(data) is None  # no list of pairs: decoded the ordinary way
    assert time.monotonic() - started < 5  # a hang guard, not a benchmark (it takes milliseconds)


# ---------------------------------------------------------------- mixed integer widths (issue #26, item 8)

def mixed_doc(tiles: int = 700, seed: int = 2) -> dict:
    from tests.synth.profile import mixed_profile
    return mixed_profile(tiles, seed=seed, num_ipus=1, tiles_per_ipu=tiles, bytes_per_tile=638_976)


@pytest.mark.parametrize("encoding", ["json", "indented", "spaced", "cbor"])
def test_a_realistic_profile_decodes_to_the_reference_tree(encoding, tmp_path, monkeypatch):
    """Most values small, a third of them 0: CBOR items of 1, 2 and 3 bytes mixed, JSON numbers of 1 to 5 digits."""
    import json

    from memreport.readers.documents import cbor_ints
    monkeypatch.setattr(cbor_ints, "CHAIN_MIN_ITEMS", 256)  # the chain for these 700-tile lists too

    from tests.synth.profile import _plain
    document = mixed_doc()
    data = {"json": lambda: encode_json(document), "indented": lambda: encode_json(document, indent=True),
            "spaced": lambda: json.dumps(document, default=_plain).encode(), "cbor": lambda: encode_cbor(document)}[
        encoding]()
    if encoding == "cbor":
        tree, reference = bulk_decode.decode_cbor_arrays(data), decode_cbor(data)
    else:
        tree, reference = bulk_decode.decode_json_arrays(data), decode_json(data)
    assert tree is not None and same(tree, reference)
    assert isinstance(tree["memory"]["byCategory"]["stack"]["overflowed"]["nonOverlapped"], np.ndarray)
    path = tmp_path / ("p.cbor" if encoding == "cbor" else "p.json")
    path.write_bytes(data)
    assert read(path, True, monkeypatch) == read(path, False, monkeypatch)


def cbor_list(values: list) -> tuple[bytes, int]:
    """A CBOR array after two bytes of something else and before a text string: (data, where its items start)."""
    import cbor2
    body = cbor2.dumps(values)
    head = 1 + {24: 1, 25: 2, 26: 4, 27: 8}.get(body[0] & 31, 0)
    return b"\x00\x01" + body + b"\x61a", 2 + head


def lists_of_mixed_widths():
    rng = np.random.default_rng(9)
    realistic = rng.integers(0, 20_001, 5000)
    realistic[rng.random(5000) < 0.3] = 0
    yield "realistic", realistic.tolist()
    yield "signed", rng.choice([0, 1, 23, 24, 255, 256, 65535, 65536, 2**32, 2**40, -1, -24, -25, -300, -2**40],
                               3000).tolist()
    yield "alternating 1 and 3 bytes", [0, 300] * 1500
    yield "one width", [6425] * 3000  # 0x19 0x19 0x19...: every byte could start an item
    yield "widths 1, 2, 3, 5, 9 in turn", [7, 100, 1000, 100_000, 2**50] * 600
    yield "int64 limits", [2**63 - 1, -2**63, 0] * 200


@pytest.mark.parametrize("name,values", list(lists_of_mixed_widths()))
def test_integer_lists_of_mixed_widths_decode_exactly(name, values, monkeypatch):
    from memreport.readers.documents import cbor_ints
    monkeypatch.setattr(cbor_ints, "CHAIN_MIN_ITEMS", 256)  # the chain for these short lists too
    data, at = cbor_list(values)
    found = cbor_ints.cbor_ints(data, at, len(values))
    assert found is not None, name
    assert found[0].tolist() == values and found[1] == len(data) - 2
    by_chain = cbor_ints._chain(np.frombuffer(data, dtype=np.uint8), at, len(values))
    if name == "one width":  # walks from the bytes inside 0x19 0x19 0x19 ... never fall in step: the runs read it
        assert by_chain is None
    else:
        assert by_chain is not None and by_chain[0].tolist() == values and by_chain[1] == len(data) - 2


@pytest.mark.parametrize("chain", [True, False])
def test_lists_the_array_decoder_must_not_read_are_declined(chain, monkeypatch):
    """Not an integer, past int64, cut short: None, and cbor2 says what is wrong."""
    from memreport.readers.documents import cbor_ints
    monkeypatch.setattr(cbor_ints, "CHAIN_MIN_ITEMS", 256)
    decode = (lambda d, at, n: cbor_ints._chain(np.frombuffer(d, dtype=np.uint8), at, n)) if chain else \
        cbor_ints.cbor_ints
    rng = np.random.default_rng(4)
    base = [int(v) for v in rng.integers(0, 20_000, 2000) * (rng.random(2000) > 0.3)]
    for bad in ([*base[:1000], "x", *base[1000:]], [*base[:1999], 2**64], [*base[:1999], -2**63 - 1],
                [*base[:1000], 1.5, *base[1000:]], [*base[:1000], True, *base[1000:]]):
        data, at = cbor_list(bad)
        assert decode(data, at, len(bad)) is None
    data, at = cbor_list(base)
    assert decode(data[:len(data) - 40], at, len(base)) is None


def test_walks_out_of_step_at_the_first_check_take_more_steps(monkeypatch):
    """Items of five widths, signs mixed: some walks have not fallen in step after the first steps (the check
    finds an item that does not end where the next begins); more steps, and the chain is exact."""
    from memreport.readers.documents import cbor_ints
    rng = np.random.default_rng(9)
    values = rng.choice([0, 1, 23, 24, 255, 256, 65535, 65536, 2**32, 2**40, -1, -24, -25, -300, -2**40],
                        3000).tolist()
    data, at = cbor_list(values)
    outcomes = []
    original = cbor_ints._read_chain

    def spy(*args):
        outcomes.append(original(*args))
        return outcomes[-1]

    monkeypatch.setattr(cbor_ints, "_read_chain", spy)
    found = cbor_ints._chain(np.frombuffer(data, dtype=np.uint8), at, len(values), item_bytes=5.0)
    assert outcomes[0] is cbor_ints._OUT_OF_STEP and len(outcomes) == 2
    assert found is not None and found[0].tolist() == values and found[1] == len(data) - 2


def test_a_saved_reports_tile_values_stay_arrays_and_the_walk_ends_at_the_last(monkeypatch):
    """memreport/1 JSON keeps per-tile lists under each report's tile_values: they stay arrays (no list of Python
    ints between), and the thousands of member names after the last array are never walked; long lists
    elsewhere (a tensor map's pairs) come back as lists, as before."""
    from memreport.readers.documents.saved import tile_values
    n = 5000
    values = {"excluding_gaps": list(range(n)), "breakdown": {".text": {"values": [7] * n}},
              "tile_names": [f"tile_{i:05d}.elf" for i in range(n)]}
    calls = []
    swap = bulk_decode._swap
    monkeypatch.setattr(bulk_decode, "_swap", lambda *a: calls.append(1) or swap(*a))
    tree = bulk_decode.decode_json_arrays(orjson.dumps({"schema": "memreport/1", "reports": [
        {"source": "a.a", "tile_values": values}]}), tile_values)
    got = tree["reports"][0]["tile_values"]
    assert isinstance(got["excluding_gaps"], np.ndarray) and got["excluding_gaps"].tolist() == list(range(n))
    assert isinstance(got["breakdown"][".text"]["values"], np.ndarray) and got["tile_names"] == values["tile_names"]
    assert len(calls) < 20  # neither the names nor their list's items were visited one by one
    elsewhere = orjson.dumps({"reports": [{"tile_values": values, "tensor_map_data": {"pair_tile": list(range(n))}}]})
    tree = bulk_decode.decode_json_arrays(elsewhere, tile_values)
    assert tree["reports"][0]["tensor_map_data"]["pair_tile"] == list(range(n))
    assert isinstance(tree["reports"][0]["tile_values"]["excluding_gaps"], np.ndarray)
    assert bulk_decode.decode_json_arrays(elsewhere)["reports"][0]["tile_values"]["excluding_gaps"] == list(range(n))
