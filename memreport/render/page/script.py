"""The page's script: the ES modules of ``js/`` joined at render time into one classic script, with no build step.

The modules are plain ES modules (``node --test`` imports them as they
are), written in a subset this joiner reads: imports only as
``import { a, b as c } from "./name.mjs";`` on a line of their own, exports
only as ``export function``, ``export async function``, ``export class`` or
``export const`` at a line's start. Each module becomes a function that
returns its exports, called once in dependency order; an import becomes a
``const`` taken from the exports of the module it names.

Why one classic script, not a ``<script type=module>`` a module: the page
must open from ``file://`` and make no request, so a module could import
another only by a ``data:`` URL (through an import map). The policy would
then have to allow ``script-src data:``, and any ``data:`` script at all
could run: a name from an archive that got into the page as markup could
bring its own. Hashes cannot allow them instead: a policy's hash covers
the text of an inline script, not a module it imports. Joined into one
inline script, the page keeps the strictest policy there is: that one
script, by its SHA-256 hash; no ``'unsafe-eval'``, no ``'unsafe-inline'``.
"""
from __future__ import annotations

import re
from functools import cache
from importlib import resources

ENTRY = "main.mjs"
_IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([a-z][a-z0-9_]*\.mjs)";[ \t]*\n', re.M)
_EXPORT = re.compile(r"^export (?=(?:async function|function|class|const) ([A-Za-z_$][\w$]*))", re.M)
_OTHER = re.compile(r"^[ \t]*(?:import|export)\b.*$", re.M)


def module_source(name: str) -> str:
    """The text of the module ``js/NAME``."""
    return resources.files(__package__).joinpath("js", name).read_text(encoding="utf-8")


def _binding(name: str) -> str:
    return "$" + name.removesuffix(".mjs")


def _imports(text: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """(module, [(name, local name)]) of each import of a module's text."""
    found = []
    for names, module in _IMPORT.findall(text):
        pairs = []
        for item in names.split(","):
            parts = item.split()
            if len(parts) == 1:
                pairs.append((parts[0], parts[0]))
            elif len(parts) == 3 and parts[1] == "as":
                pairs.append((parts[0], parts[2]))
            elif parts:
                raise ValueError(f"an import this joiner does not read: {{{names}}} from {module}")
        found.append((module, pairs))
    return found


def _wrapped(name: str, text: str) -> str:
    """A module as a function call that returns its exports."""
    exported = _EXPORT.findall(text)
    body = _EXPORT.sub("", _IMPORT.sub(lambda m: "const { " + ", ".join(
        f"{a}: {b}" if a != b else a for a, b in _imports(m.group(0))[0][1]) + f" }} = {_binding(m.group(2))};\n",
        text))
    other = _OTHER.search(body)
    if other:
        raise ValueError(f"js/{name}: an import or export this joiner does not read: {other.group(0).strip()}")
    return f"const {_binding(name)} = (() => {{\n{body}\nreturn {{ {', '.join(exported)} }};\n}})();\n"


def modules() -> list[str]:
    """The modules ``main.mjs`` needs, each after those it imports."""
    order: list[str] = []
    visiting: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        if name in visiting:
            raise ValueError(f"the page's modules import each other in a circle: {' -> '.join(visiting + [name])}")
        visiting.append(name)
        for module, _ in _imports(module_source(name)):
            visit(module)
        visiting.pop()
        order.append(name)

    visit(ENTRY)
    return order


@cache
def bundle() -> str:
    """The page's one script: every module, wrapped, in dependency order, inside one strict function."""
    parts = [_wrapped(name, module_source(name)) for name in modules()]
    return ('"use strict";\n// memreport\'s page: the modules of memreport/render/page/js/, joined (script.py).\n'
            "(() => {\n" + "".join(parts) + "})();\n")
