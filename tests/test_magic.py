"""%%memreport and %memreport: a cell's output captured at the file-descriptor level (its own writes to fd 1 and
2, a child process's), shown as it comes, then its verdict; in IPython's InteractiveShell and in a real kernel."""
from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN_LOG = ROOT / "sample_reports" / "run.log"
COMPILES_LOG = ROOT / "sample_reports" / "compile_recompiling.log"
SAMPLE = ROOT / "sample_reports" / "mk2_1472_tiles.a"
CHILD = f"import os; os.write(2, open({str(RUN_LOG)!r}, 'rb').read())"  # a child process writing the run's log
OOM_ERROR = "Out of memory on tile 1: 674752 bytes used but tiles only have 638976 bytes of memory"

missing = [name for name in ("IPython", "ipykernel") if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(bool(missing), reason=f"the magic needs {', '.join(missing)} "
                                                      "(pip install -e '.[notebook]')")


@pytest.fixture
def shell(monkeypatch):
    """IPython with memreport loaded; ``shell.recorded_by_test`` is what it displayed and every traceback, in
    order."""
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "memreport")
    events: list[tuple[str, object]] = []

    class Recorder(DisplayPublisher):
        def publish(self, data, metadata=None, source=None, **kwargs):
            events.append(("display", data))

    monkeypatch.setattr(shell, "display_pub", Recorder(shell=shell))
    monkeypatch.setattr(shell, "_showtraceback", lambda etype, value, stb: events.append(("traceback", stb)))
    monkeypatch.setattr(shell, "recorded_by_test", events, raising=False)
    return shell


def magics(shell):
    return shell.magics_manager.registry["MemreportMagics"]


