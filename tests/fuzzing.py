"""Mutations of valid inputs and the property every reading must keep (shared by the tests and scripts/fuzz.py).

The property: reading a file either gives valid reports or raises
:class:`~memreport.errors.ReadError` naming the file, in one line, and not
an :class:`~memreport.errors.UnexpectedError` (a stray exception the last-
resort guard caught). Valid reports then go through everything a command
does with them (:func:`check_outputs`): summaries (also with 1 KiB bins),
every renderer of every ``--format`` (and the picture, when asked), the
three gates, a ``diff`` of each report with itself and its gate, and
writing every output to files; each either works or raises the one
documented refusal (:class:`~memreport.errors.UnsupportedOperation`, bad
usage at the command line). Anything else (another exception, a crash, a
hang) is a bug.

Mutations are blind (byte flips, truncations, insertions, deletions,
splices, long repeats of a few bytes) and aimed: each seed's *fields* (ELF and ar header fields, CBOR
item heads, numbers in JSON and text) are listed once, and a field
mutation writes an extreme value into one of them, which blind flips
would take millions of tries to hit.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import string
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from memreport import render
from memreport.analysis import gates, summarize_all
from memreport.analysis.diff import diff_reports
from memreport.errors import ReadError, UnexpectedError, UnsupportedOperation
from memreport.model import MemoryReport, TileReport
from memreport.output import temporary_files, write_outputs
from memreport.readers import ReadOptions, read_path
from memreport.readers.elf import demangle
from memreport.readers.elf.ar import iter_members
from memreport.readers.elf.file import scan_elf
from memreport.readers.elf.symbols import has_symbols, with_symbols
from tests.synth.archive import cxx_archive, demangling_bomb
from tests.synth.logs import compress
from tests.synth.seeds import CXX_NAMES, SUFFIXES, seeds

SEEDS = seeds()
FORMATS = sorted(SEEDS)
_BLOBS = [b"\x00", b"\xff", b"\x7f", b"\x80", b"\xff\xff", b"\x00\x00", b"\xff\xff\xff\xff", b"0", b"9", b"-",
          b"/", b"`\n", b" ", b",", b"\n", b":", b"[", b"{", b"]", b"}", b'"', b"\\", b"\xd8\x1c", b"\xd8\x1d\x00",
          b"\x9b\x10\x00\x00\x00\x00\x00\x00\x00", b"\x5b\x10\x00\x00\x00\x00\x00\x00\x00", b"\xc2\x59\x10\x00"]
_ASCII_NUMBERS = [b"0", b"-1", b"9999999999", b"1_0", b"+5", b"", b"12x4", b"00000000001", b"4294967296",
                  b"99999999999999999999999", b"1e400", b"NaN", b"1.5", b"1,2x6", b"1,000,000,000,000",
                  b"18446744073709551616", b"-0", b"0x10", b"\xd9\xa3"]


@dataclass(frozen=True)
class Field:
    """Where a seed keeps a value a reader parses: ``width`` bytes at ``offset``."""

    offset: int
    width: int
    kind: str  # "<" or ">" (a binary integer of that byte order), "ascii" (digits), "cbor" (an item head)


def _elf_fields(data: bytes, base: int, length: int) -> list[Field]:
    if length < 52 or data[base:base + 4] != b"\x7fELF":
        return []
    is64, order = data[base + 4] == 2, "<" if data[base + 5] == 1 else ">"
    word = 8 if is64 else 4
    ehdr = struct.Struct(order + ("HHIQQQIHHHHHH" if is64 else "HHIIIIIHHHHHH"))
    shoff = ehdr.unpack_from(data, base + 16)[5]
    shentsize, shnum = ehdr.unpack_from(data, base + 16)[10:12]
    at = base + 16  # e_type, e_machine, e_version, e_entry, e_phoff, e_shoff, e_flags, ..., e_shstrndx
    widths = [2, 2, 4, word, word, word, 4, 2, 2, 2, 2, 2, 2]
    fields = []
    for width in widths:
        fields.append(Field(at, width, order))
        at += width
    for i in range(shnum):  # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link
        at = base + shoff + i * shentsize
        for width in [4, 4, word, word, word, word, 4]:
            if at + width <= base + length:
                fields.append(Field(at, width, order))
            at += width
    return fields


def _cbor_heads(data: bytes) -> list[Field]:
    """Every item head of a CBOR document (a small walker: definite lengths, as the seeds are written)."""
    fields: list[Field] = []
    pos = 3 if data.startswith(b"\xd9\xd9\xf7") else 0

    def item() -> None:
        nonlocal pos
        start = pos
        major, info = data[pos] >> 5, data[pos] & 0x1F
        pos += 1
        extra = {24: 1, 25: 2, 26: 4, 27: 8}.get(info, 0)
        value = int.from_bytes(data[pos:pos + extra], "big") if extra else info
        pos += extra
        fields.append(Field(start, 1 + extra, "cbor"))
        if major in (2, 3):
            pos += value
        elif major == 4:
            for _ in range(value):
                item()
        elif major == 5:
            for _ in range(2 * value):
                item()
        elif major == 6:
            item()

    item()
    return fields


def _fields(name: str, data: bytes) -> list[Field]:
    if name.startswith("archive"):
        fields = []
        for member in iter_members(data):
            fields.append(Field(member.header_offset + 48, 10, "ascii"))
            fields.append(Field(member.header_offset, 16, "ascii"))
            fields += _elf_fields(data, member.data_offset, member.size)
        return fields
    if name.startswith("elf"):
        return _elf_fields(data, 0, len(data))
    if name.startswith("cbor"):
        return _cbor_heads(data)
    return [Field(m.start(), m.end() - m.start(), "ascii") for m in re.finditer(rb"\d[\d,.]*", data)]


FIELDS = {name: _fields(name, data) for name, data in SEEDS.items()}


@st.composite
def _field_value(draw, field: Field, size: int) -> bytes:
    if field.kind == "ascii":
        text = draw(st.sampled_from(_ASCII_NUMBERS))
        return text.ljust(field.width) if field.width == 10 else text  # ar fields keep their width
    if field.kind == "cbor":
        major = draw(st.integers(0, 7)) << 5
        head = draw(st.sampled_from([b"", b"\x1b\x10\x00\x00\x00\x00\x00\x00\x00", b"\x1a\xff\xff\xff\xff",
                                     b"\x1f", b"\x1c", b"\x19\x01\x00"]))
        return bytes([major | head[0]]) + head[1:] if head else bytes([major | draw(st.integers(0, 23))])
    bits = 8 * field.width
    value = draw(st.sampled_from([0, 1, 2, 0xFFFF, size, size + 1, max(size - 1, 0), 2**(bits - 1),
                                  2**bits - 1, 2**(bits - 1) - 1]) | st.integers(0, 2**bits - 1))
    return (value % 2**bits).to_bytes(field.width, "little" if field.kind == "<" else "big")


@st.composite
def _mutation(draw, data: bytes, fields: list[Field]) -> bytes:
    """One mutation of ``data``: aimed at a field, or a byte flip, truncation, insertion, deletion, splice."""
    n = len(data)
    kinds = ["flip", "truncate", "insert", "delete", "overwrite", "splice", "repeat"] + ["field"] * (3 if fields else 0)
    kind = draw(st.sampled_from(kinds))
    at = draw(st.integers(0, max(n - 1, 0)))
    if kind == "field":
        field = draw(st.sampled_from(fields))
        value = draw(_field_value(field, n))
        return data[:field.offset] + value + data[field.offset + field.width:]
    if kind == "flip" and n:
        return data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1:]
    if kind == "truncate":
        return data[:at]
    if kind == "repeat":  # long runs (spaces, brackets, digits, headers): where parsers go quadratic
        piece = data[at:at + draw(st.integers(1, 8))] or b" "
        return data[:at] + piece * draw(st.sampled_from([100, 2_000, 30_000])) + data[at:]
    if kind == "insert":
        return data[:at] + draw(st.sampled_from(_BLOBS) | st.binary(min_size=1, max_size=16)) + data[at:]
    if kind == "delete":
        return data[:at] + data[at + draw(st.integers(1, 64)):]
    if kind == "overwrite":
        blob = draw(st.sampled_from(_BLOBS) | st.binary(min_size=1, max_size=8))
        return data[:at] + blob + data[at + len(blob):]
    # splice: a stretch of this or another seed copied in
    other = SEEDS[draw(st.sampled_from(FORMATS))] if draw(st.booleans()) else data
    start = draw(st.integers(0, max(len(other) - 1, 0)))
    piece = other[start:start + draw(st.integers(1, 256))]
    return data[:at] + piece + data[at + draw(st.integers(0, len(piece))):]


@st.composite
def mutated(draw, name: str) -> bytes:
    """A seed with one to four mutations applied in turn (field offsets are the seed's, so aim first)."""
    data = SEEDS[name]
    for step in range(draw(st.integers(1, 4))):
        data = draw(_mutation(data, FIELDS[name] if step == 0 else []))
    return data


LOG_VARIANTS = "run_log_variants"  # not a seed: the run log as logs really arrive (scripts/fuzz.py --formats)


@st.composite
def log_variants(draw) -> bytes:
    """The run-log seed, mutated or not, as logs really arrive (issue #23, issue #26 items 11, 12): with NULs
    (logrotate copytruncate's hole at the start, a stray NUL anywhere), byte-order marks in the middle (a UTF-8
    BOM after a line end, a UTF-16 part appended with its BOM), an out-of-memory message with a number out of
    range (issue #33), then maybe compressed (gzip, two gzip members, xz, bz2; after empty members or streams;
    with a bad check) and maybe cut."""
    data = draw(mutated("run_log")) if draw(st.booleans()) else SEEDS["run_log"]
    for _ in range(draw(st.integers(1, 3))):
        ends = [k + 1 for k, byte in enumerate(data) if byte == 10] or [0]
        at = draw(st.sampled_from(ends))  # a line start
        kind = draw(st.sampled_from(["hole", "nul", "bom8", "utf16", "bom16", "huge"]))
        if kind == "huge":  # an out-of-memory message with a number out of range (issue #33 item 14)
            digits = draw(st.sampled_from(["9223372036854775808", "1" * 20, "9" * 400, "0" * 30 + "7"]))
            data = data[:at] + (f"Out of memory on tile 1: {digits} bytes used but tiles only have 638976 bytes of "
                                "memory\n").encode() + data[at:]
        elif kind == "hole":
            data = bytes(draw(st.sampled_from([1, 100, 4095, 5000, 70_000]))) + data
        elif kind == "nul":
            anywhere = draw(st.integers(0, len(data)))
            data = data[:anywhere] + b"\x00" * draw(st.integers(1, 3)) + data[anywhere:]
        elif kind == "bom8":
            data = data[:at] + b"\xef\xbb\xbf" + data[at:]
        elif kind == "utf16":
            data = data[:at] + data[at:].decode("utf-8", "replace").encode("utf-16")
        else:
            data = data[:at] + draw(st.sampled_from([b"\xff\xfe", b"\xfe\xff"])) + data[at:]
    packing = draw(st.sampled_from([None, "gzip", "gzip members", "xz", "bz2", "empty first", "bad check"]))
    if packing == "gzip members":
        half = len(data) // 2
        data = compress("gzip", data[:half]) + compress("gzip", data[half:])
    elif packing == "empty first":  # `: | gzip >> job.log.gz` of a quiet step, then the output (issue #33 item 4)
        kind = draw(st.sampled_from(["gzip", "xz", "bz2"]))
        data = compress(kind, b"") * draw(st.integers(1, 3)) + compress(kind, data)
    elif packing == "bad check":  # a gzip member whose CRC-32 or length is off by a bit
        packed = bytearray(compress("gzip", data))
        packed[-draw(st.integers(1, 8))] ^= 1 << draw(st.integers(0, 7))
        data = bytes(packed)
    elif packing is not None:
        data = compress(packing, data)
    if packing is not None and draw(st.booleans()):
        data = data[:draw(st.integers(0, len(data) - 1))]  # cut short
    return data


LOG_RANKS = "run_log_ranks"  # not a seed: many poprun ranks' summaries in one log (scripts/fuzz.py --formats)


def poprun_ranks(texts: Sequence[bytes], order: Sequence[int] | None = None, streams: Sequence[bytes] = ()) -> bytes:
    """A poprun log: rank r prints ``texts[r]`` and an epoch line under its ``[1,r]<stream>:`` tag (``streams[r]``,
    stdout by default); ``order`` lists the rank of each next line (each rank's own lines in order), the ranks
    one after another without it."""
    ranks = []
    for rank, text in enumerate(texts):
        tag = b"[1,%d]<%s>:" % (rank, streams[rank] if rank < len(streams) else b"stdout")
        ranks.append([tag + line for line in text.splitlines(True)] + [tag + b"[INFO] Epoch 1\n"])
    if order is None:
        order = [r for r, rank in enumerate(ranks) for _ in rank]
    place = [0] * len(ranks)
    lines = []
    for r in order:
        lines.append(ranks[r][place[r]])
        place[r] += 1
    return b"10:10:50.154 1 POPRUN [D] Target options from environment: {}\n" + b"".join(lines)


@st.composite
def many_ranks(draw) -> bytes:
    """A poprun log of 2 to 12 ranks (issue #26 item 5), each printing the summary seed (one maybe mutated) under
    its tag (some on stderr), the ranks one after another, their lines interleaved in turn, or interleaved at
    random; then maybe one more mutation of the whole log."""
    count = draw(st.integers(2, 12))
    texts = [SEEDS["text_summary"]] * count
    if draw(st.booleans()):  # one rank's summary mutated (more, and nearly every log would be refused whole)
        texts[draw(st.integers(0, count - 1))] = draw(mutated("text_summary"))
    streams = [b"stderr" if draw(st.integers(0, 7)) == 0 else b"stdout" for _ in range(count)]
    lengths = [len(text.splitlines()) + 1 for text in texts]  # lines, the epoch line too
    layout = draw(st.sampled_from(["one after another", "in turn", "at random"]))
    if layout == "one after another":
        order = None
    elif layout == "in turn":
        order = [r for k in range(max(lengths)) for r in range(count) if k < lengths[r]]
    else:
        order = draw(st.permutations([r for r in range(count) for _ in range(lengths[r])]))
    data = poprun_ranks(texts, order, streams)
    return draw(_mutation(data, [])) if draw(st.booleans()) else data


def check_reading(path: str, *, skip_bad_members: bool = False, png: bool = False) -> str:
    """Read ``path`` and do with it all a command does: "ok", or "error" for a proper ReadError; else raises.

    ``png`` also draws every report (a few tenths of a second each: the
    long fuzz run draws a sample).
    """
    try:
        reports = read_path(path, ReadOptions(skip_bad_members=skip_bad_members))
    except UnexpectedError:
        raise
    except ReadError as exc:
        message = str(exc)
        assert message.startswith(path), message  # names the file first, as the CLI prints it
        assert "\n" not in message.strip(), message
        assert "MemoryError" not in message, message  # an allocation out of proportion to a small input
        return "error"
    assert reports and all(isinstance(r, MemoryReport) for r in reports)
    if _read_back(path):  # a saved report keeps its source's format, but not its bytes: no reference to compare
        check_outputs(reports, os.path.dirname(path), png=png)
        return "ok"
    if reports[0].format == "archive":
        _same_as_reference(path, reports[0])
    if reports[0].format in ("json-profile", "cbor-profile"):
        _same_as_reference_decoder(path, reports[0])
    if reports[0].format == "tensor-map":
        _same_as_reference_tensor_map(path, reports[0])
    try:
        reports = [_with_symbols(report) for report in reports]
    except ReadError as exc:
        assert str(exc).startswith(path) and "\n" not in str(exc).strip(), str(exc)
        return "error"
    if reports[0].format == "lowered-vars":
        _same_as_reference_lowered(path, reports[0])
    check_outputs(reports, os.path.dirname(path), png=png)
    return "ok"


def _with_symbols(report: MemoryReport) -> MemoryReport:
    """An archive's or ELF file's report with the symbols of its first tiles, as the command reads those it shows
    (their names demangled: none longer than the C++ names kept, issue #33 item 11)."""
    if not isinstance(report, TileReport) or not has_symbols(report):
        return report
    held = with_symbols(report, range(min(report.num_tiles, 4)))
    for table in held.symbols.values():
        for symbol in (*table.symbols, *table.unsized):
            assert symbol.demangled is None or len(symbol.demangled) <= demangle.SHOWN_CHARS, symbol.name[:80]
            check_mangled(symbol.name)
    return held


def _read_back(path: str) -> bool:
    """Whether memreport reads ``path`` as one of its own saved reports (JSON or CSV)."""
    from memreport.readers.registry import identify
    with open(path, "rb") as f:
        return identify(path, f.read(4096)).name in ("saved", "saved-csv")


def check_outputs(reports: Sequence[MemoryReport], directory: str, *, png: bool = False) -> None:
    """Summaries, every renderer, the gates, a diff of each report with itself, and every output written."""
    summaries = summarize_all(reports)
    with contextlib.suppress(UnsupportedOperation):  # too many bins, or a text summary's printed ones: refused
        summarize_all(reports, bin_kib=1)
    outputs: list[tuple[str, str | bytes]] = []
    for renderer in render.renderers("report"):
        if renderer.binary and not png:
            continue
        if renderer.per_item:
            for summary in summaries:
                try:
                    picture = renderer.render(summary, render.RenderOptions())
                except UnsupportedOperation:  # a tensor map has no picture (exit 2 at the command line)
                    continue
                assert isinstance(picture, bytes) and picture.startswith(b"\x89PNG\r\n\x1a\n")
                outputs.append((renderer.extension, picture))
            continue
        outputs.append((renderer.extension, _checked(renderer.name, renderer.render(summaries,
                                                                                     render.RenderOptions()))))
    for summary in summaries:
        for gate, *args in ((gates.check_out_of_memory,), (gates.check_max_tile, 0), (gates.check_min_headroom, 1)):
            from memreport.render.words import gate_message
            result = gate(summary, *args)  # failed None: it cannot judge this source (exit 2 at the command line)
            assert "\n" not in gate_message(result)
    for report, summary in zip(reports, summaries):
        try:
            diff = diff_reports(report, report, summaries=(summary, summary))
        except UnsupportedOperation:  # a tensor map: nothing to compare
            continue
        assert not diff.tiles and diff.total_delta in (0, None), "a report differs from itself"
        if diff.compared_tiles:
            assert not gates.check_growth(diff, 0).failed
        else:  # no tile stated on both sides: the gate cannot pass on nothing
            assert gates.check_growth(diff, 0).failed is not False, "a growth gate passed on no compared tile"
        for renderer in render.renderers("diff"):
            outputs.append((renderer.extension, _checked(renderer.name, renderer.render(diff, render.RenderOptions()))))
    outputs += _past_the_ipus_listed(reports)
    paths = [os.path.join(directory, f"output-{i}{extension}") for i, (extension, _) in enumerate(outputs)]
    write_outputs([(path, data) for path, (_, data) in zip(paths, outputs)])
    for path, (_, data) in zip(paths, outputs):
        with open(path, "rb") as f:
            assert f.read() == (data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape"))
        os.unlink(path)
    assert not list(temporary_files(directory))


# What a terminal acts on (a page reorders by): C0 controls but the line end, DEL, C1, the bidirectional controls,
# the line and paragraph separators, lone surrogates (issue 33 item 8).
HIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                    "\ud800-\udfff]")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet runs a cell that starts so (OWASP, issue 33 item 10)


def gfm_cells(row: str) -> list[str]:
    """A Markdown table row's cells as GitHub splits them (cmark-gfm's table extension): at every pipe not
    escaped, a backslash escaping any ASCII punctuation (so ``\\\\|`` is an escaped backslash, then a pipe that
    splits), in code spans too; the escaped pipes then read as pipes (issue 33 item 9)."""
    cells, current, i = [], "", 0
    while i < len(row):
        if row[i] == "\\" and i + 1 < len(row) and row[i + 1] in string.punctuation:
            current += row[i:i + 2]
            i += 2
            continue
        if row[i] == "|":
            cells.append(current)
            current = ""
        else:
            current += row[i]
        i += 1
    cells.append(current)
    if cells and not cells[0].strip():
        cells = cells[1:]
    if cells and not cells[-1].strip():
        cells = cells[:-1]
    return [c.strip().replace("\\|", "|") for c in cells]


def _past_the_ipus_listed(reports: Sequence[MemoryReport]) -> list[tuple[str, str | bytes]]:
    """The text outputs of the reports of several IPUs with the IPUs listed one by one lowered to one: their views
    of more IPUs than are listed (issue 33 item 15: a profile declaring one tile per IPU over 376,832 tiles), which
    the seeds' few IPUs never reach otherwise."""
    from memreport.analysis import tiles
    many = [r for r in reports if isinstance(r, TileReport) and r.target.tiles_per_ipu
            and r.num_tiles > r.target.tiles_per_ipu]
    if not many:
        return []
    kept = tiles.IPU_ROWS
    tiles.IPU_ROWS = 1
    try:
        summaries = summarize_all(many)
    finally:
        tiles.IPU_ROWS = kept
    assert all(len(s.per_ipu) <= 1 and s.ipu_spread is not None for s in summaries)
    return [(renderer.extension, _checked(renderer.name, renderer.render(summaries, render.RenderOptions())))
            for renderer in render.renderers("report", binary=False)]


def _checked(fmt: str, text: str | bytes) -> str | bytes:
    """A rendered output, checked for what its format promises: strict JSON, a rectangular CSV whose header
    names each column once and no text cell a spreadsheet would run, text and a page with no control character
    but line ends, Markdown tables whose rows keep their header's cells."""
    assert isinstance(text, str)
    if fmt == "json":
        json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(AssertionError(f"JSON holds {name}")))
    elif fmt == "csv":
        csv.field_size_limit(1 << 30)  # a mutated name can be a long line; csv.reader stops at 128 KiB by default
        rows = list(csv.reader(io.StringIO(text)))
        assert len(set(rows[0])) == len(rows[0]), f"CSV columns repeat: {rows[0]}"
        assert all(len(row) == len(rows[0]) for row in rows), "CSV rows of different lengths"
        formulas = [cell for row in rows for cell in row if cell.startswith(_FORMULA) and not re.fullmatch(
            r"-\d+", cell)]
        assert not formulas, f"CSV cells a spreadsheet runs: {formulas[:3]}"
    elif fmt in ("text", "html"):
        found = HIDDEN.search(text)
        assert found is None, f"{fmt} holds {found[0]!r} at {found.start()}"
    elif fmt == "markdown":
        for table in re.findall(r"(?m)(?:^\| .*\n)+", text):
            assert len({len(gfm_cells(row)) for row in table.splitlines()}) == 1, table[:2000]
    return text


