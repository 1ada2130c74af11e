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
