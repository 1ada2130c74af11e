"""The PNG figure: built for every kind of source, legible from one tile to a pod; red only for OOM."""
from __future__ import annotations

import io
import os

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.image import imread

import memreport
from memreport import (
    Bin,
    Histogram,
    MemoryReport,
    PrintedSummary,
    SummaryReport,
    Target,
    TileBytes,
    TileDetail,
    TileReport,
)
from memreport.analysis import summarize
from memreport.errors import UnsupportedOperation
from memreport.render.picture import heatmap, plot
from tests import SAMPLES as _SAMPLES
from tests.synth.archive import ar_archive, tile_elf
from tests.synth.profile import build_profile, encode_json

SAMPLES = str(_SAMPLES)
LIMIT = 638_976
WIDTH, HEIGHT = int(plot.FIGSIZE[0] * plot.DPI), int(plot.FIGSIZE[1] * plot.DPI)


def pixels(png: bytes) -> np.ndarray:
    """RGB in 0..255, asserting the PNG has the figure's size."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = imread(io.BytesIO(png), format="png")
    assert image.shape[:2] == (HEIGHT, WIDTH)
    return (image[..., :3] * 255).round()


def oom_pixels(rgb: np.ndarray) -> int:
    """Pixels in the out-of-memory red (antialiased edges aside)."""
    red = np.array([int(plot.OOM_COLOUR[i:i + 2], 16) for i in (1, 3, 5)])
    return int(np.count_nonzero(np.abs(rgb - red).max(axis=2) <= 6))


def assert_drawn(rgb: np.ndarray) -> None:
    """Not blank: a good share of the picture is ink, in more than one colour."""
    ink = np.abs(rgb - 255).max(axis=2) > 30
    assert ink.mean() > 0.05
    assert len(np.unique(rgb.reshape(-1, 3)[ink.reshape(-1)], axis=0)) > 20


def draw(report: MemoryReport):
    """The figure and its pixels, drawn once (``render_png`` is ``figure`` then ``savefig``)."""
    fig = plot.figure(summarize(report))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=plot.DPI)
    return fig, pixels(buf.getvalue())


def texts(fig) -> str:
    """Every string drawn on the figure (titles, labels, annotations, tick labels)."""
    found = [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
    return "\n".join(found)


def synthetic(n: int, arch: str = "ipu2", over: dict[int, int] | None = None, seed: int = 5) -> MemoryReport:
    values = np.random.default_rng(seed).integers(150_000, 450_000, n, dtype=np.int64)
    for tile, size in (over or {}).items():
        values[tile] = size
    return TileReport(source=f"synthetic_{n}.a", format="archive", target=Target.for_arch(arch, n),
                        excluding_gaps=values)


def partial_report(detailed: bool = True) -> MemoryReport:
    bins = tuple(Bin(lo, lo + 8, c) for lo, c in zip(range(600, 680, 8), [5, 900, 1500, 400, 80, 15, 40, 0, 1, 3]))
    details = (TileDetail(17, 700_000, 690_000), TileDetail(4, 660_000, 640_123), TileDetail(9, 630_000, 620_000))
    return SummaryReport(
        source="summary.txt", format="poplar-text", target=Target(2944, num_ipus=2, tiles_per_ipu=1472,
                                                                  bytes_per_tile=LIMIT),
        detailed_tiles=details if detailed else (),
        printed=PrintedSummary(histogram=Histogram(8, bins), max_including_gaps=TileBytes(17, 700_000),
                               max_excluding_gaps=TileBytes(17, 690_000), tiles_out_of_memory=4))


def test_archive_png_shows_its_out_of_memory_tiles(tmp_path):
    sizes = [200_000 + 3_000 * i for i in range(96)]
    sizes[7], sizes[50] = LIMIT + 50_000, LIMIT + 4_096
    members = [(f"tile_{i}.elf", tile_elf(i, 1024, 256, size - 1280)) for i, size in enumerate(sizes)]
    path = tmp_path / "build.a"
    path.write_bytes(ar_archive(members))
    report = memreport.read(path)
    fig, rgb = draw(report)
    assert_drawn(rgb)
    assert oom_pixels(rgb) > 50
    words = texts(fig)
    assert "2 tiles out of memory" in words and "ipu2" in words and "96 tiles" in words
    assert "tile 7" in words and "tile 50" in words  # the top five are labelled
    assert "limit\n624.0 KiB" in words


def test_no_red_without_out_of_memory_tiles():
    report = memreport.read(os.path.join(SAMPLES, "mk1_profile.json"))
    assert report.tiles_out_of_memory == 0
    rgb = pixels(plot.render_png(summarize(report)))  # the public entry point, once
    assert_drawn(rgb)
    assert oom_pixels(rgb) == 0


def test_profile_png_draws_including_gaps_and_overflowed_tiles(tmp_path):
    excluding = np.full(1216, 100_000, dtype=np.int64)
    excluding[[3, 600]] = [270_000, 300_000]  # over ipu1's 262,144 B
    path = tmp_path / "graph.json"
    path.write_bytes(encode_json(build_profile(excluding, including_gaps=excluding + 20_000)))
    report = memreport.read(path)
    assert report.tiles_out_of_memory == 2
    fig, rgb = draw(report)
    assert "including gaps" in texts(fig)
    assert_drawn(rgb)
    assert oom_pixels(rgb) > 20


def test_text_report_draws_what_it_printed_and_says_it_is_partial():
    reports = memreport.read_all(os.path.join(SAMPLES, "trace_two_modules.rep"))
    step = next(r for r in reports if r.module == "cluster_training_step.17")
    fig, rgb = draw(step)
    words = texts(fig)
    assert "Partial per-tile view" in words
    assert "By Tile histogram (as printed)" in words
    assert "tile 5" in words and "tile 902" in words  # the detailed tiles, as bars
    assert_drawn(rgb)
    assert oom_pixels(rgb) > 50  # tiles 5 and 902 are out of memory


def test_text_report_without_detailed_tiles():
    report = memreport.read(os.path.join(SAMPLES, "mk1_summary.txt"))
    fig, rgb = draw(report)
    assert len(fig.axes) == 2  # the printed histogram and what was printed, no empty panel
    assert "Detailed tiles: 0 of 1,216" in texts(fig)
    assert oom_pixels(rgb) == 0


def test_rows_a_pasted_histogram_left_out_are_shaded_not_drawn_empty():
    report = SummaryReport(source="logging.rst", format="poplar-text", target=Target(0), printed=PrintedSummary(
        histogram=Histogram(8, (Bin(0, 8, 20), Bin(8, 16, 1192), Bin(504, 512, 1)), elided_before=(2,))))
    fig, rgb = draw(report)
    words = texts(fig)
    assert "rows the source left out" in words and "tiles unknown" in words
    assert "Histogram:  1,213 tiles in 3 bins of 8 KiB (rows left out)" in words
    ax = next(a for a in fig.axes if a.get_title(loc="left").startswith("By Tile"))
    assert [(round(p.get_x()), round(p.get_x() + p.get_width())) for p in ax.patches if p.get_width() > 100] == \
        [(16, 504)]
    assert oom_pixels(rgb) == 0


def test_out_of_memory_messages_alone():
    from memreport.model import OutOfMemoryMessage
    report = SummaryReport(source="run.log", format="oom-messages", target=Target(0, bytes_per_tile=LIMIT),
                           oom_messages=(OutOfMemoryMessage("tile-memory", 4, "...", 3, 700_000, LIMIT),))
    fig, _ = draw(report)
    words = texts(fig)
    assert "this log holds no memory summary, only out-of-memory messages" in words
    assert "Out-of-memory messages: 1 (tiles 3)" in words and "at least 1 tile out of memory" in words


def test_partial_report_built_by_hand():
    for detailed in (True, False):
        _, rgb = draw(partial_report(detailed))
        assert_drawn(rgb)
        assert oom_pixels(rgb) > 0  # the bins past the limit, and tile 17's bar


def test_one_tile():
    report = TileReport(source="tile.elf", format="elf", target=Target.for_arch("ipu2", 1),
                          excluding_gaps=np.array([412_345]))
    fig, rgb = draw(report)
    words = texts(fig)
    assert "1 IPU × 1 tiles" not in words and "1 tile" in words
    assert "Top 1 tile" in words  # a table instead of a one-cell heat map
    assert_drawn(rgb)
    assert oom_pixels(rgb) == 0


def test_one_mk2_ipu_from_the_sample_archive():
    report = memreport.read(os.path.join(SAMPLES, "mk2_1472_tiles.a"))
    fig, rgb = draw(report)
    words = texts(fig)
    assert "The IPU: 46 tiles per row, tile 0 top left" in words
    for tile in (17, 731, 1402):
        assert f"tile {tile}" in words
    assert_drawn(rgb)
    assert oom_pixels(rgb) > 50


def test_pod_scale_stays_legible_and_fast():
    n = 94_208
    report = synthetic(n, over={40_000: LIMIT + 1, 90_001: LIMIT + 100_000})
    fig, rgb = draw(report)
    words = texts(fig)
    assert "64 IPUs × 1,472 tiles" in words
    assert "One row per IPU (cell = max of 4 tiles)" in words
    assert "min–max of each run of 46 tiles" in words
    top = fig.axes[0]
    assert sum(len(line.get_xdata()) for line in top.get_lines()) < 3 * plot.MAX_POINTS + 200
    assert_drawn(rgb)
    assert oom_pixels(rgb) > 20


def test_ipu_boundaries_past_a_pod1024_are_labels_only():
    """Issue 33 item 15: a report declaring one tile per IPU drew a boundary line per IPU (376,832 took 17 s and
    120 MB), closer than a pixel: past plot.IPU_LINES IPUs none is drawn, the IPUs' labels still are."""
    from matplotlib.collections import LineCollection

    from tests.builds import one_tile_per_ipu

    def boundaries(fig) -> int:
        return sum(len(c.get_segments()) for c in fig.axes[0].collections if isinstance(c, LineCollection))

    many, few = (plot.figure(summarize(one_tile_per_ipu(np.arange(n) % 500 + 100)))
                 for n in (plot.IPU_LINES + 1, plot.IPU_LINES))
    assert (boundaries(many), boundaries(few)) == (0, plot.IPU_LINES - 1)
    assert "IPU 0\nIPU 65\nIPU 130" in texts(many)  # every 65th of 1,025 IPUs named


