"""The page's shell: a name from a file reaches the page as text, its bidirectional and other controls escaped as
the text shows them, so a right-to-left override cannot reorder the figures after it (issue 33 item 8)."""
from __future__ import annotations

import re

from memreport.analysis import summarize
from memreport.readers import read_path
from memreport.render.page import render_report_page
from memreport.render.page.document import text
from tests.synth import hostile
from tests.synth import profile as synth_profile
from tests.synth.page import data_block

HIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def test_html_text_shows_controls_escaped_but_line_ends():
    assert text("a\u202e<b>&\n\u2066c\x1b") == "a\\u202e&lt;b&gt;&amp;\n\\u2066c\\x1b"


def test_no_name_reaches_the_page_with_its_controls(tmp_path):
    """The members in the tiles table, the categories in the data the script shows: each escaped, and the page
    holds no control character anywhere but its line ends."""
    (tmp_path / "t.a").write_bytes(hostile.archive(hostile.TERMINAL))
    (tmp_path / "p.json").write_bytes(synth_profile.encode_json(hostile.profile(hostile.TERMINAL)))
    summaries = [summarize(r, top=6) for path in ("t.a", "p.json") for r in read_path(str(tmp_path / path))]
    page = render_report_page(summaries)
    assert not HIDDEN.search(page)
    assert "<td>a\\u202egpj.elf</td>" in page and "<td>c1\\x9b31m.elf</td>" in page
    data = data_block(page)
    assert [c["name"] for c in data["sections"][1]["tiles"]["breakdown"]] == [
        "t\\x1b]52;c;cm0gLXJmIH4=\\x07.elf", "\\x1b[2J\\x1b[Hx.elf", "a\\u202egpj.elf", "c1\\x9b31m.elf",
        "ok\\rEVIL.elf", "\\u2066iso\\u2069\\u200f.elf"]
    assert data["sections"][0]["tiles"]["names"][3] == "a\\u202egpj.elf"
