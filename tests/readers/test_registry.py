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
    assert [r.name for r in readers()] == ["ar", "elf", "ipynb", "saved-csv", "saved", "lowered-vars", "json", "cbor",
                                           "pva",
                                           "poplar-text"]


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


# -- compressed input (issue #23), NULs and byte-order marks (issue #26 items 11, 12) -------------------------

def _small_summary() -> str:
    """A Mk2 summary of 4 tiles, as Poplar prints it."""
    import numpy as np

    from tests.synth import text as synth
    ex = np.array([100_000, 120_000, 90_000, 700_000])
    summary = synth.summary_from_tiles(ex, ex + 1_000, num_ipus=1, tiles_per_ipu=4, bytes_per_tile=638_976,
                                       clock_hz=1.33e9, graph={"Number of vertices": 10}, detailed=1)
    return synth.summary_text(summary)


def _target(report) -> tuple:
    return report.target.bytes_per_tile, report.target.num_tiles, report.target.clock_hz


@pytest.mark.parametrize("kind", ["gzip", "xz", "bz2", "zstd"])
def test_a_compressed_log_is_read_by_its_content(tmp_path, kind):
    """``memreport run.log.gz`` was "unrecognised format": any name, the compression told by its magic."""
    from tests.synth.logs import pack
    data = ("2023-06-29 run started\n" * 2000 + _small_summary()).encode()
    packed = pack(kind, data)
    path = tmp_path / "run.log.compressed"
    path.write_bytes(packed)
    [report] = read_path(path)
    assert _target(report) == (638_976, 4, 1.33e9) and report.position.line == 2001
    assert report.printed.max_excluding_gaps.bytes == 700_000 and report.printed.max_excluding_gaps.tile == 3


def test_a_cut_compressed_log_keeps_what_it_read_and_says_where_it_ends(tmp_path):
    import gzip

    from tests.synth import logs
    data = (_small_summary() + "".join(logs.Filler(400_000, 3).text())).encode()
    whole = gzip.compress(data, mtime=0)
    path = tmp_path / "run.log.gz"
    path.write_bytes(whole[:len(whole) * 3 // 4])
    [report] = read_path(path)
    assert _target(report) == (638_976, 4, 1.33e9)
    assert report.notes[-1].startswith(f"the gzip stream is cut short: it ends at compressed byte "
                                       f"{len(whole) * 3 // 4:,} without its end marker, after ")
    assert report.notes[-1].endswith(" bytes of text: what follows is missing")
    path.write_bytes(gzip.compress(b"run started\n" * 20_000, mtime=0)[:200])  # no report before the cut
    with pytest.raises(ReadError, match=r"run\.log\.gz: the gzip stream is cut short: it ends at compressed byte "
                                        r"200 without its end marker, after [\d,]+ bytes of text; no memory "
                                        r"information found"):
        read_path(path)


@pytest.mark.parametrize("kind", ["gzip", "xz", "bz2", "zstd"])
def test_a_compressed_log_whose_first_member_or_stream_is_empty_is_read(tmp_path, kind):
    """``: | gzip >> job.log.gz`` for a step that printed nothing, then the run's output appended: refused as
    "nothing of it decompresses" (the sniffing stopped at the empty member), as an xz or bz2 log whose first
    stream is empty was. Read as ``zcat`` reads it."""
    from tests.synth.logs import pack
    data = ("2023-06-29 run started\n" * 2000 + _small_summary()).encode()
    path = tmp_path / "job.log.compressed"
    path.write_bytes(pack(kind, b"") + pack(kind, data))
    [report] = read_path(path)
    assert _target(report) == (638_976, 4, 1.33e9) and report.position.line == 2001
    assert report.printed.max_excluding_gaps.bytes == 700_000 and report.printed.max_excluding_gaps.tile == 3
    assert not [note for note in report.notes if "stream" in note]


def test_a_small_gzip_log_with_a_bad_crc_is_read_with_a_note(tmp_path):
    """Under 4 KiB, a bad CRC-32 took the sniffed text with it ("nothing of it decompresses"); a larger log was
    read with a note. Both are now: the text is whole, the note says the check failed."""
    import gzip

    from tests.synth.seeds import _small_summary as tiny_summary  # 839 bytes: decompressed at one go
    data = bytearray(gzip.compress(tiny_summary().encode(), mtime=0))
    data[-8] ^= 1
    path = tmp_path / "run.log.gz"
    path.write_bytes(data)
    [report] = read_path(path)
    stored = int.from_bytes(data[-8:-4], "little")  # the trailer's CRC, against the text's (one bit apart)
    assert _target(report) == (262_144, 4, 1.6e9)
    assert report.notes[-1] == (f"the gzip stream is damaged before compressed byte {len(data):,} (CRC check failed "
                                f"{stored:#x} != {stored ^ 1:#x}), after {len(tiny_summary()):,} "
                                "bytes of text: what follows is missing")


def test_a_compressed_archive_or_garbage_is_named_not_guessed(tmp_path):
    import gzip
    path = tmp_path / "pod.a.gz"
    path.write_bytes(gzip.compress(b"!<arch>\n" + bytes(200), mtime=0))
    with pytest.raises(ReadError, match=r"gzip-compressed ar archive of tile ELF files: memreport streams "
                                        r"compressed logs only; decompress it first \(gunzip\)"):
        read_path(path)
    path.write_bytes(gzip.compress(bytes(range(256)) * 20, mtime=0))
    with pytest.raises(ReadError, match=r"gzip-compressed, and what it holds is in an unrecognised format"):
        read_path(path)
    path.write_bytes(b"\x1f\x8b\x08" + bytes(range(256)))
    with pytest.raises(ReadError, match=r"gzip-compressed, but nothing of it decompresses \(the file is cut "
                                        r"short or damaged\)"):
        read_path(path)


@pytest.mark.parametrize("hole", [1, 100, 5000, 70_000])
def test_a_hole_of_nuls_before_a_log_leaves_it_a_log(tmp_path, hole):
    """Issue #26 item 11: logrotate's copytruncate leaves a hole of NULs where the log was; one NUL in the
    first 4 KiB made the log "unrecognised format" (at 5 KiB it was fine)."""
    path = tmp_path / "run.log"
    path.write_bytes(b"run started\n" * 3 + bytes(hole) + _small_summary().encode())
    [report] = read_path(path)
    assert _target(report) == (638_976, 4, 1.33e9)
    path.write_bytes(b"\x01\x00\x02\x00\x10\x03\x00" * 40 + bytes(hole) + bytes(range(1, 32)) * 200)  # binary
    with pytest.raises(ReadError, match="unrecognised format"):
        read_path(path)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-le"])
def test_a_byte_order_mark_before_a_summary_keeps_its_target(tmp_path, encoding):
    """Issue #26 item 12: a log concatenated with one saved with a BOM, right before its summary, lost the
    Target section (arch and tile memory unknown, exit 0); a UTF-16 log, its BOM first, is read as well."""
    path = tmp_path / "run.log"
    tail = "\ufeff" + _small_summary()
    if encoding == "utf-8":
        path.write_bytes(b"first log\n" * 3 + tail.encode())
    else:
        path.write_bytes(tail.encode("utf-16-le"))
    [report] = read_path(path)
    assert _target(report) == (638_976, 4, 1.33e9)
