"""Budget files: the gates a repository keeps beside its code, read once and resolved per input.

memreport looks in the working directory for ``.memreport.toml``, else for a ``[tool.memreport]`` table in
``pyproject.toml`` (or reads the file it is given)::

    [gates]
    max-tile = "600KiB"        # a size, a whole number of bytes, or a percent of tile memory ("90%")
    min-headroom = "16KiB"
    fail-on-oom = true
    fail-on-growth = "4KiB"    # memreport diff
    fail-on-recompile = true   # memreport compiles

    [[gates.files]]            # overrides for the inputs a glob matches; a later table wins over an earlier one
    match = "build/ipu1/*.a"   # with a "/": the path from the file's directory; without: the file name
    max-tile = "95%"
    fail-on-oom = false        # false also turns a size gate off

Every value keeps where it came from (:class:`Origin`: file, key, line), so a report can say which file set a
gate; the command line wins over the file (:meth:`Gates.merged`). A bad key or value is one
:class:`~memreport.errors.ConfigError` naming the file, the line and the key. tomllib (tomli before Python 3.11)
parses the file; it gives no positions, so :func:`key_lines` finds each key's line in the text.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, Union

from .errors import ConfigError
from .units import BUDGET_HINT, Percent, budget_value, check_size

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover  (the same parser, a dependency of the distribution before 3.11)
    import tomli as tomllib

BUDGET_FILE = ".memreport.toml"
PYPROJECT = "pyproject.toml"
# Each gate's key, and whether it takes a budget (a size or a percent; false for none) or a flag (true or false).
GATE_KINDS = {"max-tile": "budget", "min-headroom": "budget", "fail-on-oom": "flag", "fail-on-growth": "budget",
              "fail-on-recompile": "flag"}
FILES = "files"  # [[gates.files]]: the per-input overrides
MATCH = "match"

Budget = Union[int, Percent]
T = TypeVar("T")
Path = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class Origin:
    """Where a file set a value: the file as found, the key as written (``gates.files[0].max-tile``, arrays of
    tables counted from 0; ``tool.memreport.gates.max-tile`` in pyproject.toml) and its line."""

    path: str
    key: str
    line: int | None

    def __str__(self) -> str:
        return f"{self.path}, line {self.line} ({self.key})" if self.line else f"{self.path} ({self.key})"


@dataclass(frozen=True)
class Setting(Generic[T]):
    """A gate's value and the file that set it (``origin`` None: the command line, or nobody: the default)."""

    value: T
    origin: Origin | None = None


@dataclass(frozen=True)
class Gates:
    """The gates of one input: off unless a file or the command line sets them."""

    max_tile: Setting[Budget | None] = Setting(None)
    min_headroom: Setting[Budget | None] = Setting(None)
    fail_on_oom: Setting[bool] = Setting(False)
    fail_on_growth: Setting[Budget | None] = Setting(None)
    fail_on_recompile: Setting[bool] = Setting(False)

    def merged(self, **command_line: Budget | bool | None) -> Gates:
        """These gates with the command line's values over them: a value that is not None wins (origin None).

        Keywords are the fields' names (``max_tile=``, ``fail_on_oom=``...); pass None for an option not
        given, so a flag's default (False) does not turn off a gate a file turned on.
        """
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(command_line) - names)
        if unknown:
            raise TypeError(f"no gate {', '.join(unknown)} (gates: {', '.join(sorted(names))})")
        given: dict[str, Setting[Any]] = {name: Setting(value) for name, value in command_line.items()
                                          if value is not None}
        return dataclasses.replace(self, **given)

    def values(self) -> dict[str, Any]:
        """Field name -> value, as keywords for the gate checks."""
        return {f.name: getattr(self, f.name).value for f in dataclasses.fields(self)}

    def from_files(self) -> list[tuple[str, Setting[Any]]]:
        """(option, setting) of every gate a file set, in the fields' order: ``("--max-tile", Setting(...))``."""
        settings = ((f.name, getattr(self, f.name)) for f in dataclasses.fields(self))
        return [(option(name), s) for name, s in settings if s.origin is not None]


