"""Where each error of a log ends: one forward read shared by every error (issue #33 items 1 and 12).

An uncaught C++ exception ends at its ``what():`` line, a Python
traceback at its final line (the first line of its process flush with the
left margin after it, unless a chained exception's ``During handling of
the above exception`` follows). Both are found by reading on from the
error's first line, counting the lines of its own process only: under
poprun, ranks that fail at once interleave their lines, and another rank's
lines are no part of this one's error.

One reader serves every error: it reads each line once, from the first
error on (jumping ahead over stretches no error needs), and every error
line it passes starts a tracker there; the tracebacks of one process that
look for their final line share it, so a log of 20,000 tracebacks costs a
read of its lines, not 20,000 reads of 400.
"""
from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..logtext import LogFile, LogLine
from .prefixes import split_line

TRACEBACK = "Traceback (most recent call last):"
CHAINED = ("During handling of the above exception", "The above exception was the direct cause")
TERMINATE = re.compile(r"terminate called after throwing an instance of '(?P<type>[^']{1,200})'")
TRACEBACK_LINES = 400   # a traceback's final line is at most this many of its process's lines below its first
WHAT_LINES = 3          # an uncaught C++ exception's what() line is within this many of its process's lines
MAX_OTHER_LINES = 1 << 16  # lines of other processes read past an error's first line before it is given up
MAX_TEXT = 120          # characters of an error kept
NO_FINAL = "a Python traceback (its final line is not in the log)"


def opens_traceback(body: str) -> bool:
    return body.startswith(TRACEBACK) or body.endswith(TRACEBACK)


def short(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 3] + "..."


@dataclass
class _Seeking:
    """Tracebacks of one process looking for their final line, oldest first: (first line, own lines before)."""

    members: deque[tuple[int, int]] = field(default_factory=deque)


@dataclass
class _Final:
    """Tracebacks of one process whose final line is found, waiting to see whether a chained one follows."""

    line: int
    text: str
    members: list[tuple[int, int]]
    after: int = 0


