"""The TensorFlow ``.rep`` event trace: each ``Compile end`` event holds a text summary (docs/FORMATS.md §1)."""
from __future__ import annotations

import re
import warnings
from typing import Any

from ...errors import ReadError
from ...model import MemoryReport
from .report import summaries
from .values import INT, integer, split_lines

# A .rep event: a rule of 70 dashes, then "=> @ <time>: <event>". Found on the raw text, so the
# (possibly huge) execution reports between compile reports are never split into lines.
REP_EVENT = re.compile(r"^[ \t]*-{70,}[ \t]*\r?\n(?P<event>[ \t]*=>[^\n]*)", re.MULTILINE)
_EVENT = re.compile(r"=>\s*@\s*(?P<when>.*?):\s+(?P<kind>Compile begin|Compile end|Host->Device|Device->Host|"
                    r"Load engine|Execute|Unknown event)(?:\s*:\s*(?P<module>.*))?")


def read_rep(text: str, events: list[re.Match], source: str) -> list[MemoryReport]:
    """The summary of every ``Compile end`` event (``events``: the :data:`REP_EVENT` matches in ``text``)."""
    reports: list[MemoryReport] = []
    skipped = 0
    pos, no = 0, 1  # newlines are counted incrementally: one pass over the text in all
    for k, found in enumerate(events):
        no += text.count("\n", pos, found.start("event"))
        pos = found.start("event")
        event = _EVENT.fullmatch(found["event"].strip())
        if event is None:
            raise ReadError(f"cannot read the trace event line {found['event'].strip()!r}", line=no)
        if event["kind"] != "Compile end":
            continue
        body = split_lines(text[found.end("event") + 1:events[k + 1].start() if k + 1 < len(events) else len(text)],
                      no + 1)
        module = (event["module"] or "").strip() or None
        info: dict[str, Any] = {"event_time": event["when"].strip()}
        content = [ln for ln in body if ln.text]
        if content and (match := re.fullmatch(rf"Duration\s*:\s*({INT})\s*us", content[0].text)):
            info["compile_duration_us"] = integer(match[1], content[0].no, "Duration")
            content = content[1:]
        if not content or content[0].text[:1] in "{[":
            skipped += 1
            kind = "an empty report" if not content else "a JSON report, not a text summary"
            warnings.warn(f"{source}: 'Compile end: {module}' (line {no}) holds {kind}; skipped", stacklevel=3)
            continue
        reports.extend(summaries(body, source, module, info))
    if not reports:
        raise ReadError(f"the trace holds no text compile report ({skipped} compile report(s) skipped; "
                        f"enable use_poplar_text_report for text summaries)")
    return reports

