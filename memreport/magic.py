"""``%%memreport`` and ``%memreport`` in IPython and Jupyter (``%load_ext memreport``; the ``notebook`` extra).

``%%memreport`` runs its cell and captures what the cell writes to standard output and standard error at the
file-descriptor level, as Poplar and PopART write from C++ (and any child process it starts writes), still
showing it as it comes; then it shows the verdict over the cell's output and its compilations: the report's page
and the compiles timeline in Jupyter, their text in a terminal. A cell that raises gets its verdict, then its
error. ``%memreport PATH...`` shows the reports of files inline.

The captured output is kept, one file per stream, for the session (the ``Next:`` command names it), and read
through the public API (``memreport.read_all``, ``memreport.read_compiles``), which :func:`register` is given.
"""
from __future__ import annotations

import atexit
import codecs
import contextlib
import ctypes
import os
import shutil
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from IPython.core import magic as magic_module
from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from . import run
from .errors import MemreportError, ReadError
from .render.layout import visible
from .session import Read
from .units import check_tile_memory, parse_size

PAGE = "<page>"  # the page's place among a run's outputs: displayed, never written

# A cell ending in ";" shows no value (IPython 8.12 on; a no-op before).
output_can_be_silenced: Any = getattr(magic_module, "output_can_be_silenced", lambda magic: magic)

NOTHING_FOUND = "no memory information found"  # the text reader's words for text without memory text
DRAIN_SECONDS = 1.0  # how long the end of a cell waits for what its children still write
STREAMS = ((1, "stdout"), (2, "stderr"))


def register(ipython: Any, *, read_all: Callable[..., list[Any]], read_compiles: Callable[..., Any]) -> None:
    """Register the magics on ``ipython`` (``memreport.load_ipython_extension`` calls this with the public API)."""
    ipython.register_magics(MemreportMagics(ipython, read_all=read_all, read_compiles=read_compiles))


# -- capture at the file-descriptor level, shown as it comes --------------------------------------------------------