class ErrorEnds:
    """Where the errors of one log end, read forward once (see the module)."""

    def __init__(self, log: LogFile) -> None:
        self.log = log
        self.found: dict[int, tuple[int, str]] = {}   # an error's first line -> (its last line, what it says)
        self._lines: Iterator[LogLine] | None = None
        self._next = 1                                 # the number of the next line the reader reads
        self._last_read = 0
        self._own: dict[str, int] = {}                 # lines read of each process
        self._seeking: dict[str, _Seeking] = {}
        self._finals: dict[str, list[_Final]] = {}
        self._what: dict[str, deque[tuple[int, int, str]]] = {}  # C++ errors waiting for what(): line, own, text
        self._open: set[int] = set()                   # first lines of the errors not yet ended

    def end_of(self, hit: LogLine, thrown: str | None) -> tuple[int, str]:
        """Where the error whose first line is ``hit`` ends, and what it says (``thrown``: the C++ exception's
        type, None for a Python traceback)."""
        restarted = False
        while hit.no not in self.found:
            if hit.no not in self._open and (self._lines is None or hit.no < self._next or not self._open):
                if restarted:  # read from it and it opened no error: nothing to find
                    break
                self._restart(hit)
                restarted = True
            if not self._read():
                self._give_up_all()
                break
        return self.found.pop(hit.no, (hit.no, NO_FINAL if thrown is None else _thrown(thrown)))

    def _restart(self, hit: LogLine) -> None:
        """Read from ``hit`` on (nothing read before it is waited for)."""
        self._lines = self.log.lines(hit.offset, hit.no)
        self._next = hit.no
        self._own.clear()
        self._seeking.clear()
        self._finals.clear()
        self._what.clear()
        self._open.clear()

    def _read(self) -> bool:
        """Read one line and give it to the errors of its process; False at the end of the log."""
        assert self._lines is not None
        ln = next(self._lines, None)
        if ln is None:
            return False
        self._next, self._last_read = ln.no + 1, ln.no
        line = split_line(ln.text)
        process, body = line.tag.process, line.body
        own = self._own[process] = self._own.get(process, 0) + 1
        self._whats(process, ln.no, body, own)
        self._tracebacks(process, ln.no, body, own)
        if "terminate called" in body:
            thrown = TERMINATE.search(body)
            if thrown is not None:
                self._what.setdefault(process, deque()).append((ln.no, own, _thrown(thrown["type"])))
                self._open.add(ln.no)
                self._whats(process, ln.no, body, own)
        if self._open and ln.no % 4096 == 0:
            self._give_up_far(ln.no)
        return True

    def _whats(self, process: str, no: int, body: str, own: int) -> None:
        waiting = self._what.get(process)
        if not waiting:
            return
        if "what():" in body:
            while waiting:
                first, _, text = waiting.popleft()
                self._done(first, no, text)
            return
        while waiting and own - waiting[0][1] >= WHAT_LINES - 1:
            first, _, text = waiting.popleft()
            self._done(first, first, text)

    def _tracebacks(self, process: str, no: int, body: str, own: int) -> None:
        text = body.strip()
        finals = self._finals.get(process)
        revived: list[tuple[int, int]] = []  # looking for a final line again from the next line on
        if finals:
            kept = []
            for final in finals:  # after the final line: a chained exception's next traceback, or the end
                final.after += 1
                if text.startswith(CHAINED):
                    revived += final.members
                elif text or final.after > 2:
                    for first, _ in final.members:
                        self._done(first, final.line, short(f"Python error: {final.text}"))
                else:
                    kept.append(final)
            self._finals[process] = kept
        seeking = self._seeking.get(process)
        if seeking is not None and seeking.members:
            if text and not body[:1].isspace() and not text.startswith(TRACEBACK):
                self._finals.setdefault(process, []).append(_Final(no, text, list(seeking.members)))
                seeking.members.clear()
            else:
                while seeking.members and own - seeking.members[0][1] >= TRACEBACK_LINES:
                    first, _ = seeking.members.popleft()
                    self._done(first, no, NO_FINAL)
        if revived:
            members = self._seeking.setdefault(process, _Seeking()).members
            members.extend(revived)
            self._seeking[process].members = deque(sorted(members, key=lambda m: m[1]))
        if opens_traceback(body):
            self._seeking.setdefault(process, _Seeking()).members.append((no, own))
            self._open.add(no)

    def _done(self, first: int, last: int, text: str) -> None:
        self.found[first] = (last, text)
        self._open.discard(first)

    def _give_up_far(self, no: int) -> None:
        """Give up errors whose first line is more than :data:`MAX_OTHER_LINES` above ``no`` (their process went
        quiet while others printed on): their end is not within reach."""
        for seeking in self._seeking.values():
            while seeking.members and no - seeking.members[0][0] > MAX_OTHER_LINES:
                first, _ = seeking.members.popleft()
                self._done(first, no, NO_FINAL)
        for waiting in self._what.values():
            while waiting and no - waiting[0][0] > MAX_OTHER_LINES:
                first, _, text = waiting.popleft()
                self._done(first, first, text)

    def _give_up_all(self) -> None:
        """At the end of the log: a final line with nothing after it stands; the rest have no end in the log."""
        for finals in self._finals.values():
            for final in finals:
                for first, _ in final.members:
                    self._done(first, final.line, short(f"Python error: {final.text}"))
        for seeking in self._seeking.values():
            for first, _ in seeking.members:
                self._done(first, self._last_read, NO_FINAL)
        for waiting in self._what.values():
            for first, _, text in waiting:
                self._done(first, first, text)
        self._finals.clear()
        self._seeking.clear()
        self._what.clear()


def _thrown(kind: str) -> str:
    return short(f"terminate called after throwing an instance of '{kind}'")
