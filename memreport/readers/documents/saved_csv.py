"""memreport's own CSV (one row per tile), read back as a report where it holds every tile.

The CSV holds every tile's bytes, breakdown columns and regions, but not
the target (only each tile's IPU) nor the source's format: bytes per tile
is unknown until ``--tile-memory`` or ``--arch`` gives it, and tiles per IPU
is known only when the rows span several IPUs. Which breakdown columns count
towards a tile's bytes is not written either; it is settled exactly when the
columns' sums allow it (they must add up to ``excluding_gaps`` on every
tile), else every column counts and a note says so; an archive's CSV
written since issue #24 states it: its section columns after
``not_counted`` are not counted. A name (a column's, a member's, a
source's, a module's) that starts with a quote is read without it: the
writer puts one before a name a spreadsheet would run as a formula
(:func:`~memreport.model.schemas.csv_text`; docs/CSV.md, "Text cells"). A text summary's CSV
(its detailed tiles) and a tensor map's (no bytes) are refused: save those
as JSON (``memreport export``).
"""
from __future__ import annotations

from collections.abc import Set

import numpy as np

from ...errors import ReadError
from ...model import Column, MemoryReport, SkippedMember, StatedTarget, TileReport, resolve_target
from ...model.schemas import csv_text_read, csv_texts
from ..registry import Reader, ReadOptions, register
from .csv_table import BASE, Table, read_table

HEADER = ",".join(BASE).encode()
TENSOR_COLUMNS = ("tensor_elements", "tensor_est_bytes", "tensor_unknown_size_elements")
_NOT_COUNTED_SUFFIXES = (" (not allocated)", ".overlapped")
_NOT_COUNTED_NAMES = ("(other sections)",)
# An archive's not-SHF_ALLOC bytes per tile, between its counted and not-counted section columns (docs/CSV.md):
# a sum of columns of the CSV, not an item of its own. CSVs written before it was added read as before.
NOT_COUNTED_COLUMN = "not_counted"


def looks_like_saved_csv(prefix: bytes) -> bool:
    """A CSV whose header starts with memreport's six base columns."""
    body = prefix[3:] if prefix.startswith(b"\xef\xbb\xbf") else prefix
    return body.startswith(HEADER) and body[len(HEADER):len(HEADER) + 1] in (b",", b"\n", b"\r")


def read_saved_csv(path: str, prefix: bytes, options: ReadOptions) -> list[MemoryReport]:
    """Every report of a memreport CSV (several when it has ``source`` and ``module`` columns)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ReadError(f"cannot read the CSV: {exc.strerror or exc}") from None
    table = read_table(data)
    del data
    header = table.header
    several = header[-2:] == ["source", "module"]
    names = [csv_text_read(name) for name in header[len(BASE):len(header) - (2 if several else 0)]]
    if table.rows == 0:
        raise ReadError("the CSV holds a header and no tile row (a text summary that detailed no tile?)")
    if not several:
        return [_report(path, None, names, table, None)]
    groups: dict[tuple[str, str], int] = {}
    sources, modules = table.texts[len(header) - 2], table.texts[len(header) - 1]
    codes = np.fromiter((groups.setdefault(key, len(groups)) for key in zip(sources, modules)), dtype=np.int64,
                        count=table.rows)
    return [_report(csv_text_read(source), csv_text_read(module) or None, names, table,
                    np.flatnonzero(codes == code))
            for (source, module), code in groups.items()]


def _report(source: str, module: str | None, names: list[str], table: Table, rows: np.ndarray | None) -> TileReport:
    """The report of ``rows`` of ``table`` (all of them when None)."""
    n = table.rows if rows is None else rows.size
    lines = table.lines if rows is None else table.lines[rows]

    def column(k: int) -> tuple[np.ndarray, np.ndarray]:
        values = table.integers.pop(k) if rows is None else table.integers[k][rows]  # one report: the table's own
        present = values >= 0
        if not present.all():
            values[~present] = 0
        return values, present

    tiles, _ = column(0)
    if not np.array_equal(tiles, np.arange(n)):
        raise ReadError("the rows are not tiles 0, 1, 2... in order: a text summary's CSV holds only its detailed "
                        "tiles (save it with 'memreport export' to read it back)", line=int(lines[0]))
    excluding, known = column(3)
    if not known.any():
        raise ReadError("no tile has excluding_gaps: a tensor map's CSV counts elements, not bytes")
    cells = table.texts[2]
    member = csv_texts(cells if rows is None else [cells[i] for i in rows.tolist()], read=True)
    skipped = tuple(SkippedMember(int(t), member[t], "skipped when the CSV was written (the CSV does not say why)")
                    for t in np.flatnonzero(~known).tolist())
    including, has_including = column(4)
    notes: list[str] = []
    breakdown: dict[str, Column] = {}
    regions: dict[str, np.ndarray] = {}
    marker: tuple[np.ndarray, np.ndarray] | None = None
    for k, name in enumerate(names):
        if name in TENSOR_COLUMNS:
            continue  # a tensor map's figures, added by --tensor-map: not the report's own
        values, present = column(len(BASE) + k)
        if name == NOT_COUNTED_COLUMN:  # a sum of other columns, not an item
            marker = values, present
        elif name.startswith("region."):
            regions[name[len("region."):]] = values
        else:
            breakdown[name] = Column(values, None if present.all() else present)
    apart = set() if marker is None else _stated_apart(names, breakdown, known, *marker)
    breakdown = _settle_counted(breakdown, excluding, known, notes, apart)
    ipus, stated_ipus = column(1)
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


def _tiles_per_ipu(ipus: np.ndarray, stated: np.ndarray, lines: np.ndarray) -> int | None:
    """Tiles per IPU when the rows span several IPUs (checked on every row); None otherwise."""
    if not stated.all() or ipus.size == 0 or int(ipus.max()) == 0:
        return None
    per_ipu = int(np.count_nonzero(ipus == 0))
    wrong = np.flatnonzero(ipus != np.arange(ipus.size) // per_ipu)
    if wrong.size:
        raise ReadError(f"tile {int(wrong[0])} is on IPU {int(ipus[wrong[0]])}, not {int(wrong[0]) // per_ipu} as "
                        f"{per_ipu:,} tiles per IPU would have it", line=int(lines[int(wrong[0])]))
    return per_ipu


def _stated_apart(names: list[str], breakdown: dict[str, Column], known: np.ndarray, values: np.ndarray,
                  present: np.ndarray) -> set[str]:
    """The columns after ``not_counted`` when they add up to it on every tile with a value; else none.

    One archive's CSV puts its not-counted sections there; several reports'
    columns are a union, where a later report's counted section may follow
    the marker: the sums tell, and where they disagree the columns are settled
    by ``excluding_gaps`` alone.
    """
    after = [name for name in names[names.index(NOT_COUNTED_COLUMN) + 1:] if name in breakdown]
    rows = known & present
    if not rows.any():
        return set()
    total = np.zeros(values.size, dtype=np.int64)
    for name in after:
        total += breakdown[name].values
    return set(after) if np.array_equal(total[rows], values[rows]) else set()


def _settle_counted(breakdown: dict[str, Column], excluding: np.ndarray, known: np.ndarray,
                    notes: list[str], apart: Set[str] = frozenset()) -> dict[str, Column]:
    """The breakdown with each column's ``counted`` flag: those that add up to ``excluding_gaps`` count
    (never those in ``apart``, stated not counted)."""
    fixed = {name for name in breakdown if name.endswith(_NOT_COUNTED_SUFFIXES) or name in _NOT_COUNTED_NAMES
             or name.startswith("liveness.") or name in apart}
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
