"""The expressions of mangled names (in template arguments, decltype, array bounds) for :mod:`.demangle_bound`,
each bounded by what it prints as the names and types are there; and what both walk with: the characters, the
bounds."""
from __future__ import annotations

import re

SATURATED = 1 << 40   # a coefficient past this is "too long" (keeps the integers small)
MAX_DEPTH = 128       # nesting the walk follows (libiberty's own limit is 2,048; a frame of ours is three of Python's)
_UNARY = {"ps", "ng", "ad", "de", "co", "nt", "pp", "mm", "dl", "da", "te", "sz", "az", "nx", "sp", "tw", "aw"}
_BINARY = {"pl", "mi", "ml", "dv", "rm", "an", "or", "eo", "aS", "pL", "mI", "mL", "dV", "rM", "aN", "oR", "eO",
           "ls", "rs", "lS", "rS", "eq", "ne", "lt", "gt", "le", "ge", "ss", "aa", "oo", "cm", "pm", "ix", "ds"}
OPERATORS = _UNARY | _BINARY | {"nw", "na", "cl", "qu", "st", "at", "ti", "pt"}
_SPECIAL = {"dc", "sc", "cc", "rc", "cv", "il", "tl", "dt", "pt", "sZ", "sP", "tr", "fl", "fr", "fL", "fR", "di",
            "dx", "dX"}  # expressions that are no operator's name


class Unbounded(Exception):
    """The walk met grammar it does not know (or a name no demangler reads): it gives no bound."""


