"""memreport's own CSV (one row per tile), read back as a report where it holds every tile.

The CSV holds every tile's bytes, breakdown columns and regions, but not
the target (only each tile's IPU) nor the source's format: bytes per tile
is unknown until ``--tile-memory`` or ``--arch`` gives it, and tiles per IPU
is known only when the rows span several IPUs. Which breakdown columns count
towards a tile's bytes is not written either; it is settled exactly when the
columns' sums allow it (they must add up to ``excluding_gaps`` on every
tile), else every column counts and a note says so. A text summary's CSV
(its detailed tiles) and a tensor map's (no bytes) are refused: save those
as JSON (``memreport export``).
"""
from __future__ import annotations

import csv
from collections.abc import Sequence

import numpy as np

from ...errors import ReadError
from ...model import Column, MemoryReport, SkippedMember, StatedTarget, TileReport, resolve_target
from ..registry import Reader, ReadOptions, register

BASE = ["tile", "ipu", "member", "excluding_gaps", "including_gaps", "out_of_memory"]
HEADER = ",".join(BASE).encode()
TENSOR_COLUMNS = ("tensor_elements", "tensor_est_bytes", "tensor_unknown_size_elements")
_NOT_COUNTED_SUFFIXES = (" (not allocated)", ".overlapped")
_NOT_COUNTED_NAMES = ("(other sections)",)


def looks_like_saved_csv(prefix: bytes) -> bool:
    """A CSV whose header starts with memreport's six base columns."""
    body = prefix[3:] if prefix.startswith(b"\xef\xbb\xbf") else prefix
    return body.startswith(HEADER) and body[len(HEADER):len(HEADER) + 1] in (b",", b"\n", b"\r")


