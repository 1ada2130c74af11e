"""The JSON structure scanner: tokens outside strings (escapes included), a top-level list found by its key, and
its items delimited chunk by chunk exactly as a decoder reads them."""
from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memreport.readers.documents.json_scan import Malformed, list_batches, tokens, top_level_list


def items_of(data: bytes, chunk: int) -> list:
    """The list ``vars`` as the scanner delimits it, each item decoded by orjson."""
    found = []
    for batch in list_batches(data, top_level_list(data, "vars"), chunk):
        firsts, ends = batch.spans()
        found += [orjson.loads(data[a:b]) for a, b in zip(firsts.tolist(), ends.tolist())]
    return found


def test_tokens_are_the_structural_bytes_outside_strings():
    data = b'{"a:b": "x,y]{", "c\\"d": [1, "\\\\"], "e": "\\\\\\""}'
    found = tokens(data, 0, len(data))
    assert found.chars.tobytes() == b"{:,:[,],:}"
    assert [data[p:p + 1] for p in found.positions.tolist()] == [bytes([c]) for c in found.chars.tobytes()]


def test_the_list_is_the_top_level_key_not_a_string_or_a_nested_key():
    data = b'{"x": {"vars": [1]}, "s": "\\"vars\\": [2]", "vars" :\n [ 3, 4 ], "z": 5}'
    assert data[top_level_list(data, "vars"):].startswith(b"[ 3")
    with pytest.raises(Malformed):
        top_level_list(b'{"vars": 5}', "vars")
    with pytest.raises(Malformed):
        top_level_list(b'{"other": [1]}', "vars")
    with pytest.raises(Malformed):
        top_level_list(b'[{"vars": [1]}]', "vars")


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_items_are_delimited_as_a_decoder_reads_them_whatever_the_chunk(chunk):
    doc = {"numTiles": 2, "after": [9],
           "vars": [{"var": i, "info": {"name": 'a,b]}{["' + str(i) + "\\", "tags": [i, [i]], "n": None}}
                    for i in range(40)]}
    for text in (json.dumps(doc).encode(), json.dumps(doc, indent=3).encode(), orjson.dumps(doc)):
        assert items_of(text, chunk) == doc["vars"]


def test_an_empty_list_has_no_item_and_a_broken_one_is_malformed():
    assert items_of(b'{"vars": [ ], "a": 1}', 4) == []
    for broken in (b'{"vars": [1, 2', b'{"vars": [1, 2}'):
        with pytest.raises(Malformed):
            list(list_batches(broken, top_level_list(broken, "vars"), 4))
    text = b'{"vars": [x ]}'  # delimited, not vouched for: decoding the item is what fails
    (batch,) = list_batches(text, 9, 4)
    assert [text[a:b] for a, b in zip(*batch.spans())] == [b"x "]


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(alphabet='ab,:[]{}"\\ é\n'),
                           lambda children: st.lists(children, max_size=3) |
                           st.dictionaries(st.text(alphabet='k:",\\', max_size=3), children, max_size=3),
                           max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(st.lists(json_values, max_size=12), st.integers(1, 50), st.booleans())
def test_any_list_is_delimited_into_its_items(values, chunk, spaced):
    text = json.dumps({"pre": "[", "vars": values, "post": {"vars": 1}}, indent=1 if spaced else None).encode()
    assert items_of(text, chunk) == orjson.loads(text)["vars"]  # each item as orjson decodes it whole (an int past
    # 64 bits is a float to orjson either way): the delimiting is what is tested
