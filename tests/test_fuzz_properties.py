"""Property: a mutated input of any format is read as valid reports or refused with a ReadError, never more.

Mutations (tests/fuzzing.py) are byte flips, truncations, insertions,
deletions, splices of another seed, and extreme values written into the
fields readers parse. Archives are also read with ``skip_bad_members``, and
the fast paths (the bulk archive scan, the bulk JSON/CBOR and tensor-map
decoders) are checked against the reference readers. What reads then goes
through every renderer, the gates, a diff with itself and the writing of
every output; a few also through the picture. ``scripts/fuzz.py`` runs the
same property for longer.
"""
from __future__ import annotations

import tempfile
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memreport.errors import ReadError
from memreport.readers import read_path
from tests.fuzzing import (
    CXX_ARCHIVE,
    FORMATS,
    SEEDS,
    check_mangled,
    check_reading,
    hostile_input,
    log_variants,
    mangled_names,
    many_ranks,
    mutated,
    poprun_ranks,
    program_logs,
    write_case,
)

EXAMPLES = 150
PICTURES = 24  # inputs drawn as a PNG too, over all formats (a few tenths of a second each)


@pytest.mark.parametrize("name", FORMATS)
def test_every_seed_reads(tmp_path, name):
    path = write_case(str(tmp_path), name, SEEDS[name])
    assert check_reading(path) == "ok"
    assert read_path(path)[0].num_tiles > 0


@pytest.mark.parametrize("name", FORMATS)
def test_mutations_read_or_raise_read_error(name):
    with tempfile.TemporaryDirectory(prefix="memreport-fuzz-") as directory:
        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(mutated(name))
        def reading_holds(data: bytes) -> None:
            path = write_case(directory, name, data)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # odd but readable inputs warn: not the property's concern
                check_reading(path)
                if name.startswith("archive"):
                    check_reading(path, skip_bad_members=True)

        reading_holds()


