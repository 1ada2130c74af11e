"""Reports as CSV: one row per tile (per stated tile of a text summary), blank where unknown (docs/CSV.md); a name
that starts like a spreadsheet formula is written after a quote (:func:`~memreport.model.schemas.csv_text`)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...analysis import Summary, TensorMapSummary, TextSummary, TileSummary, TopTile
from ...model import TileReport
from ...model.schemas import csv_text, csv_texts
from .. import RenderOptions
from . import csvlines
from .tensors import CSV_COLUMNS as TENSOR_COLUMNS
from .tensors import csv_rows as tensor_csv_rows
from .tensors import per_tile_columns

Spec = tuple  # (label, what, key): a CSV column after the base ones; what is "breakdown", "region", "tensor", "message"

# A summary's tiles that out-of-memory messages name: the first message's kind and the bytes it says are used.
MESSAGE_COLUMNS = ("oom_message", "oom_bytes_used")
# After the columns of several reports: where each row comes from (report_line only when source and module repeat).
TAIL_COLUMNS = ("stated_by", "source", "module", "report_line")
# An archive's per-tile bytes of sections that are not SHF_ALLOC (not in excluding_gaps): the column stands between
# its counted section columns and its not-counted ones (docs/CSV.md).
NOT_COUNTED_COLUMN = "not_counted"


def _items(summary: Summary) -> list[tuple[str, str]]:
    """A report's own columns, in order: ("breakdown", item), ("region", region) and ("message", column) (tensor
    columns for a map)."""
    if isinstance(summary, TensorMapSummary):
        return [("tensor", name) for name in TENSOR_COLUMNS]
    if isinstance(summary, TileSummary):
        report = summary.tiles
        items = [("breakdown", name) for name in report.breakdown]
        apart = [("breakdown", name) for name, c in report.breakdown.items() if not c.counted]
        if apart and report.breakdown_kind == "section":  # the counted sections, the marker, the others
            items = [item for item in items if item not in apart] + [("not_counted", NOT_COUNTED_COLUMN), *apart]
        return items + [("region", name) for name in report.regions]
    assert isinstance(summary, TextSummary)
    found: dict[tuple[str, str], None] = {}
    for d in summary.printed_report.detailed_tiles:
        found.update(dict.fromkeys(("breakdown", name) for name in d.breakdown))
        found.update(dict.fromkeys(("region", name) for name in d.regions))
    if summary.verdict.message_tiles:
        found.update(dict.fromkeys(("message", name) for name in MESSAGE_COLUMNS))
    return list(found)


def column_specs(summaries: Sequence[Summary]) -> list[list[Spec]]:
    """Per report, its CSV columns after the base ones, as (label, what, key).

    Labels never repeat nor shadow one another: a breakdown item named like
    a base, region, tensor, message, ``source``, ``module`` or
    ``report_line`` column (a section called ``tile``, a category
    ``region.interleaved``) takes its kind in parentheses: ``tile
    (section)``. The same item of the same kind has the same label in every
    report, so several reports share its column.
    """
    items = [_items(summary) for summary in summaries]
    reports = [summary.report for summary in summaries]
    reserved = set(BASE_COLUMNS) | set(TAIL_COLUMNS) | set(TENSOR_COLUMNS) | set(MESSAGE_COLUMNS) \
        | {NOT_COUNTED_COLUMN} | {f"region.{key}" for own in items for what, key in own if what == "region"}
    taken = reserved | {key for own in items for what, key in own if what == "breakdown"}
    labels: dict[tuple[str, str], str] = {}
    specs = []
    for report, own in zip(reports, items):
        kind = report.breakdown_kind
        out = []
        for what, key in own:
            if what != "breakdown":
                out.append((f"region.{key}" if what == "region" else key, what, key))
                continue
            label = labels.get((kind, key))
            if label is None:
                label = key
                if key in reserved:
                    while label in taken:
                        label += f" ({kind})"
                    taken.add(label)
                labels[kind, key] = label
            out.append((label, what, key))
        specs.append(out)
    return specs


def _columns(summary: Summary) -> list[Spec]:
    """The report's own columns after the base ones (breakdown items and regions; tensor columns for a map)."""
    return column_specs([summary])[0]


def _summary_rows(summary: Summary, columns: list[Spec]) -> list[list[str]]:
    """Rows of a report without every tile's bytes: every tile a summary states figures for (detailed tiles,
    Maximum lines, tiles only an out-of-memory message names: ``stated_by`` says which), or a tensor map's tiles."""
    if isinstance(summary, TensorMapSummary):  # elements and estimates per tile; the byte columns stay blank
        return tensor_csv_rows(summary)
    named = summary.verdict.message_tiles

    def cells(t: TopTile) -> list[str]:
        m = named.get(t.tile)
        other = {} if m is None else {"oom_message": m.kind, "oom_bytes_used": m.bytes_used}
        values = [(t.breakdown if what == "breakdown" else t.regions if what == "region" else other).get(key)
                  for _, what, key in columns]
        return ["" if v is None else str(v) for v in values]

    return [[str(t.tile), "" if t.ipu is None else str(t.ipu), "",
             "" if t.excluding_gaps is None else str(t.excluding_gaps),
             "" if t.including_gaps is None else str(t.including_gaps),
             "" if t.out_of_memory is None else str(t.out_of_memory).lower()] + cells(t) + [t.stated_by]
            for t in summary.stated]


