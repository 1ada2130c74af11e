"""Synthetic run logs as engineers hold them: summaries and out-of-memory messages among other output.

The lines follow the layouts of docs/FORMATS.md §8 and the verbatim
examples in the research notes (poprun and mpirun tags, Poplar, PopLibs,
PopART, PopTorch and TensorFlow logger headers, tqdm bars glued to log
lines, ANSI colour, the exception wrappers of each framework). Summaries
come from :mod:`tests.synth.text`. :func:`write_log` streams a log of any
size to a file (the benchmark's gigabyte) without holding it.
"""
from __future__ import annotations

import io
import random
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO, Union

# Other output a run prints: one line each, from the public logs quoted in the research notes (values vary).
_FILLER = (
    "{ts}Z PO:ENGINE   3906481.3906481 W: WARNING: The compile time engine option debug.branchRecordTile is set to "
    "\"5887\" when creating the Engine. (At compile-tile it was set to 1471)",
    "{ts}Z PL:POPLIN    3888383.3888383 W: poplin::preplanMatMuls() is deprecated! Use poplin::preplan() instead",
    "{ts}Z popart:session 3906481.3906481 W: Rng state buffer was not serialized.You did not load poplar Engine.",
    "{ts}Z PO:ENGINE   79.79 I: Ending phase: elimUnusedComputeSets (duration 0 ms; diff RSS: 0 MB; total RSS: "
    "2423.74 MB)",
    "[1,0]<stdout>:[INFO] loss: 6.7508,",
    "[1,0]<stdout>:[INFO] accuracy: 0.61 %",
    "[1,0]<stdout>:[INFO] throughput: 1886.4 samples/sec",
    "Graph compilation:  45%|████▌     | 45/100 [00:31<01:11]{ts}Z PO:GRAPH    79.79 I: Starting phase: "
    "graphConstruction",
    "[10:21:41.138] [poptorch:cpp] [warning] [DISPATCHER] Type coerced from Long to Int for tensor id 5",
    "10:10:50.154 1 POPRUN [D] Target options from environment: {}",
    "step 3 of epoch 0, loss: 10.829036712646484, acc: 1.9878149032592773e-05, lr: 0.0, throughput: "
    "1064.4397806661352 samples/sec",
    "\x1b[33mWARNING\x1b[0m: the dataset cache holds 4096 samples",
    "",
)
# Lines that say "memory" without being memory text memreport reads (the reader's needle finds them).
_MEMORY_FILLER = (
    "[INFO] Host memory usage: 12.5 GiB of 503.8 GiB",
    "{ts}Z PO:ENGINE   79.79 I: Ending phase: memoryAllocation (duration 12 ms; diff RSS: 0 MB; total RSS: "
    "2423.74 MB)",
    "\x1b[33mWARNING\x1b[0m: the dataset is memory mapped",
)

Part = Union[str, "Filler"]


class Filler:
    """``size`` bytes (at least) of other output, drawn from realistic lines with a seeded generator;
    ``memory_share`` of them say "memory" (in passing: no summary, no out-of-memory message)."""

    def __init__(self, size: int, seed: int = 0, memory_share: float = 0.005) -> None:
        self.size, self.seed, self.memory_share = size, seed, memory_share

    def chunks(self, block: int = 1 << 20) -> Iterator[bytes]:
        """The filler as blocks of whole lines (one block, repeated, past a megabyte: fast to write)."""
        rng = random.Random(self.seed)
        lines, length = [], 0
        while length < min(self.size, block):
            hour, minute, second = rng.randrange(24), rng.randrange(60), rng.randrange(60)
            stamp = f"2023-04-27T{hour:02d}:{minute:02d}:{second:02d}.{rng.randrange(10**6):06d}"
            pool = _MEMORY_FILLER if rng.random() < self.memory_share else _FILLER
            line = rng.choice(pool).replace("{ts}", stamp) + "\n"
            lines.append(line)
            length += len(line.encode())
        data = "".join(lines).encode()
        written = 0
        while written < self.size:
            yield data
            written += len(data)

    def text(self) -> str:
        return b"".join(self.chunks()).decode()


COMPRESSIONS = ("gzip", "xz", "bz2", "zstd")  # zstd needs the zstandard package (the zstd extra)