def _same_as_reference(path: str, report: MemoryReport) -> None:
    """The bulk archive scan agrees with the member-by-member reference scan, tile by tile."""
    with open(path, "rb") as f:
        data = f.read()
    skipped = {s.tile for s in report.skipped}
    expected = []
    for tile, member in enumerate(iter_members(data)):
        try:
            expected.append(scan_elf(data, member.data_offset, member.size).allocated_bytes)
        except ReadError:
            assert tile in skipped, f"the bulk scan read tile {tile}, which the reference scan rejects"
            expected.append(0)
        else:
            assert tile not in skipped, f"tile {tile} skipped, but the reference scan reads it"
    assert report.excluding_gaps.tolist() == expected, "the bulk scan and the reference scan disagree"


def _same_as_reference_decoder(path: str, report: MemoryReport) -> None:
    """The bulk decoders (per-tile lists straight to arrays) agree with plain orjson/cbor2 decoding."""
    from memreport.readers.documents.document import decode_cbor, decode_json
    from memreport.readers.documents.profile import read_tree
    with open(path, "rb") as f:
        data = f.read()
    encoding = report.format.split("-")[0]
    try:
        tree = decode_json(data) if encoding == "json" else decode_cbor(data)
        (reference,) = read_tree(tree, path, encoding)
    except ReadError as exc:
        raise AssertionError(f"the bulk decoder read what the reference decoder rejects: {exc}") from None
    assert reference.excluding_gaps.tolist() == report.excluding_gaps.tolist()
    assert sorted(reference.breakdown) == sorted(report.breakdown)


