from __future__ import annotations

import pytest

from memreport.units import kib, parse_size


@pytest.mark.parametrize("text,value", [("638976", 638_976), ("624KiB", 638_976), ("624K", 638_976),
                                        ("624 kB", 638_976), ("1MiB", 1_048_576), ("1.5KiB", 1536),
                                        ("638,976", 638_976), ("0", 0), ("2g", 2 * 1024 ** 3)])
def test_parse_size(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("text", ["", "abc", "1.3B", "-5", "5 parsecs"])
def test_parse_size_rejects(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_kib_is_poplars_k():
    assert kib(834_339) == "814.8 K" and kib(49_184) == "48.0 K" and kib(5_780) == "5.6 K"
    assert kib(2_000_000) == "1,953.1 K"


def test_parse_size_is_exact_past_float_precision():
    assert parse_size("9007199254740993") == 9_007_199_254_740_993  # 2**53 + 1: a float makes it ...992
    assert parse_size("9223372036854775807") == 2 ** 63 - 1
    assert parse_size("0.5KiB") == 512 and parse_size("1.0009765625KiB") == 1025


def test_parse_size_refuses_absurdly_long_numbers_quickly():
    with pytest.raises(ValueError, match="digits long"):
        parse_size("9" * 100_000)


def test_check_size_bounds():
    from memreport.units import check_size, check_tile_memory
    assert check_size(0) == 0 and check_size(2 ** 63 - 1) == 2 ** 63 - 1
    with pytest.raises(ValueError, match=r"must be below 2\*\*63 B, not a 64-bit number"):
        check_size(2 ** 63)
    with pytest.raises(ValueError, match="bytes per tile must be at least 1 B, not 0"):
        check_tile_memory(0)
    assert check_tile_memory(1) == 1
