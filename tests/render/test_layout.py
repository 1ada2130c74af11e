"""Text layout shared by the forms: a name as it may be shown, and prose fitted to a width with names in it."""
from __future__ import annotations

from memreport.render.layout import prose, visible
from tests.synth.hostile import CLEAR, OSC52


def test_control_characters_are_shown_as_their_escapes():
    assert visible(f"t{OSC52}.elf") == "t\\x1b]52;c;cm0gLXJmIH4=\\x07.elf"
    assert visible(f"{CLEAR}x") == "\\x1b[2J\\x1b[Hx"
    assert visible("ok\rEVIL\tTAB\nNL\x00\x7f") == "ok\\rEVIL\\tTAB\\nNL\\x00\\x7f"
    assert visible("c1\x9b31m\x85") == "c1\\x9b31m\\x85"  # C1: an 8-bit CSI, NEL


def test_bidirectional_controls_are_shown_as_their_escapes():
    overrides = "\u202a\u202b\u202c\u202d\u202e"
    isolates = "\u2066\u2067\u2068\u2069"
    assert visible(f"a{overrides}{isolates}\u200e\u200f\u061c\u2028\u2029b") == (
        "a\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c\\u2028\\u2029b")


def test_bytes_that_were_not_utf8_are_shown_as_the_bytes():
    assert visible("\udcff\udcfe.a") == "\\xff\\xfe.a"  # surrogateescape's stand-ins, as ls -b shows them
    assert visible("\ud800") == "\\ud800"


def test_everything_else_is_left_as_it_is():
    name = "conv2d_7/weights (.bss) é 中 \xa0 \\x1b |`*<>$@="
    assert visible(name) is name


def test_characters_kept_on_request():
    assert visible("a\x1b\nb\tc", keep="\n") == "a\\x1b\nb\\tc"


def test_prose_wraps_what_is_shown():
    """A name's escapes count in the width: ``\\r`` is two columns, so the name no longer fits after "member"."""
    assert prose("Note: ", "member okEVIL.elf skipped", 24) == ["Note: member okEVIL.elf", "      skipped"]
    assert prose("Note: ", "member ok\rEVIL.elf skipped", 24) == ["Note: member", "      ok\\rEVIL.elf",
                                                                  "      skipped"]
