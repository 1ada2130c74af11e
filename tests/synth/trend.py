"""Builds for the trend tests (analysis and every output form): reports at a 100-byte limit, and a trend's build.

Each tile report is :func:`tests.builds.complete` of the bytes given; the
text summary states only what Poplar prints (no per-tile bytes).
"""
from __future__ import annotations

from memreport.analysis import summarize
from memreport.analysis.trend import trend_build
from memreport.model import PrintedSummary, SkippedMember, SummaryReport, Target, TileBytes, TileReport
from tests.builds import complete

LIMIT = 100  # bytes per tile


def tiles(values, skipped=()) -> TileReport:
    """A tile report of ``values`` bytes per tile; the tiles ``skipped`` are members that could not be read."""
    report = complete(values, bytes_per_tile=LIMIT)
    if skipped:
        report = report.evolve(skipped=tuple(SkippedMember(t, f"tile_{t}.elf", "truncated") for t in skipped))
    return report


def summary_report(oom: int = 1) -> SummaryReport:
    """A text summary: what it printed, no per-tile bytes."""
    return SummaryReport(source="summary.txt", format="poplar-text", target=Target(4, "ipu2", 1, 4, LIMIT),
                         printed=PrintedSummary(max_excluding_gaps=TileBytes(0, 150), tiles_out_of_memory=oom,
                                                excluding_gaps=400))


def build(report, label: str):
    """``report`` as a trend's build named ``label`` (from ``label.a``)."""
    return trend_build(summarize(report, top=0), label, f"{label}.a")
