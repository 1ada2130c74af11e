"""Run logs -> every compilation, cache hit and executable load in them (``memreport compiles``).

Not a memory-report reader: it is not in the report registry, and the CLI
calls :func:`read_compile_logs` itself. Each log is streamed
(:class:`~memreport.readers.text.logtext.LogFile`): a few byte needles pick out
the lines that can matter, :mod:`.lines` parses each into a record and
:mod:`.assemble` puts records together into compilations, per process.
Several logs are one sequence, in the order given (a cold run, then a warm
one).
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence

from ....errors import ReadError
from ....model import CompileHistory, CompileLogInfo
from ...registry import read_prefix, reading
from ..ipynb import is_notebook, notebook_text
from ..logtext import LogFile, looks_like_text
from .assemble import Process
from .lines import Record, bar_frames, parse
from .outcomes import log_programs, with_outcomes

# Every line kind of lines.py holds one of these (docs/FORMATS.md §8.7-§8.12); each costs one pass of
# bytes.find over the log, so they are few, and shared between kinds:
#   "ing phase: "  Poplar's Starting/Ending phase
#   " ms; user "   Poplar 3.x PO:PERF timings
#   " compil"      Begin/End XLA compilation, has not been compiled yet, Skip engine compilation, Begin/End
#                  compiling Poplar engine, the custom-op notice, Clearing XLA compilation cache; PopART's
#                  Starting (Engine) compilation, Graph compiled, Not compiling engine; Graph compilation finished
#   "xecutable"    Couldn't find ... in executable cache; every PopART executable load, save and return line;
#                  PopTorch's enableExecutableCaching warnings
#   "Loaded "      TensorFlow's cache hit
#   "has been "    A pre-compiled Poplar program has been saved; PopEF file ... / PopART cache file has been found
#   " hash "       Ir hash matched cached value; Cache file hash did not match; PopEF file inferred to have hash
#   "CACHE_DIR"    POPTORCH_CACHE_DIR is set
#   "Target info"  the target line
#   "using XLA!"   TensorFlow's Compiled cluster using XLA! (at the default log level)
# PopTorch's default level (bars.py): its bar "Graph compilation: ..." holds " compil", the script's
# "Compiled/Loaded model in X secs" holds "Loaded ".
#   "y not found"  PopART's cache directory created (Specified directory not found. Creating ...)
NEEDLES = (b"ing phase: ", b" ms; user ", b" compil", b"xecutable", b"Loaded ", b"has been ", b" hash ",
           b"CACHE_DIR", b"Target info", b"using XLA!", b"y not found")
LOOKED_FOR = ("no compilation, cache or executable-load lines (looked for TensorFlow's 'Begin XLA compilation' and "
              "'Compiled cluster using XLA!', Poplar's 'Starting phase:', PopART's 'Starting compilation', "
              "PopTorch's 'Graph compilation:' bar and their cache lines: TF_CPP_VMODULE=poplar_compiler=1, "
              "POPLAR_LOG_LEVEL=INFO or POPART_LOG_LEVEL=INFO show each compilation)")


def _process(processes: dict[str | None, Process], source: str, key: str | None, all_frames: bool = False
             ) -> Process:
    state = processes.get(key)
    if state is None:
        state = processes[key] = Process(source, key, all_frames)
    return state


def read_compile_log(path: str, *, progress: Callable[[int, int], None] | None = None, name: str | None = None
                     ) -> tuple[CompileLogInfo, list, list]:
    """One log's compilations and executable loads, in line order (a ReadError if it holds none).

    ``name`` is how the log is named in what is found (``path`` by default).
    A Jupyter notebook (nbformat 4, recognised by content) is read as the
    text its code cells printed, each line placed in the notebook
    (``cell 7 [4], line 12``: ..ipynb).
    """
    source = path if name is None else name
    prefix = read_prefix(path)  # the report's wording for a missing file, a directory, a pipe
    if not prefix:
        raise ReadError("empty file", path=path)
    if is_notebook(prefix):
        with reading(path, "Jupyter notebook"), notebook_text(path) as (text_path, places):
            size = os.path.getsize(path)
            return _read(text_path, source, progress, places, size)
    if not looks_like_text(prefix[:4096]):
        raise ReadError("not a text log (binary content)", path=path)
    with reading(path, "compile log"):
        return _read(path, source, progress, None, None)


def _read(path: str, source: str, progress: Callable[[int, int], None] | None,
          places: Callable[[int], str | None] | None, size: int | None) -> tuple[CompileLogInfo, list, list]:
    """The compilations and loads of the text at ``path`` (a notebook's text when ``places`` is given), each
    given its outcome and memory report as ``memreport LOG`` sees them (.outcomes)."""
    processes: dict[str | None, Process] = {}
    compilations, loads = [], []
    with LogFile(path) as log:
        for hit in log.find(NEEDLES, progress=progress):
            if "Graph compilation:" in hit.text:  # PopTorch's bar, perhaps with a log line glued after it
                for frame in bar_frames(hit.text):
                    _process(processes, source, frame.process, places is not None).bar(frame, hit.no)
            record: Record | None = parse(hit.text)
            if record is None:
                continue
            _process(processes, source, record.line.process, places is not None).feed(record, hit.no)
        size = log.size if size is None else size
        for state in processes.values():
            found, loaded = state.finish()
            compilations += found
            loads += loaded
    compilations.sort(key=lambda c: c.line)
    loads.sort(key=lambda ld: ld.line)
    if not compilations and not loads:
        raise ReadError(LOOKED_FOR)
    programs = log_programs(path, source, places, all_frames=places is not None)
    if programs is not None:
        compilations = with_outcomes(compilations, programs)
    if places is not None:
        compilations = [dataclasses.replace(c, place=places(c.line)) for c in compilations]
        loads = [dataclasses.replace(ld, place=places(ld.line)) for ld in loads]
    return CompileLogInfo(source, size, len(compilations), len(loads)), compilations, loads


def read_compile_logs(paths: Sequence[str | os.PathLike], *,
                      progress: Callable[[str], Callable[[int, int], None] | None] | None = None,
                      names: Sequence[str] | None = None) -> CompileHistory:
    """The compilations and loads of several logs, read as one sequence in the order given.

    ``progress(path)`` may return a ``(done, total)`` callback for that log's
    bytes; ``names`` name the logs in what is found (the paths by default).
    A file given again (by the same name or another) is one input: it is
    read once, and ``CompileHistory.repeated`` says so.
    """
    logs, compilations, loads, repeated = [], [], [], []
    seen: dict[tuple[int, int], str] = {}
    for i, path in enumerate(os.fspath(p) for p in paths):
        name = path if names is None else names[i]
        try:
            stat = os.stat(path)
        except OSError:
            stat = None  # read_compile_log says what is wrong
        if stat is not None and (stat.st_dev, stat.st_ino) in seen:
            repeated.append((name, seen[stat.st_dev, stat.st_ino]))
            continue
        info, found, loaded = read_compile_log(path, progress=progress(path) if progress else None, name=name)
        if stat is not None:
            seen[stat.st_dev, stat.st_ino] = name
        logs.append(info)
        compilations += found
        loads += loaded
    return CompileHistory(tuple(logs), tuple(compilations), tuple(loads), tuple(repeated))


__all__ = ["LOOKED_FOR", "NEEDLES", "read_compile_log", "read_compile_logs"]