def test_unknown_bytes_per_tile_and_arch():
    values = np.arange(3000, dtype=np.int64) * 100
    report = TileReport(source="x.a", format="archive", target=Target(3000), excluding_gaps=values)
    words = texts(plot.figure(summarize(report)))
    assert "bytes per tile unknown" in words and "out-of-memory tiles unknown" in words
    assert "limit" not in words


def test_far_off_limit_is_noted_not_drawn():
    report = synthetic(1472, seed=1)
    low = TileReport(source="low.a", format="archive", target=report.target,
                       excluding_gaps=report.excluding_gaps // 10)
    words = texts(plot.figure(summarize(low)))
    assert "limit 624.0 KiB ↑" in words and "limit 624.0 KiB →" in words


def test_tensor_map_has_no_picture():
    report = memreport.read(os.path.join(SAMPLES, "tensor_map.json"))
    with pytest.raises(UnsupportedOperation, match="elements, not bytes"):
        plot.figure(summarize(report))


def test_figures_stay_out_of_pyplot():
    import matplotlib.pyplot as plt
    before = plt.get_fignums()
    fig = memreport.read(os.path.join(SAMPLES, "mk1_profile.json")).plot()
    assert plt.get_fignums() == before
    assert type(fig.canvas).__name__ == "FigureCanvasAgg"


def test_png_outputs_one_file_per_report():
    from memreport.run import numbered_paths
    assert numbered_paths("m.png", 2, ".png") == ["m-1.png", "m-2.png"]
    assert numbered_paths("out/memory.png", 1, ".png") == ["out/memory.png"]
    assert numbered_paths("out/memory.png", 2, ".png") == ["out/memory-1.png", "out/memory-2.png"]
    assert numbered_paths("memory", 2, ".png") == ["memory-1.png", "memory-2.png"]
    # One report or several, a path without an extension gets one (it was "noext" alone, "noext-1.png" for two).
    assert numbered_paths("noext", 1, ".png") == ["noext.png"]
    assert numbered_paths("out.d/noext", 1, ".png") == ["out.d/noext.png"]
    assert numbered_paths("-", 1, ".png") == ["-"]                # stdout
    assert numbered_paths(os.devnull, 1, ".png") == [os.devnull]  # a device, not a file to name


# ---------------------------------------------------------------- heat map layout


@pytest.mark.parametrize("tiles,shape", [(1472, (32, 46)), (1216, (32, 38)), (64, (7, 10)),
                                         (100, (8, 13)), (512, (32, 16)), (94_208, (251, 376))])
def test_grid_shape(tiles, shape):
    rows, cols = heatmap.grid_shape(tiles)
    assert (rows, cols) == shape and rows * cols >= tiles


def test_layout_one_ipu_puts_tile_ids_in_rows():
    report = synthetic(1472, over={47: LIMIT + 1})
    lay = heatmap.layout(summarize(report))
    assert lay.kib.shape == (32, 46)
    assert lay.kib[0, 5] == report.excluding_gaps[5] / 1024
    assert lay.kib[1, 1] == report.excluding_gaps[47] / 1024
    assert lay.over[1, 1] and lay.over.sum() == 1


def test_layout_four_ipus_is_a_labelled_mosaic():
    report = synthetic(4 * 1472, over={2 * 1472: LIMIT + 1})
    lay = heatmap.layout(summarize(report))
    band, gap = heatmap.ROW_GAP, heatmap.GAP
    assert lay.kib.shape == (2 * (32 + band), 2 * 46 + gap)
    assert [text for _, _, text in lay.block_labels] == ["IPU 0", "IPU 1", "IPU 2", "IPU 3"]
    assert lay.over[32 + 2 * band, 0]  # IPU 2's tile 0: second row of IPUs, first column
    assert np.isnan(lay.kib[:band]).all()  # the label band holds no tile


def test_layout_pod_pools_without_losing_hot_or_overflowing_tiles():
    n = 94_208
    report = synthetic(n, over={1472 * 10 + 1001: LIMIT + 5})
    lay = heatmap.layout(summarize(report))
    assert lay.kib.shape == (64, 368)
    assert lay.over.sum() == 1 and lay.over[10, 1001 // 4]
    assert lay.kib[10, 1001 // 4] == (LIMIT + 5) / 1024
    assert np.isclose(lay.kib.max(), report.excluding_gaps.max() / 1024)


def test_buckets_are_min_max_envelopes():
    values = np.array([5, 1, 9, 2, 8, 3, 7], dtype=float)
    centres, low, high = plot._buckets(values, 3)
    assert low.tolist() == [1, 2, 7] and high.tolist() == [9, 8, 7]
    assert centres.tolist() == [1, 4, 7]


def test_crowded_top_tiles_share_one_label():
    values = np.arange(2000, dtype=np.int64) * 300  # the top five are tiles 1995-1999
    report = TileReport(source="ramp.a", format="archive", target=Target.for_arch("ipu2", 2000),
                          excluding_gaps=values)
    words = texts(plot.figure(summarize(report)))
    assert "tiles 1995, 1996, 1997, 1998, 1999" in words
    assert "IPU 1" in words  # the partly filled second IPU is labelled too


def test_no_tiles():
    report = TileReport(source="empty.a", format="archive", target=Target(0),
                          excluding_gaps=np.zeros(0, dtype=np.int64))
    fig, _ = draw(report)
    assert "This report holds no tiles" in texts(fig)


# ---------------------------------------------------------------- histogram colours: red iff a bin holds an OOM tile

def colour_pixels(rgb: np.ndarray, colour: str, fig=None, ax=None) -> int:
    """Pixels of ``colour`` (a #rrggbb), within ``ax``'s area when given."""
    if ax is not None:
        box = ax.get_window_extent(fig.canvas.get_renderer())
        rgb = rgb[HEIGHT - int(box.y1):HEIGHT - int(box.y0), int(box.x0):int(box.x1)]
    target = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    return int(np.count_nonzero(np.abs(rgb - target).max(axis=2) <= 6))


def histogram_axes(fig):
    return next(a for a in fig.axes if a.get_title(loc="left").startswith("By Tile histogram"))


def test_a_tile_exactly_at_the_limit_is_not_red():
    values = np.random.default_rng(1).integers(400_000, 600_000, 96)
    values[10] = LIMIT  # full, not out of memory: its bin starts at the limit
    report = TileReport("full.a", "archive", Target.for_arch("ipu2", 96), excluding_gaps=values)
    assert report.tiles_out_of_memory == 0
    _, rgb = draw(report)
    assert oom_pixels(rgb) == 0


def test_a_bin_straddling_the_limit_is_red_when_it_holds_an_out_of_memory_tile():
    values = np.random.default_rng(1).integers(400_000, 600_000, 96)
    values[20] = LIMIT + 100  # in the 620 - 625 KiB bin of 5 KiB bins, which starts below the limit
    report = TileReport("over.a", "archive", Target.for_arch("ipu2", 96), excluding_gaps=values)
    fig = report.plot(bin_kib=5)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=plot.DPI)
    rgb = pixels(buf.getvalue())
    ax = histogram_axes(fig)
    assert "5 KiB bins" in ax.get_xlabel()
    assert colour_pixels(rgb, plot.OOM_COLOUR, fig, ax) > 20
    assert "out of memory" in texts(fig)  # the legend says what red means


def test_a_printed_bin_across_the_limit_is_hatched_not_red():
    bins = (Bin(600, 608, 900), Bin(608, 616, 500), Bin(616, 624, 60), Bin(624, 632, 12))
    report = SummaryReport(
        source="summary.txt", format="poplar-text", target=Target(1472, None, 1, 1472, 640_000),
        printed=PrintedSummary(histogram=Histogram(8, bins), max_excluding_gaps=TileBytes(17, 645_000)))
    fig, rgb = draw(report)
    ax = histogram_axes(fig)
    # 624 - 632 KiB may hold tiles on both sides of 640,000 B: tile 17 (the maximum) is over, so it holds one.
    assert colour_pixels(rgb, plot.OOM_COLOUR, fig, ax) > 0
    unsure = SummaryReport(
        source="summary.txt", format="poplar-text", target=Target(1472, None, 1, 1472, 640_000),
        printed=PrintedSummary(histogram=Histogram(8, bins)))
    fig, rgb = draw(unsure)
    ax = histogram_axes(fig)
    assert colour_pixels(rgb, plot.OOM_COLOUR, fig, ax) == 0  # nothing is known to be out of memory
    assert colour_pixels(rgb, plot.MAYBE_COLOUR, fig, ax) > 0
    assert "may hold out-of-memory tiles" in texts(fig)


def test_a_partial_report_that_is_not_a_summary_is_not_described_as_one():
    values = np.full(1472, 1000, dtype=np.int64)
    values[3] = 0
    skipped = TileReport("skip.a", "archive", Target(1472, None, 1, 1472, LIMIT), values,
                         skipped=(memreport.SkippedMember(3, "tile_3.elf", "not an ELF file"),))
    words = texts(plot.figure(summarize(skipped)))
    assert "1 damaged member(s) skipped" in words
    assert "text summary" not in words and "printed a histogram" not in words


# ---------------------------------------------------------------- legal but extreme values (issue #16)

def test_tiles_far_past_the_limit_put_no_label_thousands_of_axes_away():
    """100 MB tiles (a 188-byte ELF with a large .bss) crashed matplotlib: FT_Render_Glyph raster overflow,
    the histogram's limit label placed at 624 KiB on an axis around 97,656 KiB."""
    for n, size in ((1, 100_000_000), (3, 100_000_000), (1, 2 ** 60)):  # 2**60 with ipu2 raised TypeError
        report = TileReport(source="big.elf", format="elf", target=Target.for_arch("ipu2", n),
                            excluding_gaps=np.full(n, size, dtype=np.int64))
        fig, rgb = draw(report)
        assert_drawn(rgb)
        assert "← limit 624.0 KiB" in texts(fig)
        for text in list(fig.texts) + [t for ax in fig.axes for t in ax.texts]:  # every note lies on the figure
            box = text.get_window_extent()
            assert box.x0 > -WIDTH and box.x1 < 2 * WIDTH and box.y0 > -HEIGHT and box.y1 < 2 * HEIGHT, text


def test_the_heat_map_is_sized_by_the_tiles_a_file_holds():
    """A 473-byte profile declaring 10**9 tiles per IPU took 10 GB and 27 s (or "array is too big")."""
    values = np.arange(100, 100 + 640, 10, dtype=np.int64)
    report = TileReport(source="p.json", format="json-profile",
                        target=Target(64, num_ipus=1, tiles_per_ipu=10 ** 9), excluding_gaps=values)
    lay = heatmap.layout(summarize(report))
    assert lay.kib.size < 200  # 64 tiles in rows of 10, not a grid of 10**9
    assert np.nansum(lay.kib) * 1024 == values.sum()
    _, rgb = draw(report)
    assert_drawn(rgb)
    half = TileReport(source="p.json", format="json-profile",  # half an IPU: drawn in its IPU's grid
                      target=Target(736, num_ipus=1, tiles_per_ipu=1472), excluding_gaps=np.full(736, 5000))
    assert heatmap.layout(summarize(half)).kib.shape == (32, 46)


def test_a_name_of_60000_characters_is_drawn_shortened(tmp_path):
    """A saved report's source (or a member, a category) is the input's: a 60,000-character title took 20 s of
    FreeType (found by the fuzz run). Every line of text drawn is at most 160 characters, both ends kept."""
    from memreport.render.picture.figure import MAX_TEXT_LINE
    path = tmp_path / "p.json"
    path.write_bytes(encode_json(build_profile([1200, 3400, 650000, 9000], tiles_per_ipu=2)))
    report = memreport.read(path)
    long = "build/" + "js" * 30_000 + "/end.a"
    fig = plot.figure(summarize(report.evolve(source=long)))
    png = fig.to_png()
    assert png.startswith(b"\x89PNG")
    lines = [line for t in fig.findobj(matplotlib.text.Text) for line in t.get_text().split("\n")]
    assert max(len(line) for line in lines) <= MAX_TEXT_LINE
    assert any(line.startswith("build/jsjs") and line.endswith("js/end.a") for line in lines)  # the title


def test_a_long_title_is_shortened_in_the_middle_keeping_the_end():
    from memreport.render.picture.labels import middle_shortened
    label = ("/home/someone/projects/very/long/directory/structure/for/builds/2026-11-23/run_0042/"
             "tensorflow_reports/trace_two_modules.rep (module cluster_training_step.17)")
    short = middle_shortened(label, 90)
    assert short == "/home/someone/…/tensorflow_reports/trace_two_modules.rep (module cluster_training_step.17)"
    assert len(short) == 90
    assert middle_shortened("short.a", 90) == "short.a"


def test_detailed_tiles_legend_has_red_only_for_out_of_memory_and_the_printed_count_is_shown():
    from memreport.analysis import summarize
    from memreport.model import PrintedSummary, StatedTarget, SummaryReport, Target, TileDetail
    from memreport.render.picture import plot
    report = SummaryReport(source="s.txt", format="poplar-text", target=Target(4, None, 1, 4, 500_000),
                           stated=StatedTarget(4, bytes_per_tile=600_000),
                           printed=PrintedSummary(tiles_out_of_memory=0),
                           detailed_tiles=(TileDetail(1, None, 400_000), TileDetail(2, None, 550_000)))
    fig = plot.figure(summarize(report))
    ax = next(a for a in fig.axes if a.get_title(loc="left").startswith("Detailed tiles"))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["excluding gaps", "excluding gaps, out of memory"]
    text = "\n".join(t.get_text() for a in fig.axes for t in a.texts)
    assert "Out of memory (printed): 0 tiles" in text
    assert "Out of memory (recounted for 500,000 B per tile): " in text


def test_a_small_report_has_whole_tile_counts_on_its_histogram(tmp_path):
    from pathlib import Path

    import memreport
    from memreport.analysis import summarize
    from memreport.render.picture import plot
    from tests.builds import OLD, write_build
    write_build(Path(tmp_path / "small.a"), OLD)  # 8 tiles
    fig = plot.figure(summarize(memreport.read(tmp_path / "small.a")))
    ax = next(a for a in fig.axes if a.get_title(loc="left") == "By Tile histogram")
    ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_out_of_memory_bins_carry_a_note_with_the_count(tmp_path):
    from pathlib import Path

    import memreport
    from memreport.analysis import summarize
    from memreport.render.picture import plot
    from tests.builds import OLD, write_build
    write_build(Path(tmp_path / "small.a"), OLD)  # 8 tiles, 2 out of memory
    fig = plot.figure(summarize(memreport.read(tmp_path / "small.a")))
    ax = next(a for a in fig.axes if a.get_title(loc="left") == "By Tile histogram")
    assert [t.get_text() for t in ax.texts if "out of memory" in t.get_text()] == ["2 tiles out of memory"]


@pytest.mark.parametrize("under", [0, 2_000, 6_000, 12_000])
def test_a_top_tile_label_never_sits_on_the_limit_line(tmp_path, under):
    """A tile a few KiB under the limit had its label drawn across the dashed limit line (issue #14 item 11):
    the label goes above the line. Checked on the drawn boxes, for tiles 0 to 12,000 B under the limit."""
    limit = 262_144
    bytes_ = np.full(4000, 150_000)
    bytes_[1000], bytes_[3000] = limit - under, 300_000
    path = tmp_path / "p.json"
    path.write_bytes(encode_json(build_profile(bytes_, tiles_per_ipu=4000)))
    fig = plot.figure(summarize(memreport.read(path)))
    fig.canvas.draw()
    ax = fig.axes[0]
    line_y = ax.transData.transform((0, limit / 1024))[1]
    labels = [t for t in ax.texts if t.get_text().startswith("tile")]
    assert {t.get_text() for t in labels} >= {"tile 1000", "tile 3000"}
    renderer = fig.canvas.get_renderer()
    for text in labels:
        box = matplotlib.text.Text.get_window_extent(text, renderer)  # the words, not the leader to the tile
        assert not box.y0 - 1 <= line_y <= box.y1 + 1, (text.get_text(), box, line_y)


def test_a_skipped_tile_is_marked_where_it_would_be_drawn():
    """A damaged member's tile was drawn at 0 like an empty tile (issue #14 item 14): it gets a grey x at 0 and a
    legend entry, on the bars of a small report and on the line of a large one."""
    for n in (8, 1472):
        values = np.full(n, 100_000, dtype=np.int64)
        values[3] = 0
        report = TileReport("skip.a", "archive", Target(n, None, 1, n, LIMIT), values,
                            skipped=(memreport.SkippedMember(3, "tile_3.elf", "not an ELF file"),))
        fig = plot.figure(summarize(report))
        ax = fig.axes[0]
        marks = [c for c in ax.collections if c.get_label() == "1 tile skipped: bytes unknown"]
        assert len(marks) == 1 and marks[0].get_offsets().tolist() == [[3.0, 0.0]]
        assert "1 tile skipped: bytes unknown" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_a_shared_label_names_which_tiles_are_out_of_memory():
    """"tiles 1292, 1408" over an out-of-memory spike implied both were over (issue #14 item 11)."""
    limit = 262_144
    bytes_ = np.full(4000, 150_000)
    bytes_[1292], bytes_[1300], bytes_[3000] = limit + 5_000, 200_000, 210_000
    report = TileReport("crowd.a", "archive", Target(4000, None, 1, 4000, limit), bytes_)
    fig = plot.figure(summarize(report))
    labels = {t.get_text() for t in fig.axes[0].texts if t.get_text().startswith("tile")}
    assert "tiles 1292, 1300; OOM: 1292" in labels
    both = bytes_.copy()
    both[1300] = limit + 1
    labels = {t.get_text() for t in plot.figure(summarize(report.evolve(excluding_gaps=both))).axes[0].texts}
    assert "tiles 1292, 1300" in labels  # all of the group over: the red dots say so


def test_a_shared_label_marks_only_the_tiles_out_of_memory_even_the_last():
    """With only tile 5 out of memory the label read "tiles 0, 1, 2, 3, 5 (OOM)": all five, by the look of it
    (issue #26 item 14)."""
    limit = 262_144
    bytes_ = np.full(64, 1_000)
    bytes_[[0, 1, 2, 3]] = 200_000
    bytes_[5] = limit + 1
    report = TileReport("five.a", "archive", Target(64, None, 1, 64, limit), bytes_)
    labels = [t.get_text() for t in plot.figure(summarize(report)).axes[0].texts if t.get_text().startswith("tile")]
    assert labels == ["tiles 0, 1, 2, 3, 5; OOM: 5"]
    assert plot.crowd_label([7]) == "tile 7"
    assert plot.crowd_label([0, 5], [0, 5]) == "tiles 0, 5"
    assert plot.crowd_label([0, 5], []) == "tiles 0, 5"


def test_threads_drawing_at_once_leave_the_collector_as_they_found_it(monkeypatch):
    """Thread B checked the collector while thread A had paused it, A resumed it, then B paused it again for
    good (issue #26 item 13). B is held, right after its check, until A has finished or half a second passed."""
    import gc
    import threading
    a_inside, b_checked, a_done = threading.Event(), threading.Event(), threading.Event()
    real = gc.isenabled

    def isenabled():
        state = real()
        if threading.current_thread().name == "B":
            b_checked.set()
            a_done.wait(0.5)  # the old code let A resume the collector here; now A waits for B's pause to end
        return state

    def a():
        with plot.without_cyclic_gc():
            a_inside.set()
            b_checked.wait(0.5)  # the old code: B checks now; the new one: B never needs to
        a_done.set()

    def b():
        a_inside.wait(5)
        with plot.without_cyclic_gc():
            pass

    gc.enable()
    monkeypatch.setattr(gc, "isenabled", isenabled)
    threads = [threading.Thread(target=a, name="A"), threading.Thread(target=b, name="B")]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert real()
    finally:
        gc.enable()
    gc.disable()
    try:  # a collector paused by the caller stays paused
        with plot.without_cyclic_gc():
            assert not real()
        assert not real()
    finally:
        gc.enable()


# ---------------------------------------------------------------- cheap to draw, same picture (issue #15 --png)

def test_log_count_axis_is_labelled_in_plain_text_not_mathtext():
    """matplotlib's 10ⁿ labels are mathtext, whose parser took a tenth of a second to build: 1, 10, 100, 1k."""
    assert [plot.short_count(v) for v in (0.7, 1, 10, 100, 1_000, 2_500, 10_000, 100_000, 1e6)] == \
        ["0.7", "1", "10", "100", "1k", "2.5k", "10k", "100k", "1M"]
    report = memreport.read(os.path.join(SAMPLES, "mk2_1472_tiles.a"))
    fig, _ = draw(report)
    ax = histogram_axes(fig)
    assert ax.get_yscale() == "log"
    low, high = ax.get_ylim()
    labels = [t.get_text() for t, v in zip(ax.get_yticklabels(), ax.get_yticks()) if low <= v <= high]
    assert labels == ["1", "10", "100"]
    assert "$" not in texts(fig)


def test_log_axis_minor_ticks_are_one_line_where_matplotlib_puts_them():
    report = memreport.read(os.path.join(SAMPLES, "mk2_1472_tiles.a"))
    fig, _ = draw(report)
    ax = histogram_axes(fig)
    low, high = ax.get_ylim()
    expected = [m * 10.0 ** k for k in range(-1, 4) for m in range(2, 10) if low <= m * 10.0 ** k <= high]
    marks = [line for line in ax.get_lines() if line.get_marker() == matplotlib.lines.TICKLEFT]
    assert len(marks) == 1 and np.allclose(marks[0].get_ydata(), expected)
    assert len(ax.yaxis.get_minorticklocs()) == 0  # no tick objects besides


def test_histogram_bars_are_one_collection_of_every_bin():
    report = memreport.read(os.path.join(SAMPLES, "mk2_1472_tiles.a"))
    summary = summarize(report)
    fig = plot.figure(summary)
    ax = histogram_axes(fig)
    bars, = [c for c in ax.collections if isinstance(c, matplotlib.collections.PolyCollection)]
    tops = [(p.vertices[:, 0].min(), p.vertices[:, 1].max()) for p in bars.get_paths()]
    assert tops == [(float(b.low_kib), float(b.count)) for b in summary.histogram.bins]
    reds = [tuple(c) for c in bars.get_facecolors()].count(matplotlib.colors.to_rgba(plot.OOM_COLOUR))
    assert reds == sum(1 for h, b in zip(summary.oom_bins, summary.histogram.bins) if h)
    assert not ax.patches  # no rectangle per bin


@pytest.mark.parametrize("tiles", [4 * 1472, 94_208])
def test_the_per_tile_title_clears_the_ipu_numbers_over_the_panel(tiles):
    """The title is placed, not searched for: checked on the drawn boxes, from 4 IPUs to a pod."""
    fig = plot.figure(summarize(synthetic(tiles)))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    numbers = [t.get_window_extent(renderer) for t in ax.texts if t.get_text().startswith("IPU ")]
    assert len(numbers) == min(tiles // 1472, 16)
    top = ax.get_window_extent(renderer).y1
    title = ax._left_title.get_window_extent(renderer)
    assert all(top < box.y0 and box.y1 < title.y0 for box in numbers)
    assert title.y0 - max(box.y1 for box in numbers) < 10  # close above them, as matplotlib placed it


def test_drawing_pauses_the_cyclic_collector_and_resumes_it_as_it_was():
    import gc
    report = memreport.read(os.path.join(SAMPLES, "mk1_profile.json"))
    seen = []
    real = plot._figure
    plot._figure = lambda *args: seen.append(gc.isenabled()) or real(*args)
    try:
        assert gc.isenabled()
        plot.render_png(summarize(report))
        assert gc.isenabled() and seen == [False]
        gc.disable()
        plot.render_png(summarize(report))
        assert not gc.isenabled() and seen == [False, False]  # left off, as it was
    finally:
        gc.enable()
        plot._figure = real


@pytest.mark.parametrize("source", [r"build$\frac{$.a", "cost$x^2$.a", "$$", r"a\$b$c$.a"])
def test_names_with_dollars_are_drawn_as_written_never_as_math(source):
    """Two ``$`` in a name start matplotlib's mathtext: a file named ``build$\\frac{$.a`` made --png raise
    ValueError (reported as a memreport bug), ``cost$x^2$.a`` drew a superscript. Every text is plain."""
    from dataclasses import replace
    for report in (replace(synthetic(1472), source=source), replace(partial_report(), source=source)):
        summary = summarize(report)
        fig = plot.figure(summary)
        assert all(not t.get_parse_math() for t in fig.findobj(matplotlib.text.Text))
        assert source in texts(fig)
        assert_drawn(pixels(plot.render_png(summary)))


def window_box(fig, artist):
    """An artist's box on the drawn figure, in pixels."""
    fig.canvas.draw()
    return artist.get_window_extent(fig.canvas.get_renderer())


def test_the_detailed_tiles_legend_is_above_the_bars_not_on_them():
    """Issue 24: inside the axes, the legend covered the including-gaps bar of a lone "Tile #" block."""
    report = SummaryReport(source="tile0.txt", format="poplar-text", target=Target(0),
                           detailed_tiles=(TileDetail(0, 1_234, 1_000),))
    fig = plot.figure(summarize(report))
    ax = next(a for a in fig.axes if a.get_title(loc="left").startswith("Detailed tiles"))
    legend, axes_box = window_box(fig, ax.get_legend()), window_box(fig, ax)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["including gaps", "excluding gaps"]
    assert legend.y0 >= axes_box.y1 - 1  # in the title's row, above every bar
    assert legend.x1 <= axes_box.x1 + 1


def test_a_bar_figure_just_under_the_limit_goes_above_the_limit_line():
    """Issue 24: the limit line ran through "585.9 KiB" (the second module of the sample .rep)."""
    reports = memreport.read_all(os.path.join(SAMPLES, "trace_two_modules.rep"))
    step = next(r for r in reports if r.module == "cluster_training_step.17")
    fig = plot.figure(summarize(step))
    ax = next(a for a in fig.axes if a.get_title(loc="left").startswith("Detailed tiles"))
    fig.canvas.draw()
    line_y = ax.transData.transform((0, step.target.bytes_per_tile / 1024))[1]
    figures = {t.get_text(): t for t in ax.texts if t.get_text().endswith(" KiB") and "limit" not in t.get_text()}
    assert sorted(figures) == ["542.5 KiB", "566.9 KiB", "585.9 KiB", "644.5 KiB", "683.6 KiB"]
    for text in figures.values():
        box = window_box(fig, text)
        assert not box.y0 - 1 <= line_y <= box.y1 + 1, (text.get_text(), box, line_y)
    assert window_box(fig, figures["585.9 KiB"]).y0 > line_y  # above the line, over its own bar
    assert window_box(fig, figures["542.5 KiB"]).y1 < line_y  # far enough under it: on its bar


def test_the_label_of_tile_0_stays_clear_of_the_y_axis():
    """Issue 24: "tile 0" of the Mk1 profile sat on the y axis, beside its tick labels."""
    fig = plot.figure(summarize(memreport.read(os.path.join(SAMPLES, "mk1_profile.json"))))
    ax = fig.axes[0]
    label = next(t for t in ax.texts if t.get_text() == "tile 0")
    assert window_box(fig, label).x0 >= window_box(fig, ax).x0 + 3  # EDGE_GAP points inside, less its padding
    assert [t.get_text() for t in ax.texts if t.get_text().startswith("tile")] == \
        ["tile 0", "tile 248", "tile 372", "tile 867", "tile 1114"]


def test_messages_alone_draw_the_tiles_they_name_with_the_bytes_they_state():
    """Issue 24: a report of messages only drew an almost empty figure."""
    from memreport.model import OutOfMemoryMessage
    report = SummaryReport(source="run.log", format="oom-messages", target=Target(0, bytes_per_tile=LIMIT),
                           oom_messages=(OutOfMemoryMessage("tile-memory", 4, "...", 3, 700_000, LIMIT),
                                         OutOfMemoryMessage("tile-memory", 9, "...", 1402, 812_345, LIMIT),
                                         OutOfMemoryMessage("variables", 12, "Cannot fit all variable data")))
    fig, rgb = draw(report)
    ax = fig.axes[0]
    assert ax.get_title(loc="left") == "Tiles the out-of-memory messages name: bytes used, as each message states"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["tile 1402", "tile 3"]  # largest first
    assert [t.get_text() for t in ax.texts] == ["793.3 KiB", "683.6 KiB", "limit\n624.0 KiB"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["bytes used, past the capacity stated"]
    assert oom_pixels(rgb) > 5_000  # two red bars
    assert "messages name a few tiles, not every tile's" in texts(fig)


def test_messages_that_state_no_tile_are_listed():
    from memreport.model import OutOfMemoryMessage
    report = SummaryReport(source="run.log", format="oom-messages", target=Target(0, bytes_per_tile=LIMIT),
                           oom_messages=(OutOfMemoryMessage("variables", 12, "Cannot fit all variable data "),))
    fig, rgb = draw(report)
    assert fig.axes[0].get_title(loc="left") == \
        "Out-of-memory messages (no summary in this log; they state no tile's bytes)"
    assert ("line 12: one or more tiles cannot hold their variables (which ones, the message does not say)"
            in texts(fig))  # the text's words for it
    assert oom_pixels(rgb) == 0
