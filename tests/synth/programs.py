"""Programs as PopTorch, PopART and poprun print them, written to a terminal log or saved in a notebook (issue #30).

A process's output is a list of writes (:class:`Run`), each to stdout or
stderr, as the libraries make them: tqdm redraws PopTorch's compilation bar
after a ``\\r`` without a newline, so a log line written meanwhile is glued
after the bar's ``]`` (graphcore/poptorch ``ProgressBar``: ``tqdm`` with
``bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]"``,
closed with a redraw and a newline when it reaches its total); PopART logs
an out-of-memory error from ``popart:devicex`` (``Memory allocation error :
...``) and again from ``popart:popart`` at the same moment; PopTorch logs
``Out of memory, the graph profile is available here: <path>`` (the path
may be empty) before the exception reaches Python. :meth:`Run.log` is the
terminal's byte stream (the writes one after another); :func:`notebook`
saves runs as Jupyter does (nbformat 4): each cell's writes grouped into
``stream`` outputs (consecutive writes to one stream merge), ``\\r``
applied as JupyterLab applies it before saving (or kept, as VS Code
keeps it), tracebacks as IPython's ``error`` outputs with ANSI colours.
"""
from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field

from .compile_logs import tqdm_bar

STDOUT, STDERR = "stdout", "stderr"
TYPE_COERCED = "[DISPATCHER] Type coerced from Long to Int for tensor id 5"
IRLOWERING = "/opt/jenkins/workspace/poplar/poplar_ci_ubuntu_20_04_unprivileged/popart/willow/src/popx/irlowering.cpp"


def tile_oom(tile: int, used: int, capacity: int = 638_976) -> str:
    return f"Out of memory on tile {tile}: {used} bytes used but tiles only have {capacity} bytes of memory"


VARIABLES_OOM = "Out of memory: Cannot fit all variable data onto one or more tiles"


@dataclass
class Error:
    """An exception that reaches Python: its class as IPython names it, its text, the frames it passed."""

    ename: str
    evalue: str
    frames: tuple[str, ...] = ("train(model)", "poptorch_model.compile(data, labels)")