def read_saved_csv(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """Every report of a memreport CSV (several when it has ``source`` and ``module`` columns)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            reader = csv.reader(f)
            try:
                rows = list(reader)
            except csv.Error as exc:  # a field past csv's limit (128 KiB), a NUL byte...
                raise ReadError(f"not a CSV memreport wrote: {exc}", line=reader.line_num) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReadError(f"cannot read the CSV: {getattr(exc, 'strerror', None) or exc}") from None
    header = rows[0]
    width = len(header)
    for line, row in enumerate(rows[1:], 2):
        if len(row) != width:
            raise ReadError(f"{len(row)} cells for {width} columns", line=line)
    several = header[-2:] == ["source", "module"]
    groups: dict[tuple[str, str], list[int]] = {}
    for i, row in enumerate(rows[1:]):
        key = (row[-2], row[-1]) if several else ("", "")
        groups.setdefault(key, []).append(i + 1)
    names = header[len(BASE):len(header) - (2 if several else 0)]
    reports: list[MemoryReport] = []
    for (source, module), lines in groups.items():
        reports.append(_report(path if not several else source, module or None, names,
                               [rows[i] for i in lines], [i + 1 for i in lines]))
    if not reports:
        raise ReadError("the CSV holds a header and no tile row (a text summary that detailed no tile?)")
    return reports


def _integers(cells: Sequence[str], what: str, lines: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(values, present) of a column of integer cells; blank cells are absent (0 in values)."""
    present = np.array([c != "" for c in cells], dtype=bool)
    values = np.zeros(len(cells), dtype=np.int64)
    filled = [c for c in cells if c]
    if all(map(str.isdigit, filled)) and all(len(c) < 19 for c in filled):  # below 2**63: numpy parses them at once
        values[present] = np.array(filled, dtype=np.int64)
        return values, present
    for i in np.flatnonzero(present).tolist():
        cell = cells[i]
        if not cell.isdigit() or len(cell) >= 19:
            raise ReadError(f"column {what!r}: {cell[:40]!r} is not a byte count", line=lines[i])
    raise AssertionError("unreachable")  # pragma: no cover


def _report(source: str, module: str | None, names: list[str], rows: list[list[str]],
            lines: list[int]) -> TileReport:
    n = len(rows)
    columns = list(zip(*rows)) if rows else [()] * (len(BASE) + len(names))
    tiles, _ = _integers(columns[0], "tile", lines)
    if not np.array_equal(tiles, np.arange(n)):
        raise ReadError("the rows are not tiles 0, 1, 2... in order: a text summary's CSV holds only its detailed "
                        "tiles (save it with 'memreport export' to read it back)", line=lines[0])
    excluding, known = _integers(columns[3], "excluding_gaps", lines)
    if not known.any():
        raise ReadError("no tile has excluding_gaps: a tensor map's CSV counts elements, not bytes")
    member = list(columns[2])
    skipped = tuple(SkippedMember(int(t), member[t], "skipped when the CSV was written (the CSV does not say why)")
                    for t in np.flatnonzero(~known).tolist())
    including, has_including = _integers(columns[4], "including_gaps", lines)
    notes: list[str] = []
    breakdown: dict[str, Column] = {}
    regions: dict[str, np.ndarray] = {}
    for k, name in enumerate(names):
        values, present = _integers(columns[len(BASE) + k], name, lines)
        if name in TENSOR_COLUMNS:
            continue  # a tensor map's figures, added by --tensor-map: not the report's own
        if name.startswith("region."):
            regions[name[len("region."):]] = values
        else:
            breakdown[name] = Column(values, None if present.all() else present)
    breakdown = _settle_counted(breakdown, excluding, known, notes)
    ipus, stated_ipus = _integers(columns[1], "ipu", lines)
    tiles_per_ipu = _tiles_per_ipu(ipus, stated_ipus, lines)
    kind = "section" if any(member) else "category" if regions else "item"
    stated = StatedTarget(num_tiles=n, tiles_per_ipu=tiles_per_ipu, source_kind="CSV",
                          bytes_unknown_reason="a CSV does not hold it")
    notes.append("read from memreport's CSV: the source's format and target are not in it")
    try:
        return TileReport(source=source, format="csv", target=resolve_target(stated)[0], excluding_gaps=excluding,
                          including_gaps=including if has_including[known].all() and has_including.any() else None,
                          breakdown=breakdown, breakdown_kind=kind, regions=regions,
                          tile_names=member if any(member) else None, module=module, notes=tuple(notes),
                          skipped=skipped, stated=stated)
    except (TypeError, ValueError) as exc:
        raise ReadError(f"inconsistent CSV: {exc}") from None


def _tiles_per_ipu(ipus: np.ndarray, stated: np.ndarray, lines: Sequence[int]) -> int | None:
    """Tiles per IPU when the rows span several IPUs (checked on every row); None otherwise."""
    if not stated.all() or ipus.size == 0 or int(ipus.max()) == 0:
        return None
    per_ipu = int(np.count_nonzero(ipus == 0))
    wrong = np.flatnonzero(ipus != np.arange(ipus.size) // per_ipu)
    if wrong.size:
        raise ReadError(f"tile {int(wrong[0])} is on IPU {int(ipus[wrong[0]])}, not {int(wrong[0]) // per_ipu} as "
                        f"{per_ipu:,} tiles per IPU would have it", line=lines[int(wrong[0])])
    return per_ipu


def _settle_counted(breakdown: dict[str, Column], excluding: np.ndarray, known: np.ndarray,
                    notes: list[str]) -> dict[str, Column]:
    """The breakdown with each column's ``counted`` flag: those that add up to ``excluding_gaps`` count."""
    fixed = {name for name in breakdown if name.endswith(_NOT_COUNTED_SUFFIXES) or name in _NOT_COUNTED_NAMES
             or name.startswith("liveness.")}
    open_names = [name for name in breakdown if name not in fixed]
    if not open_names:
        return {name: Column(c.values, c.present, counted=False) for name, c in breakdown.items()}
    matrix = np.stack([breakdown[name].values[known] for name in open_names], axis=1)
    target = excluding[known]
    choice = np.ones(len(open_names), dtype=bool)
    if not np.array_equal(matrix.sum(axis=1), target):
        solved, *_ = np.linalg.lstsq(matrix.astype(np.float64), target.astype(np.float64), rcond=None)
        choice = np.rint(solved) == 1
        if not (np.allclose(solved, np.rint(solved), atol=1e-6) and np.isin(np.rint(solved), (0, 1)).all()
                and np.array_equal(matrix[:, choice].sum(axis=1), target)):
            choice = np.ones(len(open_names), dtype=bool)
            notes.append("no set of breakdown columns adds up to excluding_gaps on every tile: every column is "
                         "taken as counted")
    counted = dict(zip(open_names, choice.tolist()))
    return {name: Column(c.values, c.present, counted=bool(counted.get(name, False))) for name, c in breakdown.items()}


register(Reader("saved-csv", "memreport CSV", looks_like_saved_csv, read_saved_csv, (".csv",)))
