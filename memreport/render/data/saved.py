"""What a ``memreport/1`` JSON needs to be read back as the same report (``memreport.readers.documents.saved``).

The rendered keys (totals, histogram, top tiles...) are figures; these keys
hold the facts they were computed from: every tile's values as compact
arrays (``tile_values``), what the source stated about its target and the
overrides applied (``stated_target``, ``overrides``), the source's own notes,
a text summary's printed figures, program-step liveness, symbol tables, a
tensor map's pairs and a lowered-variables report's variables (``variables``,
columns). Per-tile arrays are written on one line each, so a 94,208-tile
report stays a few megabytes.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict
from types import ModuleType
from typing import Any

import numpy as np

from ...model import (
    MemoryReport,
    ProgramLiveness,
    StatedTarget,
    SummaryReport,
    TensorMapReport,
    TileBytes,
    TileReport,
    Variables,
    overrides_of,
    source_notes,
)

_orjson: ModuleType | None
try:  # a dependency, but memreport works without it (as the JSON reader does)
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised only without orjson
    _orjson = None

_PLACEHOLDER = "\0inline:{}\0"
_PLACEHOLDER_JSON = re.compile(r'"\\u0000inline:(\d+)\\u0000"')


class Inline:
    """Values written on one line in place of a placeholder: ``json.dumps`` would give every number its own line."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def add(self, value: Any) -> str:
        """A placeholder for ``value`` (an integer array, or a list of strings), to :meth:`fill` after dumping."""
        if isinstance(value, np.ndarray):
            text = _integers(value)
        else:
            text = json.dumps(value, separators=(",", ":"))
        self.texts.append(text)
        return _PLACEHOLDER.format(len(self.texts) - 1)

    def fill(self, text: str) -> str:
        """``text`` with every placeholder replaced by its value."""
        if not self.texts:
            return text
        return _PLACEHOLDER_JSON.sub(lambda m: self.texts[int(m[1])], text)


def _integers(values: np.ndarray) -> str:
    """``[1,2,3]``: orjson writes a numpy array at C speed; without it, a list's repr is the quickest."""
    if _orjson is not None and values.dtype == np.int64:
        return _orjson.dumps(np.ascontiguousarray(values), option=_orjson.OPT_SERIALIZE_NUMPY).decode("ascii")
    return str(values.tolist()).replace(" ", "")


def _array(values: np.ndarray, inline: Inline | None) -> Any:
    return values.tolist() if inline is None else inline.add(values)


def _strings(values: list[str], inline: Inline | None) -> Any:
    return values if inline is None else inline.add(values)


def stated_json(stated: StatedTarget | None) -> dict | None:
    if stated is None:
        return None
    record = asdict(stated)
    record.pop("given_tile_memory")
    record.pop("given_arch")
    return record


def _tile_bytes(value: TileBytes | None) -> dict | None:
    return None if value is None else {"tile": value.tile, "bytes": value.bytes}


def tile_values(report: TileReport, inline: Inline | None = None) -> dict:
    """Every tile's values: excluding and including gaps, each breakdown column, each region, the tile names."""
    breakdown = {}
    for name, col in report.breakdown.items():
        absent = None if col.present is None else _array(np.flatnonzero(~col.present), inline)
        breakdown[name] = {"values": _array(col.values, inline), "absent": absent, "counted": col.counted}
    return {
        "excluding_gaps": _array(report.excluding_gaps, inline),
        "including_gaps": None if report.including_gaps is None else _array(report.including_gaps, inline),
        "breakdown": breakdown,
        "regions": {name: _array(values, inline) for name, values in report.regions.items()},
        "tile_names": None if report.tile_names is None else _strings(list(report.tile_names), inline),
    }


def printed_json(report: SummaryReport) -> dict:
    """A text summary's printed figures, as printed."""
    p = report.printed
    hist = p.histogram
    return {"histogram": None if hist is None else {
                "bin_kib": hist.bin_kib, "bins": [asdict(b) for b in hist.bins],
                **({"elided_before": list(hist.elided_before)} if hist.elided_before else {})},
            "max_including_gaps": _tile_bytes(p.max_including_gaps),
            "max_excluding_gaps": _tile_bytes(p.max_excluding_gaps),
            "tiles_out_of_memory": p.tiles_out_of_memory, "including_gaps": p.including_gaps,
            "excluding_gaps": p.excluding_gaps}


def steps_json(steps: tuple[ProgramLiveness, ...] | None) -> list | None:
    if steps is None:
        return None
    return [{"bytes": s.bytes, "name": s.name, "children": steps_json(s.children),
             **({} if s.variables is None else {"variables": [[name, size] for name, size in s.variables]})}
            for s in steps]


def tensor_map_data(report: TensorMapReport, inline: Inline | None = None) -> dict:
    """A tensor map's tensors and (tensor, tile, elements) pairs."""
    m = report.tensor_map
    return {"source": m.source, "num_tiles": m.num_tiles, "notes": list(m.notes),
            "tensors": [[t.name, t.computation, t.output_index, list(t.shape), t.element_type, t.has_constant,
                         t.has_aliases, t.num_elements, t.framework_name] for t in m.tensors],
            "pair_tensor": _array(m.pair_tensor, inline), "pair_tile": _array(m.pair_tile, inline),
            "pair_elements": _array(m.pair_elements, inline)}


VARIABLE_COLUMNS = ("tile", "offset", "size", "category", "always_live", "interleaved", "name_index", "var_id")


def variables_json(variables: Variables | None, inline: Inline | None = None) -> dict | None:
    """A report's lowered variables as columns (flags as 0 and 1), their tables and the interference table."""
    if variables is None:
        return None
    v = variables
    table = v.interference
    return {"num_tiles": v.num_tiles, "tile_memory": v.tile_memory,
            **{name: _array(getattr(v, name).astype(np.int64), inline) for name in VARIABLE_COLUMNS},
            "equivalence_class": None if v.equivalence_class is None else
            _array(v.equivalence_class.astype(np.int64), inline),
            "categories": _strings(list(v.categories), inline), "names": _strings(list(v.names), inline),
            "interference": None if table is None else {
                name: _array(getattr(table, name).astype(np.int64), inline)
                for name in ("classes", "indptr", "indices")}}


def saved_sections(report: MemoryReport, inline: Inline | None = None) -> dict:
    """The keys a report's JSON record adds so it can be read back exactly."""
    stated = report.stated
    tile_memory, arch = (None, None) if stated is None else overrides_of(stated, report.target)
    return {
        "stated_target": stated_json(stated),
        "overrides": {"tile_memory": tile_memory, "arch": arch},
        "source_notes": list(source_notes(report)),
        "tile_values": tile_values(report, inline) if isinstance(report, TileReport) else None,
        "printed": printed_json(report) if isinstance(report, SummaryReport) else None,
        "liveness_steps": steps_json(report.liveness_steps) if isinstance(report, TileReport) else None,
        "tensor_map_data": tensor_map_data(report, inline) if isinstance(report, TensorMapReport) else None,
        "variables": variables_json(report.variables, inline) if isinstance(report, TileReport) else None,
    }
