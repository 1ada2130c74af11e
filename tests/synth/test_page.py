"""The page script's node-test fixtures are what the Python side makes now (regenerate: python -m tests.synth.page)."""
from __future__ import annotations

import json

from tests.synth import page


def values(packed: dict) -> list:
    """A packed array's values (its gzip bytes may differ between zlib versions; what they hold may not)."""
    return page.unpacked(packed).tolist()


def decoded(node):
    if isinstance(node, dict):
        if set(node) == {"type", "data"} and isinstance(node["data"], str):
            return {"type": node["type"], "values": values(node)}
        return {k: decoded(v) for k, v in node.items()}
    if isinstance(node, list):
        return [decoded(v) for v in node]
    return node


def test_the_committed_fixtures_are_what_the_code_makes():
    for name, content in page.fixtures().items():
        committed = json.loads((page.FIXTURES / name).read_text(encoding="utf-8"))
        assert decoded(committed) == decoded(json.loads(json.dumps(content))), name


def test_the_packed_cases_hold_their_values():
    for case in page.packed_cases():
        assert values(case["packed"]) == case["values"]
