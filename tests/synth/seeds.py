"""One small valid input per format: the seeds the fuzz tests and ``scripts/fuzz.py`` mutate.

Small on purpose (a few hundred bytes to a few KiB) so that a mutation
lands on structure rather than on bulk data, and a reading takes
milliseconds. Every seed reads as a valid report; the tests check that.
"""
from __future__ import annotations

import json

import numpy as np

from memreport.model import KIB, Bin, Histogram, TileBytes

from . import hostile
from . import logs as synth_logs
from . import lowered as synth_lowered
from . import profile as synth_profile
from . import text as synth_text
from .archive import ar_archive, bss, cxx_archive, data, demangling_bomb, elf_file, note, text, tile_elf

#: name -> file suffix (the suffix only breaks ties between readers)
SUFFIXES = {
    "archive": ".a", "archive_bsd": ".a", "elf32": ".elf", "elf64_be": ".elf", "json_profile": ".json",
    "cbor_profile": ".cbor", "cbor_typed": ".cbor", "tensor_map": ".json", "text_summary": ".txt",
    "json_profile_bulk": ".json", "cbor_profile_bulk": ".cbor",
    "rep_trace": ".rep", "saved_json": ".json", "saved_csv": ".csv", "run_log": ".log", "archive_cxx": ".a",
    "lowered_vars": ".json",
    "archive_names": ".a", "json_profile_names": ".json", "run_log_names": ".log", "saved_csv_names": ".csv",
    "json_profile_ipus": ".json",
}
#: C++ names as tile ELFs hold them, and a small demangling bomb (12 levels: 47 KB of C++ name; issue #33 item 11)
CXX_NAMES = ("_ZN6popops9BroadcastIfE7computeEv", "_ZN6poplin12OuterProductIfE3bufE",
             "_ZNSt6vectorIiSaIiEE9push_backERKi", "_ZNSt5dequeIiSaIiEE16_M_push_back_auxIJiEEEvDpOT_",
             "_ZZ4mainE5count", "_ZN2ns1CIJifEEC2Ev",
             "_ZN4absl7debian316strings_internal7CompareILi84ELi84EEEiRKNS1_11BigUnsignedIXT_EEERKNS3_IXT0_EEE")


def _members() -> list[tuple[str, bytes]]:
    sizes = [(100, 24, 5000), (201, 0, 100), (33, 7, 0)]
    names = ["t0", "a_long_member_name_for_tile_1.elf", "t2"]
    return [(name, tile_elf(i, *size)) for i, (name, size) in enumerate(zip(names, sizes))]


def _profile() -> dict:
    excluding = [1200, 3400, 650_000, 800]
    doc = synth_profile.build_profile(excluding, bytes_per_tile=638_976)
    return synth_profile.wrap(doc)


def _bulk_profile() -> dict:
    """Enough tiles (300) that the readers' bulk decoders take the per-tile lists."""
    excluding = 20_000 + (np.arange(300) * 7919) % 600_000
    return synth_profile.build_profile(excluding, bytes_per_tile=638_976, num_ipus=2)


def _tensor_map() -> dict:
    return synth_profile.build_tensor_map({
        "cluster_1": [synth_profile.tensor_entry("weights", {0: 64, 2: 32}, shape=[96]),
                      synth_profile.tensor_entry("bias", [(1, 8)], shape=[8], element_type="half")],
    })


def summary_text(tiles: int = 8) -> str:
    excluding = np.array([3 * KIB + 97 * i for i in range(tiles)], dtype=np.int64)
    including = excluding + 512
    summary = synth_text.summary_from_tiles(
        excluding, including, num_ipus=2, tiles_per_ipu=tiles // 2, bytes_per_tile=624 * KIB,
        clock_hz=1.33e9, graph={"Number of vertices": 12, "Number of edges": 34}, detailed=2)
    return synth_text.summary_text(summary)


def _small_summary() -> str:
    """A summary with no detailed tiles (the .rep seed's second module)."""
    return synth_text.summary_text(synth_text.TextSummary(
        num_ipus=1, tiles_per_ipu=4, bytes_per_tile=256 * KIB, clock_hz=1.6e9, graph={"Number of vertices": 3},
        memory=synth_text.MemoryScope(including_gaps=20_000, regions={"non_interleaved": 9_000, "interleaved": 0,
                                                                      "overflowed": 0}),
        histogram=Histogram(1, (Bin(2, 3, 3), Bin(3, 4, 1))),
        max_including_gaps=TileBytes(1, 6_000), max_excluding_gaps=TileBytes(1, 3_100), tiles_out_of_memory=0))