class _FdCapture:
    """File descriptor ``fd`` sent into a pipe; a thread copies what comes on (shown as it comes) and, until
    :meth:`stop`, keeps it. It goes on to the original descriptor, or in Jupyter, whose ``sys.stdout`` is not on
    the descriptor, to ``stream`` (sent to the notebook before the cell ends, not after it as a copy to
    ipykernel's own pipe might be). A child that outlives the cell still writes through it, unkept."""

    def __init__(self, fd: int, stream: Any = None) -> None:
        self.fd, self.stream = fd, stream
        self.kept: list[bytes] = []
        self.recording = True
        self.ended = threading.Event()
        self.lock = threading.Lock()
        self.original = os.dup(fd)
        reading, writing = os.pipe()
        os.dup2(writing, fd)
        os.close(writing)
        self.reading = reading
        threading.Thread(target=self._copy, name=f"memreport-fd{fd}", daemon=True).start()

    def _copy(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            while True:
                chunk = os.read(self.reading, 65536)
                with self.lock:
                    if self.recording and chunk:
                        self.kept.append(chunk)
                if self.stream is not None:
                    with contextlib.suppress(OSError, ValueError):  # a closed stream: keep reading all the same
                        self.stream.write(decoder.decode(chunk, final=not chunk))
                elif chunk:
                    self._write(chunk)
                if not chunk:
                    break
        finally:
            os.close(self.reading)
            os.close(self.original)
            self.ended.set()

    def _write(self, chunk: bytes) -> None:
        view = memoryview(chunk)
        while view:
            try:
                view = view[os.write(self.original, view):]
            except OSError:  # the original is gone: keep reading, so the writers never block
                return

    def stop(self) -> bytes:
        """Give ``fd`` back its original and return what came, once the pipe is drained (every writer gone,
        or after :data:`DRAIN_SECONDS` when a child still holds it)."""
        os.dup2(self.original, self.fd)  # closes this process's end of the pipe
        self.ended.wait(DRAIN_SECONDS)
        with self.lock:
            self.recording = False
            kept = b"".join(self.kept)
        if self.stream is not None:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                self.stream.flush()
        return kept


class _Tee:
    """A text stream that keeps what is written and passes it on: Jupyter's ``sys.stdout`` is not file
    descriptor 1, so ``print`` never reaches the pipe."""

    def __init__(self, stream: Any, kept: list[str]) -> None:
        self._stream, self._kept = stream, kept

    def write(self, text: str) -> int:
        self._kept.append(text)
        return self._stream.write(text)

    def writelines(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _on_fd(stream: Any, fd: int) -> bool:
    try:
        return stream.fileno() == fd
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError and a ValueError
        return False


def _flush() -> None:
    """Python's buffered streams and C's stdio buffers (printf in an extension), before the descriptors move."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
    with contextlib.suppress(OSError, AttributeError):  # no C library to ask (not POSIX)
        ctypes.CDLL(None).fflush(None)


@dataclass
class Captured:
    """What a cell wrote, by stream: at the descriptor, then through Python's stream where that is not it."""

    stdout: str = ""
    stderr: str = ""


@dataclass
class _Capture:
    """Standard output and error captured at the descriptor (and through Python's streams in Jupyter)."""

    fds: list[_FdCapture] = field(default_factory=list)
    tees: dict[str, list[str]] = field(default_factory=dict)
    saved: dict[str, Any] = field(default_factory=dict)
    kept: dict[int, bytes] = field(default_factory=dict)

    def __enter__(self) -> _Capture:
        _flush()
        for fd, name in STREAMS:
            stream = getattr(sys, name)
            on_fd = _on_fd(stream, fd)
            if not on_fd:
                self.saved[name], self.tees[name] = stream, []
                setattr(sys, name, _Tee(stream, self.tees[name]))
            with contextlib.suppress(OSError):  # no such descriptor here: Python's stream alone
                self.fds.append(_FdCapture(fd, None if on_fd else stream))
        return self

    def __exit__(self, *exc: Any) -> None:
        _flush()
        for name, stream in self.saved.items():
            setattr(sys, name, stream)
        self.kept = {capture.fd: capture.stop() for capture in self.fds}

    def captured(self) -> Captured:
        texts = {name: self.kept.get(fd, b"").decode("utf-8", "replace") + "".join(self.tees.get(name, []))
                 for fd, name in STREAMS}
        return Captured(texts["stdout"], texts["stderr"])


# -- the magics ---------------------------------------------------------------------------------------------

@magics_class
class MemreportMagics(Magics):
    """``%%memreport`` (a cell's verdict) and ``%memreport PATH...`` (files' reports), shown inline."""

    def __init__(self, shell: Any, *, read_all: Callable[..., list[Any]], read_compiles: Callable[..., Any]
                 ) -> None:
        super().__init__(shell)
        self.magics["line"]["memreport"] = self.memreport_line  # a line magic named as the cell magic is
        self.ipython: Any = shell
        self.read_all, self.read_compiles = read_all, read_compiles
        self.cells = 0  # %%memreport cells run: each names its captured files
        self.directory = tempfile.mkdtemp(prefix="memreport-cells-")
        atexit.register(shutil.rmtree, self.directory, True)

    @magic_arguments()
    @argument("--tile-memory", metavar="SIZE", help="bytes per tile (638976, 624KiB): overrides the output's")
    @argument("--arch", choices=("ipu1", "ipu2", "ipu21"), help="the IPU architecture, when the output names none")
    @output_can_be_silenced
    @cell_magic
    def memreport(self, line: str, cell: str) -> Any:
        """Run the cell; then the verdict over what it wrote (at the file-descriptor level) and its compilations.

            %%memreport [--tile-memory SIZE] [--arch ipu1|ipu2|ipu21]
        """
        __tracebackhide__ = True  # IPython leaves this frame out of the cell's traceback
        args = _checked(parse_argstring(self.memreport, line))  # before the cell runs, not after
        error: BaseException | None = None
        with _Capture() as capture:
            try:
                result = self._run(cell)
            except BaseException as exc:  # noqa: BLE001  (KeyboardInterrupt too: the verdict, then the error)
                error, result = exc, None
        captured = capture.captured()
        if error is not None:  # a script's log holds its traceback: so does the text read
            captured.stderr += "".join(traceback.format_exception(type(error), error, error.__traceback__))
        self._show_cell(captured, args)
        if error is not None:
            raise error
        return result

    def _run(self, cell: str) -> Any:
        """The cell, run as IPython runs one (its magics and shell escapes, its traceback's lines); its last
        expression's value returned, so the cell shows it."""
        import ast
        __tracebackhide__ = True
        shell = self.ipython
        source = shell.transform_cell(cell)
        name = shell.compile.cache(source, shell.execution_count, cell)
        tree = shell.compile.ast_parse(source, filename=name)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(shell.compile(tree, name, "exec"), shell.user_global_ns, shell.user_ns)
        if last is None:
            return None
        expression = ast.Expression(last.value)
        return eval(shell.compile(expression, name, "eval"), shell.user_global_ns, shell.user_ns)

    @magic_arguments()
    @argument("paths", nargs="+", metavar="PATH", help="reports and logs (archives, profiles, summaries, logs)")
    @argument("--tile-memory", metavar="SIZE", help="bytes per tile (638976, 624KiB): overrides the files'")
    @argument("--arch", choices=("ipu1", "ipu2", "ipu21"), help="the IPU architecture, when a file names none")
    def memreport_line(self, line: str) -> None:
        """The reports of files, inline.

            %memreport PATH... [--tile-memory SIZE] [--arch ipu1|ipu2|ipu21]
        """
        args = _checked(parse_argstring(self.memreport_line, line))
        reports, failed = [], []
        for path in args.paths:
            try:
                reports += self.read_all(path, **_overrides(args))
            except (MemreportError, ValueError) as exc:
                failed.append(f"memreport: {visible(str(exc))}")
        if failed:
            print("\n".join(failed), file=sys.stderr)
        if reports:
            self._display(reports, None)

    def _show_cell(self, captured: Captured, args: Any) -> None:
        paths = []
        self.cells += 1
        for name in ("stdout", "stderr"):
            text = getattr(captured, name)
            if text.strip():  # named for the cell: In[7] ran as the session's third %%memreport cell
                path = os.path.join(self.directory, f"In{self.ipython.execution_count}-{self.cells}-{name}.log")
                with open(path, "w", encoding="utf-8") as stream:
                    stream.write(text)
                paths.append(path)
        reports, problems = [], []
        for path in paths:
            try:
                reports += self.read_all(path, **_overrides(args))
            except ReadError as exc:
                if NOTHING_FOUND not in str(exc):
                    problems.append(str(exc))
            except (MemreportError, ValueError) as exc:
                problems.append(str(exc))
        compiles = None
        if paths:
            try:
                found = self.read_compiles(*paths)
                compiles = found if found.history.compilations or found.history.loads else None
            except MemreportError:
                compiles = None
        if not reports:
            said = "memreport: no memory report in this cell's output"
            print(said + "".join(f" ({visible(p)})" for p in problems), file=sys.stderr if problems else sys.stdout)
        if reports or compiles is not None:
            self._display(reports, compiles)

    def _display(self, reports: list[Any], compiles: Any) -> None:
        """The reports' verdict and the compilations: text for a terminal, the pages for Jupyter."""
        width = shutil.get_terminal_size((100, 24)).columns
        texts, pages = [], []
        page = PAGE if "text/html" in self.ipython.display_formatter.active_types else None
        if reports:  # the command's own run: the words, tables and page of `memreport FILE --brief --html`
            done = run.report([Read(r.source, r) for r in reports], brief=True, width=width, html=page)
            texts.append(done.outputs[0][1])
            pages += [_framed(str(out), "memreport", 760) for path, out in done.outputs[1:] if path == PAGE]
        if compiles is not None:
            done = run.compiles(compiles, width=width, html=page)
            texts.append(done.outputs[0][1])
            pages += [_framed(str(out), "memreport compiles", 520) for path, out in done.outputs[1:] if path == PAGE]
        bundle = {"text/plain": "\n".join(str(t).rstrip("\n") for t in texts)}
        if pages:
            bundle["text/html"] = "\n".join(pages)
        display(bundle, raw=True)


def _checked(args: Any) -> Any:
    """The magic's arguments, ``--tile-memory`` a size (a UsageError naming it otherwise)."""
    if args.tile_memory is not None:
        try:
            check_tile_memory(parse_size(args.tile_memory))
        except ValueError as exc:
            raise UsageError(f"--tile-memory: {exc}") from None
    return args


def _overrides(args: Any) -> dict[str, Any]:
    return {"tile_memory": args.tile_memory, "arch": args.arch}


def _framed(page: str, title: str, height: int) -> str:
    """A page in a sandboxed frame (scripts only): its policy and script stay its own."""
    return (f'<iframe srcdoc="{escape(page, quote=True)}" sandbox="allow-scripts" '
            f'style="width:100%;height:{height}px;border:1px solid #ddd" title="{escape(title)}"></iframe>')
