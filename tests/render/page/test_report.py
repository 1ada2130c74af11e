"""The report page's data (issue 33 item 15): past the IPUs listed one by one, the heat map draws every tile in one
grid rather than a grid per IPU (376,832 IPUs of one tile made a canvas of 253 MB and as many labels), and says so;
the top tiles' largest items wrap as prose in their card."""
from __future__ import annotations

import re

import numpy as np

from memreport.analysis import summarize
from memreport.render.page.report import render_report_page, section_data
from tests.builds import one_tile_per_ipu
from tests.synth.page import data_block, every_key_report


def test_more_ipus_than_are_listed_are_drawn_in_one_grid():
    summary = summarize(one_tile_per_ipu(np.arange(5_000) % 500))
    data, notes = section_data(summary, "r0")
    assert (data["tiles_per_ipu"], data["heat_tiles_per_ipu"]) == (1, None)  # the chart still marks each IPU
    assert notes == ["the heat map draws every tile in one grid: 5,000 IPUs are more than it draws a grid each "
                     "(4,096)"]
    page = render_report_page([summary])  # the data keeps the contract; the note is the page's
    assert data_block(page)["sections"][0]["heat_tiles_per_ipu"] is None
    assert "<li>the heat map draws every tile in one grid: 5,000 IPUs" in page


def test_a_grid_per_ipu_otherwise():
    data, notes = section_data(summarize(every_key_report()), "r0")
    assert (data["tiles_per_ipu"], data["heat_tiles_per_ipu"], notes) == (4, 4, [])


def test_the_top_tiles_largest_items_wrap_as_prose():
    page = render_report_page([summarize(every_key_report())])
    table = page[page.index("<table class=tiles>"):]
    table = table[:table.index("</table>")]
    heads = re.findall(r"<th(?: class=\w+)?>([^<]*)</th>", table)
    assert heads[-1].startswith("Largest ")
    row = re.search(r"<tbody><tr[^>]*>(.*?)</tr>", table).group(1)
    cells = re.findall(r"<td( class=\w+)?>", row)
    assert len(cells) == len(heads) and cells[-1] == " class=text"  # wraps in its card, where the others keep a line
    assert " class=text" not in cells[:-1]