def _same_as_reference_lowered(path: str, report: MemoryReport) -> None:
    """The streamed lowered-variables reading (records checked straight from the bytes) agrees with decoding the
    whole document with orjson."""
    from memreport.readers.documents.document import decode_json
    from memreport.readers.documents.lowered_vars import report_from_tree
    with open(path, "rb") as f:
        data = f.read()
    try:
        reference = report_from_tree(decode_json(data), path)
    except ReadError as exc:
        raise AssertionError(f"the streamed reading read what the reference reading rejects: {exc}") from None
    ours, theirs = report.variables, reference.variables
    assert ours is not None and theirs is not None
    for key in ("tile", "offset", "size", "category", "always_live", "name_index", "equivalence_class"):
        assert getattr(ours, key).tolist() == getattr(theirs, key).tolist(), key
    assert (ours.names, ours.categories) == (theirs.names, theirs.categories)
    assert report.excluding_gaps.tolist() == reference.excluding_gaps.tolist()


def _same_as_reference_tensor_map(path: str, report: MemoryReport) -> None:
    """The tensor-map decoder (pair lists straight to arrays) agrees with plain orjson decoding."""
    from memreport.readers.documents.document import decode_json
    from memreport.readers.documents.tensor_map import tensor_map_from_document
    with open(path, "rb") as f:
        data = f.read()
    if data.lstrip()[:1] != b"{":  # CBOR: one decoder only
        return
    try:
        reference = tensor_map_from_document(decode_json(data), path)
    except ReadError as exc:
        raise AssertionError(f"the tensor-map decoder read what the reference decoder rejects: {exc}") from None
    ours = report.tensor_map
    assert ours.pair_tile.tolist() == reference.pair_tile.tolist()
    assert ours.pair_elements.tolist() == reference.pair_elements.tolist()
    assert ours.tensors == reference.tensors


