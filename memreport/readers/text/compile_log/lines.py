"""One log line -> a typed record: launcher tag, logger header (time, logger), and which compile line it is.

A line is read in the layers of docs/FORMATS.md §8: the launcher tag at its
start (§8.3), colour codes and ``\\r`` redraws, a tqdm bar glued to its front
and a second tag after the bar (§8.5), then a logger header found anywhere in
what is left (§8.4). The message after the header is matched against the
format strings of §8.7-§8.10; a line with no header is taken when a message
starts it (a logger set to print the bare message), never when a message is
merely quoted inside other text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time

from ..logtext import UNTAGGED, clean, split_tag, strip_progress_bar

# Logger headers (§8.4), searched anywhere in a line. Each names its family; the clock says which
# timestamps may be subtracted from one another (never a local time from a UTC one, never a bare time of day).
_HEADER = re.compile(
    # TensorFlow: "2023-08-22 23:35:02.925033: I tensorflow/.../poplar_compiler.cc:1487] " (local time; an
    # optional thread id right-aligned in 7 columns with TF_CPP_LOG_THREAD_ID=1).
    r"(?P<tf_date>\d{4}-\d\d-\d\d) (?P<tf_time>\d\d:\d\d:\d\d\.\d{6}): [IWEF](?: +\d+)? [^\s\]]+:\d+\] "
    # Poplar, PopLibs (SDK 2.3 on) and PopART (2.3 on): "2023-06-29T16:14:58.205011Z PO:GRAPH    79.79 I: ".
    r"|(?P<utc>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6})Z (?P<utc_logger>P[OL]:[A-Z0-9_]+|popart(?::\w+)?) +\d+\.\d+ "
    r"[TDIWECO]: ?"
    # Poplar and PopLibs, older style: "09:38:52.878 15288 PO:ENGINE   [I] " (local time of day).
    r"|(?P<old_time>\d\d:\d\d:\d\d\.\d{3}) \d+ (?P<old_logger>P[OL]:[A-Z0-9_]+) +\[[TDIWECO]\] ?"
    # PopART up to SDK 2.2 (spdlog's default): "[2019-10-16 13:55:05.359] [popart:devicex] [debug] ".
    r"|\[(?P<popart_date>\d{4}-\d\d-\d\d) (?P<popart_time>\d\d:\d\d:\d\d\.\d{3})\] "
    r"\[(?P<popart_logger>popart(?::\w+)?)\] \[\w+\] "
    # PopTorch C++ and Python: "[10:21:41.138] [poptorch:cpp] [warning] " (local time of day).
    r"|\[(?P<pt_time>\d\d:\d\d:\d\d\.\d{3})\] \[(?P<pt_logger>poptorch:cpp|poptorch::python)\] \[\w+\] ")

TENSORFLOW, POPLAR, POPART, POPTORCH, POPLIBS = "tensorflow", "poplar", "popart", "poptorch", "poplibs"


@dataclass(frozen=True)
class Stamp:
    """A line's time: ``iso`` as the logger printed it, ``at`` and ``clock`` for subtracting one from another.

    ``at`` is None for a bare time of day (no date: a difference could hide
    whole days). ``clock`` is "utc", or "local" with the logger's family
    (two loggers' local times are never mixed).
    """

    iso: str
    at: datetime | None
    clock: str


def _stamp(iso: str, clock: str, dated: bool = True) -> Stamp | None:
    """The time of a header, or None when it is no real time (a damaged line: hour 29, 31 June)."""
    try:
        if dated:
            return Stamp(iso, datetime.fromisoformat(iso.rstrip("Z")), clock)
        time.fromisoformat(iso)
    except ValueError:
        return None
    return Stamp(iso, None, clock)


@dataclass(frozen=True)
class Line:
    """A log line stripped of tag, debris and header: who wrote it, when, and the message."""

    process: str | None     # launcher rank of a tagged line ("1,0")
    family: str | None      # tensorflow, poplar, poplibs, popart, poptorch; None without a header
    stamp: Stamp | None
    message: str


def _family(logger: str) -> str:
    if logger.startswith("PO:"):
        return POPLAR
    if logger.startswith("PL:"):
        return POPLIBS
    return POPART


def _tag_before(text: str) -> str | None:
    """The rank of the last launcher tag in ``text`` (one after a glued bar), if any."""
    end = text.rfind("]<std")
    if end < 0:
        return None
    tag, _ = split_tag(text[text.rfind("[", 0, end):])
    return tag.process or None


def split_line(text: str) -> Line:
    """Undo launcher tags, colours, redraws and a glued bar, then find the logger header (§8.3-§8.5)."""
    tag, rest = split_tag(text) if "]<" in text else (UNTAGGED, text)  # before a \r redraw erases it
    rest = clean(rest)
    process = tag.process or None
    match = _HEADER.match(rest) or _HEADER.search(rest)
    if match is None:  # a bare message, if anything: after any bar and a tag the bar hid
        if "%|" in rest:
            rest = strip_progress_bar(rest)
            later, rest = split_tag(rest)
            process = later.process or process
        return Line(process, None, None, rest.strip())
    if match.start() and "]<" in rest[:match.start()]:  # "...100/100 [00:04<00:00][1,0]<stderr>:2023-..."
        process = _tag_before(rest[:match.start()]) or process
    message = rest[match.end():]
    groups = match.groupdict()
    if groups["tf_date"]:
        return Line(process, TENSORFLOW, _stamp(f"{groups['tf_date']}T{groups['tf_time']}", "local tensorflow"),
                    message)
    if groups["utc"]:
        return Line(process, _family(groups["utc_logger"]), _stamp(groups["utc"] + "Z", "utc"), message)
    if groups["old_time"]:
        return Line(process, _family(groups["old_logger"]), _stamp(groups["old_time"], "local poplar", False),
                    message)
    if groups["popart_date"]:
        return Line(process, POPART, _stamp(f"{groups['popart_date']}T{groups['popart_time']}", "local popart"),
                    message)
    return Line(process, POPTORCH, _stamp(groups["pt_time"], "local poptorch", False), message)


# -- the messages (§8.7-§8.10): kind, the families that print it, and its pattern --------------------------

@dataclass(frozen=True)
class Record:
    """A recognised compile, cache or phase line: its kind and the values it states (None where it does not)."""

    kind: str
    line: Line
    name: str | None = None         # module (TensorFlow) or phase name (Poplar)
    hash: str | None = None         # as printed: "0x1a2b" (TensorFlow) or decimal (PopART)
    file: str | None = None         # a cache or executable file
    ms: float | None = None         # a phase's duration
    rss: float | None = None        # the largest RSS figure the line prints
    rss_unit: str | None = None     # its unit as printed ("MiB", "MB")
    text: str | None = None         # free text worth keeping (a reason, an overflow wording)
    numbers: tuple[int | None, ...] = ()


_HEX = r"0x(?P<hash>[0-9a-fA-F]+)"
_TF_FILE = r"(?P<file>.+\.(?:poplar_exec|xla_engine))\s*$"
# (kind, families, pattern): the pattern is matched at the message's start.
_MESSAGES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    # TensorFlow, poplar_compiler.cc and poplar_executable_cache.cc (§8.7).
    ("tf-begin", (TENSORFLOW,), rf"Begin XLA compilation: (?P<name>\S+) +\(Hash: {_HEX}\) for ordinal +\d+"),
    ("tf-end-xla", (TENSORFLOW,), rf"End XLA compilation: (?P<name>\S+) +\(Hash: {_HEX}\)"),
    ("tf-not-compiled", (TENSORFLOW,), rf"Module (?P<name>\S+) has not been compiled yet \(Hash: {_HEX}\)"),
    ("tf-loaded", (TENSORFLOW,), rf"Loaded (?P<name>\S+) from {_TF_FILE}"),
    ("tf-miss", (TENSORFLOW,), r"Couldn't find (?P<file>.+) in executable cache\s*$"),
    ("tf-skip", (TENSORFLOW,), r"Skip engine compilation - (?P<text>.*[^\s.])"),
    ("tf-engine-begin", (TENSORFLOW,), r"Begin compiling Poplar engine (?P<name>\S+)"),
    ("tf-engine-end", (TENSORFLOW,), r"End compiling Poplar engine\.?\s*$"),
    ("tf-precompiled", (TENSORFLOW,), r"A pre-compiled Poplar program has been saved to (?P<file>.*\S)"),
    ("tf-not-cacheable", (TENSORFLOW,), r"Executable caching has been enabled, however the program being compiled "
                                        r"contains custom user operations which cannot be safely serialized"),
    ("tf-cache-off", (TENSORFLOW,), r"Clearing XLA compilation cache of device '[^']*' while executable caching "
                                    r"is disabled"),
    # tensorflow/compiler/jit/xla_compilation_cache.cc, LogOnceXlaCompiledFirstCluster (graphcore/tensorflow):
    # LOG(INFO) "Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process."
    # after the first cluster's compile_fn (on the IPU, an executable cache load too), at the default level.
    ("tf-xla-cluster", (TENSORFLOW,), r"Compiled cluster using XLA!"),
    # PopART (and PopXL, PopTorch through it), §8.9; SDK 1.x spellings included.
    ("popart-start", (POPART,), r"Starting (?:Engine )?compilation\s*$"),
    ("popart-compiled", (POPART,), r"Graph compiled\s*$"),
    ("popart-not-compiling", (POPART,), r"Not compiling engine by request"),
    ("popart-returning", (POPART,), r"Retur(?:n)?ing CachedExecutable\s*$"),
    ("popart-popef-found", (POPART,),
     r"PopEF file inferred to have hash '(?P<hash>\d+)' has been found: (?P<file>.*\S)"),
    ("popart-cache-file-found", (POPART,), r"PopART cache file has been found: (?P<file>.*\S)"),
    ("popart-hash-matched", (POPART,), r"Ir hash matched cached value"),
    ("popart-false-hit", (POPART,), r"Cache file hash did not match the IR hash"),
    ("popart-cache-off", (POPART,), r"Skipping to load cached PopART executable: user options have disabled it"),
    ("popart-loading", (POPART,), r"Loading serialized PopART executable from (?P<file>.*\S)"),
    ("popart-load-failed", (POPART,), r"Failed to load cached PopART executable from (?P<file>.+?): (?P<text>.*)$"),
    ("popart-save-dir", (POPART,), r".+ is a directory, saving serialized Executablex to (?P<file>.*\S)"),
    ("popart-saving", (POPART,), r"Saving serialized Executablex to (?P<file>.*\S)"),
    # devicex, WARN, when it saves to a cache directory that does not exist yet (its quotes and trailing space are
    # real): the run's cache is on and was empty, so what it compiled was no hit.
    ("popart-cache-created", (POPART,), r"Specified (?:cache )?directory not found\. Creating \"?(?P<file>.*?)\"? "
                                        r"directory\s*$"),
    ("popart-sdk1-saving", (POPART,), r"Saving poplar Executable to '(?P<file>.*)'"),
    ("popart-sdk1-loading", (POPART,), r"Loading poplar Executable from '(?P<file>.*)'"),
    ("popart-sdk1-unable", (POPART,), r"Unable to load cached poplar::Executable, (?P<text>.*)$"),
    # PopTorch, §8.10: the cache directory, and the two warnings of a run without a cache.
    ("poptorch-cache-dir", (POPTORCH,), r"POPTORCH_CACHE_DIR is set: setting cache path to (?P<file>.*\S)"),
    ("poptorch-no-cache", (POPTORCH,), r"Use poptorch\.Options\.enableExecutableCaching\(\) to avoid compiling"),
    ("poptorch-no-cache", (POPTORCH,), r"enableExecutableCaching doesn't work with the IPU model"),
    # Poplar's engine, §8.8 (phase names can hold spaces, '#', '::', '[', ')' and '&').
    ("phase-start", (POPLAR,), r" *Starting phase: (?P<name>.*\S)"),
    ("phase-end", (POPLAR,), r" *Ending phase: (?P<name>.*\S)"),  # SDK 2.x: "... (duration N ms; ...)" after it
    ("perf", (POPLAR,), r"(?P<name>.+): real (?P<ms>\d+(?:\.\d+)?) ms;(?P<text>.*)$"),
    ("target-info", (POPLAR,), r"Target info: (?P<text>.*)$"),
    ("compile-finished", (POPLAR,), r"Graph compilation finished: (?P<text>.*\S)"),
)
# Messages by their first word (a PERF line starts with its phase's name, a directory save with a path).
_BY_WORD: dict[str, list[tuple[str, tuple[str, ...], re.Pattern[str]]]] = {}
_PERF: tuple[str, tuple[str, ...], re.Pattern[str]] = ("", (), re.compile(""))
_SAVE_DIR = _PERF
for _kind, _families, _pattern in _MESSAGES:
    _entry = (_kind, _families, re.compile(_pattern))
    if _kind == "perf":
        _PERF = _entry
    elif _kind == "popart-save-dir":
        _SAVE_DIR = _entry
    else:
        _first = _pattern.lstrip(" *").split(" ", 1)[0].split("(", 1)[0]
        _BY_WORD.setdefault(_first, []).append(_entry)
_BY_WORD["Returning"] = _BY_WORD["Returing"] = _BY_WORD.pop("Retur")  # "Returing" (sic) up to SDK 1.4
_PERF_RSS = re.compile(r"(?:max|total) RSS: (-?\d+(?:\.\d+)?)(?![\d.]) ?([KMGT]i?B\b)?")
# Poplar SDK 2.x puts the timing on the Ending line: "NAME (duration N ms; diff RSS: X MB[; total RSS: Y MB])".
_DURATION = re.compile(r" \(duration (\d+(?:\.\d+)?) ms; diff RSS: -?[\d.]+ MB(?:; total RSS: (\d+(?:\.\d+)?) MB)?\)$")
# A script's own timing of PopTorch's compile(), from Graphcore's examples and optimum-graphcore (§8.10):
# logger(f"Compiled/Loaded model in {duration_compilation} secs"), a bare message or after any prefix, at the
# end of its line (a float as Python prints it: "683.6591004971415", "1e-05").
_SCRIPT_TIMING = re.compile(r"Compiled/Loaded model in (\d+(?:\.\d*)?(?:[eE][-+]?\d+)?) secs\s*$")
# PopTorch's compilation bar (graphcore/poptorch python/_options_impl.py, ProgressBar): tqdm with
# desc="Graph compilation" and bar_format "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]", so
# "Graph compilation:  45%|████▌     | 45/100 [00:31<01:11]"; elapsed is tqdm's format_interval, [H:]MM:SS.
# Each update is redrawn after a "\r" on the same line, and a log line written meanwhile is glued after it.
# A frame's figures are tqdm's: n and total under ten digits, hours too (a longer run of digits is no frame, and
# is never turned into a number: ``memreport LOG`` reads bars as well, issue #30).
_BAR_FRAME = re.compile(r"Graph compilation: *\d{1,3}%\|[^|\r\n]*\| *(\d{1,9})/(\d{1,9}) "
                        r"\[(?:(\d{1,9}):)?(\d\d):(\d\d)<[^\]\r\n]*\]")
MAX_PARSED = 16384  # characters of a line looked at: no line memreport reads is longer (a long one is cut here)
_TARGET_PARTS = (re.compile(r'arch: "?([^",\s]+)"?'), re.compile(r"IPUs: (\d[\d,]*)"),
                 re.compile(r"tiles per IPU: (\d[\d,]*)"))
_OVERFLOWED = re.compile(r"(zero|no|\d[\d,]*) tiles? overflowed")


def _number(text: str) -> int | None:
    """A count as printed (thousands separators allowed); None past 19 digits (no real count is that long, and
    Python refuses to convert past 4,300)."""
    digits = text.replace(",", "")
    return int(digits) if len(digits) <= 19 else None


@dataclass(frozen=True)
class BarFrame:
    """One drawing of PopTorch's compilation bar: the launcher rank before it, ``n`` of ``total``, and
    the elapsed time it shows, in seconds; ``glued``: other text follows it on its line before any next frame
    (a log line written while the bar was drawn, §8.5)."""

    process: str | None
    n: int
    total: int
    elapsed_s: int
    glued: bool = False


_TAGS = re.compile(r"\[(?:[\w.-]+@)?\d+,\d+\]<std(?:out|err|diag)>: ?")


def bar_frames(text: str) -> list[BarFrame]:
    """Every frame of PopTorch's compilation bar in a line, in order (redraws after ``\\r`` included).

    A frame's rank is the launcher tag before it; with none before it, the
    tag glued after the bar (poprun's BERT run, *seen* [alcf-ug]: ``Graph
    compilation: 100%|...| 100/100 [10:11<00:00][1,0]<stderr>:``, the tag of
    tqdm's closing newline, then ``[1,0]<stderr>:Compiled/Loaded model in
    683.66 secs``).
    """
    if "\x1b" in text:
        text = clean(text.replace("\r", "\n")).replace("\n", "\r")  # colours gone, every redraw kept
    tag, _ = split_tag(text) if "]<" in text else (UNTAGGED, text)
    text = text[:MAX_PARSED]
    matches = list(_BAR_FRAME.finditer(text))
    if not tag.process and matches and "]<" in text[matches[-1].end():]:
        after_bar = _TAGS.search(text, matches[-1].end())
        tag, _ = split_tag(after_bar[0]) if after_bar is not None else (tag, text)
    frames = []
    for k, match in enumerate(matches):
        process = _tag_before(text[:match.start()]) if "]<" in text else None
        hours, minutes, seconds = (int(g) if g else 0 for g in match.groups()[2:])
        after = text[match.end():matches[k + 1].start() if k + 1 < len(matches) else len(text)]
        glued = bool(after.strip()) and bool(_TAGS.sub("", after).strip())
        frames.append(BarFrame(process or tag.process or None, int(match[1]), int(match[2]),
                               hours * 3600 + minutes * 60 + seconds, glued))
    return frames


def new_bar(last: BarFrame, last_line: int, frame: BarFrame, no: int) -> bool:
    """Whether ``frame`` (at line ``no``) begins a new bar after ``last`` (at ``last_line``) of its process.

    A bar counting back is a new one, and so is a frame at 0 on a later line
    (tqdm draws 0 once, as the bar opens: two bars stopped at 0, or seen only
    at 0 and at their totals, are two); so is a frame on a later line after a
    bar that reached its total (two compilations' bars, with lines between
    them or not, as a notebook keeps each bar's last state), except the
    redraw ``close()`` makes at the same elapsed time on a line of its own,
    after a last frame with a log line glued to it or on the next line
    (graphcore/poptorch's ProgressBar closes the bar as it reaches its total).
    """
    if no != last_line and last.n >= last.total and frame.n > 0 and not frame.glued and \
            abs(frame.elapsed_s - last.elapsed_s) <= 1 and (last.glued or no == last_line + 1):
        return False  # close()'s redraw (a notebook seen showing 97/100 there: the state tqdm last drew)
    if frame.n < last.n or (frame.n == 0 and no != last_line):  # tqdm draws a bar's 0 once, as it opens
        return True
    return last.n >= last.total and no != last_line


def parse(text: str) -> Record | None:
    """The record of a log line, or None when it is none of the lines memreport reads."""
    line = split_line(text[:MAX_PARSED])
    message = line.message
    if "Compiled/Loaded model in " in message:
        timing = _SCRIPT_TIMING.search(message)
        if timing is not None:
            return Record("poptorch-script-timing", line, ms=float(timing[1]) * 1000)
    if line.family is None and "] Compiled cluster using XLA!" in message:  # absl's "I0000 00:00:... file.h:187] "
        return Record("tf-xla-cluster", line)
    candidates = list(_BY_WORD.get(message.lstrip(" ").partition(" ")[0], ()))
    if ": real " in message:
        candidates.append(_PERF)
    if " is a directory, saving" in message:
        candidates.append(_SAVE_DIR)
    for kind, families, pattern in candidates:
        if line.family is not None and line.family not in families:
            continue
        match = pattern.match(message)
        if match is None:
            continue
        found = match.groupdict()
        if kind == "perf":
            figures = [(float(v), unit or None) for v, unit in _PERF_RSS.findall(found["text"])]
            rss, unit = max(figures, key=lambda figure: figure[0], default=(None, None))
            return Record(kind, line, name=found["name"], ms=float(found["ms"]), rss=rss, rss_unit=unit)
        if kind == "phase-end":
            name, timing = found["name"], _DURATION.search(found["name"])
            if timing is None:
                return Record(kind, line, name=name)
            total = timing[2]
            return Record(kind, line, name=name[:timing.start()], ms=float(timing[1]),
                          rss=None if total is None else float(total), rss_unit=None if total is None else "MB")
        if kind == "target-info":
            parts = [p.search(found["text"]) for p in _TARGET_PARTS]
            arch = parts[0][1] if parts[0] else None
            return Record(kind, line, text=arch, numbers=tuple(_number(p[1]) if p else None for p in parts[1:]))
        if kind == "compile-finished":
            overflowed = _OVERFLOWED.match(found["text"])
            count = None if overflowed is None else 0 if overflowed[1] in ("zero", "no") else _number(overflowed[1])
            return Record(kind, line, text=found["text"], numbers=(count,))
        hash_ = found.get("hash")
        if hash_ is not None and kind.startswith("tf-"):
            hash_ = "0x" + hash_.lower()
        return Record(kind, line, name=found.get("name"), hash=hash_, file=found.get("file"), text=found.get("text"))
    return None
