"""docs/ARCHITECTURE.md stays true: every file it names exists, and its examples run as they are (issue #29)."""
from __future__ import annotations

import re
import sys
import types

import numpy as np

from memreport.analysis import summarize_all
from memreport.readers import registry
from memreport.readers.registry import read_path
from memreport.render import _RENDERERS, render
from tests import ROOT

TEXT = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
# What the examples add: the files a new reader, form or command would be (named as new, not as existing).
NEW = ("tile_csv", "yaml", "NAME")


def _block(heading: str) -> str:
    section = TEXT.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_every_file_it_names_exists():
    named = set(re.findall(r"`((?:memreport|tests|scripts|docs|render|readers|analysis|model|cli)/[\w./*-]+)`",
                           TEXT))
    named |= {f"docs/{m}" for m in re.findall(r"\]\(([A-Z]+\.md)\)", TEXT)}
    prefixes = {"render/": "memreport/render/", "readers/": "memreport/readers/", "analysis/": "memreport/analysis/",
                "model/": "memreport/model/", "cli/": "memreport/cli/"}
    missing = []
    for name in sorted(named):
        if any(new in name for new in NEW):
            continue
        path = next((full + name[len(short):] for short, full in prefixes.items() if name.startswith(short)), name)
        if re.search(r"\.[a-z_]+$", path) and not re.search(r"\.(py|md|mjs|css|json|toml|cfg)$", path):
            path = path.rsplit(".", 1)[0] + ".py"  # a module's function: render/layout.fit_table
        if "*" in path:
            found = list(ROOT.glob(path))
        else:
            found = [p for p in (ROOT / path, ROOT / (path.rstrip("/"))) if p.exists()]
        if not found:
            missing.append(name)
    assert not missing, missing


def test_the_example_reader_reads_a_tile_csv(tmp_path):
    module = types.ModuleType("tile_csv_example")
    registry.readers()  # the built-in ones loaded first: they stay when the example leaves
    before = list(registry._READERS)
    try:
        exec(compile(_block("Add a reader"), "ARCHITECTURE.md", "exec"), module.__dict__)
        path = tmp_path / "sizes.csv"
        path.write_text("# poplar tile sizes\n0,100\n1,700000\n2,300\n")
        report, = read_path(path)
        assert report.format == "tile-csv" and report.excluding_gaps.tolist() == [100, 700_000, 300]
        bad = tmp_path / "bad.csv"
        bad.write_text("# poplar tile sizes\n0,100\nx,1\n")
        try:
            read_path(bad)
        except Exception as exc:  # noqa: BLE001 - the ReadError names the line
            assert "line 3" in str(exc) and "not 'tile,bytes' in order" in str(exc)
        else:
            raise AssertionError("a bad row was read")
    finally:
        registry._READERS[:] = before


def test_the_example_form_renders_every_report():
    module = types.ModuleType("yaml_form_example")
    sys.modules[module.__name__] = module
    before = dict(_RENDERERS)
    try:
        exec(compile(_block("Add an output form"), "ARCHITECTURE.md", "exec"), module.__dict__)
        from memreport.model import Target, TileReport
        report = TileReport("a.a", "archive", Target.for_arch("ipu2", 3), np.array([1, 700_000, 3]))
        assert render("report", "yaml", summarize_all([report])) == (
            "- source: 'a.a'\n  verdict: '1 of 3 tiles out of memory'\n  tiles_out_of_memory: '1'\n")
    finally:
        _RENDERERS.clear()
        _RENDERERS.update(before)
        del sys.modules[module.__name__]
