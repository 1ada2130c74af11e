"""The fixtures of the page script's node tests (``tests/render/page/js/``), made by the Python side itself.

- ``contract.json``: the data contract's declaration (``contract.declaration()``).
- ``packed.json``: arrays packed by ``document.pack``, each with the values it
  holds, for every packed type.
- ``pages.json``: the data block of a page of each kind, as the builders make
  it: a report whose data has every key (an 8-tile archive read with a skipped
  member, gaps, present flags, regions, member names, symbols, a fit plan and
  program steps), a text summary's (no tiles), the bundled archives' diff, a
  diff of two profiles with program steps (both liveness curves), the bundled
  compile logs, a trend of three bundled builds (one a log of out-of-memory
  messages alone: unknown values and a lower bound).

``tests/synth/test_page.py`` checks the committed files are what this module
makes now. Regenerate them with ``python -m tests.synth.page`` from the
repository's root.
"""
from __future__ import annotations

import base64
import gzip
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

import memreport
from memreport.analysis import summarize
from memreport.model import Column, ProgramLiveness, SkippedMember, Symbol, Target, TileReport, TileSymbols
from memreport.render import render
from memreport.render.page import contract
from memreport.render.page.document import DATA_ID, pack
from memreport.render.page.report import render_report_page

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "render" / "page" / "js" / "fixtures"

# Values of each packed type, with the edges of its range.
PACKED_VALUES: list[list[int]] = [
    [], [0, 1, 255, 7], [0, 256, 65_535, 300], [0, 65_536, 638_976, 2 ** 32 - 1],
    [-(2 ** 31), -1, 0, 2 ** 31 - 1], [-5, 2 ** 40, 2 ** 53, 123_456_789_012],
]


def unpacked(packed: dict[str, str]) -> np.ndarray:
    """The values of a packed array, as the page unpacks them: gzip, then byte j of every value stored together."""
    dtype = {"u8": "<u1", "u16": "<u2", "u32": "<u4", "i32": "<i4", "f64": "<f8"}[packed["type"]]
    raw = np.frombuffer(gzip.decompress(base64.b64decode(packed["data"])), dtype=np.uint8)
    return raw.reshape(np.dtype(dtype).itemsize, -1).T.copy().view(dtype).ravel()


def packed_cases() -> list[dict[str, Any]]:
    return [{"values": values, "packed": pack(np.array(values, dtype=np.int64))} for values in PACKED_VALUES]


def every_key_report() -> TileReport:
    """Eight tiles on two IPUs of 1,000 B: tile 6 over, tile 3 a skipped member, gaps, a section that some
    tiles lack, one not counted, two regions, member names, tile 6's symbols (its fit plan) and four program
    steps (a liveness curve)."""
    ex = np.array([100, 200, 300, 0, 500, 600, 1_200, 800], dtype=np.int64)
    return TileReport(
        "every_key.a", "archive", Target(8, "ipu2", 2, 4, 1_000), ex, including_gaps=ex + 64,
        breakdown={".text": Column(ex // 4), ".bss": Column(ex - ex // 4, np.array([1, 1, 1, 0, 1, 0, 1, 1], bool)),
                   ".symtab": Column(np.full(8, 24) * (ex > 0), counted=False)},
        breakdown_kind="section", regions={"non_interleaved": ex // 2, "interleaved": ex - ex // 2},
        tile_names=[f"tile_{i}.elf" for i in range(8)], skipped=(SkippedMember(3, "tile_3.elf", "truncated"),),
        symbols={6: TileSymbols(6, "tile_6.elf", {".bss": 900}, {".bss": 900},
                                (Symbol("weights", ".bss", 900), Symbol("bias", ".bss", 4)))},
        liveness_steps=(ProgramLiveness(400, "init"), ProgramLiveness(2_500, None, (ProgramLiveness(3_000, "fwd"),)),
                        ProgramLiveness(1_000, "bwd")))


def pod_report(tiles: int, columns: int = 6, seed: int = 5) -> TileReport:
    """A pod-scale report of Mk2 IPUs: per-tile bytes around half of tile memory, a few sections, 40 tiles over."""
    rng = np.random.default_rng(seed)
    values = rng.integers(150_000, 600_000, tiles)
    values[rng.integers(0, tiles, 40)] = 700_000
    parts = rng.dirichlet(np.ones(columns), tiles)
    cols = {f".section{i}": Column((values * parts[:, i]).astype(np.int64)) for i in range(columns)}
    cols[".section0"] = Column(values - sum(c.values for name, c in cols.items() if name != ".section0"))
    return TileReport("pod.a", "archive", Target(tiles, "ipu2", tiles // 1472, 1472, 638_976), values,
                      breakdown=cols, breakdown_kind="section")


def data_block(page: str) -> dict[str, Any]:
    start = page.index(f'id="{DATA_ID}">') + len(f'id="{DATA_ID}">')
    data: dict[str, Any] = json.loads(page[start:page.index("</script>", start)])
    return data


def pages() -> dict[str, Any]:
    """The data block of a page of each kind (the samples read by their paths from the repository's root)."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        samples = "sample_reports"
        summary = memreport.read(f"{samples}/mk1_summary.txt")
        diff = memreport.diff(f"{samples}/mk2_1472_tiles.a", f"{samples}/mk2_1472_tiles_pr.a", top=3)
        stepped = memreport.diff(f"{samples}/mk2_profile.json", f"{samples}/mk2_profile.json", top=1)
        compiles = memreport.read_compiles(f"{samples}/compile_cold.log", f"{samples}/compile_recompiling.log")
        # Three builds: the middle one a log of messages alone (no worst tile, at least 1 tile out of memory).
        trend = memreport.trend(f"{samples}/mk2_1472_tiles.a", f"{samples}/sweep.log",
                                f"{samples}/mk2_1472_tiles_pr.a", labels=["main", "sweep", "pr"])
        return {"report": data_block(render_report_page([summarize(every_key_report())])),
                "summary": data_block(render_report_page([summarize(summary)])),
                "diff": data_block(render("diff", "html", diff)),
                "diff_liveness": data_block(render("diff", "html", stepped)),
                "compiles": data_block(render("compiles", "html", compiles)),
                "trend": data_block(render("trend", "html", trend))}
    finally:
        os.chdir(cwd)


def fixtures() -> dict[str, Any]:
    """Each fixture file's name and content."""
    return {"contract.json": contract.declaration(), "packed.json": packed_cases(), "pages.json": pages()}


def write(directory: Path = FIXTURES) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, content in fixtures().items():
        (directory / name).write_text(json.dumps(content, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write()