def compress(kind: str, data: bytes) -> bytes:
    """``data`` as one gzip member (``gzip -n``), xz or bz2 stream or zstd frame; concatenate several for a log
    appended to (``| gzip >> job.log.gz``)."""
    import bz2
    import gzip
    import lzma
    if kind == "zstd":
        import zstandard
        return zstandard.ZstdCompressor().compress(data)
    return {"gzip": lambda d: gzip.compress(d, mtime=0), "xz": lzma.compress, "bz2": bz2.compress}[kind](data)


def pack(kind: str, data: bytes) -> bytes:
    """``data`` as one member, stream or frame (zstd: where zstandard is installed)."""
    if kind == "zstd":
        import pytest  # here alone: scripts/bench_logs.py imports this module too, pytest or not
        pytest.importorskip("zstandard")
    return compress(kind, data)


def write_log(target: BinaryIO | str, parts: Iterable[Part]) -> int:
    """Write ``parts`` (text, or :class:`Filler`) to a file or path; the bytes written."""
    if isinstance(target, str):
        with open(target, "wb") as f:
            return write_log(f, parts)
    written = 0
    for part in parts:
        chunks = part.chunks() if isinstance(part, Filler) else [part.encode("utf-8")]
        for chunk in chunks:
            target.write(chunk)
            written += len(chunk)
    return written


def log_text(parts: Iterable[Part]) -> str:
    out = io.BytesIO()
    write_log(out, parts)
    return out.getvalue().decode("utf-8")


def line_of(text: str, needle: str, after: int = 0) -> int:
    """The 1-based number of the first line after line ``after`` holding ``needle``."""
    return next(no for no, line in enumerate(text.splitlines(), 1) if no > after and needle in line)


# ---------------------------------------------------------------- what a launcher or logger puts on each line

def each_line(text: str, prefix: Callable[[int], str]) -> str:
    """``text`` with ``prefix(k)`` before its k-th line (0-based), line ends kept."""
    return "".join(prefix(k) + line for k, line in enumerate(text.splitlines(True)))


def tagged(text: str, rank: int = 0, stream: str = "stdout") -> str:
    """mpirun ``--tag-output`` / poprun: ``[1,0]<stdout>:`` before every line (docs/FORMATS.md §8.3)."""
    return each_line(text, lambda k: f"[1,{rank}]<{stream}>:")


def ci_timestamped(text: str, second: int = 0) -> str:
    """A CI runner's (or ``kubectl logs --timestamps``) time before every line, each line its own time."""
    return each_line(text, lambda k: f"2023-08-22T23:49:{(second + k // 100) % 60:02d}.{k % 10**7:07d}Z ")


def poprun_logged(text: str) -> str:
    """poprun's header before every line: ``HH:MM:SS.mmm PID POPRUN [D] `` (the issue's example)."""
    return each_line(text, lambda k: f"10:10:{50 + k // 1000 % 10:02d}.{k % 1000:03d} 1 POPRUN [D] ")


def literal(text: str, prefix: str) -> str:
    """A literal prefix on every line (docker compose's ``service_1  | ``, a comment's ``# ``)."""
    return each_line(text, lambda k: prefix)


def interleave(a: str, b: str) -> str:
    """The lines of two streams printing at once, alternating."""
    left, right = a.splitlines(True), b.splitlines(True)
    out = []
    for k in range(max(len(left), len(right))):
        out += left[k:k + 1] + right[k:k + 1]
    return "".join(out)


def indented(text: str, indent: str = "    ") -> str:
    return "".join(indent + line if line.strip() else line for line in text.splitlines(True))


# ---------------------------------------------------------------- out-of-memory messages, as each wrapper prints them

def tile_memory_message(tile: int, used: int, capacity: int) -> str:
    return f"Out of memory on tile {tile}: {used} bytes used but tiles only have {capacity} bytes of memory"


def popart_error(message: str, pid: str = "79.79") -> str:
    """PopART's error-level log line (SDK 2.3+ header) before it rethrows (docs/FORMATS.md §8.6.2)."""
    return f"2023-06-29T16:15:26.865392Z popart:devicex {pid} E: Memory allocation error : {message}\n"


def cpp_terminate(message: str, indent: str = "  ") -> str:
    """An uncaught C++ exception (the Poplar tutorial, SDK 2.1 indents ``what():``, 2.3 on does not)."""
    return ("terminate called after throwing an instance of 'poplar::graph_memory_allocation_error'\n"
            f"{indent}what():  {message}\n")


def python_traceback(message: str, exception: str = "popart_core.popart_exception") -> str:
    return ("Traceback (most recent call last):\n  File \"train.py\", line 117, in <module>\n"
            "    session.prepareDevice()\n" f"{exception}: {message}\n")