# ---------------------------------------------------------------- hostile saved reports (issue #26, item 9)
# A saved report is a baseline CI keeps and people edit: these shapes change its decoded tree (a key
# dropped, a value of the wrong type, NaN, a huge integer, nested junk), and its CSV cell by cell,
# where byte mutations would mostly break the JSON syntax and stop at the decoder.

#: shape name -> file suffix; inputs made by :func:`hostile_input`, not by mutating a seed's bytes
CXX_ARCHIVE = "archive_cxx_names"  # an archive whose symbols are mangled_names(): scripts/fuzz.py --formats
HOSTILE_SUFFIXES = {"saved_json_hostile": ".json", "saved_csv_hostile": ".csv", CXX_ARCHIVE: ".a"}
FUZZ_FORMATS = FORMATS + sorted(HOSTILE_SUFFIXES) + [LOG_VARIANTS, LOG_RANKS]  # every shape scripts/fuzz.py runs
HOSTILE_VALUES: list = ["abc", "", "ipu9", "ipu2", "-1", [1], [], [[1]], [[]], {}, {"a": [None]}, None, True, False,
                        -1, 0, 1, 7, 2**63, 2**64, -2**63 - 1, 10**30, 1.5, 1e308, -0.0, [1.5], ["x"], [True], [-1],
                        [2**63], [None], [{}], float("nan"), float("inf")]
