"""PopTorch at its default log level: the compilation bar and a script's ``Compiled/Loaded model in X secs``.

At PopTorch's default level a run's log shows no compile line at all, only
the bar PopTorch draws while PopART compiles (docs/FORMATS.md §8.5, §8.10)
and, in Graphcore's examples and optimum-graphcore, the script's own timing
of ``compile()``. Per process, each bar (its frames from the first to the
last, redrawn after ``\\r``) is one compilation; its last frame's elapsed
time is the compilation's length when it reached its total (tqdm's clock,
whole seconds), and a bar that stops short is unfinished. A timing line
right after a bar belongs to it; one with no bar and no compile line since
the previous one is a compilation or a cache load (the line does not say
which). Bars and timings whose lines overlap a compilation that other lines
show (PopART, Poplar) are that compilation, already counted.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from ....model import Compilation
from .lines import POPART, BarFrame, new_bar


@dataclass
class _Timing:
    line: int                      # the bar's first frame, or the timing line
    end_line: int
    n: int = 0
    total: int = 0                 # 0: no bar (a timing line alone)
    elapsed_s: int | None = None
    script_s: float | None = None  # Compiled/Loaded model in X secs
    script_line: int | None = None


class ScriptTimings:
    """The bars and timing lines of one process, in line order."""

    def __init__(self, all_frames: bool = False) -> None:
        self.found: list[_Timing] = []
        self.bar: _Timing | None = None    # the bar being drawn, until a timing line claims it
        self.drawn: _Timing | None = None  # the bar last drawn, claimed or not
        self.last: tuple[BarFrame, int] | None = None  # its last frame that counts, and that frame's line
        self.previous_timing = 0           # the line of the previous timing line
        self.all_frames = all_frames       # every frame may begin a bar (a notebook's text keeps last states only)

    def frame(self, frame: BarFrame, no: int) -> None:
        """One frame of the bar, at line ``no``: a new bar (a new compilation) when it counts back or follows a
        bar that reached its total on an earlier line (lines.new_bar, the rule ..programs counts by too). In a
        log only frames at 0 and at the total count (a frame between them only says how far its bar got): the
        rule ``memreport LOG``, which sees those frames alone, counts by."""
        counts = self.all_frames or frame.n == 0 or frame.n >= frame.total
        bar = self.drawn
        if counts:
            if bar is None or self.last is None or new_bar(self.last[0], self.last[1], frame, no):
                bar = self.bar = self.drawn = _Timing(no, no)
                self.found.append(bar)
            self.last = (frame, no)
        elif bar is None:
            return  # a bar whose start the log does not show (its 0 frame): no compilation of its own
        bar.end_line = max(bar.end_line, no)
        if frame.n >= bar.n or bar.n < bar.total:  # close()'s redraw of a finished bar keeps what it reached
            bar.n, bar.total, bar.elapsed_s = frame.n, frame.total, frame.elapsed_s

    def script_timing(self, seconds: float, no: int, shown: bool) -> None:
        """``Compiled/Loaded model in X secs`` at line ``no``; ``shown``: other lines show what it timed."""
        if self.bar is not None:
            self.bar.script_s, self.bar.script_line, self.bar.end_line = seconds, no, no
        elif not shown:
            self.found.append(_Timing(no, no, script_s=seconds, script_line=no))
        self.bar = None
        self.previous_timing = no

    def compilations(self, source: str, process: str | None, shown: list[tuple[int, int]]) -> list[Compilation]:
        """The compilations of the bars and timings that no other compilation's lines overlap; ``shown`` is
        each other compilation's (first line, last line), in order of first line."""
        starts = [first for first, _ in shown]
        reach, furthest = [], 0
        for _, last in shown:
            furthest = max(furthest, last)
            reach.append(furthest)
        found = []
        for timing in self.found:
            before = bisect_right(starts, timing.end_line)  # the compilations that begin by its last line
            if before and reach[before - 1] >= timing.line:
                continue
            found.append(_compilation(timing, source, process))
        return found


def _compilation(t: _Timing, source: str, process: str | None) -> Compilation:
    notes: list[str] = []
    script = None if t.script_s is None else (f"the script timed its compile or load at {t.script_s:,.3f} s "
                                              f"('Compiled/Loaded model in' at line {t.script_line:,})")
    result, ended, duration, source_of = None, True, None, None
    if t.total and t.n >= t.total:
        result, duration, source_of = "compiled", float(t.elapsed_s or 0), "progress bar"
        notes.append(f"PopTorch's compilation bar reached {t.n}/{t.total} after {_clock(t.elapsed_s or 0)} (tqdm's "
                     "elapsed time, whole seconds)")
        notes += [script] if script else []
    elif t.total:
        if t.script_s is None:
            ended = False
            notes.append(f"PopTorch's compilation bar stopped at {t.n}/{t.total} after {_clock(t.elapsed_s or 0)}")
        else:
            result, duration, source_of = "compiled", t.script_s, "script timing"
            notes += [f"PopTorch's compilation bar was last drawn at {t.n}/{t.total}", script or ""]
    else:
        duration, source_of = t.script_s, "script timing"
        notes.append("'Compiled/Loaded model in' says compiled or loaded from the cache, not which (no "
                     "compilation bar or compile line before it; PopTorch draws its bar only while compiling)")
    return Compilation(
        source=source, line=t.line, end_line=t.end_line, process=process, framework=POPART, time=None, module=None,
        hash=None, executable_hash=None, result=result, cache=None, duration_s=duration if ended else None,
        duration_from=source_of if ended else None, peak_rss_mb=None, tiles_overflowed=None, target=None,
        cache_file=None, notes=tuple(notes), end_in_log=ended)


def _clock(seconds: int) -> str:
    """tqdm's [H:]MM:SS, as the bar printed it."""
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}:{minute:02d}:{second:02d}" if hours else f"{minute:02d}:{second:02d}"
