"""Below the tile in text and JSON: a tile's symbols, its liveness, a profile's categories; exact output."""
from __future__ import annotations

import json

import numpy as np

from memreport.analysis import summarize, summarize_all
from memreport.model import Column, Target, TileReport
from memreport.render import RenderOptions
from memreport.render.data.report import render_json
from memreport.render.text import drill
from memreport.render.text.report import render
from tests.synth.liveness import TREE, report
from tests.synth.symbols import codelet_expected


def archive() -> TileReport:
    return TileReport("a.a", "archive", Target.for_arch("ipu2", 2), np.array([10_532, 7]),
                      breakdown={".bss": Column(np.array([10_532, 7]))}, breakdown_kind="section",
                      tile_names=["tile_0.elf", "t1"], symbols={0: codelet_expected()})


def test_a_tiles_largest_symbols_and_what_they_leave():
    s = summarize(archive(), top=1)
    assert drill.symbols_lines(s.top[0], s.top[0].symbols, 3) == [
        "Symbols on tile 0 (tile_0.elf), largest 3 of 8 sized symbol(s):",
        "  Bytes   Share  Section  Symbol",
        "  6,000   57.0%  .bss     conv2d_7/weights",
        "  6,000   57.0%  .bss     conv2d_7/weights_alias",
        "  3,000   28.5%  .bss     relu_3/activations",
        "  +5 more sized symbol(s), 478 B (--symbols N to list more)",
        "  Unattributed (no sized symbol covers them): 1,058 B (.bss 1,000 B, .text 50 B,",
        "    .text.__runCodelet_popops__ScaledAddSupervisor___float_float_float_true_false 4 B,",
        "    .text.castFloatToGf8Supervisor 4 B)",
        "  No size in the symbol table: 2 symbol(s)",
        "    (__runCodelet_popfloat__experimental__CastFloatToGf8Supervisor,",
        "    __runCodelet_popops__ScaledAddSupervisor___float_float_float_true_false_START)",
        "  Note: 1 common symbol(s) are in no section yet (a relocatable object): not counted"]
    assert "Symbols on tile" not in render([s])  # by default only out-of-memory tiles' tables: tile 0 fits
    text = render([s], RenderOptions(symbols=10))
    assert "Symbols on tile 0 (tile_0.elf), 8 sized symbol(s):" in text  # ten asked for: all eight
    assert "  +" not in text.split("Symbols on tile 0")[1].split("Unattributed")[0]
    assert "largest 1 of 8" in render([s], RenderOptions(symbols=1))


def test_a_tile_asked_for_gets_its_own_table_and_symbols():
    s = summarize(archive(), top=1, tiles_asked=[1, 0])
    assert [t.tile for t in s.selected] == [1, 0]
    text = render([s])
    assert "Tiles asked for:\n" in text and text.count("Symbols on tile 0") == 1  # a top tile's symbols, once
    doc = json.loads(render_json([s]))["reports"][0]
    assert [t["tile"] for t in doc["selected_tiles"]] == [1, 0] and doc["selected_tiles"][0]["symbols"] is None
    symbols = doc["top_tiles"][0]["symbols"]
    assert {k: symbols[k] for k in ("member", "has_symbol_table", "attributed_bytes", "unattributed_bytes",
                                    "num_symbols", "symbol_bytes")} == {
        "member": "tile_0.elf", "has_symbol_table": True, "attributed_bytes": 9_474, "unattributed_bytes": 1_058,
        "num_symbols": 8, "symbol_bytes": 15_478}
    assert symbols["symbols"][6] == {"name": "_ZN6popops9BroadcastIfE7computeEv",
                                     "demangled": "popops::Broadcast<float>::compute()", "section": ".text",
                                     "size": 50, "address": 0x4C000 + 384 + 16, "kind": "function", "binding": "weak",
                                     "share": round(50 / 10_532, 6)}
    assert symbols["unsized"][0]["name"].startswith("__runCodelet_popfloat") and "share" not in symbols["unsized"][0]
    cut = json.loads(render_json([s], RenderOptions(symbols=2)))["reports"][0]["top_tiles"][0]["symbols"]
    assert len(cut["symbols"]) == 2 and cut["num_symbols"] == 8