@contextlib.contextmanager
def terminal(tmp_path):
    """File descriptors 1 and 2 sent to files for a while, and Python's streams on them (line-buffered), as in a
    terminal's IPython: yields the files (stdout, stderr)."""
    paths = (tmp_path / "fd1", tmp_path / "fd2")
    saved = [os.dup(1), os.dup(2)]
    streams = sys.stdout, sys.stderr
    try:
        for fd, path in zip((1, 2), paths):
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(target, fd)
            os.close(target)
        sys.stdout, sys.stderr = (open(fd, "w", closefd=False, buffering=1, encoding="utf-8")  # noqa: SIM115
                                  for fd in (1, 2))
        yield paths
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = streams
        for fd, copy in zip((1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)


def displayed(shell) -> list[dict[str, str]]:
    return [data for kind, data in shell.recorded_by_test if kind == "display"]


def test_load_ext_registers_the_cell_and_line_magics(shell):
    import memreport
    assert callable(memreport.load_ipython_extension)
    found = shell.magics_manager.magics
    assert found["cell"]["memreport"].__self__ is magics(shell)
    assert found["line"]["memreport"].__self__ is magics(shell)


def test_fd_level_output_of_the_cell_and_its_children_is_captured_live_then_judged(shell, tmp_path):
    cell = (f"%%memreport\nimport os, subprocess, sys, time\nos.write(2, b'first\\n')\n"
            f"for _ in range(500):  # what the cell wrote is shown before the cell ends\n"
            f"    seen = b'first' in open({str(tmp_path / 'fd2')!r}, 'rb').read()\n"
            f"    if seen:\n        break\n    time.sleep(0.01)\n"
            f"subprocess.run([sys.executable, '-c', {CHILD!r}])\n"
            f"os.write(1, b'done\\n');\n")
    with terminal(tmp_path) as (out, err):
        result = shell.run_cell(cell)
    assert result.success and shell.user_ns["seen"] is True
    assert err.read_bytes() == b"first\n" + RUN_LOG.read_bytes() and out.read_bytes() == b"done\n"
    bundle, = displayed(shell)
    kept = Path(magics(shell).directory)
    stderr_log, = kept.glob(f"In*-{magics(shell).cells}-stderr.log")
    assert stderr_log.read_bytes() == b"first\n" + RUN_LOG.read_bytes()
    lines = bundle["text/plain"].splitlines()
    assert lines[:4] == ["Verdict: 2 of 1,472 tiles out of memory",
                         "         Worst tile: 5 (IPU 0), 700,000 B excluding gaps, 109.6% of 638,976 B: 61,024 B over",
                         "         Largest on it: data type Variables 350,000 B",
                         f"         Next: memreport {stderr_log} --tile 5"]
    assert lines[-1] == "Verdict: 2 of 1,472 tiles out of memory"
    assert bundle["text/html"].startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;') and "2 of 1,472 tiles" in \
        bundle["text/html"]


def test_a_terminals_print_is_captured_once_through_its_descriptor(shell, tmp_path):
    with terminal(tmp_path) as (out, _):
        shell.run_cell("%%memreport\nimport os\nprint('hello')\n_ = os.write(1, b'raw\\n')\n")
    assert out.read_text() == "hello\nraw\nmemreport: no memory report in this cell's output\n"
    stdout_log, = Path(magics(shell).directory).glob(f"In*-{magics(shell).cells}-stdout.log")
    assert stdout_log.read_text() == "hello\nraw\n"


def test_jupyters_print_is_captured_through_python_and_passed_on(shell, tmp_path):
    notebook_stream = io.StringIO()  # as ipykernel's sys.stdout: not file descriptor 1
    with terminal(tmp_path) as (out, _):
        sys.stdout = notebook_stream
        shell.run_cell(f"%%memreport\nimport os\n_ = os.write(1, b'raw\\n')\nprint(open({str(RUN_LOG)!r}).read())\n")
    # Both reach the notebook's stream (the descriptor's through the copying thread), nothing the terminal.
    shown = notebook_stream.getvalue()
    assert out.read_text() == "" and "raw\n" in shown and shown.replace("raw\n", "", 1) == RUN_LOG.read_text() + "\n"
    stdout_log, = Path(magics(shell).directory).glob(f"In*-{magics(shell).cells}-stdout.log")
    assert stdout_log.read_text() == "raw\n" + RUN_LOG.read_text() + "\n"
    assert displayed(shell)[0]["text/plain"].startswith("Verdict: 2 of 1,472 tiles out of memory\n")


def test_a_cell_that_raises_gets_its_verdict_then_its_error(shell, tmp_path):
    with terminal(tmp_path):
        result = shell.run_cell(f"%%memreport\nx = 1\nraise RuntimeError({OOM_ERROR!r})\n")
    assert isinstance(result.error_in_exec, RuntimeError) and shell.user_ns["x"] == 1
    (first, bundle), (second, stb) = shell.recorded_by_test
    assert (first, second) == ("display", "traceback")
    assert bundle["text/plain"].startswith("Verdict: At least 1 tile out of memory\n\n"
                                           "To fit tile 1: 35,776 B over; nothing read names what is on it.\n")
    assert "\n\nTiles as printed:\n" in bundle["text/plain"]  # after the fit plan
    assert "674,752 B" in bundle["text/plain"]  # read from the error's own text
    shown = "\n".join(stb)
    assert "raise RuntimeError" in shown and "magic.py" not in shown  # the cell's lines, not the magic's


def test_a_cell_without_memory_text_says_so_briefly(shell, tmp_path):
    with terminal(tmp_path) as (out, err):
        result = shell.run_cell("%%memreport\nprint('training step 1: loss 0.3')\n21 * 2\n")
    assert result.success and result.result == 42
    first, said, value = out.read_text().splitlines()
    assert (first, said) == ("training step 1: loss 0.3", "memreport: no memory report in this cell's output")
    assert re.fullmatch(r"Out\[\d+\]: 42", value)  # the cell's value, as IPython shows it
    assert displayed(shell) == [] and err.read_text() == ""


def test_a_cells_compilations_are_shown_after_its_verdict(shell, tmp_path):
    with terminal(tmp_path):
        shell.run_cell(f"%%memreport\nimport os\nos.write(2, open({str(COMPILES_LOG)!r}, 'rb').read())\n")
    bundle, = displayed(shell)
    text = bundle["text/plain"]
    assert text.startswith("Verdict: 0 of 2 compilations failed\n")  # Poplar's stated outcomes are reports
    assert "\nVerdict: 2 compilations (2 compiled): 1 recompilation found\n" in text
    assert 'title="memreport compiles"' in bundle["text/html"]
    with terminal(tmp_path):
        shell.run_cell(f"%%memreport\nimport os\nos.write(2, open({str(RUN_LOG)!r}, 'rb').read())\n")
    both = displayed(shell)[-1]
    assert both["text/plain"].startswith("Verdict: 2 of 1,472 tiles out of memory\n")
    assert "\nVerdict: 1 compilation" in both["text/plain"] and both["text/html"].count("<iframe ") == 2


def test_overrides_reach_the_reading(shell, tmp_path):
    with terminal(tmp_path):
        shell.run_cell(f"%%memreport --tile-memory 1MiB\nimport os\nos.write(2, open({str(RUN_LOG)!r}, 'rb')"
                       ".read())\n")
    assert displayed(shell)[0]["text/plain"].splitlines()[1] == \
        "         Worst tile: 5 (IPU 0), 700,000 B excluding gaps, 66.8% of 1,048,576 B: 348,576 B free"


def test_a_bad_argument_is_refused_before_the_cell_runs(shell, tmp_path):
    with terminal(tmp_path):
        result = shell.run_cell("%%memreport --tile-memory 0\nran = True\n")
    assert "ran" not in shell.user_ns and displayed(shell) == []
    assert str(result.error_in_exec) == "--tile-memory: bytes per tile must be at least 1 B, not 0"


def test_the_line_magic_shows_files_reports(shell, tmp_path, capsys):
    shell.run_line_magic("memreport", f"{SAMPLE} {tmp_path / 'missing.a'}")
    bundle, = displayed(shell)
    assert bundle["text/plain"].startswith("Verdict: 3 of 1,472 tiles out of memory\n")
    assert capsys.readouterr().err == f"memreport: {tmp_path / 'missing.a'}: no such file\n"


# -- in a real kernel ------------------------------------------------------------------------------------------

def test_in_a_notebook(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in (
        "%load_ext memreport",
        f"%%memreport\nimport os, subprocess, sys\nprint('python print')\n"
        f"subprocess.run([sys.executable, '-c', {CHILD!r}]);",
        f"%%memreport\nraise RuntimeError({OOM_ERROR!r})",
        f"%memreport {SAMPLE}",
    )])
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    _, cell, raising, line = notebook.cells
    streams = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    assert "python print\n" in streams and "popart.session.OutOfMemoryException" in streams  # shown as it came
    shown, = [o for o in cell.outputs if o.output_type == "display_data"]
    assert shown.data["text/plain"].startswith("Verdict: 2 of 1,472 tiles out of memory\n")
    assert shown.data["text/html"].startswith('<iframe srcdoc="')
    assert [o.output_type for o in raising.outputs] == ["display_data", "error"]
    assert raising.outputs[0].data["text/plain"].startswith("Verdict: At least 1 tile out of memory\n")
    assert raising.outputs[1].ename == "RuntimeError"
    assert line.outputs[0].data["text/plain"].startswith("Verdict: 3 of 1,472 tiles out of memory\n")
