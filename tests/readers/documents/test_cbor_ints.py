"""CBOR integer lists decoded by numpy (runs of one width, the chain of mixed widths) against cbor2 (issue #26, 8).

Every list is hand-encoded, so the items can take any of the encodings
RFC 8949 allows (additional information 0-27, minimal or not, either sign),
and compared with what cbor2 decodes from the same bytes; whatever the fast
path cannot vouch for must come back None (the caller then uses cbor2,
whose error names the offset).
"""
from __future__ import annotations

import random

import cbor2
import numpy as np
import pytest
from click.testing import CliRunner

from memreport.cli import main
from memreport.readers.documents import bulk_decode, cbor_ints
from memreport.readers.documents.document import decode_cbor
from tests.readers.documents.conftest import same
from tests.synth.profile import encode_cbor, mixed_profile

EXTRA = {24: 1, 25: 2, 26: 4, 27: 8}  # additional information 24-27: the value in the next 1, 2, 4, 8 bytes


def item(major: int, info: int, value: int = 0) -> bytes:
    """One integer item: major type 0 (value) or 1 (-1 - value), the value in the head (info < 24) or after."""
    if info < 24:
        return bytes([major << 5 | info])
    return bytes([major << 5 | info]) + value.to_bytes(EXTRA[info], "big")


def array(items: list[bytes]) -> tuple[bytes, int, int]:
    """A definite-length array of ``items`` between a byte before it and a text string after it: (data, where the
    items start, where they end)."""
    head = bytes([0x9A]) + len(items).to_bytes(4, "big")
    body = b"".join(items)
    return b"\x00" + head + body + b"\x61a", 1 + len(head), 1 + len(head) + len(body)


def random_item(rng: random.Random, info: int | None = None, major: int | None = None) -> bytes:
    info = rng.randrange(28) if info is None else info
    major = rng.randrange(2) if major is None else major
    if info < 24:
        return item(major, info)
    top = 8 * EXTRA[info]
    value = rng.choice([0, 1, 23, 24, 255, (1 << top) - 1, rng.randrange(1 << top)])  # minimal or not
    return item(major, info, value)


def reference(data: bytes, at: int, end: int) -> list | None:
    """cbor2's integers, or None when some item is not an integer that fits int64."""
    values = cbor2.loads(data[at - 5:end])
    if all(type(v) is int and -2**63 <= v < 2**63 for v in values):
        return values
    return None


def decoders(monkeypatch):
    monkeypatch.setattr(cbor_ints, "CHAIN_MIN_ITEMS", 16)
    yield "cbor_ints", cbor_ints.cbor_ints
    yield "chain", lambda data, at, count: cbor_ints._chain(np.frombuffer(data, dtype=np.uint8), at, count)


@pytest.mark.parametrize("major", [0, 1])
@pytest.mark.parametrize("info", range(28))
def test_every_width_alone_decodes_like_cbor2(info, major, monkeypatch):
    """A list of one encoding (a run): additional information 0-27, both signs, values minimal or not."""
    rng = random.Random(info * 2 + major)
    data, at, end = array([random_item(rng, info, major) for _ in range(600)])
    expected = reference(data, at, end)
    for name, decode in decoders(monkeypatch):
        found = decode(data, at, 600)
        if name == "chain" and found is None:
            continue  # walks may not fall in step on one width (0x19 0x19 ...): the runs read those
        if expected is None:
            assert found is None, name
        else:
            assert found is not None and found[0].tolist() == expected and found[1] == end, name


@pytest.mark.parametrize("seed", range(6))
def test_every_width_mixed_decodes_like_cbor2(seed, monkeypatch):
    """Every additional information 0-27 and both signs in one list, values minimal or not."""
    rng = random.Random(seed)
    items = [random_item(rng) for _ in range(3000)]
    if seed % 2:  # mostly small, as in a real profile: widths 1 and 3 dominate
        items = [item(0, 0) if rng.random() < 0.3 else item(0, 25, rng.randrange(256, 20_001)) if rng.random() < 0.9
                 else i for i in items]
    data, at, end = array(items)
    expected = reference(data, at, end)
    for name, decode in decoders(monkeypatch):
        found = decode(data, at, len(items))
        if expected is None:
            assert found is None, name
        else:
            assert found is not None and found[0].tolist() == expected and found[1] == end, name


def realistic(count: int, seed: int = 1) -> list[int]:
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 20_001, count)
    values[rng.random(count) < 0.3] = 0
    return values.tolist()


@pytest.mark.parametrize("intruder", [
    b"\xf9\x3c\x00",  # 1.0 as a half float
    b"\xfa\x3f\x80\x00\x00",  # 1.0 as a single float
    b"\xfb\x3f\xf0\x00\x00\x00\x00\x00\x00",  # 1.0 as a double
    b"\xf5", b"\xf4", b"\xf6",  # true, false, null
    b"\xc2\x41\x05",  # tag 2: a bignum 5
    b"\xc1\x1a\x00\x01\x00\x00",  # tag 1 on an integer
    b"\x61\x30",  # the text "0"
    b"\x81\x00",  # a list [0]
    b"\x1b\x80\x00\x00\x00\x00\x00\x00\x00",  # 2**63: past int64
    b"\x3b\x80\x00\x00\x00\x00\x00\x00\x00",  # -2**63 - 1
])
@pytest.mark.parametrize("where", [0, 1500, 2999])
def test_an_item_that_is_no_int64_declines(intruder, where, monkeypatch):
    """A float where an integer is expected, a tag, a simple value, a nested item, past int64: None."""
    items = [cbor2.dumps(v) for v in realistic(3000)]
    items[where] = intruder
    data, at, _ = array(items)
    for name, decode in decoders(monkeypatch):
        assert decode(data, at, 3000) is None, name