_HOSTILE_CELLS = ["", "-1", "1e5", "1.0", " 7", "+3", "\u0663", "99999999999999999999", "18446744073709551616",
                  '"4,2"', "x", "\x00", "0x10", "007", '"', "a\r\nb"]


def saved_documents() -> list:
    """memreport/1 documents of every kind of report, decoded: tiles with symbols, skipped members and
    program-step liveness; printed summaries with detailed tiles and out-of-memory messages; a tensor map."""
    if not _SAVED_DOCUMENTS:
        import tempfile

        from memreport.readers.elf.symbols import with_symbols
        from memreport.render.data.report import render_json
        with tempfile.TemporaryDirectory() as directory:
            for name in ("archive", "text_summary", "run_log", "rep_trace", "tensor_map"):
                path = write_case(directory, name, SEEDS[name])
                reports = read_path(path, ReadOptions(skip_bad_members=True))
                reports = [with_symbols(r, [0, 1, 2]) if r.format == "archive" else r for r in reports]
                _SAVED_DOCUMENTS.append(json.loads(render_json(summarize_all(reports, top=2, tiles_asked=[1]))))
        _SAVED_DOCUMENTS.append(json.loads(SEEDS["saved_json"]))
    return _SAVED_DOCUMENTS


_SAVED_DOCUMENTS: list = []


