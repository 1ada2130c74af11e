"""Names that reach memreport's outputs and mean something there (issue 33 items 8, 9, 10), and inputs holding them.

An archive from a CI artifact or a colleague names its members, a profile
its categories, a tensor map its tensors, a log its modules and exchanges:
each such name is shown in the text (a terminal acts on its escape
sequences), the Markdown (GitHub reads its pipes, tags, mentions and math)
and the CSV (a spreadsheet runs a cell that starts like a formula). Each
writer here makes a small valid input of one format whose names are these.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import profile as synth_profile
from .archive import ar_archive, tile_elf

OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"  # sets the terminal's clipboard to "rm -rf ~"
CLEAR = "\x1b[2J\x1b[H"                # clears the screen, the cursor home
#: what a terminal acts on: escape sequences, a carriage return, an 8-bit CSI, bidirectional controls
TERMINAL = (f"t{OSC52}.elf", f"{CLEAR}x.elf", "ok\rEVIL.elf", "a\u202egpj.elf", "\u2066iso\u2069\u200f.elf",
            "c1\x9b31m.elf")
#: what GitHub's Markdown reads: a pipe (a new cell, even in a code span), tags, emphasis, a mention, math
MARKDOWN = ("a|b.elf", "<img src=x>", "*bold*_", "<details>", "@octocat", "$x^2$", "`tick|pipe`")
#: what a spreadsheet runs (OWASP's CSV injection: = + - @, tab, carriage return), and a name that opens with
#: the quote memreport's CSV puts before them
SPREADSHEET = ("=SUM(1,2)", "+1+2", "-3+4", "@SUM(A1)", "\tTAB", "\rCR", "'quoted")
NAMES = TERMINAL + MARKDOWN + SPREADSHEET


def archive(names: Sequence[str] = NAMES) -> bytes:
    """An archive of one tile per name, the name its member's (tile i holds 1,000 x (i + 1) B of code)."""
    return ar_archive([(name, tile_elf(i, 1000 * (i + 1), 10, 300)) for i, name in enumerate(names)])


def profile(names: Sequence[str] = NAMES, tiles: int = 4) -> dict:
    """A JSON graph profile (two IPUs) whose categories are ``names``, sharing each tile's bytes evenly."""
    excluding = 10_000 + 1_000 * np.arange(tiles, dtype=np.int64)
    shares = {name: 1 / len(names) for name in names}
    return synth_profile.build_profile(excluding, num_ipus=2, bytes_per_tile=638_976,
                                       categories=synth_profile.split_categories(excluding, shares=shares))


def tensor_map(names: Sequence[str] = NAMES) -> dict:
    """A tensor map of one tensor per name, in a computation named like the first, tensor i on tile i."""
    return synth_profile.build_tensor_map({names[0]: [
        synth_profile.tensor_entry(name, {i: 8 * (i + 1)}, shape=[8 * (i + 1)]) for i, name in enumerate(names)]})


def run_log(names: Sequence[str] = NAMES) -> str:
    """A summary, then out-of-memory messages naming ``names`` as exchanges (PopART's error line) and a TensorFlow
    report saved under a path of them."""
    from . import logs
    from .seeds import summary_text
    parts = [logs.popart_error(logs.exchange_message(i, exchange=name)) for i, name in enumerate(names)]
    return summary_text() + "".join(parts) + logs.tensorflow_saved("/tmp/" + "/".join(names[:4]))
