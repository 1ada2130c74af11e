"""What a log puts before a summary's text, and how a summary's lines are told from the lines around them.

A summary printed into a log can carry, on every line (docs/FORMATS.md §8.3-§8.5):

- a launcher tag, ``[1,0]<stdout>:`` (mpirun, poprun; PRRTE adds a space),
  possibly after a progress bar the line was glued to;
- a logger header with a timestamp that differs from line to line
  (``10:10:50.154 1 POPRUN [D] ``, ``2023-04-27T04:30:33.475912Z PO:ENGINE
  3906481.3906481 W: ``, a CI runner's ``2023-08-22T23:49:40.1032481Z ``):
  matched by pattern, never as literal text;
- a literal prefix that every line shares (docker compose's
  ``service_1  | ``, a comment's ``# ``, a quote's ``> ``).

A :class:`Signature` is what one summary's lines share. Lines of another
process or stream (another rank's tag, stderr inside a stdout summary), or
with a logger header inside a summary without one, are not part of it: a
reader passes over them, so two ranks printing at once give two summaries.
Only the first line of a summary may carry a header the others lack (a
multi-line record of a Python logger).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..logtext import UNTAGGED, Tag, clean, split_tag, strip_progress_bar

# Logger headers, most specific first; each ends at the one space before the message (docs/FORMATS.md §8.4).
# What follows that space is the message, indentation included (old-style Poplar nests by two spaces).
LOGGER = re.compile(
    r"(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWEF] (?:\s*\d+ )?\S+:\d+\] "       # TensorFlow (C++)
    r"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z \S+ +\d+\.\d+ [TDIWEC]: "            # Poplar, PopLibs, PopART (SDK 2.3+)
    r"|\d\d:\d\d:\d\d\.\d{3} \d+ \S+ +\[[TDIWEC]\] "                             # Poplar/PopLibs old style, poprun
    r"|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] \[[^\]\s]+\] \[\w+\] "           # PopART up to SDK 2.2 (spdlog)
    r"|\[\d\d:\d\d:\d\d\.\d{3}\] \[[^\]\s]+\] \[\w+\] "                           # PopTorch C++ and Python
    r"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)? [A-Z]+: "                       # PopXL examples
    r"|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? )"      # CI runners, kubectl, docker
)
# A complete launcher tag anywhere in a line (one process writing a line in pieces, docs/FORMATS.md §8.3).
_INNER_TAG = re.compile(r"\[(?:[\w.-]+@)?\d+,\d+\]<std(?:out|err|diag)>: ?")
_MAX_LITERAL = 64


@dataclass(frozen=True)
class LinePrefix:
    """A log line taken apart: its launcher tag, whether a logger header preceded the text, the text."""

    tag: Tag
    logged: bool
    body: str


def split_line(raw: str) -> LinePrefix:
    """What a terminal shows of a line (colours and redraws gone), without its tag and logger header."""
    text = clean(raw)
    tag, text = split_tag(text) if "<std" in text else (UNTAGGED, text)
    if "%|" in text:  # a bar glued to the front: the line's own tag is before it, or (redrawn) after it
        text = strip_progress_bar(text)
        inner, rest = split_tag(text) if "<std" in text else (UNTAGGED, text)
        if inner != UNTAGGED:
            tag, text = inner, rest
    if "<std" in text:
        text = _INNER_TAG.sub("", text)
    match = LOGGER.match(text) if text[:1].isdigit() or text[:1] == "[" else None
    if match is None:
        return LinePrefix(tag, False, text)
    return LinePrefix(tag, True, text[match.end():])


def literal_prefix(before: str) -> str | None:
    """The literal prefix of a line whose summary text starts after ``before``: "" for none (indentation
    only), None when ``before`` is prose rather than a prefix (it must be short and end in punctuation,
    like ``service_1  |``, ``#`` or ``>``)."""
    stripped = before.rstrip()
    if not stripped:
        return ""
    if len(stripped) > _MAX_LITERAL or stripped[-1].isalnum():
        return None
    return stripped


@dataclass(frozen=True)
class Signature:
    """What every line of one summary shares: tag, logger header or not, literal prefix."""

    tag: Tag
    logged: bool
    literal: str = ""

    def content(self, raw: str) -> str | None:
        """The summary text of a line of this signature (indentation kept); None for a line of another."""
        line = split_line(raw)
        if line.tag != self.tag or line.logged != self.logged:
            return None
        return self.strip_literal(line.body)

    def strip_literal(self, body: str) -> str | None:
        if not self.literal:
            return body
        if body.startswith(self.literal):
            return body[len(self.literal):]
        return None

    def bare(self) -> Signature:
        """The same process and stream with neither header nor literal prefix."""
        return Signature(self.tag, False, "")
