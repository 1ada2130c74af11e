"""The page's script: its ES modules joined into one classic script at render time, under the page's policy."""
from __future__ import annotations

import base64
import hashlib
import re

import pytest

from memreport.render.page import script
from memreport.render.page.contract import page_data
from memreport.render.page.document import document


def test_every_module_comes_after_the_modules_it_imports():
    order = script.modules()
    assert order[-1] == "main.mjs" and len(order) == len(set(order))
    for i, name in enumerate(order):
        for imported, _ in script._imports(script.module_source(name)):
            assert order.index(imported) < i, (name, imported)
    bundle = script.bundle()
    assert [bundle.index(f"const ${name[:-4]} = ") for name in order] == sorted(
        bundle.index(f"const ${name[:-4]} = ") for name in order)
    assert "import " not in bundle and not re.search(r"^export ", bundle, re.M)


def test_imports_become_constants_and_exports_the_value_a_module_returns():
    text = 'import { a, b as c } from "./x.mjs";\nexport function f() { return a + c; }\nexport const k = 1;\n'
    wrapped = script._wrapped("y.mjs", text)
    assert wrapped == ('const $y = (() => {\nconst { a, b: c } = $x;\nfunction f() { return a + c; }\nconst k = 1;\n'
                       '\nreturn { f, k };\n})();\n')


@pytest.mark.parametrize("line", ['export default function f() {}', 'import * as x from "./x.mjs";',
                                  'export { f };', 'import x from "./x.mjs";', 'import { a } from "x";'])
def test_a_form_the_joiner_does_not_read_is_refused(line):
    with pytest.raises(ValueError, match="does not read"):
        script._wrapped("y.mjs", line + "\n")


def test_the_page_runs_only_its_one_script_by_hash_and_ships_no_benchmark():
    page = document("t", "", page_data("compiles", []))
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert scripts == [script.bundle()]
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}';" in page
    assert "'unsafe-" not in page and "data:" not in page.split("img-src")[0]
    assert not re.search(r"\bbench\w*\s*[(:=]", scripts[0])  # the benchmark's driver is the tests' own
