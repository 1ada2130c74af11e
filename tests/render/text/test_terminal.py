"""What reaches the terminal (issue 33 item 8): names from files with their control characters shown escaped, as
``ls`` and git show them, in every text output; the tables still aligned; memreport's own colours kept."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from memreport.cli import main
from memreport.render.text.terminal import RED, RESET, YELLOW, coloured, shown
from tests.synth import hostile
from tests.synth import profile as synth_profile
from tests.synth.archive import ar_archive, bss, data, elf_file, text
from tests.synth.compile_logs import LogBuilder

# What a terminal acts on: every C0 control but the line end, DEL, C1, the bidirectional controls and separators.
HIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def run(*args: object) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def files(tmp_path, monkeypatch):
    """Inputs whose names are :data:`tests.synth.hostile.TERMINAL`: an archive's members, a profile's categories,
    a tensor map's tensors, a log's modules, sections changed between two builds, and files named so."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.a").write_bytes(hostile.archive(hostile.TERMINAL))
    (tmp_path / "p.json").write_bytes(synth_profile.encode_json(hostile.profile(hostile.TERMINAL)))
    (tmp_path / "tm.json").write_text(json.dumps(hostile.tensor_map(hostile.TERMINAL)))
    for name, size in (("old.a", 300), ("new.a", 900)):
        (tmp_path / name).write_bytes(ar_archive([("t0.elf", elf_file([
            text(100), bss(size, name=f".bss{hostile.CLEAR}\r"), data(8, name="\u202edata")]))]))
    log = LogBuilder()
    for i, name in enumerate(hostile.TERMINAL):
        log.tf_compile(name, f"{i:04x}abcd", ms=1000 * (i + 1))
    (tmp_path / "c.log").write_text(log.text())
    for name in ("r\rx", f"e{hostile.CLEAR}y", "b\u202ez"):
        (tmp_path / f"{name}.a").write_bytes(hostile.archive(hostile.TERMINAL))
    return tmp_path


def test_a_member_name_is_shown_escaped_and_the_table_still_aligns(files):
    lines = run("t.a", "--top", "3", "--tile-memory", "5000", "--color", "never").splitlines()
    start = lines.index("Top 3 tiles (by excluding gaps):")
    assert lines[start:start + 9] == [
        "Top 3 tiles (by excluding gaps):",
        "      Tile   IPU    Excluding gaps  % of tile  Member                     Out of memory",
        "  !      5     0           6,310 B     126.2%  c1\\x9b31m.elf              OUT OF MEMORY by 1,310 B",
        "            largest sections: .text 6,000 B, .bss 300 B, .data 10 B",
        "  !      4     0           5,310 B     106.2%  \\u2066iso\\u2069\\u200f.elf  OUT OF MEMORY by 310 B",
        "            largest sections: .text 5,000 B, .bss 300 B, .data 10 B",
        "         3     0           4,310 B      86.2%  a\\u202egpj.elf",
        "            largest sections: .text 4,000 B, .bss 300 B, .data 10 B",
        "  (! = out of memory)"]
    assert lines[start + 10] == "Symbols on tile 5 (c1\\x9b31m.elf): none read"


def test_colours_are_kept_around_an_escaped_name(files):
    out = run("t.a", "--top", "6", "--tile-memory", "5500", "--color", "always")
    lines = out.splitlines()
    assert RED + "  !    5    0         6,310 B     114.7%  c1\\x9b31m.elf                    OUT OF MEMORY by 810 B" \
        + RESET in lines
    assert YELLOW + "       4    0         5,310 B      96.5%  \\u2066iso\\u2069\\u200f.elf" + RESET in lines
    assert [line.endswith(RESET) for line in lines if line.startswith((RED, YELLOW))] == [True, True]
    assert not HIDDEN.search(out.replace(RED, "").replace(YELLOW, "").replace(RESET, ""))


def test_a_category_table_counts_the_escapes(files):
    lines = run("p.json").splitlines()
    start = lines.index("Categories (all tiles, largest first):")
    assert lines[start + 1:start + 7] == [
        "  t\\x1b]52;c;cm0gLXJmIH4=\\x07.elf  7,675 B   16.7%",
        "  \\x1b[2J\\x1b[Hx.elf               7,665 B   16.7%",
        "  a\\u202egpj.elf                   7,665 B   16.7%",
        "  c1\\x9b31m.elf                    7,665 B   16.7%",
        "  ok\\rEVIL.elf                     7,665 B   16.7%",
        "  \\u2066iso\\u2069\\u200f.elf        7,665 B   16.7%"]


def test_the_closing_table_counts_the_escapes(files):
    lines = run("b\u202ez.a", f"e{hostile.CLEAR}y.a", "r\rx.a", "--brief").splitlines()
    start = lines.index("Reports (3):")
    assert lines[start + 1:start + 5] == [
        "  Source             Line  Arch  Tiles  Worst tile    Bytes  OOM tiles",
        "  b\\u202ez.a               ipu2      6           5  6,310 B          0",
        "  e\\x1b[2J\\x1b[Hy.a        ipu2      6           5  6,310 B          0",
        "  r\\rx.a                   ipu2      6           5  6,310 B          0"]


@pytest.mark.parametrize("args,escaped", [
    (["t.a"], "c1\\x9b31m.elf"),
    (["t.a", "--brief", "--color", "always"], "c1\\x9b31m.elf"),
    (["t.a", "--tile", "0", "--symbols", "5"], "t\\x1b]52;c;cm0gLXJmIH4=\\x07.elf"),
    (["p.json", "--tile", "1"], "ok\\rEVIL.elf"),
    (["tm.json"], "a\\u202egpj.elf (t\\x1b]52;c;cm0gLXJmIH4=\\x07.elf)"),
    (["t.a", "--tensor-map", "tm.json"], "\\u2066iso\\u2069\\u200f.elf (t\\x1b]52;c;cm0gLXJmIH4=\\x07.elf)"),
    (["diff", "old.a", "new.a"], "section  .bss\\x1b[2J\\x1b[H\\r  300 B -> 900 B  +600 B"),
    (["compiles", "c.log"], "a\\u202egpj.elf"),
    (["r\rx.a", "t.a"], "Source:   r\\rx.a"),
])
def test_no_text_output_holds_a_control_character(files, args, escaped):
    """The report, --brief, --tile, a tensor map alone and beside a report, the diff, the compilations, several
    reports: each shows the names escaped, and nothing a terminal would act on but memreport's own colours."""
    out = run(*args)
    assert escaped in out
    assert not HIDDEN.search(out.replace(RED, "").replace(YELLOW, "").replace(RESET, "")), \
        HIDDEN.search(out)


def test_shown_escapes_all_but_line_ends_and_whole_coloured_lines():
    text = f"a{hostile.OSC52}\n" + coloured(f"  ! tile {hostile.CLEAR}", RED) + f"\n{RED}not whole\n"
    assert shown(text) == ("a\\x1b]52;c;cm0gLXJmIH4=\\x07\n\\x1b[31m  ! tile \\x1b[2J\\x1b[H\\x1b[0m\n"
                           "\\x1b[31mnot whole\n")
    assert shown(text, color=True) == ("a\\x1b]52;c;cm0gLXJmIH4=\\x07\n" + RED + "  ! tile \\x1b[2J\\x1b[H" + RESET
                                       + "\n\\x1b[31mnot whole\n")
