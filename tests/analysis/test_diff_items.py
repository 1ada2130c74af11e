"""Below the tile: two builds that differ in known symbols, sections and categories, compared item by item."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from click.testing import CliRunner

import memreport
from memreport.analysis.diff import diff_reports, with_items
from memreport.analysis.diff_items import ItemChange, TileItems, tile_items
from memreport.cli import main
from memreport.model import Target, TileReport
from memreport.render import render
from tests.synth import profile as synth_profile
from tests.synth.archive import STB_LOCAL, STT_FUNC, STT_NOTYPE, Sym, ar_archive, bss, data, elf_file, section_symbols
from tests.synth.archive import text as text_section

# tile 1's variables in each build: weights shrink, activations grow, momentum goes, attention arrives.
OLD_VARS = {"weights": 4000, "activations": 3000, "momentum": 1000}
NEW_VARS = {"weights": 3000, "activations": 9000, "attention/scores": 2500}


def tile(variables: dict[str, int], code: int = 600, spare: int = 128) -> bytes:
    size = sum(variables.values()) + spare
    sections = [text_section(code), data(64), bss(size)]
    syms = section_symbols(sections, "t.S") + [
        Sym("__runCodelet_popops__Add___float", ".text", 0, code // 2, STT_FUNC),
        Sym("__runCodelet_popops__Add___float_START", ".text", 0, 0, STT_NOTYPE, STB_LOCAL),
    ]
    at = 0
    for name, n in variables.items():
        syms.append(Sym(name, ".bss", at, n))
        at += n
    return elf_file(sections, symbols=syms)


def write(path, tile1: bytes, code: int = 600) -> str:
    members = [("t0", tile({"a": 100}, code)), ("t1", tile1), ("t2", tile({"b": 50}))]
    path.write_bytes(ar_archive(members))
    return str(path)


@pytest.fixture
def builds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return (write(tmp_path / "old.a", tile(OLD_VARS)),
            write(tmp_path / "new.a", tile(NEW_VARS, code=640), code=640))


def test_symbols_sections_new_and_removed_by_largest_change(builds):
    d = memreport.diff(*builds)
    assert [(t.tile, t.delta) for t in d.below] == [(1, 6540), (0, 40)]
    assert d.below[0] == TileItems(1, 0, 8792, 15332, (
        ItemChange("section", ".bss", 8128, 14628),
        ItemChange("symbol", "activations", 3000, 9000, ".bss"),
        ItemChange("symbol", "attention/scores", None, 2500, ".bss"),
        ItemChange("symbol", "momentum", 1000, None, ".bss"),
        ItemChange("symbol", "weights", 4000, 3000, ".bss"),
        ItemChange("section", ".text", 600, 640),
        ItemChange("symbol", "__runCodelet_popops__Add___float", 300, 320, ".text"),
    ))
    assert [c.status for c in d.below[0].items] == ["grew", "grew", "new", "removed", "shrank", "grew", "grew"]
    assert d.below[1].items == (ItemChange("section", ".text", 600, 640),
                                ItemChange("symbol", "__runCodelet_popops__Add___float", 300, 320, ".text"))


def test_sorting_and_hiding_small_changes(builds):
    growth = memreport.diff(*builds, sort="growth", top=1).below[0].items
    assert [(c.name, c.delta) for c in growth] == [(".bss", 6500), ("activations", 6000), ("attention/scores", 2500),
                                                   (".text", 40), ("__runCodelet_popops__Add___float", 20),
                                                   ("momentum", -1000), ("weights", -1000)]
    new = memreport.diff(*builds, sort="new", top=1).below[0].items
    assert [(c.name, c.status) for c in new][:2] == [("attention/scores", "new"), ("momentum", "removed")]
    small = memreport.diff(*builds, min_change=1000)
    assert [c.tile for c in small.changes()] == [1] and small.num_unlisted == 1 and small.num_changed == 2
    assert [c.name for c in small.below[0].items] == [".bss", "activations", "attention/scores", "momentum", "weights"]
    assert small.below[0].hidden == 2
    with pytest.raises(ValueError, match="sort must be one of delta, growth, new"):
        memreport.diff(*builds, sort="size")


def test_categories_regions_and_liveness_of_two_profiles(tmp_path):
    def profile(path, variable, code, always):
        excluding = np.array(variable) + np.array(code)
        doc = synth_profile.build_profile(excluding, categories={"variable": {"nonInterleaved": variable},
                                                                 "vertexCode": {"interleaved": code}},
                                          bytes_per_tile=638_976, always_live=always,
                                          not_always_live_max=variable)
        path.write_bytes(synth_profile.encode_json(doc))
        return memreport.read(path)
    old = profile(tmp_path / "a.json", [100, 200], [50, 50], [50, 50])
    new = profile(tmp_path / "b.json", [100, 900], [50, 80], [50, 80])
    d = memreport.diff(old, new)
    assert d.below[0].items == (
        ItemChange("category", "variable", 200, 900), ItemChange("region", "non_interleaved", 200, 900),
        ItemChange("liveness", "not-always-live (max)", 200, 900), ItemChange("category", "vertexCode", 50, 80),
        ItemChange("region", "interleaved", 50, 80), ItemChange("liveness", "always-live", 50, 80))
    assert d.below[0].notes == ()


def test_what_cannot_be_compared_is_said(builds, tmp_path):
    old = memreport.read(builds[0])
    new = memreport.read(builds[1])
    assert tile_items(old, new, 1, 8792, 15332).items == (ItemChange("section", ".bss", 8128, 14628),
                                                          ItemChange("section", ".text", 600, 640))  # no symbols read
    from memreport.readers.elf.symbols import with_symbols
    one_sided = tile_items(with_symbols(old, [1]), new, 1, 8792, 15332)
    assert one_sided.notes == (f"symbols not compared: NEW ({builds[1]}) holds no symbol table for tile 1 (a saved "
                               "report keeps the symbols of the tiles it detailed: export with --tile to keep more)",)
    profile = TileReport("p.json", "json-profile", Target(num_tiles=3), np.array([10, 20, 30]),
                         regions={"overflowed": np.zeros(3, dtype=np.int64)}, breakdown_kind="category")
    mixed = tile_items(old, profile, 1, 8792, 20)
    assert mixed.items == () and mixed.notes == ("section items (OLD) and category items (NEW) are not compared",)


def test_a_saved_baseline_is_compared_below_the_tile_too(builds, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["export", builds[0], "-o", "baseline.json", "--tile", "1"]).exit_code == 0
    result = runner.invoke(main, ["diff", "baseline.json", builds[1], "--top", "1"])
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(
        "Below the tile (largest change first):\n"
        "  Tile 1 (IPU 0): 8,792 B -> 15,332 B, +6,540 B\n"
        "    section  .bss                                      8,128 B -> 14,628 B  +6,500 B\n"
        "    symbol   activations (.bss)                        3,000 B ->  9,000 B  +6,000 B\n"
        "    symbol   attention/scores (.bss)                         - ->  2,500 B  +2,500 B  new\n"
        "    symbol   momentum (.bss)                           1,000 B ->        -  -1,000 B  removed\n"
        "    symbol   weights (.bss)                            4,000 B ->  3,000 B  -1,000 B\n"
        "    section  .text                                       600 B ->    640 B     +40 B\n"
        "    symbol   __runCodelet_popops__Add___float (.text)    300 B ->    320 B     +20 B\n\n"
        "Verdict: No tile newly out of memory; 2 tiles changed (2 grew, 0 shrank)\n")


def test_json_and_csv_carry_the_items(builds):
    runner = CliRunner()
    doc = json.loads(runner.invoke(main, ["diff", *builds, "--format", "json", "--min-change", "1000",
                                          "--sort", "growth"]).stdout)
    assert (doc["min_change"], doc["unlisted_tiles"], doc["sort"]) == (1000, 1, "growth")
    assert [t["tile"] for t in doc["tiles"]] == [1]
    (detail,) = doc["tile_details"]
    assert {k: detail[k] for k in ("tile", "ipu", "old", "new", "delta", "hidden_items", "notes")} == {
        "tile": 1, "ipu": 0, "old": 8792, "new": 15332, "delta": 6540, "hidden_items": 2, "notes": []}
    assert detail["items"][2] == {"kind": "symbol", "name": "attention/scores", "section": ".bss", "old": None,
                                  "new": 2500, "delta": 2500, "change": "new"}
    rows = list(csv.reader(io.StringIO(runner.invoke(main, ["diff", *builds, "--format", "csv", "--top", "1"]).stdout)))
    assert rows[:3] == [["tile", "ipu", "old", "new", "delta", "kind", "item", "section", "change"],
                        ["1", "0", "8792", "15332", "6540", "tile", "", "", ""],
                        ["0", "0", "892", "932", "40", "tile", "", "", ""]]
    assert rows[5] == ["1", "0", "", "2500", "2500", "symbol", "attention/scores", ".bss", "new"]
    assert rows[6] == ["1", "0", "1000", "", "-1000", "symbol", "momentum", ".bss", "removed"]
    assert len(rows) == 3 + 7


def test_with_items_on_a_diff_made_by_hand():
    a = TileReport("a.elf", "elf", Target(1), excluding_gaps=np.array([10]))
    b = TileReport("b.elf", "elf", Target(1), excluding_gaps=np.array([12]))
    d = with_items(diff_reports(a, b), a, b, 5)
    assert d.below == (TileItems(0, None, 10, 12, ()),)
    assert "Below the tile" not in render("diff", "text", d)  # nothing inside the tile to show


def test_two_text_summaries_compare_the_tiles_both_detailed():
    from memreport.model import SummaryReport, TileDetail
    target = Target(num_tiles=8, tiles_per_ipu=4, num_ipus=2, bytes_per_tile=1000)

    def summary(tiles):
        return SummaryReport("s.txt", "poplar-text", target, detailed_tiles=tuple(tiles))
    old = summary([TileDetail(2, 900, 800, {"float": 500, "half": 300}, {"non_interleaved": 800}),
                   TileDetail(5, 100, 90, {"float": 90}, {"non_interleaved": 90})])
    new = summary([TileDetail(2, 990, 900, {"float": 500, "int": 400}, {"non_interleaved": 900})])
    d = with_items(diff_reports(old, new), old, new, 5)
    assert [c.tile for c in d.changes()] == [2]
    assert d.below == (TileItems(2, 0, 800, 900, (
        ItemChange("data type", "int", None, 400), ItemChange("data type", "half", 300, None),
        ItemChange("region", "non_interleaved", 800, 900))),)
