"""The column-wise CSV writer against ``csv.writer`` over the row-wise cells it replaced."""
from __future__ import annotations

import csv
import io

import numpy as np
import pytest

import memreport
from memreport.analysis import summarize, summarize_all
from memreport.model import Column, MemoryReport, SummaryReport, Target, TileReport
from memreport.render.data import csv as table
from memreport.render.data import csvlines
from tests.synth.archive import ar_archive, tile_elf
from tests.synth.profile import build_profile, encode_json

SAMPLES = "sample_reports"


def _cells(values: np.ndarray, present: np.ndarray | None = None) -> list[str]:
    cells = values.astype(str).tolist()
    if present is not None:
        cells = [c if p else "" for c, p in zip(cells, present.tolist())]
    return cells


def reference_rows(report: MemoryReport, columns: list[tuple[str, str, str]]) -> list[list[str]]:
    """The oracle: a complete report's rows cell by cell, as render_csv built them before csvlines."""
    if report.kind != "tiles":  # summaries and tensor maps: render_csv still builds these row by row
        return table._summary_rows(summarize(report), columns)
    t = report.target
    n = t.num_tiles
    tiles = np.arange(n)
    cols = [tiles.astype(str).tolist(),
            ([""] * n if not t.tiles_per_ipu else (tiles // t.tiles_per_ipu).astype(str).tolist()),
            list(report.tile_names) if report.tile_names is not None else [""] * n,
            _cells(report.excluding_gaps, report.known),
            _cells(report.including_gaps, report.known) if report.including_gaps is not None else [""] * n,
            table.over_cells(report, summarize(report).out_of_memory)]
    for _, what, key in columns:
        if what == "region":
            cols.append(_cells(report.regions[key]))
        elif what == "not_counted":  # an archive's not-SHF_ALLOC bytes, summed cell by cell
            apart = [c for c in report.breakdown.values() if not c.counted]
            sums = np.array([sum(int(c.values[t]) for c in apart) for t in range(n)])
            cols.append(_cells(sums, report.known))
        else:
            col = report.breakdown[key]
            cols.append(_cells(col.values, col.present))
    return [list(row) for row in zip(*cols)]


def reference_csv(reports) -> str:
    """render_csv as it was: every cell a string, every row through csv.writer."""
    several = len(reports) > 1
    columns: dict[str, None] = {}
    per_report = table.column_specs(summarize_all(reports))
    for own in per_report:
        columns.update(dict.fromkeys(label for label, _, _ in own))
    stated = any(isinstance(r, SummaryReport) for r in reports)
    header = table.BASE_COLUMNS + list(columns) + (["stated_by"] if stated else []) + \
        (["source", "module"] if several else [])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for report, own in zip(reports, per_report):
        rows = reference_rows(report, own)
        mark = [] if not stated or isinstance(report, SummaryReport) else ["per-tile"]
        if several:
            index = {label: 6 + i for i, (label, _, _) in enumerate(own)}
            tail = [report.source, report.module or ""]
            rows = [row[:6] + [row[index[c]] if c in index else "" for c in columns] + row[6 + len(own):] + mark
                    + tail for row in rows]
        else:
            rows = [row + mark for row in rows]
        writer.writerows(rows)
    return out.getvalue()


def odd_report(n: int = 20_000) -> MemoryReport:
    """Awkward member names, absent cells, zeros and large values, more rows than one chunk."""
    rng = np.random.default_rng(3)
    excluding = rng.integers(0, 10 ** 12, n)
    excluding[::5] = 0
    present = rng.random(n) < 0.7
    names = [f"t{i}" for i in range(n)]
    names[1], names[2], names[3], names[4] = 'a,b', 'say "hi"', "two\nlines", "ünï ,"
    return TileReport(
        source='odd, "source"', format="archive", target=Target(num_tiles=n, tiles_per_ipu=1472,
                                                                bytes_per_tile=10 ** 11),
        excluding_gaps=excluding, including_gaps=excluding + 7,
        breakdown={".text": Column(excluding), ".bss": Column(np.where(present, 9, 0), present),
                   ".comment": Column(np.full(n, 10 ** 17), counted=False)},
        regions={"overflowed": np.maximum(excluding - 10 ** 11, 0)}, tile_names=names, module="m,1")


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("csv")
    archive = tmp / "a.a"
    archive.write_bytes(ar_archive([(f"tile {i}", tile_elf(i, 100 + i, 3 * (i % 2), 7)) for i in range(50)]))
    profile = tmp / "p.json"
    excluding = np.arange(3000) * 97
    profile.write_bytes(encode_json(build_profile(excluding, including_gaps=excluding + 5, num_ipus=2,
                                                  tiles_per_ipu=1500)))
    return {"archive": memreport.read(archive), "profile": memreport.read(profile),
            "sample": memreport.read(f"{SAMPLES}/mk2_1472_tiles.a"), "odd": odd_report(),
            "text": memreport.read(f"{SAMPLES}/mk1_summary.txt")}


@pytest.mark.parametrize("names", [["archive"], ["profile"], ["sample"], ["odd"], ["text"],
                                   ["archive", "profile"], ["odd", "text", "sample"]])
def test_same_bytes_as_csv_writer(reports, names):
    chosen = [reports[n] for n in names]
    assert table.render_csv(summarize_all(chosen)) == reference_csv(chosen)


def test_negative_and_huge_values_take_the_plain_path():
    rows = csvlines.integer_rows([csvlines.Integers(np.array([-5, 0, 10 ** 18, 7])),
                                  csvlines.Integers(np.array([1, 2, 3, 4]), np.array([True, False, True, True]))], 4)
    assert rows == ["-5,1", "0,", f"{10 ** 18},3", "7,4"]


def test_quoting_follows_csv():
    cells = ["plain", "a,b", 'q"q', "n\nl", "", " spaced "]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(cells + ["x"])
    assert ",".join(csvlines.text_cells(cells)) + ",x\n" == out.getvalue()


def test_blocks_are_the_lines_a_few_rows_at_a_time():
    """A pod's rows are written a block at a time (issue 33 item 15: 376,832 rows were 118 MB of strings at once),
    the same text whatever the block: integers with blanks, text cells, a constant."""
    n = 23
    columns = [csvlines.Integers(np.arange(n)), csvlines.Integers(np.arange(n) * 7, np.arange(n) % 3 > 0),
               csvlines.Text([f"t,{i}" for i in range(n)]), csvlines.Text(constant="c")]
    whole = "".join(line + "\n" for line in csvlines.lines(columns, n))
    assert whole.splitlines()[:2] == ['0,,"t,0",c', '1,7,"t,1",c']
    for rows in (1, 5, 23, 100):
        assert "".join(csvlines.blocks(columns, n, rows)) == whole
    assert list(csvlines.blocks(columns, 0)) == []
