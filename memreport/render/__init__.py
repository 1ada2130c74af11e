"""Renderers: summaries (model + analysis) in; text, JSON, CSV, pictures out. They never parse input.

Every output format is a :class:`Renderer` in one registry, keyed by what it
renders (its *subject*: ``"report"`` takes a list of
:class:`~memreport.analysis.Summary`, ``"diff"`` a
:class:`~memreport.analysis.diff.Diff`, ``"compiles"`` a
:class:`~memreport.analysis.compiles.CompileSummary`, ``"trend"`` a
:class:`~memreport.analysis.results.Trend`) and its name, which is the
``--format`` value. The CLI takes its ``--format`` choices from here
(pyinstrument's renderers and Pillow's ``register_save`` are the models).
Built-in renderers are declared below with the module that implements them,
which is imported on first use, so ``memreport --help`` loads no numpy.
To add one, see docs/ARCHITECTURE.md ("Add a renderer").
"""
from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..model.schemas import COMPILES_SCHEMA, DIFF_SCHEMA, REPORT_SCHEMA, TREND_SCHEMA


@dataclass(frozen=True)
class RenderOptions:
    """Presentation settings; what to compute (top tiles, bins) is settled in the summaries."""

    top: int = 20              # diff: how many changed tiles the text lists
    color: bool = False        # ANSI colour (terminals)
    width: int | None = None   # columns to fit the text to (None: its natural width)
    symbols: int | None = None  # symbols listed per tile (None: the format's default, 10 in text, all in JSON)
    errors: tuple[tuple[str, str], ...] = ()  # the report's JSON: (file, message) of each input not read
    brief: bool = False        # text report: the verdict and the top tiles only (-q/--brief)


class Renderer(Protocol):
    """One output format of one subject."""

    @property
    def name(self) -> str:
        """The --format value."""

    @property
    def subject(self) -> str:
        """What it renders: "report" (summaries), "diff" (a Diff)..."""

    @property
    def extension(self) -> str:
        """The file suffix of its output: ".txt", ".png"."""

    @property
    def binary(self) -> bool:
        """Bytes (a picture) rather than text."""

    @property
    def per_item(self) -> bool:
        """One output per item (a picture per report) rather than one for all."""

    @property
    def description(self) -> str:
        """One line for --help."""

    def render(self, data: Any, options: RenderOptions) -> str | bytes:
        """The output for ``data`` (for a per-item renderer, one item)."""
        ...


@dataclass(frozen=True)
class DeclaredRenderer:
    """A renderer whose implementation, ``entry`` (``"module:function"``), is imported on first use."""

    name: str
    subject: str
    extension: str
    binary: bool
    description: str
    entry: str
    per_item: bool = False

    def render(self, data: Any, options: RenderOptions) -> str | bytes:
        module, _, function = self.entry.partition(":")
        return getattr(importlib.import_module(module), function)(data, options)


_RENDERERS: dict[tuple[str, str], Renderer] = {}


def register(renderer: Renderer) -> Renderer:
    """Add a renderer (a later one of the same subject and name replaces the earlier)."""
    _RENDERERS[renderer.subject, renderer.name] = renderer
    return renderer


def renderers(subject: str, *, binary: bool | None = None) -> list[Renderer]:
    """The renderers of ``subject``, in registration order (only text or only binary ones if asked)."""
    return [r for (s, _), r in _RENDERERS.items() if s == subject and (binary is None or r.binary == binary)]


def get(subject: str, name: str) -> Renderer:
    """The renderer of ``subject`` called ``name`` (a ValueError naming the choices otherwise)."""
    try:
        return _RENDERERS[subject, name]
    except KeyError:
        names = ", ".join(r.name for r in renderers(subject))
        raise ValueError(f"no {subject} renderer {name!r} (choose from {names})") from None


def render(subject: str, name: str, data: Any, options: RenderOptions | None = None) -> str | bytes:
    """Shorthand: ``get(subject, name).render(data, options)``."""
    return get(subject, name).render(data, options or RenderOptions())


def render_each(renderer: Renderer, items: Sequence[Any], options: RenderOptions) -> list[str | bytes]:
    """A per-item renderer's outputs, one per item."""
    return [renderer.render(item, options) for item in items]


for _declared in (
    DeclaredRenderer("text", "report", ".txt", False, "Poplar-style text", "memreport.render.text.report:render"),
    DeclaredRenderer("json", "report", ".json", False, f"JSON (schema {REPORT_SCHEMA})",
                     "memreport.render.data.report:render_json"),
    DeclaredRenderer("csv", "report", ".csv", False, "CSV, one row per tile", "memreport.render.data.csv:render_csv"),
    DeclaredRenderer("png", "report", ".png", True, "a picture of each report",
                     "memreport.render.picture.plot:render_png", per_item=True),
    DeclaredRenderer("text", "diff", ".txt", False, "text", "memreport.render.text.diff:render_text"),
    DeclaredRenderer("json", "diff", ".json", False, f"JSON (schema {DIFF_SCHEMA})",
                     "memreport.render.data.diff:render_json"),
    DeclaredRenderer("csv", "diff", ".csv", False, "CSV, one row per changed tile, then one per item below the tile",
                     "memreport.render.data.diff:render_csv"),
    DeclaredRenderer("text", "compiles", ".txt", False, "a table, then findings",
                     "memreport.render.text.compiles:render_text"),
    DeclaredRenderer("json", "compiles", ".json", False, f"JSON (schema {COMPILES_SCHEMA})",
                     "memreport.render.data.compiles:render_json"),
    DeclaredRenderer("csv", "compiles", ".csv", False, "CSV, one row per compilation",
                     "memreport.render.data.compiles:render_csv"),
    DeclaredRenderer("text", "trend", ".txt", False, "the answer, a table of the builds, then the tiles",
                     "memreport.render.text.trend:render_text"),
    DeclaredRenderer("json", "trend", ".json", False, f"JSON (schema {TREND_SCHEMA})",
                     "memreport.render.data.trend:render_json"),
    DeclaredRenderer("csv", "trend", ".csv", False, "CSV, one row per build", "memreport.render.data.trend:render_csv"),
    # One report for a notebook's rich display (``_repr_html_``); not a --format: the CLI lists "report" ones.
    DeclaredRenderer("html", "notebook", ".html", False, "the report's page in a sandboxed frame",
                     "memreport.render.page:render_notebook", per_item=True),
):
    register(_declared)

# The shareable page (issue 25): one self-contained HTML file; and Markdown for a pull request or a job summary.
for _subject in ("report", "diff", "compiles", "trend"):
    register(DeclaredRenderer("markdown", _subject, ".md", False,
                              "GitHub Markdown (a PR comment, $GITHUB_STEP_SUMMARY)",
                              f"memreport.render.markdown.{_subject}:render_{_subject}"))
    register(DeclaredRenderer("html", _subject, ".html", False, "one self-contained HTML page",
                              f"memreport.render.page:render_{_subject}"))