def tensorflow_error(message: str) -> str:
    """SDK 2.2 on: ``[Poplar][Compile engine] <type>: <message>`` in an InternalError (docs/FORMATS.md §8.6.4)."""
    return ("tensorflow.python.framework.errors_impl.InternalError: [Poplar][Compile engine] "
            f"graph_memory_allocation_error: {message}\n")


def variables_message(profile: str | None = None) -> str:
    saved = f" Profile saved to: {profile}" if profile else ""
    return f"Out of memory: Cannot fit all variable data onto one or more tiles.{saved}"


def poptorch_profile_line(path: str) -> str:
    return f"[16:15:27.001] [poptorch:cpp] [error] Out of memory, the graph profile is available here: {path}\n"


def exchange_message(tile: int, exchange: str = "cs19_98/scatterAdd/multiUpdateAdd_ExchangePre") -> str:
    return f"Tile {tile} receives more data than it has total memory in exchange '{exchange}'"


def code_message(tile: int, offset: int = 638976) -> str:
    return (f"tile {tile} _poplar_start must be 0 not {offset} bytes from the start of memory. Typically this error "
            "occurs when there is too much code to fit incode memory.")


def host_stream_error(length: int = 149766584, index: int = 1) -> str:
    """PopTorch's exception text for a host stream buffer (poptorch issue #9, verbatim but the figures)."""
    return ("Error: In include/poptorch_err/ExceptionHandling.hpp:76: 'poplar_stream_memory_allocation_error': "
            "/opt/jenkins/workspace/poplar/poplar_ci_ubuntu_20_04_unprivileged/popart/willow/src/popx/"
            f"irlowering.cpp:3516 Out of memory. Single stream of length {length} in bufferIndex {index}\n"
            "Error raised in:\n  [0] popart::Session::prepareDevice: Poplar compilation\n"
            "  [1] Compiler::compileAndPrepareDevice\n")


def tensorflow_saved(path: str) -> str:
    """TensorFlow SDK 1.4-2.0's INFO line after writing graph.txt on an out-of-memory error."""
    return ("2021-03-01 10:00:02.000000: I tensorflow/compiler/plugin/poplar/driver/poplar_executor.cc:2102] "
            f"The out of memory summary text report saved to {path}\n")


# ---------------------------------------------------------------- shapes that once cost far more than their size

def ranks_one_after_another(summaries: list[str]) -> str:
    """poprun: rank r prints ``summaries[r]`` under its tag, one rank after another, and nothing after it."""
    return "".join(tagged(text, rank) for rank, text in enumerate(summaries))


def lookalike_lines(count: int, between: str = "") -> str:
    """A line that looks like part of a summary but never makes one (``3 tile(s) out of memory`` alone),
    ``count`` times, each after ``between`` (formatted with ``k``, the 0-based count)."""
    return "".join(between.format(k=k) + "3 tile(s) out of memory\n" for k in range(count))


# ---------------------------------------------------------------- many programs in one log (issue #23)

MK1_BYTES_PER_TILE = 262_144


def sweep_run(params: tuple[int, ...], failure: tuple[int, int] | None, seed: int = 0,
              capacity: int = MK1_BYTES_PER_TILE) -> str:
    """One run of a benchmark sweep on Mk1, as its script prints it: the parameter line (``72,128,1``), the
    attach line, the graph build time, then its timings, or an uncaught out-of-memory error (``failure`` is
    the tile and the bytes used its message states)."""
    rng = random.Random(seed)
    text = (",".join(str(p) for p in params) + "\n" "Trying to attach to IPU 0 - attached\n"
            f"Building graph took {rng.uniform(0.2, 2):.5f}s\n")
    if failure is None:
        return text + f"Compiling took {rng.uniform(5, 60):.5f}s\nRunning took {rng.uniform(0.001, 0.1):.5f}s\n"
    return text + cpp_terminate(tile_memory_message(failure[0], failure[1], capacity))


def sweep_log(runs: Iterable[tuple[tuple[int, ...], tuple[int, int] | None]]) -> str:
    """A sweep's log: its runs one after another (see :func:`sweep_run`)."""
    return "".join(sweep_run(params, failure, k) for k, (params, failure) in enumerate(runs))


def cut(text: str, start: int, end: int) -> str:
    """A fragment of ``text`` cut at both ends: from mid-line ``start`` to mid-line ``end`` (character offsets)."""
    return text[start:end]