def _places(node, path: tuple = ()) -> list[tuple]:
    """Paths to every value of a decoded document (of a long list, its first two items and its last)."""
    places = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            places += _places(value, path + (key,))
    elif isinstance(node, list):
        for i in sorted({0, 1, len(node) - 1} & set(range(len(node)))):
            places += _places(node[i], path + (i,))
    return places


@st.composite
def hostile_tree(draw, documents: Sequence | None = None):
    """A saved document with one to three changes to its tree: a value replaced by a hostile one, a key or an
    item dropped, a value wrapped in a list or an object, a value copied from elsewhere in the document."""
    import copy
    doc = copy.deepcopy(draw(st.sampled_from(documents or saved_documents())))
    for _ in range(draw(st.integers(1, 3))):
        places = [p for p in _places(doc) if p]
        *parents, key = draw(st.sampled_from(places))
        holder = doc
        for step in parents:
            holder = holder[step]
        action = draw(st.sampled_from(["replace", "replace", "replace", "drop", "list", "object", "copy"]))
        if action == "drop":
            del holder[key]
        elif action == "list":
            holder[key] = [holder[key]]
        elif action == "object":
            holder[key] = {"values": holder[key]}
        elif action == "copy":
            *other_parents, other_key = draw(st.sampled_from(places))
            other = doc
            for step in other_parents:
                other = other[step]
            holder[key] = copy.deepcopy(other[other_key])
        else:
            holder[key] = copy.deepcopy(draw(st.sampled_from(HOSTILE_VALUES)))
    return doc


