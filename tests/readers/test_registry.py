"""The reader registry (memreport/readers/__init__.py): every built-in reader, in sniffing order."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from memreport.errors import ReadError, UnexpectedError
from memreport.readers import read_path, readers
from tests.synth.archive import tile_elf


def test_every_builtin_reader_registers_in_sniffing_order():
    assert [r.name for r in readers()] == ["ar", "elf", "saved-csv", "saved", "json", "cbor", "pva", "poplar-text"]


def test_a_missing_reader_module_is_an_error_not_a_missing_format():
    """A reader that fails to import must not silently leave its format unrecognised."""
    code = textwrap.dedent("""
        import sys
        sys.modules["memreport.readers.text.poplar_text"] = None  # its import now raises ModuleNotFoundError
        from memreport.readers import readers
        try:
            readers()
        except ModuleNotFoundError as exc:
            print("raised", exc.name)
        else:
            print("swallowed")
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "raised memreport.readers.text.poplar_text"


def test_the_first_reads_from_many_threads_at_once_all_succeed(tmp_path):
    """Issue #16: the registry once marked itself loaded before its readers were imported, so the first
    ``memreport.read`` in two threads at once failed with ``unrecognised format (expected )``. In a fresh
    interpreter (registry not loaded), 16 threads released at once read and render every format; each
    result must equal a single-threaded reading done afterwards."""
    from tests.fuzzing import SEEDS, write_case
    paths = []
    for name in sorted(SEEDS):
        directory = tmp_path / name
        directory.mkdir()
        paths.append(write_case(str(directory), name, SEEDS[name]))
    code = textwrap.dedent(f"""
        import threading
        from concurrent.futures import ThreadPoolExecutor
        import memreport
        paths = {paths!r}
        jobs = [paths[i % len(paths)] for i in range(16)]
        start = threading.Barrier(len(jobs))

        def one(path):
            from memreport.analysis import summarize_all
            from memreport.render import render
            reports = memreport.read_all(path)
            return [render("report", fmt, summarize_all(reports)) for fmt in ("text", "json", "csv")]

        def at_once(path):
            start.wait()  # every thread asks together, before any reader module is imported
            return one(path)

        with ThreadPoolExecutor(len(jobs)) as pool:
            threaded = list(pool.map(at_once, jobs))
        assert threaded == [one(path) for path in jobs]
        print("ok", len(threaded))
    """)
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert (run.returncode, run.stdout, run.stderr) == (0, "ok 16\n", "")


@pytest.mark.parametrize("raised,message", [
    (MemoryError(), "ELF file: out of memory while reading (MemoryError): the file needs more memory than this "
                    "process may use"),
    (OSError(5, "Input/output error"), "ELF file: cannot read: Input/output error"),
    (RecursionError(), "ELF file: too deeply nested (RecursionError)"),
])
def test_limits_of_the_environment_are_read_errors_not_bugs(tmp_path, monkeypatch, raised, message):
    """An address-space limit or a disk error is the environment's, worded so (it was 'a memreport bug')."""
    from memreport.readers.elf import file as elf

    def fails(*args, **kwargs):
        raise raised

    monkeypatch.setattr(elf, "scan_elf", fails)
    path = tmp_path / "tile.elf"
    path.write_bytes(tile_elf(0, 100))
    with pytest.raises(ReadError) as caught:
        read_path(str(path))
    assert not isinstance(caught.value, UnexpectedError)
    assert str(caught.value) == f"{path}: {message}"


def test_each_builtin_modules_declared_extensions_are_those_its_readers_claim():
    from memreport.readers.registry import BUILTIN, BUILTIN_EXTENSIONS, _builtin_rank
    claimed: dict[str, set[str]] = {name: set() for name in BUILTIN}
    for reader in readers():
        claimed[BUILTIN[_builtin_rank(reader)]].update(reader.extensions)
    assert claimed == {name: set(extensions) for name, extensions in BUILTIN_EXTENSIONS.items()}


PREFIXES = [b"!<arch>\n", b"!<thin>\n", b"\x7fELF\x01\x01", b"tile,arch,bytes_per_tile,", b'{"schema": "memreport/1"',
            b'{"target": {}}', b"\xa1dtarg", b"SQLite format 3\x00", b"Memory Usage:\n", b"\x00\x01\x02"]
SUFFIXES = ["", ".a", ".elf", ".o", ".csv", ".json", ".cbor", ".pop", ".txt", ".log", ".rep", ".bin"]


def test_sniffing_module_by_module_picks_what_sniffing_every_reader_picks():
    from memreport.readers.registry import _sniffed
    for prefix in PREFIXES:
        for suffix in SUFFIXES:
            accepting = [r for r in readers() if r.accept(prefix)]
            eager = next((r for r in accepting if suffix in r.extensions), accepting[0] if accepting else None)
            assert _sniffed(prefix, suffix) is eager, (prefix, suffix)


@pytest.mark.parametrize("name, prefix, reader, loaded, unloaded", [
    ("pod.a", b"!<arch>\n", "ar", ["elf.ar"],  # ar imports elf.file
     ["documents.saved_csv", "documents.saved", "documents.profile", "documents.pva", "text.poplar_text"]),
    ("profile.json", b'{"target": {}}', "json", ["elf.ar", "documents.saved", "documents.profile"],
     ["documents.pva", "text.poplar_text"]),
    ("pod.bin", b"!<arch>\n", "ar", ["elf.ar"], ["documents.saved_csv", "documents.profile", "text.poplar_text"]),
    ("run.log", b"Memory Usage:\n", "poplar-text", ["text.poplar_text"], []),
])
def test_a_file_loads_the_reader_modules_its_choice_needs_and_no_more(name, prefix, reader, loaded, unloaded):
    code = textwrap.dedent(f"""
        import sys
        from memreport.readers import identify
        print(identify({name!r}, {prefix!r}).name)
        print(" ".join(m for m in ("elf.ar", "elf.file", "documents.saved_csv", "documents.saved",
                                   "documents.profile", "documents.pva", "text.poplar_text")
                       if "memreport.readers." + m in sys.modules))
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    chosen, modules = run.stdout.splitlines()
    assert chosen == reader
    assert set(loaded) <= set(modules.split()) and not set(unloaded) & set(modules.split()), modules
