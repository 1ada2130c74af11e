"""memreport/session.py: one read-and-drill pipeline for the CLI, the API and the notebook."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import pytest

import memreport
from memreport import session
from memreport.errors import ReadError, UnsupportedOperation
from memreport.model import PYTHON_NAMES
from tests.builds import OLD, write_build

SAMPLES = Path(__file__).resolve().parent.parent / "sample_reports"


def test_reads_every_report_names_it_as_told_and_keeps_the_file_read(tmp_path):
    build = write_build(tmp_path / "b.a", OLD)
    seen = []

    @contextmanager
    def around(path, options):
        seen.append(path)
        yield options

    reads = session.read_files([build, SAMPLES / "trace_two_modules.rep"], session.read_options(),
                               labels={str(build): "<stdin>"}, around=around)
    assert seen == [str(build), str(SAMPLES / "trace_two_modules.rep")]
    assert [(r.path == str(build), r.report.source) for r in reads][:1] == [(True, "<stdin>")]
    assert len(reads) == 3 and [r.report.module for r in reads[1:]] == [r.module for r in memreport.read_all(
        SAMPLES / "trace_two_modules.rep")]
    second = session.read_files([SAMPLES / "trace_two_modules.rep"], session.read_options(), module="#2")
    assert [r.report.module for r in second] == [reads[2].report.module]
    with pytest.raises(UnsupportedOperation, match="holds no such report"):
        session.read_files([SAMPLES / "trace_two_modules.rep"], session.read_options(), module="nope")


def test_read_options_are_built_once_with_the_callers_spelling():
    options = session.read_options(tile_memory=1000, arch="ipu2", skip_bad_members=True, thin_root="/x",
                                   names=PYTHON_NAMES)
    assert (options.tile_memory, options.arch, options.skip_bad_members, options.thin_root,
            options.option_names) == (1000, "ipu2", True, "/x", PYTHON_NAMES)


def test_symbols_come_from_the_file_read_never_from_the_one_a_saved_report_names(tmp_path):
    build = write_build(tmp_path / "b.a", OLD)
    read = session.read_files([build], session.read_options())
    [with_tables] = session.with_symbols(read, top=1, tiles=[0])
    assert sorted(with_tables.symbols) == [0, 7]  # tile 0 asked for, tile 7 the largest (700,000 B)
    saved = tmp_path / "saved.json"
    from memreport.analysis import summarize_all
    from memreport.render import render
    saved.write_text(render("report", "json", summarize_all([with_tables])))
    build.write_bytes(b"!<arch>\n")  # the file the saved report names is no longer that build
    [back] = session.read_files([saved], session.read_options())
    assert back.report.source == str(build) and not session.reads_symbols(back)
    [kept] = session.with_symbols([back], top=1, tiles=[1])
    assert sorted(kept.symbols) == [0, 7]  # what it saved, and no read of the changed archive
    with pytest.raises(ReadError):
        session.with_symbols([session.Read(str(build), back.report)], top=0, tiles=[1])


def test_a_tensor_map_is_checked_against_every_report():
    profile = memreport.read(SAMPLES / "mk1_profile.json")
    archive = memreport.read(SAMPLES / "mk2_1472_tiles.a")
    tensor_map = session.read_tensor_map(str(SAMPLES / "tensor_map.json"), [profile])
    assert tensor_map.num_tiles == 1216
    with pytest.raises(ReadError):
        session.read_tensor_map(str(SAMPLES / "tensor_map.json"), [profile, archive])


def test_errors_collected_every_readable_file_read(tmp_path):
    build = write_build(tmp_path / "b.a", OLD)
    quiet = tmp_path / "quiet.log"
    quiet.write_text("Poplar version 3.3.0 (d6e2e7b8f2) Poplar package 3.3.0\nBuilding graph took 0.61902s\n")
    missing = tmp_path / "missing.txt"
    paths = [quiet, build, missing, SAMPLES / "mk1_summary.txt"]
    with pytest.raises(ReadError, match="no memory information found"):
        session.read_files(paths, session.read_options())  # without a list: the first unreadable file raises
    errors: list[session.ReadFailure] = []
    reads = session.read_files(paths, session.read_options(), labels={str(quiet): "<stdin>"}, errors=errors)
    assert [r.path for r in reads] == [str(build), str(SAMPLES / "mk1_summary.txt")]
    assert [e.file for e in errors] == ["<stdin>", str(missing)]
    assert errors[0].message.startswith("<stdin>: no memory information found: looked for a Poplar memory summary")
    assert errors[1].message == f"{missing}: no such file"
    with pytest.raises(UnsupportedOperation, match="holds no such report"):  # a usage error is never collected
        session.read_files([SAMPLES / "trace_two_modules.rep"], session.read_options(), module="nope", errors=[])


class _Stdin:
    """Standard input as a test gives it: a byte stream, from a regular file or not."""

    def __init__(self, data: bytes, behind=None) -> None:
        import io
        self.buffer, self.behind = io.BytesIO(data), behind

    def fileno(self) -> int:
        if self.behind is None:
            raise OSError("no descriptor")
        return self.behind.fileno()


def test_standard_input_is_spooled_named_and_forgotten(tmp_path):
    from contextlib import ExitStack
    stdin = session.StandardInput()
    with ExitStack() as stack:
        paths = stdin.paths(["a.a", "-"], stack.enter_context, stack.callback, stream=_Stdin(b"log text"))
        spool = paths[1]
        assert paths[0] == "a.a" and Path(spool).read_bytes() == b"log text"
        assert stdin.labels == {spool: "<stdin>"} and stdin.redirected(paths) is None  # a pipe: no file behind it
        assert stdin.named(f"{spool}: not a report") == "<stdin>: not a report"
    assert not Path(spool).exists() and stdin.labels == {}  # removed and forgotten when the stack closes
    assert stdin.paths(["a.a"], None, None) == ["a.a"]  # nothing to spool
    with pytest.raises(UnsupportedOperation, match=r"- \(standard input\) can be given once"):
        stdin.paths(["-", "-"], None, None)


def test_standard_input_redirected_from_a_file_stands_for_that_file(tmp_path):
    import os
    from contextlib import ExitStack
    behind = tmp_path / "run.log"
    behind.write_bytes(b"memory")
    stdin = session.StandardInput()
    with ExitStack() as stack, open(behind, "rb") as f:
        spool, = stdin.paths(["-"], stack.enter_context, stack.callback, stream=_Stdin(b"memory", f))
        st = os.stat(behind)
        assert stdin.redirected(["x.a", spool]) == (st.st_dev, st.st_ino)
