"""The Figure class of memreport's pictures; importing this module imports matplotlib.

Figures are made without pyplot (no global state, no GUI backend), so
IPython has no reason to know how to show them. :class:`ReportFigure`
shows itself through ``_repr_png_``; where matplotlib-inline has registered
its own formatter for figures, IPython uses that one instead, so a figure
is shown once either way.
"""
from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import tempfile
from typing import Any


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK)


def _private_directory() -> str:
    """``memreport-matplotlib-UID`` in the temporary directory, kept between runs (so the font cache is built
    once), or a fresh one when that name is taken by anything but this user's private directory."""
    uid = getattr(os, "getuid", lambda: None)()
    path = os.path.join(tempfile.gettempdir(), f"memreport-matplotlib-{uid if uid is not None else 'user'}")
    with contextlib.suppress(OSError):  # there already, perhaps: checked below
        os.mkdir(path, 0o700)
    try:
        info = os.lstat(path)
        if stat.S_ISDIR(info.st_mode) and (uid is None or info.st_uid == uid) and not info.st_mode & 0o077:
            return path
    except OSError:
        pass
    return tempfile.mkdtemp(prefix="memreport-matplotlib-")


def use_writable_config_dir() -> None:
    """Point matplotlib at a private directory when its own (under HOME) cannot be written.

    Otherwise matplotlib prints two lines of warning and rebuilds its font
    cache in a new temporary directory on every run (a second each time).
    Nothing changes when MPLCONFIGDIR is set or matplotlib is already in use.
    """
    if "MPLCONFIGDIR" in os.environ or "matplotlib" in sys.modules:
        return
    home = os.path.expanduser("~")
    if sys.platform.startswith(("linux", "freebsd")):  # matplotlib's own choice of places
        bases = [os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"),
                 os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")]
        wanted = [os.path.join(base, "matplotlib") for base in bases]
    else:
        wanted = [os.path.join(home, ".matplotlib")]
    if not all(_writable(path) for path in wanted):
        os.environ["MPLCONFIGDIR"] = _private_directory()


use_writable_config_dir()

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402 - after the directory is settled
from matplotlib.figure import Figure  # noqa: E402

from ...errors import shorten  # noqa: E402


class ReportFigure(Figure):
    """A matplotlib Figure on an Agg canvas that displays itself in notebooks."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        FigureCanvasAgg(self)

    def plain_texts(self) -> None:
        """Every text as it is written: none parsed as mathtext. Titles, labels and legends hold names from
        the input (a path, a member, a category, a module), where two ``$`` would start TeX-like math: a
        file named ``build$\\frac{$.a`` made the drawing raise, ``cost$x^2$.a`` showed a superscript."""
        from matplotlib.text import Text
        for text in self.findobj(Text):
            text.set_parse_math(False)

    def to_png(self) -> bytes:
        """The figure as PNG bytes, at its own size and dpi."""
        bound_texts(self)
        buf = io.BytesIO()
        # zlib's fastest level: a third less time encoding than the default 6, for a file about 5% larger.
        self.savefig(buf, format="png", dpi=self.dpi, pil_kwargs={"compress_level": 1})
        return buf.getvalue()

    def _repr_png_(self) -> bytes:
        return self.to_png()


MAX_TEXT_LINE = 160  # characters of one line of text in a picture: far more than a figure's width holds


def bound_texts(fig: Figure) -> None:
    """Shorten, around ``[...]``, every line of text in ``fig`` longer than :data:`MAX_TEXT_LINE`.

    Names come from the input (a path, a member, a category, a saved
    report's ``source``), and FreeType renders every glyph of a text even
    where it falls outside the picture: a 60,000-character title took 20 s.
    """
    from matplotlib.text import Text
    for text in fig.findobj(Text):
        content = text.get_text()
        if len(content) > MAX_TEXT_LINE and any(len(line) > MAX_TEXT_LINE for line in content.split("\n")):
            text.set_text("\n".join(shorten(line, MAX_TEXT_LINE) for line in content.split("\n")))