def test_a_profiles_categories_and_liveness():
    s = summarize(report(TREE), top=2)
    assert drill.categories_lines(s) == [
        "Categories (all tiles, largest first):",
        "  variable    1,750 B   72.9%",
        "  vertexCode    650 B   27.1%",
        "",
        "Categories by IPU (largest first):",
        "  IPU 0: variable 800 B (61.5%), vertexCode 500 B (38.5%)",
        "  IPU 1: variable 950 B (86.4%), vertexCode 150 B (13.6%)"]
    assert drill.liveness_lines(s) == [
        "Liveness:",
        "  Always-live:       650 B   27.1%  code, vertex state, weights, optimiser state",
        "  Not-always-live: 1,750 B   72.9%  activations and temporaries; per tile: the most live at once",
        "                                    (maxBytesByTile)",
        "  Top 2 tiles: 2 mostly not-always-live",
        "  IPU 0: always-live 500 B (38%), not-always-live 800 B (62%): mostly not-always-live",
        "  IPU 1: always-live 150 B (14%), not-always-live 950 B (86%): mostly not-always-live",
        "  Program steps: 4; the most not-always-live bytes, 900 B, at step 0.0 (fwd)",
        # steps 0, 0.0, 0.1, 1: 650 B always live + 100, 900, 40, 900; the first of the two peaks is the peak
        "  Live per step (always-live + the step's not-always-live bytes), 4 steps:",
        "    ▁█▁█",
        "    ▁ 690 B to █ 1,550 B; peak 1,550 B at step 0.0 (fwd) of 4; a sum over 2 IPUs: no limit applies",
        "      to it (tiles overflow one by one)",
        "    variables live at the peak: not in this source (a graph profile's program steps name none;",
        "      libpva's notAlwaysLiveMemory.variables does)"]
    text = render([s])
    assert "            liveness: always-live 100 B (10%), not-always-live 900 B (90%): mostly not-always-live\n" \
        in text
    doc = json.loads(render_json(summarize_all([report(TREE)], top=2)))["reports"][0]
    assert doc["breakdown_totals"] == {"variable": 1750, "vertexCode": 650}
    assert doc["top_tiles"][0]["liveness"] == {"always_live": 100, "not_always_live": 900,
                                               "basis": "the most live at once (maxBytesByTile)",
                                               "always_live_share": 0.1, "pressure": "not-always-live"}
    assert doc["per_ipu"][1]["breakdown"] == {"variable": 950, "vertexCode": 150}
    assert doc["liveness"] == {"always_live": 650, "not_always_live": 1750,
                               "basis": "the most live at once (maxBytesByTile)", "always_live_share": 0.270833,
                               "pressure": "not-always-live", "top_tiles_pressure": {"not-always-live": 2},
                               "program_steps": 4, "peak_step": {"step": "0.0", "name": "fwd", "bytes": 900},
                               "peak_live_bytes": 1550, "curve": {
                                   "steps": 4, "always_live": 650,
                                   "peak": {"index": 1, "step": "0.0", "name": "fwd", "bytes": 1550,
                                            "not_always_live": 900, "share": None, "variables": None},
                                   "scope": "program", "limit": None, "num_ipus": 2,
                                   "description": "peak 1,550 B at step 0.0 (fwd) of 4; a sum over 2 IPUs: no limit "
                                                  "applies to it (tiles overflow one by one); variables live at the "
                                                  "peak: not in this source (a graph profile's program steps name "
                                                  "none; libpva's notAlwaysLiveMemory.variables does)"}}


def test_an_archive_shows_no_category_or_liveness_sections():
    s = summarize(archive(), top=1)
    assert drill.categories_lines(s) == [] and drill.liveness_lines(s) == []
    assert dict(s.breakdown_totals) == {".bss": 10_539}


def test_a_tiles_lowered_variables_with_what_removing_each_frees(tmp_path):
    from tests.synth.lowered import Var, encode, known_overlaps, lowered_doc
    variables, _ = known_overlaps()
    variables[1] = Var(0, "acts/\x1b[31mb", 0, 600, eq_class=2)  # a name with a terminal escape in it
    path = tmp_path / "vars.json"
    path.write_bytes(encode(lowered_doc(variables, 3)))
    import memreport
    s = summarize(memreport.read(path), top=1)
    assert drill.variables_lines(s.top[0], s.top[0].variables, 3) == [
        "Variables on tile 0, largest 3 of 4:",
        "  Bytes   Share  Category  Live    Interleaved  Frees  Variable",
        "  1,000   56.9%  variable  not     no             400  acts/a",
        "    600   34.2%  variable  not     no               0  acts/\\x1b[31mb",
        "    500   28.5%  variable  always  no             500  weights",
        "  +1 more variable(s), 256 B (--symbols N lists more)"]