@dataclass
class Run:
    """What one process (a kernel, a script) writes, in order: (stream, text) pairs, or an Error."""

    writes: list[tuple[str, str] | Error] = field(default_factory=list)
    second: int = 0  # the logger's clock, seconds since 14:02:00

    def _stamp(self) -> str:
        self.second += 1
        minutes, seconds = divmod(self.second, 60)
        return f"14:{2 + minutes:02d}:{seconds:02d}.{(self.second * 37) % 1000:03d}"

    def out(self, text: str, stream: str = STDOUT) -> None:
        self.writes.append((stream, text))

    def poptorch(self, level: str, message: str) -> None:
        """``[HH:MM:SS.mmm] [poptorch:cpp] [level] message`` (docs/FORMATS.md §8.4)."""
        self.out(f"[{self._stamp()}] [poptorch:cpp] [{level}] {message}\n", STDERR)

    def popart_error(self, message: str, pid: str = "2211.2211") -> None:
        """PopART's error, logged by ``popart:devicex`` and, the same text at the same moment, ``popart:popart``."""
        stamp = f"2023-10-02T14:05:12.{118204 + self.second:06d}Z"
        for logger in ("devicex", "popart"):
            self.out(f"{stamp} popart:{logger} {pid} E: Memory allocation error : {IRLOWERING}:3516 {message}\n",
                     STDERR)

    def bar(self, elapsed_s: int, stop: int = 100, between: dict[int, str] | None = None) -> None:
        """PopTorch's compilation bar, 0 to ``stop`` (of 100): each frame after a ``\\r``, ``between[p]`` (a log
        line) written after the frame at ``p`` (glued after its ``]``), and at 100 ``close()``'s redraw and
        newline; a bar stopped short is left as it is (the compilation failed there)."""
        steps = [p for p in (0, 3, 6, 23, 40, 41, 45, 60, 97, 100) if p <= stop]
        for p in steps:
            self.out("\r" + tqdm_bar(p, _clock(elapsed_s * p // 100), "?" if p == 0 else
                                     _clock(elapsed_s - elapsed_s * p // 100)), STDERR)
            if between and p in between:
                self.out(between[p], STDERR)
        if stop == 100:
            self.out("\r" + tqdm_bar(100, _clock(elapsed_s), "00:00") + "\n", STDERR)

    def compile_model(self, elapsed_s: int, warnings: int = 2) -> None:
        """One model compiled (``poptorch.trainingModel`` or ``inferenceModel``): the bar, with PopTorch's warnings
        written while it is drawn."""
        lines = {3: f"[{self._stamp()}] [poptorch:cpp] [warning] {TYPE_COERCED}\n"}
        if warnings > 1:
            lines[45] = f"[{self._stamp()}] [poptorch:cpp] [warning] {TYPE_COERCED}\n"
        self.bar(elapsed_s, between=lines)

    def train_call(self, epochs: int = 2, elapsed_s: int = 107) -> None:
        """``train()`` of a course notebook: a training model compiled and run, then an inference model."""
        self.compile_model(elapsed_s)
        for epoch in range(1, epochs + 1):
            self.out(f"Epoch {epoch}: loss {2.31 - epoch / 10:.4f}\n")
        self.compile_model(elapsed_s // 3, warnings=1)
        self.out("Accuracy: 0.9123\n")

    def out_of_memory(self, tile: int = 12, used: int = 702_344, stop: int = 36, profile: str = "") -> None:
        """A compilation that does not fit: the bar stops, PopART logs the error twice, its frames, PopTorch's
        error line (the profile path may be empty), and the exception reaches Python."""
        self.bar(100, stop=stop)
        self.popart_error(tile_oom(tile, used))
        self.out("[0] popart::popx::Devicex::prepare()\n[1] popart::Session::prepareDevice(bool)\n", STDERR)
        self.poptorch("error", f"Out of memory, the graph profile is available here: {profile}")
        self.writes.append(Error("Error", f"In poptorch/source/LowerToPopart.cpp:1064: 'popart_exception': "
                                          f"{IRLOWERING}:3516 {tile_oom(tile, used)}\nError raised in:\n"
                                          "  [0] popart::Session::prepareDevice: Poplar compilation\n"
                                          "  [1] Compiler::compileAndPrepareDevice\n"))

    def variables_do_not_fit(self) -> None:
        """With profiling on (``debug.allowOutOfMemory``): a third bar stopped at 0, then Poplar's other form."""
        self.bar(60, stop=0)
        self.writes.append(Error("Error", f"In poptorch/source/LowerToPopart.cpp:1064: 'popart_exception': "
                                          f"{VARIABLES_OOM}\n"))

    def log(self) -> str:
        """The terminal's stream: every write in order (an Error as Python prints it, on stderr)."""
        return "".join(w[1] if isinstance(w, tuple) else python_traceback(w) for w in self.writes)


def _clock(seconds: int) -> str:
    minutes, second = divmod(seconds, 60)
    return f"{minutes:02d}:{second:02d}"


def python_traceback(error: Error) -> str:
    frames = "".join(f"  File \"train.py\", line {40 + k}, in <module>\n    {f}\n" for k, f in enumerate(error.frames))
    return f"Traceback (most recent call last):\n{frames}poptorch.poptorch_core.{error.ename}: {error.evalue}\n"


def ipython_traceback(error: Error, count: int) -> list[str]:
    """IPython 8's traceback list for an ``error`` output: ANSI colours, the heading, frames flush left."""
    red, green, off = "\x1b[0;31m", "\x1b[0;32m", "\x1b[0m"
    frames = [f"Cell {green}In[{count}], line 12{off}\n{green}---> 12{off} {error.frames[0]}\n"]
    frames += [f"File {green}/usr/lib/python3.8/site-packages/poptorch/_poplar_executor.py:1032{off}, in "
               f"PoplarExecutor._compile(self, in_tensors)\n{green}-> 1032{off}     {f}\n" for f in error.frames[1:]]
    return [f"{red}{'-' * 75}{off}", f"{red}{error.ename}{off}{' ' * 33}Traceback (most recent call last)", *frames,
            f"{red}{error.ename}{off}: {error.evalue}"]


def jupyter_text(text: str) -> str:
    """A stream's text as JupyterLab saves it: ``\\r`` applied (of each line, what follows its last ``\\r``)."""
    text = re.sub(r"\r+\n", "\n", text)
    return "".join(line.rsplit("\r", 1)[-1] for line in text.splitlines(True))


def outputs(run: Run, count: int, applied: bool = True) -> list[dict]:
    """A cell's outputs: consecutive writes to one stream merge into one ``stream`` output; an Error is an
    ``error`` output; ``applied``: ``\\r`` applied as JupyterLab saves (else kept, as VS Code keeps it)."""
    found: list[dict] = []
    for write in run.writes:
        if isinstance(write, Error):
            found.append({"output_type": "error", "ename": write.ename, "evalue": write.evalue,
                          "traceback": ipython_traceback(write, count)})
            continue
        stream, text = write
        if found and found[-1]["output_type"] == "stream" and found[-1]["name"] == stream:
            found[-1]["text"] += text
        else:
            found.append({"output_type": "stream", "name": stream, "text": text})
    for output in found:
        if output["output_type"] == "stream":
            text = jupyter_text(output["text"]) if applied else output["text"]
            output["text"] = text.splitlines(True)  # nbformat's multiline string: a list of lines
    return found


PNG = {"output_type": "display_data", "metadata": {},  # a 1x1 picture: ignored by the readers
       "data": {"image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAAB"
                             "JRU5ErkJggg==",
                "text/plain": ["<Figure size 640x480 with 1 Axes>"]}}


def code_cell(count: int | None, run: Run | None = None, source: str = "train(model)", applied: bool = True,
              extra: list[dict] | None = None) -> dict:
    cell = {"cell_type": "code", "execution_count": count, "id": f"c{count}", "metadata": {},
            "outputs": (outputs(run, count or 0, applied) if run else []) + (extra or []),
            "source": source.splitlines(True)}
    return cell


def markdown_cell(text: str) -> dict:
    return {"cell_type": "markdown", "id": f"m{zlib.crc32(text.encode()) % 10_000}", "metadata": {},
            "source": text.splitlines(True)}


def notebook(cells: list[dict]) -> bytes:
    """An nbformat 4 notebook as Jupyter writes it: keys sorted, one space indent."""
    doc = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                      "name": "python3"}},
           "nbformat": 4, "nbformat_minor": 5}
    return (json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def course_notebook(applied: bool = True) -> tuple[bytes, list[tuple[int, int]]]:
    """The issue's notebook: a kernel that runs ``train()`` twice (two models compiled each time), then a
    third call that does not fit (the error printed by PopART twice, then raised), then with profiling on
    a bar stopped at 0% and the variables that do not fit. Returns the notebook and, per code cell that
    prints, (its number in the notebook, its execution count)."""
    cells = [markdown_cell("# MNIST on the IPU\n")]
    placed = []
    count = 0
    for k in range(2):
        count += 1
        run = Run(second=k * 200)
        run.train_call()
        cells.append(code_cell(count, run, applied=applied, extra=[PNG] if k == 0 else None))
        placed.append((len(cells), count))
    cells.append(markdown_cell("Bigger batches:\n"))
    count += 1
    run = Run(second=500)
    run.compile_model(107)
    run.out_of_memory()
    cells.append(code_cell(count, run, source="train(model, batch_size=64)", applied=applied))
    placed.append((len(cells), count))
    count += 1
    run = Run(second=700)
    run.variables_do_not_fit()
    cells.append(code_cell(count, run, source="opts.enableProfiling()\ntrain(model, batch_size=64)",
                           applied=applied))
    placed.append((len(cells), count))
    cells.append(code_cell(None, source="model.save('mnist.pt')"))
    return notebook(cells), placed


# ---------------------------------------------------------------- poprun ranks that fail at once (issue #33 item 1)

POPRUN_LAUNCH = ("18:14:57.810 3555537 POPRUN [I] Running command: /opt/poplar/bin/mpirun '--tag-output' '-np' '{n}' "
                 "'-x' 'POPDIST_NUM_IPUS_PER_REPLICA=1' 'python3' 'train.py'\n")


def ranks_abort_together(ranks: int = 4, tile: int = 17) -> str:
    """``ranks`` poprun ranks aborting at the same moment: every rank's ``terminate called after throwing``
    line, then every rank's ``what():`` line (each rank its own tile), interleaved under their tags."""
    lines = [POPRUN_LAUNCH.format(n=ranks)]
    lines += [f"[1,{r}]<stderr>:terminate called after throwing an instance of "
              "'poplar::graph_memory_allocation_error'\n" for r in range(ranks)]
    lines += [f"[1,{r}]<stderr>:  what():  {tile_oom(tile + r, 700_000 + r)}\n" for r in range(ranks)]
    lines.append("20:15:01.413 3555537 POPRUN [I] mpirun (PID 3556098) terminated with exit code 1\n")
    return "".join(lines)


def traceback_lines(frames: int = 14, final: str = "RuntimeError: the model does not fit") -> list[str]:
    """A Python traceback of ``2 * frames + 2`` lines: its first line, its frames, its final line."""
    body = [f"  File \"/opt/venv/lib/python3.8/site-packages/poptorch/_impl.py\", line {100 + k}, in step_{k}\n"
            f"    return self._step_{k + 1}(x)\n" for k in range(frames)]
    return ["Traceback (most recent call last):\n", *"".join(body).splitlines(True), final + "\n"]


def ranks_raise_together(ranks: int = 16, frames: int = 14) -> str:
    """``ranks`` ranks raising at once, their 30-line tracebacks interleaved line by line under their tags; each
    final line is PopART's out-of-memory exception, each rank's own tile (tile 100 + its rank)."""
    own = [traceback_lines(frames, f"popart_core.popart_exception: {tile_oom(100 + r, 650_000 + r)}")
           for r in range(ranks)]
    lines = [POPRUN_LAUNCH.format(n=ranks)]
    for k in range(len(own[0])):
        lines += [f"[1,{r}]<stderr>:{own[r][k]}" for r in range(ranks)]
    return "".join(lines)


def traceback_openers(count: int = 20_000) -> str:
    """The costly shape of issue #33 item 12: ``count`` lines that open a Python traceback, nothing else (each
    is a traceback with no final line: the next one begins before it ends)."""
    return "Traceback (most recent call last):\n" * count
