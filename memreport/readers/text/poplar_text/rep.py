"""The TensorFlow ``.rep`` event trace: each ``Compile end`` event holds a text summary (docs/FORMATS.md §1.7).

Streamed like any log: only the event lines (``=> @ ...``) are searched for,
so the execution reports between compile reports, however large, are never
split into lines; each ``Compile end`` event's summary is read up to the
next event's rule of dashes.
"""
from __future__ import annotations

import re
import warnings
from typing import Any

from ....errors import ReadError
from ....model import MemoryReport, SummaryReport
from ..logtext import UNTAGGED, LogFile, LogLine
from .placing import positioned
from .prefixes import Signature
from .region import read_region
from .report import summary_report
from .values import INT, integer

# A .rep event: a rule of 70 dashes, then "=> @ <time>: <event>" (the rule is found on the first bytes).
REP_EVENT = re.compile(r"^[ \t]*-{70,}[ \t]*\r?\n(?P<event>[ \t]*=>[^\n]*)", re.MULTILINE)
RULE = re.compile(r"[ \t]*-{70,}[ \t]*")
_EVENT = re.compile(r"\s*=>\s*@\s*(?P<when>.*?):\s+(?P<kind>Compile begin|Compile end|Host->Device|Device->Host|"
                    r"Load engine|Execute|Unknown event)(?:\s*:\s*(?P<module>.*))?\s*")
_DURATION = re.compile(rf"Duration\s*:\s*({INT})\s*us")
_BARE = Signature(UNTAGGED, False)


def read_rep(log: LogFile, source: str, progress=None) -> list[MemoryReport]:
    """The summary of every ``Compile end`` event, in file order."""
    reports: list[tuple[int, SummaryReport]] = []
    skipped = 0
    for hit in log.find((b"=> @",), progress=progress):
        if not hit.text.lstrip().startswith("=>"):
            continue
        event = _EVENT.fullmatch(hit.text)
        if event is None:
            raise ReadError(f"cannot read the trace event line {hit.text.strip()!r}", line=hit.no)
        if event["kind"] != "Compile end":
            continue
        module = (event["module"] or "").strip() or None
        info: dict[str, Any] = {"event_time": event["when"].strip()}
        first = _first_content(log, hit, info)
        if first is None or first.text.lstrip()[:1] in ("{", "["):
            skipped += 1
            kind = "an empty report" if first is None else "a JSON report, not a text summary"
            warnings.warn(f"{source}: 'Compile end: {module}' (line {hit.no}) holds {kind}; skipped", stacklevel=3)
            continue
        reports.extend(_summaries(log, first, source, module, info))
    if not reports:
        raise ReadError(f"the trace holds no text compile report ({skipped} compile report(s) skipped; "
                        f"enable use_poplar_text_report for text summaries)")
    return positioned(reports)


def _first_content(log: LogFile, event: LogLine, info: dict[str, Any]) -> LogLine | None:
    """The first line of an event's report after its ``Duration: N us`` line (None: the event is empty)."""
    for ln in log.lines(event.offset, event.no):
        if ln.no == event.no or not ln.text.strip():
            continue
        if RULE.fullmatch(ln.text):
            return None
        match = _DURATION.fullmatch(ln.text.strip())
        if match and "compile_duration_us" not in info:
            info["compile_duration_us"] = integer(match[1], ln.no, "Duration")
            continue
        return ln
    return None


def _summaries(log: LogFile, start: LogLine, source: str, module: str | None,
               info: dict[str, Any]) -> list[tuple[int, SummaryReport]]:
    """Every summary of one event's report (several when it holds several Targets), with its first line."""
    reports: list[tuple[int, SummaryReport]] = []
    line: LogLine | None = start
    while line is not None:
        region = read_region(log, line, line.text, _BARE, log.encoding != "utf-8", stop=RULE)
        if region is None or not region.summary.has_figures():
            raise ReadError("no memory figures found (expected a Memory Usage or By Tile section)", line=line.no)
        reports.extend((region.first, r) for r in summary_report(region.summary, source, module, dict(info)))
        line = region.next_start
    return reports
