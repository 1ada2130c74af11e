"""The compiles page: times laid out whatever the machine's zone, any year a log prints, and a page of bounded
size however many compilations the logs hold (issue 33 items 5 and 13)."""
from __future__ import annotations

import re
import time
from datetime import datetime, timedelta

import pytest
from click.testing import CliRunner

from memreport.analysis.compiles import summarize_compiles
from memreport.cli import main
from memreport.model import Compilation, CompileHistory, CompileLogInfo
from memreport.readers.text.compile_log import read_compile_logs
from memreport.render import render
from memreport.render.page.compiles import ROWS_SHOWN, timeline_rows
from tests.synth.compile_logs import LOCAL, Clock, LogBuilder
from tests.synth.page import data_block


def two_compilations(first: datetime, gap: timedelta) -> str:
    """A TensorFlow log (local times, no zone) whose first line is at ``first``: two compilations, the second
    beginning ``gap`` after the first one's last line, which is one second after its start. Years are written in
    four digits, as the reader takes them (the builder's clock cannot reach the first hours of year 1)."""
    made = datetime(2023, 6, 1, 12)
    log = LogBuilder(clock=Clock(made - LOCAL))
    log.tf_compile("cluster_a", "1f", ms=1000)
    log.clock.now += gap
    log.tf_compile("cluster_b", "2f", ms=1000)

    def redated(stamp: re.Match) -> str:
        at = first + (datetime.fromisoformat(stamp.group(0)) - made)
        return f"{at.year:04d}-{at:%m-%d %H:%M:%S}.{at.microsecond:06d}"

    return re.sub(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}", redated, log.text(), flags=re.M)


@pytest.fixture
def zone(request, monkeypatch):
    """This process's local zone set to ``request.param`` for the test (then restored)."""
    monkeypatch.setenv("TZ", request.param)
    time.tzset()
    yield request.param
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"], indirect=True)
def test_times_without_a_zone_are_subtracted_as_the_log_prints_them(zone, tmp_path):
    # 01:30 and 03:30 on the night New York's clocks go from 02:00 to 03:00: 2 h apart in the log, whatever zone
    # this machine is in (through New York's rule they would be drawn 1 h apart).
    path = tmp_path / "train.log"
    path.write_text(two_compilations(datetime(2023, 3, 12, 1, 30), timedelta(hours=2)))
    rows, note = timeline_rows(summarize_compiles(read_compile_logs([str(path)])))
    assert note is None
    assert [(r["label"], r["start_s"]) for r in rows] == [("#1", 0.0), ("#2", 7201.0)]


@pytest.mark.parametrize("zone", ["Asia/Tokyo"], indirect=True)
@pytest.mark.parametrize("first", [datetime(1, 1, 1, 0, 0, 30), datetime(9999, 12, 31, 23, 50)])
def test_a_log_dated_year_1_or_9999_makes_its_page(first, zone, tmp_path, monkeypatch):
    # Through the local zone these are before year 1 or after 9999 (Python refuses them: "memreport bug")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.log").write_text(two_compilations(first, timedelta(minutes=1)))
    result = CliRunner().invoke(main, ["compiles", "old.log", "--html", "page.html", "-o", "out.txt"])
    assert result.exit_code == 0, result.output
    rows = data_block((tmp_path / "page.html").read_text())["sections"][0]["rows"]
    assert [r["start_s"] for r in rows] == [0.0, 61.0]


def many(n: int, again: tuple[int, int]) -> CompileHistory:
    """``n`` compilations of distinct modules, a minute apart, but for two of the same module (0-based
    positions ``again``): compiled twice, a finding."""
    start = datetime(2024, 1, 1)
    compilations = tuple(
        Compilation(source="big.log", line=10 * i + 1, end_line=10 * i + 9, process=None, framework="tensorflow",
                    time=(start + timedelta(minutes=i)).isoformat(), module="cluster_x" if i in again else f"m{i}",
                    hash="ff" if i in again else f"{i:x}", executable_hash=None, result="compiled", cache=None,
                    duration_s=30.0, duration_from="timestamps", peak_rss_mb=None, tiles_overflowed=None, target=None,
                    cache_file=None)
        for i in range(n))
    return CompileHistory((CompileLogInfo("big.log", 10 * n, n, 0),), compilations, ())


def test_the_page_keeps_the_first_and_last_compilations_and_those_the_findings_name():
    n = 20_000
    summary = summarize_compiles(many(n, (7_000, 13_000)))
    assert [f.kind for f in summary.findings] == ["recompiled"]
    page = render("compiles", "html", summary)
    assert isinstance(page, str) and len(page.encode()) < 200_000  # every row: 5 MB
    table = page[page.index("<h3>Compilations (20,000)</h3>"):]
    numbers = [int(cell) for cell in re.findall(r"<tr><td class=num>(\d+)</td>", table)]
    assert numbers == [*range(1, ROWS_SHOWN + 1), 7_001, 13_001, *range(n - ROWS_SHOWN + 1, n + 1)]
    assert table.count("<tr><td class=num>…</td>") == 3  # where rows are left out
    assert f"<p class=hint>{n - 2 * ROWS_SHOWN - 2:,} more compilations: the JSON and CSV outputs list every one</p>" \
        in table
    rows = data_block(page)["sections"][0]["rows"]
    assert [r["label"] for r in rows] == [f"#{i}" for i in numbers]
    assert rows[ROWS_SHOWN]["start_s"] == 7_000 * 60.0  # placed at its own time, not after the rows shown
    assert f"{n - len(rows):,} more rows (compilations and executable loads) left out of the timeline" in page


def test_a_short_history_is_shown_whole():
    summary = summarize_compiles(many(2 * ROWS_SHOWN, ()))
    page = render("compiles", "html", summary)
    assert "…" not in page and "more compilations" not in page and "left out of the timeline" not in page
    assert len(data_block(page)["sections"][0]["rows"]) == 2 * ROWS_SHOWN
