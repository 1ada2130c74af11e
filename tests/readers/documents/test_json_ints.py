"""The eight-bytes-an-item JSON integer list reader against orjson and json: the same numbers for every list
it takes, None for every other."""
from __future__ import annotations

import json
import random

import numpy as np
import orjson
import pytest

from memreport.readers.documents import json_ints
from memreport.readers.documents.json_ints import int_list

ACCEPTED = [
    (b"7", [7]),
    (b"0", [0]),
    (b"-7", [-7]),
    (b"0,1,22,333", [0, 1, 22, 333]),
    (b"0, 1, 22, 333", [0, 1, 22, 333]),  # json.dump's ", "
    (b"\n  12345678,\n  0,\n  -5\n", [12345678, 0, -5]),  # json.dump(indent=2): whitespace after commas only
    (b"1,\t2,\r\n3  ", [1, 2, 3]),
    (b"99999999,100000000", [99999999, 100000000]),  # eight digits in one word, nine in two
    (b"123456789012345678,-123456789012345678", [123456789012345678, -123456789012345678]),  # 18 digits
    (b"1,1234567890123456,10", [1, 1234567890123456, 10]),  # sixteen digits: two full words, then none
    (b"-1,-20,300", [-1, -20, 300]),
]
DECLINED = [
    b"", b"   ", b"\n",
    b"01", b"1,007", b"00",  # leading zeros
    b"+1", b"1,+2",  # a plus sign
    b"-0", b"1,-0,2", b"-00",  # minus zero (JSON's, but a float to some decoders)
    b"1.5", b"1,2.0", b"1e3", b"1E3", b"2,1e-3",  # fractions and exponents
    b"1 ,2", b"1\t,2", b"1\n,2",  # whitespace before a comma: valid, left to the reference decoder
    b"1 2", b"12 34,5", b"1,2 3",  # whitespace inside an item
    b"- 5", b"1,-\t5", b"--5", b"5-", b"1,-,2", b"-",  # a minus not just before its digits
    b"1234567890123456789", b"9223372036854775807", b"99999999999999999999",  # 19 digits and more
    b"18446744073709551616", b"-9223372036854775809", b"1" * 40,  # past int64, past uint64
    b"1,", b"1,2,", b",1", b"1,,2", b"1, ,2", b",",  # empty items
    b"1,\v2", b"1,\f2", b"1,\x002", b"1,\xa02", b"1,\xc2\xa02", b"\xef\xbb\xbf1",  # not JSON's whitespace
    b"true", b"1,false", b"null,1", b'"1"', b"[1]", b"1,[2]", b"0x10",
]


@pytest.mark.parametrize(("body", "expected"), ACCEPTED)
def test_lists_json_dump_writes_read_as_orjson_reads_them(body, expected):
    assert orjson.loads(b"[" + body + b"]") == expected
    values, negative = int_list(body)
    assert values.dtype == "int64" and values.tolist() == expected and negative == (min(expected) < 0)


@pytest.mark.parametrize("body", DECLINED)
def test_anything_else_is_declined(body):
    assert int_list(body) is None
    assert int_list(b"1,2,3,4,5,6,7,8,9,10," + body) is None  # past the first word's early bytes too


def test_lists_longer_than_a_chunk_are_cut_after_a_comma(monkeypatch):
    monkeypatch.setattr(json_ints, "CHUNK", 16)
    values = [random.Random(2).randrange(-10**12, 10**12) for _ in range(300)]
    for separators in ((",", ":"), (", ", ": ")):
        body = json.dumps(values, separators=separators)[1:-1].encode()
        assert int_list(body)[0].tolist() == values
        assert int_list(body + b",") is None and int_list(body + b",,1") is None


def random_item(rng: random.Random) -> str:
    digits = rng.choice([1, 1, 2, 5, 8, 9, 16, 17, 18, 19, 20])
    number = str(rng.randrange(10 ** (digits - 1) if digits > 1 else 0, 10 ** digits))
    text = rng.choice(["", "", "", "-"]) + number
    if rng.random() < 0.03:  # a flaw JSON or the fast path refuses
        text = rng.choice(["0" + text, "+" + text, text + ".0", text + "e1", "- " + number, text[:1] + " " + text[1:],
                           "", "-0", text + " "])
    return rng.choice(["", "", " ", "\n  ", "\t"]) + text


def test_random_lists_read_as_orjson_reads_them_or_are_declined():
    rng = random.Random(26)
    taken = declined = 0
    for _ in range(3000):
        body = ",".join(random_item(rng) for _ in range(rng.randint(1, 12))).encode()
        found = int_list(body)
        try:
            expected = orjson.loads(b"[" + body + b"]")
        except orjson.JSONDecodeError:
            expected = None  # orjson refuses it (or it holds a number past 64 bits): the fast path must too
        if found is None:
            declined += 1
            continue
        taken += 1
        assert found[0].tolist() == expected == json.loads(b"[" + body + b"]"), body
        assert all(type(v) is int for v in expected), body
    assert taken > 800 and declined > 1500  # both sides exercised (909 and 2091 with this seed)


ITEMS_ACCEPTED = [b"0", b"7", b"-7", b"12345678", b"123456789", b"1234567890123456", b"12345678901234567",
                  b"123456789012345678", b"-123456789012345678", b"100000000", b"-10"]
ITEMS_DECLINED = [b"", b"-", b"--1", b"+1", b"01", b"-0", b"-01", b"1.5", b"1e3", b"1 ", b" 1", b"1x", b"x1",
                  b"true", b'"1"', b"1234567890123456789", b"99999999999999999999", b"1,2"]


def test_integers_at_reads_each_item_filling_its_place_exactly():
    """integers_at: the same numbers as orjson for items that are exactly one integer each, False for the rest;
    an item's bytes are read to its start, never past (a digit before or after it does not count)."""
    items = ITEMS_ACCEPTED + ITEMS_DECLINED
    body = b"          ["
    starts, ends = [], []
    for item in items:
        body += b":"
        starts.append(len(body))
        body += item
        ends.append(len(body))
    body += b"]" + b" " * 8
    values, ok = json_ints.integers_at(body, np.array(starts), np.array(ends))
    assert ok.tolist() == [True] * len(ITEMS_ACCEPTED) + [False] * len(ITEMS_DECLINED)
    assert values[:len(ITEMS_ACCEPTED)].tolist() == [orjson.loads(item) for item in ITEMS_ACCEPTED]
    glued = b"9" * 10 + b"12" + b"9"  # digits on both sides of the place: not the item's
    _, ok = json_ints.integers_at(glued, np.array([10]), np.array([12]))
    assert ok.tolist() == [False]


def test_integers_at_refuses_what_it_cannot_read_in_place():
    """A number whose words would start before the buffer, or a place outside it: refused, never misread."""
    _, ok = json_ints.integers_at(b"12345678901", np.array([0, 5, 3]), np.array([11, 20, 3]))
    assert ok.tolist() == [False, False, False]
    _, ok = json_ints.integers_at(b"1234567", np.array([0]), np.array([7]))
    assert ok.tolist() == [False]
