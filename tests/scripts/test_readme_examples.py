"""scripts/readme_examples.py: which blocks are examples, how outputs are elided, check and --update."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load():
    spec = importlib.util.spec_from_file_location("readme_examples", ROOT / "scripts" / "readme_examples.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["readme_examples"] = module
    spec.loader.exec_module(module)
    return module


examples = load()
OUTPUT = "".join(f"line {k}\n" for k in range(1, 11))


def test_elide_keeps_ranges_patterns_and_the_tail_and_marks_each_gap():
    assert examples.elided("1-2, /^line 5$/ 2, -1", OUTPUT) == "line 1\nline 2\n...\nline 5\nline 6\n...\nline 10\n"
    assert examples.elided("1-3", OUTPUT) == "line 1\nline 2\nline 3\n...\n"  # a cut tail is marked too
    assert examples.elided("1-10", OUTPUT) == OUTPUT


@pytest.mark.parametrize("spec, message", [("/nowhere/ 3", "no output line matches /nowhere/"),
                                           ("3..4", "cannot read '3..4'")])
def test_a_bad_elide_spec_is_an_error(spec, message):
    with pytest.raises(ValueError, match=message):
        examples.elided(spec, OUTPUT)


def test_examples_are_console_blocks_and_marked_python_blocks():
    text = ("```console\n$ echo a\na\n\n$ echo b\nb\n```\n\n```sh\necho not run\n```\n\n"
            "<!-- example: python -->\n```python\nprint(1)\n```\n\n```text\n1\n```\n\n```python\nprint(2)\n```\n"
            "<!-- elide: 1-1 -->\n```console\n$ seq 3\n1\n...\n```\n")
    found = examples.examples(text)
    assert [(e.commands, e.python, e.elide) for e in found] == [
        (["echo a", "echo b"], False, None), (["print(1)\n"], True, None), (["seq 3"], False, "1-1")]
    assert [text[e.start:e.end] for e in found] == ["$ echo a\na\n\n$ echo b\nb\n", "1\n", "$ seq 3\n1\n...\n"]


def test_an_elided_block_holds_one_command():
    with pytest.raises(ValueError, match="an elided block holds one command"):
        examples.examples("<!-- elide: 1-2 -->\n```console\n$ echo a\n$ echo b\n```\n")


def test_check_reports_a_stale_output_and_update_rewrites_it(tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text("Text.\n\n```console\n$ cat sample_reports/mk1_summary.txt | memreport - | "
                    "grep -E '^(Source|Format):'\nstale\n```\n\n"
                    "<!-- example: python -->\n```python\nprint(6 * 7)\n```\n\n```text\n```\n\n"
                    "<!-- elide: /Tiles per IPU/ 1 -->\n```console\n$ head -4 sample_reports/mk1_summary.txt\n```\n")
    assert examples.main([str(page)]) == 1
    shown = capsys.readouterr().out
    assert f"{page}:4: the output differs" in shown and "-stale\n+Source:   <stdin>\n" in shown
    assert examples.main(["--update", str(page)]) == 0
    assert page.read_text() == (
        "Text.\n\n```console\n$ cat sample_reports/mk1_summary.txt | memreport - | grep -E '^(Source|Format):'\n"
        "Source:   <stdin>\n"
        "Format:   Poplar text summary\n```\n\n<!-- example: python -->\n```python\nprint(6 * 7)\n```\n\n"
        "```text\n42\n```\n\n<!-- elide: /Tiles per IPU/ 1 -->\n```console\n$ head -4 sample_reports/mk1_summary.txt\n"
        "...\n  Tiles per IPU:          1,216\n...\n```\n")
    assert examples.main([str(page)]) == 0


def test_commands_run_in_a_scratch_root_so_what_they_write_stays_out_of_the_repository(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```console\n$ echo hello > written.txt; cat written.txt; ls -d sample_reports\n```\n")
    assert examples.update(page) == 1
    assert page.read_text() == "```console\n$ echo hello > written.txt; cat written.txt; ls -d sample_reports\n" \
                               "hello\nsample_reports\n```\n"
    assert not (ROOT / "written.txt").exists()


def test_markdown_shown_rendered_is_the_commands_output_quoted(tmp_path):
    """Between ``<!-- rendered: memreport ... -->`` and ``<!-- /rendered -->``: the output, "> " before each line
    (a blank line is a bare ">"), so GitHub renders it in a block quote; checked and rewritten like the others."""
    command = "memreport sample_reports/mk1_summary.txt --format markdown | head -3"
    page = tmp_path / "page.md"
    page.write_text(f"Raw, then rendered:\n\n<!-- rendered: {command} -->\n> stale\n<!-- /rendered -->\n\nAfter.\n")
    example, = examples.examples(page.read_text())
    assert (example.commands, example.shown, example.quoted) == ([command], "> stale\n", True)
    assert examples.main([str(page)]) == 1
    assert examples.update(page) == 1
    text = page.read_text()
    body = text[text.index("-->\n") + 4:text.index("<!-- /rendered -->")]
    lines = body.splitlines()
    assert len(lines) == 3 and lines[0].startswith("> ## memreport: ") and lines[1] == ">"
    assert text.endswith("<!-- /rendered -->\n\nAfter.\n")
    assert examples.main([str(page)]) == 0
