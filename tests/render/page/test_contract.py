"""The data contract between Python and the page's script, held on the Python side: every sample's page keeps it,
and a departure is named (the script's side: tests/render/page/js/data.test.mjs)."""
from __future__ import annotations

import os

import pytest

import memreport
from memreport.analysis import summarize
from memreport.render import render
from memreport.render.page import contract
from memreport.render.page.document import document
from memreport.render.page.report import render_report_page
from tests.synth.page import data_block, every_key_report

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "sample_reports")
REPORTS = ["mk2_1472_tiles.a", "mk2_1472_tiles_pr.a", "mk1_profile.json", "mk1_profile.cbor", "mk1_summary.txt",
           "trace_two_modules.rep", "tensor_map.json", "sweep.log", "run.log", "poprun_ranks.log"]
LOGS = ["compile_cold.log", "compile_warm.log", "compile_default.log", "compile_recompiling.log"]


def sample(name: str) -> str:
    return os.path.join(SAMPLES, name)


@pytest.mark.parametrize("name", REPORTS)
def test_every_sample_report_page_keeps_the_contract(name):
    data = data_block(render_report_page([summarize(r) for r in memreport.read_all(sample(name))]))
    assert contract.problems(data) == []
    assert data["kind"] == "report" and data["labels"] == dict(contract.LABELS)


def test_the_diff_and_compiles_pages_of_the_samples_keep_it():
    diff = data_block(render("diff", "html", memreport.diff(sample(REPORTS[0]), sample(REPORTS[1]))))
    assert contract.problems(diff) == [] and len(diff["sections"]) == 1
    for name in LOGS:
        data = data_block(render("compiles", "html", memreport.read_compiles(sample(name))))
        assert contract.problems(data) == [], name


def test_a_page_holding_every_key_keeps_it():
    data = data_block(render_report_page([summarize(every_key_report())]))
    tiles = data["sections"][0]["tiles"]
    assert contract.problems(data) == []
    assert all(tiles[k] is not None for k in ("including_gaps", "out_of_memory", "known", "names"))


def test_a_departure_is_named_by_its_path():
    data = data_block(render_report_page([summarize(every_key_report())]))
    section = data["sections"][0]
    del section["tiles_per_ipu"]
    section["extra"] = 1
    section["tiles"]["count"] = "8"
    section["histogram"][0]["out_of_memory"] = None  # nullable: fine
    section["drilled"]["6"]["symbols"][0]["bytes"] = 1.5
    section["tiles"]["known"]["type"] = "u64"
    assert contract.problems(data) == [
        "page.sections[0].extra: not declared",
        "page.sections[0].tiles_per_ipu: missing",
        "page.sections[0].drilled['6'].symbols[0].bytes: integer expected, not float",
        "page.sections[0].tiles.count: integer expected, not str",
        "page.sections[0].tiles.known.type: one of u8, u16, u32, i32, f64 expected, not 'u64'"]
    assert contract.problems({"kind": "graph"}) == ["kind: one of report, diff, compiles, trend expected, not 'graph'"]
    assert "page.sections[0].tile_ids: missing" in contract.problems({**data, "kind": "diff"})  # checked as a diff
    with pytest.raises(ValueError, match="the page's data departs from its contract: page.sections"):
        document("t", "", data)


def test_the_declaration_describes_every_key_with_its_meaning():
    declared = contract.declaration()
    assert sorted(declared["kinds"]) == ["compiles", "diff", "report", "trend"]

    def meanings(node: dict) -> list[str]:
        found = [node["meaning"]] if "meaning" in node else []
        for child in [*node.get("fields", {}).values(), *([node["of"]] if "of" in node else [])]:
            found += meanings(child)
        return found

    for kind in declared["kinds"].values():
        assert all(m.strip() for m in meanings(kind))
    report = declared["kinds"]["report"]["fields"]["sections"]["of"]["fields"]
    assert report["tiles"]["type"] == "or null"
    assert report["tiles"]["of"]["fields"]["excluding_gaps"]["fields"]["type"]["values"] == list(contract.PACKED_TYPES)