def test_a_cut_at_every_byte_of_a_list_declines(monkeypatch):
    """A list cut short anywhere (the document ends inside it) is never decoded."""
    values = realistic(150)
    data, at, end = array([cbor2.dumps(v) for v in values])
    for name, decode in decoders(monkeypatch):
        assert decode(data[:end], at, 150)[0].tolist() == values, name
        for cut in range(at, end):
            assert decode(data[:cut], at, 150) is None, (name, cut)


def test_walks_that_never_fall_in_step_decline_to_cbor2(monkeypatch):
    """Runs of 0x19 0x19 0x19 broken by a zero every 200 items: the walks inside the runs keep out of step for
    hundreds of steps. The chain declines and cbor2 reads the list."""
    values = ([6425] * 200 + [0]) * 30
    data, at, _ = array([cbor2.dumps(v) for v in values])
    monkeypatch.setattr(cbor_ints, "CHAIN_MIN_ITEMS", 16)
    assert cbor_ints._chain(np.frombuffer(data, dtype=np.uint8), at, len(values)) is None
    assert cbor_ints.cbor_ints(data, at, len(values)) is None
    document = {"memory": {"byTile": {"total": values}}}
    tree = bulk_decode.decode_cbor_arrays(cbor2.dumps(document))
    assert tree is not None and tree["memory"]["byTile"]["total"].tolist() == values


# ---------------------------------------------------------------------------- whole documents

def small_profile() -> dict:
    return mixed_profile(300, seed=5, num_ipus=1, tiles_per_ipu=300, bytes_per_tile=638_976)


def indefinite(value) -> bytes:
    """CBOR of ``value`` with every map and list of indefinite length (0xbf / 0x9f ... 0xff)."""
    if isinstance(value, dict):
        return b"\xbf" + b"".join(cbor2.dumps(k) + indefinite(v) for k, v in value.items()) + b"\xff"
    if isinstance(value, (list, np.ndarray)):
        return b"\x9f" + b"".join(indefinite(v) for v in value) + b"\xff"
    return cbor2.dumps(value.item() if isinstance(value, np.generic) else value)


@pytest.mark.parametrize("shape", ["indefinite", "indefinite lists", "tagged list", "tagged items"])
def test_documents_of_other_encodings_decode_like_cbor2(shape, monkeypatch):
    """Indefinite-length maps and lists, a tag on a list or on its items: the reference tree, or None."""
    monkeypatch.setattr(cbor_ints, "CHAIN_MIN_ITEMS", 16)
    document = small_profile()
    lists = document["memory"]["byCategory"]["stack"]
    if shape == "indefinite":
        data = indefinite(document)
    else:
        marker = "\0marker"
        lists["overflowed"] = {"nonOverlapped": marker}
        inner = {"indefinite lists": indefinite(realistic(300)),
                 "tagged list": cbor2.dumps(cbor2.CBORTag(4000, realistic(300))),
                 "tagged items": cbor2.dumps([cbor2.CBORTag(1, v) if i == 150 else v
                                              for i, v in enumerate(realistic(300))])}[shape]
        data = encode_cbor(document)
        placeholder = cbor2.dumps(marker)
        assert data.count(placeholder) == 1
        data = data.replace(placeholder, inner)
    tree = bulk_decode.decode_cbor_arrays(data)
    assert tree is None or same(tree, decode_cbor(data))
    if shape == "tagged items":  # a tag on one item: the list is cbor2's
        assert tree is not None and not isinstance(
            tree["memory"]["byCategory"]["stack"]["overflowed"]["nonOverlapped"], np.ndarray)


def test_a_cut_at_every_byte_of_a_profile_declines(monkeypatch):
    """Every strict prefix of a profile whose lists take the chain: the array decoder declines (the reader then
    gives cbor2's error, with the offset)."""
    monkeypatch.setattr(cbor_ints, "CHAIN_MIN_ITEMS", 16)
    monkeypatch.setattr(bulk_decode, "MIN_LIST_ITEMS", 16)
    document = {"target": {"numTiles": 40}, "memory": {"byTile": {"total": realistic(40)}, "byCategory": {
        "a": {"nonInterleaved": realistic(40, seed=2), "interleaved": [7] * 40}}}}
    data = encode_cbor(document)
    tree = bulk_decode.decode_cbor_arrays(data)
    assert tree is not None and same(tree, decode_cbor(data))
    assert isinstance(tree["memory"]["byTile"]["total"], np.ndarray)
    for cut in range(len(data)):
        assert bulk_decode.decode_cbor_arrays(data[:cut]) is None, cut


def test_a_truncated_profile_is_exit_1_with_the_offset(tmp_path, monkeypatch):
    """A pod-sized list cut in the middle: one line naming the file and the offset where the data ends."""
    document = {"target": {"numTiles": 20_000}, "memory": {"byTile": {"total": realistic(20_000)}}}
    data = encode_cbor(document)
    path = tmp_path / "cut.cbor"
    path.write_bytes(data[:len(data) // 2])
    result = CliRunner().invoke(main, [str(path)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"memreport: {path}: CBOR ends early: premature end of stream (expected to ")
    assert result.stderr.endswith(f" (at byte offset {len(data) // 2})\n") and result.stderr.count("\n") == 1