@st.composite
def _hostile_csv(draw) -> bytes:
    """The CSV seed with one to three cells (or header names) replaced by hostile text, quoted where needed."""
    rows = list(csv.reader(io.StringIO(SEEDS["saved_csv"].decode())))
    for _ in range(draw(st.integers(1, 3))):
        row = draw(st.integers(0, len(rows) - 1))
        column = draw(st.integers(0, len(rows[row]) - 1))
        rows[row][column] = draw(st.sampled_from(_HOSTILE_CELLS) | st.text(max_size=6))
    if draw(st.booleans()):  # a row too short or too long
        row = draw(st.integers(1, len(rows) - 1))
        rows[row] = rows[row][:-1] if draw(st.booleans()) else rows[row] + ["0"]
    out = io.StringIO()
    csv.writer(out, lineterminator=draw(st.sampled_from(["\n", "\r\n"]))).writerows(rows)
    return out.getvalue().encode("utf-8", "surrogatepass")


_MANGLING = "0123456789_ZNESIJTXLDpvicfRPKOFAMUBClDdtsrlE"  # the characters the grammar turns on


@st.composite
def mangled_names(draw) -> str:
    """A C++ name as a tile ELF holds one (:data:`~tests.synth.seeds.CXX_NAMES`) or a demangling bomb of 2 to 24
    levels, maybe with one to three of its characters replaced, inserted or deleted, or a piece of another name
    spliced in (issue #33 item 11)."""
    names = [*CXX_NAMES, demangling_bomb(draw(st.integers(2, 24)), "f")]
    name = draw(st.sampled_from(names))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(name)))
        kind = draw(st.sampled_from(["replace", "insert", "delete", "splice"]))
        if kind == "splice":
            other = draw(st.sampled_from(names))
            start = draw(st.integers(0, len(other)))
            name = name[:at] + other[start:start + draw(st.integers(1, 40))] + name[at:]
        elif kind == "delete":
            name = name[:at] + name[at + 1:]
        else:
            name = name[:at] + draw(st.sampled_from(_MANGLING)) + name[at + (kind == "replace"):]
    return name