class Bound:
    """A bound on printed characters: ``{(x, p): c}`` means the sum of ``c * X**x * P**p`` (``x`` is 0 or 1)."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[tuple[int, int], int] | None = None) -> None:
        self.terms = terms or {}

    @classmethod
    def of(cls, n: int) -> Bound:
        return cls({(0, 0): min(n, SATURATED)})

    def __add__(self, other: Bound) -> Bound:
        terms = dict(self.terms)
        for key, c in other.terms.items():
            terms[key] = min(terms.get(key, 0) + c, SATURATED)
        return Bound(terms)

    def most(self, other: Bound) -> Bound:
        """At least either (term by term: every X and P is positive)."""
        terms = dict(self.terms)
        for key, c in other.terms.items():
            terms[key] = max(terms.get(key, 0), c)
        return Bound(terms)

    def times_p(self) -> Bound:
        return Bound({(x, p + 1): c for (x, p), c in self.terms.items()})

    def has_x(self) -> bool:
        return any(x for x, _ in self.terms)

    def value(self, x: int, p: int) -> int:
        return sum(c * x ** i * p ** j for (i, j), c in self.terms.items())


class Cursor:
    """A mangled name read a character at a time, and how deep the walk is."""

    def __init__(self, name: str) -> None:
        self.s, self.i, self.depth = name, 0, 0

    def peek(self, k: int = 0) -> str:
        at = self.i + k
        return self.s[at] if at < len(self.s) else ""

    def eat(self, text: str) -> bool:
        if self.s.startswith(text, self.i):
            self.i += len(text)
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.eat(text):
            raise Unbounded(f"expected {text!r} at {self.i}")

    def match(self, pattern: re.Pattern[str]) -> str:
        found = pattern.match(self.s, self.i)
        if found is None:
            raise Unbounded(f"expected {pattern.pattern} at {self.i}")
        self.i = found.end()
        return found.group()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Unbounded("nested too deeply")


class Expressions(Cursor):
    """The grammar of expressions; the names and types they hold are the subclass's (:mod:`.demangle_bound`)."""

    arguments: list[Bound]

    def type(self) -> Bound:
        raise NotImplementedError

    def template_args(self) -> Bound:
        raise NotImplementedError

    def template_arg(self) -> Bound:
        raise NotImplementedError

    def encoding(self) -> Bound:
        raise NotImplementedError

    def source_name(self) -> Bound:
        raise NotImplementedError

    def operator_name(self) -> Bound:
        raise NotImplementedError

    def substitution(self) -> Bound:
        raise NotImplementedError

    def unqualified(self) -> Bound:
        raise NotImplementedError

    def template_param(self) -> Bound:
        self.expect("T")
        self.match(re.compile(r"[0-9]*_"))
        return Bound({(1, 0): 1})

    def literal(self) -> Bound:
        self.expect("L")
        if self.eat("_Z"):
            b = self.encoding()
        else:
            b = self.type()
            value = self.i
            while self.peek() and self.peek() != "E":
                self.i += 1
            b += Bound.of(self.i - value)
        self.expect("E")
        return b + Bound.of(16)

    def decltype(self) -> Bound:
        self.i += 2  # Dt or DT
        b = self.expression()
        self.expect("E")
        return b + Bound.of(12)

    # -- expressions ----------------------------------------------------------------------------------------

    def expression(self) -> Bound:
        self.enter()
        b = self._expression() + Bound.of(4)
        self.depth -= 1
        return b

    def _expression(self) -> Bound:
        c = self.peek()
        if c == "L":
            return self.literal()
        if c == "T":
            return self.template_param()
        if self.eat("fp") or self.eat("fL"):
            self.match(re.compile(r"[0-9]*p?[rVK]*[0-9]*_"))
            return Bound.of(20)
        self.eat("gs")
        code = self.s[self.i:self.i + 2]
        if code == "sr":
            self.i += 2
            return self.unresolved_name()
        if code.isalpha() and code[:1].islower() and (code in OPERATORS or code in _SPECIAL):
            self.i += 2
            return self.operator_expression(code) + Bound.of(20)
        if c.isdigit() or code in ("on", "dn"):
            return self.base_unresolved_name()
        raise Unbounded(f"expression at {self.i}")

    def operator_expression(self, code: str) -> Bound:
        if code in ("pp", "mm") and self.eat("_"):
            return self.expression()
        if code in _UNARY:
            return self.expression()
        if code in _BINARY:
            return self.expression() + self.expression()
        if code == "qu":
            return self.expression() + self.expression() + self.expression()
        if code in ("st", "at", "ti"):
            return self.type()
        if code in ("dc", "sc", "cc", "rc"):
            return self.type() + self.expression()
        if code == "cv":
            b = self.type()
            if not self.eat("_"):
                return b + self.expression()
            return b + self.expressions()
        if code in ("cl", "il"):
            return self.expressions()
        if code == "tl":
            return self.type() + self.expressions()
        if code in ("dt", "pt"):
            return self.expression() + self.unresolved_name()
        if code == "sZ":
            return self.expression()
        if code == "sP":
            b = Bound()
            while not self.eat("E"):
                b += self.template_arg() + Bound.of(2)
            return b
        if code == "tr":
            return Bound()
        if code in ("fl", "fr"):
            self.i += 2
            return self.expression()
        if code in ("fL", "fR"):
            self.i += 2
            return self.expression() + self.expression()
        if code in ("nw", "na"):
            b = Bound()
            while not self.eat("_"):
                b += self.expression()
            b += self.type()
            if self.eat("pi"):
                return b + self.expressions()
            if self.peek() == "i" and self.peek(1) == "l":
                return b + self.expression()
            self.expect("E")
            return b
        if code == "di":
            return self.source_name() + self.expression()
        if code == "dx":
            return self.expression() + self.expression()
        if code == "dX":
            return self.expression() + self.expression() + self.expression()
        raise Unbounded(f"expression {code!r}")

    def expressions(self) -> Bound:
        b = Bound()
        while not self.eat("E"):
            b += self.expression() + Bound.of(2)
        return b

    def unresolved_name(self) -> Bound:
        b = Bound.of(4)
        if self.eat("N"):
            b += self.unresolved_type()
            while not self.eat("E"):
                b += self.simple_id() + Bound.of(2)
        elif self.peek().isdigit():
            while not self.eat("E"):
                b += self.simple_id() + Bound.of(2)
        else:
            b += self.unresolved_type()
        return b + self.base_unresolved_name()

    def unresolved_type(self) -> Bound:
        c = self.peek()
        if c == "T":
            b = self.template_param()
        elif c == "D" and self.peek(1) in "tT":
            b = self.decltype()
        elif c == "S":
            b = Bound.of(5) + self.unqualified() if self.eat("St") else self.substitution()
        else:
            return self.type()
        if self.peek() == "I":
            b += self.template_args()
        return b

    def simple_id(self) -> Bound:
        b = self.source_name()
        return b + self.template_args() if self.peek() == "I" else b

    def base_unresolved_name(self) -> Bound:
        if self.eat("on"):
            b = self.operator_name()
        elif self.eat("dn"):
            b = self.simple_id() if self.peek().isdigit() else self.unresolved_type()
        else:
            b = self.source_name()
        return b + self.template_args() if self.peek() == "I" else b