BASE_COLUMNS = ["tile", "ipu", "member", "excluding_gaps", "including_gaps", "out_of_memory"]


def over_cells(report: TileReport, over: np.ndarray | None) -> list[str]:
    """"true"/"false" per tile; blank where unknown (bytes per tile unknown, or a skipped member)."""
    if over is None:
        return [""] * report.num_tiles
    cells = np.where(over, "true", "false")
    if report.known is not None:
        cells = np.where(report.known, cells, "")
    return cells.tolist()


def not_counted_bytes(report: TileReport) -> np.ndarray:
    """Per tile, the bytes of its not-counted breakdown items (not-SHF_ALLOC sections), summed; absent ones hold 0."""
    apart = np.zeros(report.num_tiles, dtype=np.int64)
    for c in report.breakdown.values():
        if not c.counted:
            apart += c.values
    return apart


def _complete_columns(summary: TileSummary, labels: list[str], own: list[Spec], tail: list[str],
                      tensor_columns: dict[str, np.ndarray]) -> list[csvlines.ColumnSpec]:
    """The CSV columns of a report with every tile's values, column by column."""
    report = summary.tiles
    t = report.target
    tiles = np.arange(t.num_tiles)
    blank = csvlines.Text(constant="")
    columns = [csvlines.Integers(tiles),
               csvlines.Integers(tiles // t.tiles_per_ipu) if t.tiles_per_ipu else blank,
               csvlines.Text(csv_texts(report.tile_names)) if report.tile_names is not None else blank,
               csvlines.Integers(report.excluding_gaps, report.known),
               csvlines.Integers(report.including_gaps, report.known) if report.including_gaps is not None
               else blank]
    over = over_cells(report, summary.out_of_memory)
    columns.append(csvlines.Text(over) if over else blank)
    by_label = {label: (what, key) for label, what, key in own}
    for label in labels:
        what, key = by_label.get(label, ("", label))
        if what == "region":
            columns.append(csvlines.Integers(report.regions[key]))
        elif what == "breakdown":
            column = report.breakdown[key]
            columns.append(csvlines.Integers(column.values, column.present))
        elif what == "not_counted":
            columns.append(csvlines.Integers(not_counted_bytes(report), report.known))
        elif label in tensor_columns:
            columns.append(csvlines.Integers(tensor_columns[label]))
        else:  # another report's column
            columns.append(blank)
    columns += [csvlines.Text(constant=cell) for cell in tail]
    return columns


def render_csv(summaries: Sequence[Summary], options: RenderOptions | None = None) -> str:
    """One row per tile (per detailed tile for a text report).

    With several reports the header is the union of their columns, and
    ``source`` and ``module`` columns are added at the end (and
    ``report_line``, the report's first line in its file, when two reports
    of one file would have the same source and module). A tensor map of
    the program (``--tensor-map``) adds its per-tile columns (elements,
    estimated bytes of tensor data, elements of unknown size) to every
    report's rows.
    """
    several = len(summaries) > 1
    tensor_map = next((s.tensor_map for s in summaries if s.tensor_map is not None), None)
    columns: dict[str, None] = {}
    per_report = column_specs(summaries)
    for own in per_report:
        columns.update(dict.fromkeys(label for label, _, _ in own))
    if tensor_map is not None:
        columns.update(dict.fromkeys(TENSOR_COLUMNS))
    shared = several or tensor_map is not None  # every report's rows take the union's columns
    # Several reports of one log share source and module: their first line tells them apart.
    ambiguous = len({(s.report.source, s.report.module) for s in summaries}) < len(summaries)

    # Where a row's figures come from (STATED_BY), after the report's own columns, when a text summary is among them.
    stated = any(isinstance(s, TextSummary) for s in summaries)

    def tail(summary: Summary) -> list[str]:
        # A summary's rows carry their own stated_by; a complete report's are "per-tile"; a tensor map's blank.
        report = summary.report
        own = [] if not stated or isinstance(summary, TextSummary) else \
            ["per-tile" if isinstance(summary, TileSummary) else ""]
        if not several:
            return own
        line = [] if not ambiguous else [str(report.position.line) if report.position else ""]
        return [*own, csv_text(report.source), csv_text(report.module or ""), *line]

    header = BASE_COLUMNS + list(columns) + (["stated_by"] if stated else []) + \
        (["source", "module"] if several else []) + (["report_line"] if ambiguous else [])
    out = [csvlines.row([csv_text(name) for name in header]) + "\n"]  # categories and sections: names
    for summary, own in zip(summaries, per_report):
        report = summary.report
        tensor_columns = {} if tensor_map is None else per_tile_columns(tensor_map, report.num_tiles)
        if isinstance(summary, TileSummary):  # every tile: column-wise
            labels = list(columns) if shared else [label for label, _, _ in own]
            out += csvlines.blocks(_complete_columns(summary, labels, own, tail(summary), tensor_columns),
                                   report.num_tiles)
            continue
        rows = _summary_rows(summary, own)
        if shared:
            index = {label: 6 + i for i, (label, _, _) in enumerate(own)}
            rows = [row[:6] + [row[index[c]] if c in index else
                               str(tensor_columns[c][int(row[0])]) if c in tensor_columns else "" for c in columns]
                    + row[6 + len(own):] + tail(summary) for row in rows]
        else:
            rows = [row + tail(summary) for row in rows]
        out += (csvlines.row(cells) + "\n" for cells in rows)
    return "".join(out)  # blocks of rows joined once (a StringIO's value is a copy of all it holds)