def check_mangled(name: str) -> None:
    """The bound holds: a name the demangler is asked for prints no more than :func:`demangle.longest` says (and
    at most the C++ names kept are kept); any other is kept mangled unasked."""
    text, why = demangle._demangled(name)
    if text is not None:
        assert len(text) <= min(demangle.longest(name), demangle.SHOWN_CHARS), name
    elif why is not None and why.startswith("its C++ name is "):
        length = int(why.split()[4].replace(",", ""))
        assert demangle.SHOWN_CHARS < length <= demangle.longest(name) <= demangle.WORK_CHARS, name


def hostile_input(name: str) -> st.SearchStrategy[bytes]:
    """Inputs of shape ``name``: a hostile shape of :data:`HOSTILE_SUFFIXES`, else :func:`mutated` seeds."""
    if name == "saved_json_hostile":
        return hostile_tree().map(lambda doc: json.dumps(doc).encode())
    if name == "saved_csv_hostile":
        return _hostile_csv()
    if name == LOG_VARIANTS:
        return log_variants()
    if name == LOG_RANKS:
        return many_ranks()
    if name == CXX_ARCHIVE:
        return st.lists(mangled_names(), min_size=1, max_size=4).map(lambda names: cxx_archive([names, names[::-1]]))
    return mutated(name)


def write_case(directory: str, name: str, data: bytes) -> str:
    """``data`` written as ``directory/case<suffix>`` (the suffix of seed ``name``)."""
    path = os.path.join(directory, "case" + (SUFFIXES.get(name) or HOSTILE_SUFFIXES[name]))
    with open(path, "wb") as f:
        f.write(data)
    return path


__all__ = ["CXX_ARCHIVE", "FIELDS", "FORMATS", "FUZZ_FORMATS", "HIDDEN", "HOSTILE_SUFFIXES", "LOG_RANKS",
           "LOG_VARIANTS", "SEEDS", "check_mangled", "check_outputs", "check_reading", "gfm_cells", "hostile_input",
           "hostile_tree", "log_variants", "mangled_names", "many_ranks", "mutated", "poprun_ranks", "saved_documents",
           "write_case"]