def option(name: str) -> str:
    """The command-line option of a gate's field or key: ``max_tile`` -> ``--max-tile``."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class Override:
    """One ``[[gates.files]]`` table: the inputs its glob matches get its settings."""

    match: str
    origin: Origin                                # of its ``match`` key
    settings: Mapping[str, Setting[Any]]          # field name -> setting

    def matches(self, input_path: Path, base: str) -> bool:
        """Whether ``input_path`` is one of the inputs this table is for (``base``: the file's directory)."""
        name = os.fspath(input_path)
        if "/" in self.match:
            name = os.path.relpath(os.path.abspath(name), base)
        else:
            name = os.path.basename(name)
        return glob_pattern(self.match).fullmatch(name.replace(os.sep, "/")) is not None


@dataclass(frozen=True)
class Config:
    """A budget file, read: the ``[gates]`` table and its overrides (``path`` None: no file was found)."""

    path: str | None = None
    gates: Mapping[str, Setting[Any]] = field(default_factory=dict)
    overrides: tuple[Override, ...] = ()
    notes: tuple[str, ...] = ()

    def gates_for(self, input_path: Path | None = None) -> Gates:
        """The gates of one input: ``[gates]``, then each ``[[gates.files]]`` that matches it, in file order.

        ``input_path`` as given on the command line (relative to the working directory); None for the
        ``[gates]`` table alone.
        """
        settings = dict(self.gates)
        if input_path is not None and self.path is not None:
            base = os.path.dirname(os.path.abspath(self.path))
            for override in self.overrides:
                if override.matches(input_path, base):
                    settings.update(override.settings)
        return Gates(**settings)


def load_config(path: Path | None = None, *, cwd: Path | None = None) -> Config:
    """The budget file ``path`` (``--config``), else ``.memreport.toml`` in ``cwd`` (the working directory),
    else ``pyproject.toml``'s ``[tool.memreport]`` there, else an empty :class:`Config`.

    A pyproject.toml given as ``path`` is read for its ``[tool.memreport]`` table, which it must have.
    Raises :class:`~memreport.errors.ConfigError` naming the file, the line and the key.
    """
    if path is not None:
        name = os.fspath(path)
        pyproject = os.path.basename(name) == PYPROJECT
        config = _read(name, table=("tool", "memreport") if pyproject else (), required=True)
        assert config is not None
        return config
    where = os.fspath(cwd) if cwd is not None else ""
    budget_file, pyproject_file = os.path.join(where, BUDGET_FILE), os.path.join(where, PYPROJECT)
    if os.path.exists(budget_file):
        config = _read(budget_file)
        assert config is not None
        if os.path.exists(pyproject_file) and _read(pyproject_file, table=("tool", "memreport")) is not None:
            note = f"{pyproject_file}'s [tool.memreport] is not read: {budget_file} is"
            config = dataclasses.replace(config, notes=(*config.notes, note))
        return config
    if os.path.exists(pyproject_file):
        return _read(pyproject_file, table=("tool", "memreport")) or Config()
    return Config()


def _read(path: str, table: tuple[str, ...] = (), required: bool = False) -> Config | None:
    """The budget in ``path`` (under ``table``: tool.memreport in pyproject.toml); None when the file lacks the
    table and it is not ``required``."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError as exc:
        raise ConfigError(f"cannot read it: {exc.strerror or exc}", path=path) from None
    try:
        text = data.decode("utf-8")
        document = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 (byte {exc.start}): TOML is UTF-8", path=path) from None
    except tomllib.TOMLDecodeError as exc:
        message, line = _decode_error(str(exc))
        raise ConfigError(f"not TOML: {message}", path=path, line=line) from None
    budget: Any = document
    for part in table:
        if not isinstance(budget, dict) or part not in budget:
            if required:
                raise ConfigError(f"no [{'.'.join(table)}] table", path=path)
            return None
        budget = budget[part]
    return _Checker(path, text, table).config(budget)


def _decode_error(message: str) -> tuple[str, int | None]:
    """tomllib's message without its position, and its line: ``Invalid value (at line 3, column 12)``."""
    match = re.search(r"\s*\(at line (\d+), column \d+\)$", message)
    if match:
        return message[:match.start()], int(match[1])
    return re.sub(r"\s*\(at end of document\)$", " at the end of the file", message), None


class _Checker:
    """Checks a parsed budget key by key, naming the file, the line and the key of the first bad one."""

    def __init__(self, path: str, text: str, table: tuple[str, ...]) -> None:
        self.path, self.table, self.lines = path, table, key_lines(text)

    def origin(self, *key: str | int) -> Origin:
        full = (*self.table, *key)
        line = next((self.lines[full[:n]] for n in range(len(full), 0, -1) if full[:n] in self.lines), None)
        written = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in full).lstrip(".")
        return Origin(self.path, written, line)

    def fail(self, message: str, *key: str | int) -> ConfigError:
        where = self.origin(*key)
        return ConfigError(message, path=self.path, line=where.line, key=where.key)

    def config(self, budget: Any) -> Config:
        if not isinstance(budget, dict):
            raise self.fail(f"must be a table, not {_kind(budget)}")
        for key in budget:
            if key != "gates":
                raise self.unknown(key, ["gates"])
        gates = budget.get("gates", {})
        if not isinstance(gates, dict):
            raise self.fail(f"must be a table ([gates]), not {_kind(gates)}", "gates")
        settings = self.settings(gates, ("gates",), allowed=(*GATE_KINDS, FILES))
        files = gates.get(FILES, [])
        if not isinstance(files, list) or not all(isinstance(f, dict) for f in files):
            raise self.fail("must be an array of tables ([[gates.files]], each with a match)", "gates", FILES)
        overrides = tuple(self.override(table, ("gates", FILES, i)) for i, table in enumerate(files))
        return Config(self.path, settings, overrides)

    def override(self, table: dict[str, Any], key: tuple[str | int, ...]) -> Override:
        pattern = table.get(MATCH)
        if pattern is None:
            raise self.fail('has no match (a glob of the inputs it is for: match = "build/*.a")', *key)
        if not isinstance(pattern, str) or not pattern:
            raise self.fail(f'must be a glob of input paths ("build/*.a"), not {_kind(pattern)}', *key, MATCH)
        try:
            glob_pattern(pattern)
        except re.error as exc:
            raise self.fail(f"not a glob: {exc}", *key, MATCH) from None
        settings = self.settings(table, key, allowed=(*GATE_KINDS, MATCH))
        return Override(pattern, self.origin(*key, MATCH), settings)

    def settings(self, table: dict[str, Any], key: tuple[str | int, ...], allowed: tuple[str, ...]
                 ) -> dict[str, Setting[Any]]:
        found: dict[str, Setting[Any]] = {}
        for name, value in table.items():
            if name not in allowed:
                raise self.unknown(name, allowed, *key)
            if name in GATE_KINDS:
                found[name.replace("-", "_")] = Setting(self.value(name, value, key), self.origin(*key, name))
        return found

    def value(self, name: str, value: Any, key: tuple[str | int, ...]) -> Budget | bool | None:
        if GATE_KINDS[name] == "flag":
            if not isinstance(value, bool):
                raise self.fail(f"must be true or false, not {_kind(value)}", *key, name)
            return value
        try:
            return budget(value)
        except ValueError as exc:
            raise self.fail(str(exc), *key, name) from None

    def unknown(self, name: str, allowed: tuple[str, ...] | list[str], *key: str | int) -> ConfigError:
        close = difflib.get_close_matches(name, allowed, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        return self.fail(f"unknown key ({hint}known: {', '.join(allowed)})", *key, name)


def budget(value: Any) -> Budget | None:
    """A gate's budget as a file gives it: a size string (``"600KiB"``), a whole number of bytes, a percent
    string (``"90%"``), or false for no gate; a ValueError saying what it takes otherwise."""
    if value is False:
        return None
    if isinstance(value, str):
        try:
            return budget_value(value)
        except ValueError as exc:  # TOML's strings in quotes
            raise ValueError(str(exc).replace(BUDGET_HINT[1], '(try "624KiB", 638976 or "90%")')) from None
    if isinstance(value, int) and not isinstance(value, bool):
        return check_size(value)
    raise ValueError(f'must be a size ("600KiB"), a whole number of bytes, a percent ("90%") or false, '
                     f"not {_kind(value)}")


def _kind(value: Any) -> str:
    """A TOML value named for a message: ``true``, ``1.5``, ``a table``, ``an array``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return repr(value)
    return f"{value!r} ({type(value).__name__})" if not isinstance(value, (int, float)) else repr(value)


_GLOB = re.compile(r"\*\*/|\*\*|\*|\?|\[!?\]?[^\]]*\]|[^*?\[]+|\[")


def glob_pattern(pattern: str) -> re.Pattern[str]:
    """A glob as a regular expression over ``/``-separated paths: ``*`` and ``?`` stay within a directory,
    ``**/`` spans any number of them, ``[ab]`` and ``[!ab]`` are sets."""
    parts = []
    for token in _GLOB.findall(pattern):
        if token == "**/":
            parts.append("(?:.*/)?")
        elif token == "**":
            parts.append(".*")
        elif token == "*":
            parts.append("[^/]*")
        elif token == "?":
            parts.append("[^/]")
        elif token.startswith("[") and len(token) > 1:
            body = token[1:-1]
            negate = body.startswith("!")
            body = body[1:] if negate else body
            parts.append("[" + ("^/" if negate else "") + body.replace("\\", "\\\\") + "]")
        else:
            parts.append(re.escape(token))
    return re.compile("".join(parts))


# -- where each key is: tomllib gives no positions ---------------------------------------------------------------

_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = re.compile(rf"\s*({_PART}(?:\s*\.\s*{_PART})*)\s*")
_KEY_PART = re.compile(_PART)


def _key_parts(dotted: str) -> tuple[str, ...]:
    parts = []
    for part in _KEY_PART.findall(dotted):
        if part.startswith('"'):
            part = part[1:-1].encode("utf-8").decode("unicode_escape")
        elif part.startswith("'"):
            part = part[1:-1]
        parts.append(part)
    return tuple(parts)


def key_lines(text: str) -> dict[tuple[str | int, ...], int]:
    """The line (from 1) of every table and key of a valid TOML document, by its path: ``("gates", "max-tile")``,
    ``("gates", "files", 1, "match")`` for the second ``[[gates.files]]``. A key inside an inline table has no
    entry of its own: its table's line is its line (inline tables are one line long)."""
    lines: dict[tuple[str | int, ...], int] = {}
    counts: dict[tuple[str | int, ...], int] = {}
    table: tuple[str | int, ...] = ()
    value = _ValueScan()
    for number, line in enumerate(text.splitlines(), 1):
        if value.open:
            value.scan(line, number, lines)
            continue
        header = re.match(r"\s*(\[\[?)", line)
        if header:
            double = header[1] == "[["
            key = _DOTTED.match(line, header.end())
            if key is None:
                continue
            table = _resolved(_key_parts(key[1]), counts)
            if double:
                counts[table] = counts.get(table, 0) + 1
                lines.setdefault(table, number)
                table = (*table, counts[table] - 1)
            lines.setdefault(table, number)
            continue
        key = _DOTTED.match(line)
        if key is None or not line[key.end():].startswith("="):
            continue
        path = (*table, *_key_parts(key[1]))
        for n in range(len(table) + 1, len(path) + 1):
            lines.setdefault(path[:n], number)
        value.start(path, line[key.end() + 1:], number, lines)
    return lines


def _resolved(parts: tuple[str, ...], counts: dict[tuple[str | int, ...], int]) -> tuple[str | int, ...]:
    """A header's path with the current element of every array of tables it passes through (its last part is
    the table or array it names)."""
    path: tuple[str | int, ...] = ()
    for part in parts[:-1]:
        path = (*path, part)
        if path in counts:
            path = (*path, counts[path] - 1)
    return (*path, *parts[-1:])


class _ValueScan:
    """A value's text across lines: strings (multi-line too), comments and bracket depth, so a line inside a
    multi-line string or array is never read as a key, and each ``{`` of an array of inline tables gets its
    element's line."""

    def __init__(self) -> None:
        self.path: tuple[str | int, ...] = ()
        self.depth = 0            # brackets open
        self.string = ""          # the delimiter of a multi-line string still open
        self.elements = 0         # inline tables seen at the array's first level

    @property
    def open(self) -> bool:
        return bool(self.depth or self.string)

    def start(self, path: tuple[str | int, ...], rest: str, number: int,
              lines: dict[tuple[str | int, ...], int]) -> None:
        self.path, self.depth, self.string, self.elements = path, 0, "", 0
        self.scan(rest, number, lines)

    def scan(self, text: str, number: int, lines: dict[tuple[str | int, ...], int]) -> None:
        i = 0
        while i < len(text):
            if self.string:
                end = text.find(self.string, i)
                while end > 0 and self.string == '"""' and _escaped(text, end):
                    end = text.find(self.string, end + 1)
                if end < 0:
                    return
                i, self.string = end + 3, ""
                continue
            char = text[i]
            if text.startswith(('"""', "'''"), i):
                self.string, i = text[i:i + 3], i + 3
            elif char in "\"'":
                i = _string_end(text, i)
            elif char == "#":
                return
            elif char in "[{":
                if char == "{" and self.depth == 1:
                    lines.setdefault((*self.path, self.elements), number)
                    self.elements += 1
                self.depth, i = self.depth + 1, i + 1
            elif char in "]}":
                self.depth, i = max(self.depth - 1, 0), i + 1
            else:
                i += 1


def _escaped(text: str, at: int) -> bool:
    """Whether the character at ``at`` follows an odd run of backslashes."""
    run = len(text[:at]) - len(text[:at].rstrip("\\"))
    return run % 2 == 1


def _string_end(text: str, start: int) -> int:
    """The index after a one-line string starting at ``start`` (the end of the line if it does not close)."""
    quote, i = text[start], start + 1
    while i < len(text):
        if text[i] == quote and (quote == "'" or not _escaped(text, i)):
            return i + 1
        i += 1
    return i
