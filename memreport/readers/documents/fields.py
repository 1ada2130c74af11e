"""Typed, located reads of a decoded JSON document's fields: every wrong value a ReadError naming its path.

A saved report (``memreport/1``) is an input like any other: a CI baseline
may have been edited, merged by hand or cut short. :class:`Node` wraps one
JSON object with its path (``reports[0].stated_target``); each accessor
checks the type it promises (a string, a whole number, a finite number, a
boolean, an object, a list) and names ``path.key`` when the value is not
one, so nothing a document holds reaches the model unchecked.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from ...errors import ReadError
from .document import _kind, _short, mapping, tile_array, whole_number

_MISSING = object()


def kind_of(value: Any) -> str:
    """What a JSON value is, with the value itself when short ("a string 'abc'", "a list")."""
    return f"{_kind(value)} {_short(value)}".rstrip()


class Node:
    """A JSON object and where it lies in its document."""

    __slots__ = ("map", "path")

    def __init__(self, value: Any, path: str) -> None:
        self.map: Mapping = mapping(value, path)
        self.path = path

    def at(self, key: str) -> str:
        """The path of ``key`` in this object."""
        return f"{self.path}.{key}"

    def raw(self, key: str, required: bool = False) -> Any:
        """The value of ``key`` unchecked (None when absent); a ReadError when ``required`` and absent."""
        value = self.map.get(key, _MISSING)
        if value is _MISSING:
            if required:
                raise ReadError(f"{self.at(key)} is missing")
            return None
        return value

    def text(self, key: str, required: bool = True) -> Any:
        """A string; None for null or absent unless ``required``."""
        value = self.raw(key, required)
        if value is None and not required:
            return None
        if not isinstance(value, str):
            raise ReadError(f"{self.at(key)} must be a string, not {kind_of(value)}")
        return value

    def whole(self, key: str, required: bool = False, positive: bool = False) -> Any:
        """A non-negative whole number below 2**63 (positive if asked); None for null or absent unless
        ``required``."""
        value = self.raw(key, required)
        if value is None and not required:
            return None
        return whole_number(value, self.at(key), positive=positive)

    def number(self, key: str) -> float | None:
        """A finite, non-negative number (a clock frequency), or None for null or absent."""
        value = self.raw(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ReadError(f"{self.at(key)} must be a number, not {kind_of(value)}")
        try:
            number = float(value)
        except OverflowError:  # an integer past a double's range
            number = math.inf
        if not math.isfinite(number) or number < 0:
            raise ReadError(f"{self.at(key)} must be a finite number >= 0, not {kind_of(value)}")
        return number

    def flag(self, key: str, default: bool | None = None) -> bool | None:
        """``true`` or ``false``; ``default`` for null or absent."""
        value = self.raw(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise ReadError(f"{self.at(key)} must be true or false, not {kind_of(value)}")
        return value

    def node(self, key: str) -> Node | None:
        """The object at ``key``; None for null or absent."""
        value = self.raw(key)
        return None if value is None else Node(value, self.at(key))

    def free(self, key: str) -> dict:
        """The object at ``key`` as free-form JSON (notes a source carries through: ``info``, ``extra``), an empty
        one for null or absent. Its values are not the model's, but the outputs write them back: a number
        that is not finite (NaN, Infinity: a stdlib JSON decoder accepts them, no JSON does) is a ReadError
        naming where it lies."""
        node = self.node(key)
        if node is None:
            return {}
        stack: list[tuple[Any, str]] = [(node.map, node.path)]
        while stack:
            value, path = stack.pop()
            if isinstance(value, float) and not math.isfinite(value):
                raise ReadError(f"{path} must be a finite number, not {value!r} (NaN and Infinity are not JSON)")
            if isinstance(value, Mapping):
                stack.extend((v, f"{path}.{k}") for k, v in value.items())
            elif isinstance(value, (list, tuple)):
                stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
        return dict(node.map)

    def child(self, key: str) -> Node:
        """The object at ``key``, which must be there."""
        return Node(self.raw(key, required=True), self.at(key))

    def list(self, key: str, required: bool = False) -> list:
        """The list at ``key``; an empty one for null or absent unless ``required``."""
        value = self.raw(key, required)
        if value is None and not required:
            return []
        if not isinstance(value, list):
            raise ReadError(f"{self.at(key)} must be a list, not {kind_of(value)}")
        return value

    def nodes(self, key: str, required: bool = False) -> Iterator[Node]:
        """Each object of the list at ``key`` (none for null or absent unless ``required``)."""
        where = self.at(key)
        for i, value in enumerate(self.list(key, required)):
            yield Node(value, f"{where}[{i}]")

    def items(self, key: str) -> Iterator[tuple[str, Any, str]]:
        """``(name, value, path)`` of each entry of the object at ``key`` (none for null or absent)."""
        node = self.node(key)
        if node is None:
            return
        for name, value in node.map.items():
            yield str(name), value, node.at(name)

    def texts(self, key: str, required: bool = False) -> tuple[str, ...]:
        """The list of strings at ``key`` (empty for null or absent unless ``required``)."""
        values = self.list(key, required)
        wrong = None if set(map(type, values)) <= {str} else \
            next(((i, v) for i, v in enumerate(values) if not isinstance(v, str)), None)  # types at C speed first
        if wrong is not None:
            raise ReadError(f"{self.at(key)}[{wrong[0]}] must be a string, not {kind_of(wrong[1])}")
        return tuple(values)

    def byte_counts(self, key: str) -> dict[str, int]:
        """``{name: bytes}`` at ``key`` (empty for null or absent)."""
        return {name: whole_number(value, where) for name, value, where in self.items(key)}

    def tiles(self, key: str, num_tiles: int | None = None) -> np.ndarray | None:
        """A list of non-negative integers as an int64 array (``num_tiles`` long if given); None for null or
        absent."""
        value = self.raw(key)
        return None if value is None else tile_array(value, self.at(key), num_tiles)

    def array(self, key: str, num_tiles: int | None = None) -> np.ndarray:
        """:meth:`tiles` of a list that must be there."""
        return tile_array(self.raw(key, required=True), self.at(key), num_tiles)