def test_mutations_draw_or_refuse_a_picture():
    with tempfile.TemporaryDirectory(prefix="memreport-fuzz-") as directory:
        @settings(max_examples=PICTURES, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(st.sampled_from(FORMATS).flatmap(lambda name: st.tuples(st.just(name), mutated(name))))
        def pictures_hold(case: tuple[str, bytes]) -> None:
            name, data = case
            path = write_case(directory, name, data)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check_reading(path, png=True)

        pictures_hold()


def _logs_read_or_raise_read_error(logs, examples: int, name: str = "run_log") -> None:
    with tempfile.TemporaryDirectory(prefix="memreport-fuzz-") as directory:
        @settings(max_examples=examples, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(logs)
        def reading_holds(data: bytes) -> None:
            path = write_case(directory, name, data)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check_reading(path)

        reading_holds()


def test_logs_with_nuls_byte_order_marks_and_compression_read_or_raise_read_error():
    """Issue #23, issue #26 items 11, 12: the run log with holes, mid-file BOMs, compressed, cut."""
    _logs_read_or_raise_read_error(log_variants(), EXAMPLES // 2)


def test_mangled_names_never_print_more_than_their_bound():
    """Issue #33 item 11: C++ names and demangling bombs, mutated: the demangler is asked only for names whose C++
    name the walk bounds below 64 KiB, and never prints more than that bound."""
    @settings(max_examples=EXAMPLES * 2, deadline=None, database=None)
    @given(mangled_names())
    def bound_holds(name: str) -> None:
        check_mangled(name)

    bound_holds()


def test_archives_of_mangled_names_read_with_their_symbols_or_raise_read_error():
    """The same names as the symbols of an archive's tiles: read, symbols demangled as the command reads them."""
    _logs_read_or_raise_read_error(hostile_input(CXX_ARCHIVE), EXAMPLES // 3, CXX_ARCHIVE)


def test_logs_of_many_ranks_read_or_raise_read_error():
    """Issue #26 item 5: many poprun ranks' summaries, one after another or interleaved, one maybe mutated."""
    _logs_read_or_raise_read_error(many_ranks(), EXAMPLES // 10)


def test_logs_of_programs_read_or_raise_read_error():
    """Issues #30, #33: PopTorch's programs (bars, doubled errors), ranks failing at once, traceback lines."""
    _logs_read_or_raise_read_error(program_logs(), EXAMPLES // 5)


def test_both_commands_see_the_same_programs_in_any_log_of_programs():
    """Issue #30: for any log of programs, `memreport compiles` lists as many compilations as `memreport LOG`
    counts programs, and the same ones failed, the same way, pointing at the same reports."""
    from memreport.readers.text.compile_log import read_compile_log

    with tempfile.TemporaryDirectory(prefix="memreport-fuzz-") as directory:
        @settings(max_examples=EXAMPLES // 5, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(program_logs())
        def same(data: bytes) -> None:
            path = write_case(directory, "run_log", data)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    record = read_path(path)[0].position.programs
                except ReadError:
                    return
                try:
                    compilations = read_compile_log(path)[1]
                except ReadError:
                    compilations = []
            if record is None or record.unit != "compilation":
                assert not compilations
                return
            assert record.count == len(compilations)
            assert [(f.index, f.outcome, f.report) for f in record.failed] == [
                (k, c.result, c.report) for k, c in enumerate(compilations, 1) if c.failed]

        same()


def test_many_ranks_give_one_report_per_rank_in_each_layout(tmp_path):
    """The shape is what it says: each rank's summary read, whether the ranks print one after another, in turn
    or in an uneven mix (where rank 0's ends last), and named by the rank's tag."""
    seed = SEEDS["text_summary"]
    lines = seed.count(b"\n") + 1
    uneven = [0] * 5 + [1] * lines + [2] * lines + [0] * (lines - 5)
    for order in (None, [r for _ in range(lines) for r in range(3)], uneven):
        path = write_case(str(tmp_path), "run_log", poprun_ranks([seed] * 3, order))
        reports = read_path(path)
        assert sorted((r.position.run.process, r.num_tiles) for r in reports) == [("1,0", 8), ("1,1", 8), ("1,2", 8)]


def test_many_ranks_read_the_same_with_the_tag_index_as_line_by_line():
    """Issue #26 item 5: the tag index (.demux) gives each rank's reader what reading every line gives: the same
    reports, or the same error, for any layout of the ranks' lines (one maybe mutated)."""
    from memreport.readers.text.poplar_text import scan

    def outcome(path: str) -> object:
        try:
            return [(r.position, r.target, r.printed, r.notes) for r in read_path(path)]
        except ReadError as exc:
            return str(exc)

    with tempfile.TemporaryDirectory(prefix="memreport-fuzz-") as directory:
        @settings(max_examples=EXAMPLES // 10, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(many_ranks())
        def same(data: bytes) -> None:
            path = write_case(directory, "run_log", data)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                indexed = outcome(path)
                with pytest.MonkeyPatch.context() as patch:
                    patch.setattr(scan, "TagIndex", lambda log: None)
                    assert outcome(path) == indexed

        same()


def test_a_log_with_a_utf16_part_appended_reads_as_the_same_log_in_utf8():
    """Issue #26: the run log, its lines from any one on appended as UTF-16 (with the BOM): the same reports, at
    the same lines."""
    seed = SEEDS["run_log"]
    starts = [0] + [k + 1 for k, byte in enumerate(seed) if byte == 10][:-1]
    with tempfile.TemporaryDirectory(prefix="memreport-fuzz-") as directory:
        def seen(data: bytes) -> list:
            return [(r.position, r.target, r.printed) for r in read_path(write_case(directory, "run_log", data))]
        want = seen(seed)

        @settings(max_examples=EXAMPLES // 10, deadline=None, database=None)
        @given(st.sampled_from(starts[1:]), st.sampled_from(["utf-16-le", "utf-16-be"]))
        def same(at: int, codec: str) -> None:
            assert seen(seed[:at] + "\ufeff".encode(codec) + seed[at:].decode().encode(codec)) == want

        same()