def _saved(profile: dict) -> tuple[bytes, bytes]:
    """memreport's own JSON and CSV of a profile (with liveness and regions), as ``--format json|csv`` write them."""
    from memreport.analysis import summarize_all
    from memreport.readers import resolve
    from memreport.readers.documents.profile import read_tree
    from memreport.readers.registry import ReadOptions
    from memreport.render.data.csv import render_csv
    from memreport.render.data.report import render_json
    doc = synth_profile.build_profile([1200, 3400, 650_000, 800], bytes_per_tile=638_976, num_ipus=2,
                                      always_live=[200, 400, 600, 100], not_always_live_max=[1000, 3000, 649_400, 700])
    doc["memory"]["liveness"]["notAlwaysLive"]["byProgram"] = [{"bytes": 40, "children": [{"bytes": 90}]}]
    reports = [resolve(r, ReadOptions()) for r in read_tree(json.loads(synth_profile.encode_json(doc)), "p.json",
                                                           "json")]
    summaries = summarize_all(reports, top=2, tiles_asked=[3])
    return render_json(summaries).encode(), render_csv(summaries).encode()


def seeds() -> dict[str, bytes]:
    """Every seed, by name (see :data:`SUFFIXES` for their file suffixes)."""
    members = _members()
    profile = _profile()
    rep = synth_text.rep_trace([
        synth_text.compile_begin("2020-01-01 10:00:00 +0000", "init"),
        synth_text.compile_end("2020-01-01 10:00:01 +0000", "init", 1234, _small_summary()),
        synth_text.compile_end("2020-01-01 10:00:02 +0000", "main", 5678, summary_text()),
        synth_text.execute("2020-01-01 10:00:03 +0000", "main", "{}\n"),
    ])
    return {
        "archive": ar_archive(members, symbol_index=True),
        "archive_bsd": ar_archive(members, bsd=True, symbol_index=True),
        "elf32": tile_elf(0, 100, 20, 300),
        "elf64_be": elf_file([text(64), data(8), bss(4096), note(5)], elfclass=64, little=False),
        "json_profile": synth_profile.encode_json(profile),
        "cbor_profile": synth_profile.encode_cbor(profile),
        "cbor_typed": synth_profile.encode_cbor(profile, typed_arrays=True),
        "json_profile_bulk": synth_profile.encode_json(_bulk_profile()),
        "cbor_profile_bulk": synth_profile.encode_cbor(_bulk_profile()),
        "tensor_map": json.dumps(_tensor_map()).encode(),
        "text_summary": summary_text().encode(),
        "rep_trace": rep.encode(),
        **dict(zip(("saved_json", "saved_csv"), _saved(profile))),
        "run_log": _run_log().encode(),
        "archive_cxx": cxx_archive([[demangling_bomb(12, "f"), *CXX_NAMES[:3]], list(CXX_NAMES[3:])]),
        "lowered_vars": synth_lowered.encode(synth_lowered.known_overlaps()[1]),
        # names that mean something in the outputs (issue 33 items 8-10): members, categories, a log's exchanges
        # and paths, and memreport's CSV of them (its quotes read back)
        "archive_names": hostile.archive(),
        "json_profile_names": synth_profile.encode_json(synth_profile.wrap(hostile.profile())),
        "run_log_names": hostile.run_log().encode(),
        "saved_csv_names": _saved_names(),
        # a profile declaring one tile per IPU (issue 33 item 15: 376,832 IPUs), 12 of them
        "json_profile_ipus": synth_profile.encode_json(synth_profile.wrap(synth_profile.build_profile(
            1_000 * np.arange(1, 13), num_ipus=12, tiles_per_ipu=1, bytes_per_tile=8_000))),
    }


def _saved_names() -> bytes:
    """memreport's CSV of the hostile names' archive and profile (names after a quote where they start like a
    formula)."""
    from memreport.analysis import summarize_all
    from memreport.readers import resolve
    from memreport.readers.documents.profile import read_tree
    from memreport.readers.registry import ReadOptions
    from memreport.render.data.csv import render_csv
    profile = json.loads(synth_profile.encode_json(hostile.profile()))
    reports = [resolve(r, ReadOptions()) for r in read_tree(profile, "=p.json", "json")]
    return render_csv(summarize_all(reports)).encode()


def _run_log() -> str:
    """A poprun log: tagged lines, a logger line, an out-of-memory message, then a tagged summary."""
    message = synth_logs.tile_memory_message(1, 700_000, 624 * KIB)
    return ("10:10:50.154 1 POPRUN [D] Target options from environment: {}\n"
            + synth_logs.tagged(synth_logs.popart_error(message), 0, "stderr")
            + "Graph compilation: 100%|##########| 100/100 [00:04<00:00]"
            + synth_logs.tagged(summary_text(), 0) + "[1,0]<stdout>:[INFO] Epoch 1\n")
