"""A compilation being put together from its lines (:mod:`.assemble`), and the helpers that fill it in."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from ....model import CompileTarget
from .lines import Stamp


@dataclass
class Phase:
    name: str
    line: int
    stamp: Stamp | None


@dataclass
class Draft:
    """A compilation being assembled from its lines."""

    source: str
    line: int
    process: str | None
    framework: str
    stamp: Stamp | None
    module: str | None = None
    hash: str | None = None
    executable_hash: str | None = None
    result: str | None = None
    cache: str | None = None
    cache_file: str | None = None
    open: bool = True
    end_line: int | None = None
    begin: Stamp | None = None          # the framework's own start and end lines, for a duration by timestamps
    end: Stamp | None = None
    phase_ms: float = 0.0               # Poplar's top-level compile phases, summed
    phases: int = 0
    phase_unknown: bool = False         # a top-level phase whose duration no line states
    compile_phase: bool = False         # a top-level phase other than graph construction ended
    peak_rss: float | None = None
    peak_rss_unit: str | None = None
    tiles_overflowed: int | None = None
    finished_line: bool = False         # Poplar's "Graph compilation finished:" came
    target: CompileTarget | None = None
    lookup: bool = False                # TensorFlow: a cache lookup line came (Loaded / Couldn't find)
    past_lookup: bool = False           # TensorFlow: a line that follows the lookup came
    not_cacheable: bool = False
    cache_said: str | None = None       # "on" or "off": what the process's cache lines said by the end
    notes: list[str] = field(default_factory=list)
    start_seen: bool = True             # the line that starts it is in the log
    end_seen: bool = False              # the line that ends it is in the log


def seconds_between(begin: Stamp | None, end: Stamp | None) -> float | None:
    """``end - begin`` when both carry a date on the same clock (never local minus UTC, never a bare time)."""
    if begin is None or end is None or begin.at is None or end.at is None or begin.clock != end.clock:
        return None
    delta = (end.at - begin.at).total_seconds()
    return delta if delta >= 0 else None


def keep_peak(draft: Draft, rss: list[tuple[float, str | None]]) -> None:
    """Keep the largest RSS figure (and its unit) of a compilation."""
    value, unit = max(rss, key=lambda figure: figure[0])
    if draft.peak_rss is None or value > draft.peak_rss:
        draft.peak_rss, draft.peak_rss_unit = value, unit


def latest_open(drafts: list[Draft]) -> Draft | None:
    """The last open draft of ``drafts``, dropping closed ones from its end (each is dropped once)."""
    while drafts and not drafts[-1].open:
        drafts.pop()
    return drafts[-1] if drafts else None


def file_stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]
