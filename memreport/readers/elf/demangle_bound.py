"""How long a mangled name's C++ name can be, found without printing it: a demangling bomb is refused unread.

The Itanium C++ ABI's substitutions (``S_``, ``S0_``...) and template
parameters (``T_``...) stand for components written earlier, so each level of
``Pair<S0_, S0_>`` doubles the output: 212 bytes demangle to 7 MB, and
``__cxa_demangle`` builds all of it before it returns (it has no limit). This
walk reads a name once through the grammar (docs/FORMATS.md §5.4), keeping
for each component a bound on the text it prints instead of the text: a
substitution costs the most any candidate so far costs, a template parameter
the most any template argument costs (``X``: resolved at the end, so a
forward reference is bounded too), a pack expansion its pattern times the
longest argument pack (``P``). Bounds are polynomials in ``X`` and ``P`` with
coefficients that saturate, so the walk is linear in the name and its memory
bounded by it, whatever the output would be.

A construct the walk does not know raises :class:`Unbounded`; the caller then
falls back to a coarse bound (:func:`coarse_bound`), which counts every
``S`` and ``T`` of the name as a doubling.
"""
from __future__ import annotations

import re

from .demangle_expressions import OPERATORS, SATURATED, Bound, Expressions, Unbounded

__all__ = ["SATURATED", "Unbounded", "bound", "coarse_bound"]

MAX_LEVELS = 64       # levels of template parameters printing arguments that print parameters, followed
WIDE = 72             # characters a single code may print at most (Ss in full: std::basic_string<char, ...>)
_BUILTIN = set("vwbcahstijlmxynofdegz")
_BUILTIN_D = set("defhisuacn")  # Dd De Df Dh Di Ds Du Da Dc Dn
_SEQ_ID = re.compile(r"[0-9A-Z]*_")
_NUMBER = re.compile(r"n?[0-9]+")


def bound(name: str) -> int:
    """An upper bound on the length of the C++ name ``name`` demangles to (``_Z...``); :class:`Unbounded` when the
    walk cannot tell."""
    walk = _Walk(name)
    total = walk.mangled()
    p = walk.pack
    # A template parameter prints an argument of a template an encoding names (libiberty's d_print_comp of a
    # typed name), whose own parameters print those of the encoding around it, and so on out: X, the most a
    # parameter prints, is found by going out one level at a time, as many times as there are levels (in a
    # conversion operator, of whichever template is being printed: every argument list is a level then).
    referable = walk.arguments if walk.conversion else walk.referable
    levels = walk.lists if walk.conversion else walk.levels
    x = 0
    for _ in range(min(levels, MAX_LEVELS) + 1):
        widest = max((argument.value(x, p) for argument in referable), default=0)
        if widest == x:
            break
        x = min(widest, SATURATED)
    else:
        if levels > MAX_LEVELS:  # still growing past what is worth following: a name no one wrote
            raise Unbounded("template parameters refer to each other too deeply")
    return total.value(x, p)


def coarse_bound(name: str) -> int:
    """A bound that needs no grammar: each code prints at most :data:`WIDE` characters, each ``S`` or ``T`` may
    repeat everything before it (a substitution or template parameter), each ``Dp`` repeat its pattern once per
    element of a pack (at most one per byte)."""
    n = len(name)
    doublings = name.count("S") + name.count("T")
    if doublings > 40:
        return SATURATED
    return (WIDE + 1) * n * n ** name.count("Dp") << doublings


class _Walk(Expressions):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.candidates = Bound()           # the most any substitution candidate so far prints
        self.arguments: list[Bound] = []    # every template argument
        self.referable: list[Bound] = []    # those of the templates encodings name (what T_ may print)
        self.levels = 0                     # how many encodings name a template
        self.lists = 0                      # how many template argument lists there are
        self.last_arguments: list[Bound] = []  # those of the template argument list read last
        self.name_arguments: list[Bound] | None = None  # those a name just read ends with (None: it does not)
        self.conversion = False             # a conversion operator: its T_ may print any argument
        self.pack = 1                       # the longest argument pack
        self.identifier = 0                 # the longest source name (what a constructor's name repeats)

    # -- the characters -------------------------------------------------------------------------------------

    def refer(self, arguments: list[Bound] | None) -> None:
        """The arguments of the template an encoding names: what its template parameters print."""
        if arguments is not None:
            self.referable.extend(arguments)
            self.levels += 1

    def candidate(self, b: Bound) -> Bound:
        self.candidates = self.candidates.most(b)
        return b

    # -- names ----------------------------------------------------------------------------------------------

    def mangled(self) -> Bound:
        self.expect("_Z")
        b = self.encoding()
        if self.peek() == ".":  # clone suffixes: " [clone .cold.0]"
            b += Bound.of(2 * (len(self.s) - self.i) + 10)
            self.i = len(self.s)
        if self.i != len(self.s):
            raise Unbounded(f"stopped at {self.i}")
        return b

    def encoding(self) -> Bound:
        if self.peek() in "TG" and self.peek(1) not in "_0123456789":
            return self.special_name()
        b = self.name()
        self.refer(self.name_arguments)
        count = 0
        while self.peek() and self.peek() not in "E.":
            b += self.type() + Bound.of(2)
            count += 1
        return b + Bound.of(4) if count else b

    def special_name(self) -> Bound:
        code = self.s[self.i:self.i + 2]
        self.i += 2
        if code in ("TV", "TT", "TI", "TS"):
            return self.type() + Bound.of(20)
        if code in ("Th", "Tv"):
            self.call_offset(code[1])
            return self.encoding() + Bound.of(30)
        if code == "Tc":
            self.call_offset(self.s[self.i:self.i + 1])
            self.i += 1
            self.call_offset(self.s[self.i:self.i + 1])
            self.i += 1
            return self.encoding() + Bound.of(30)
        if code == "TC":
            first = self.type()
            self.match(_NUMBER)
            self.expect("_")
            return first + self.type() + Bound.of(30)
        if code in ("TH", "TW", "GV"):
            return self.name() + Bound.of(30)
        if code == "TA":
            return self.template_arg() + Bound.of(30)
        if code == "GR":
            b = self.name()
            self.match(_SEQ_ID)
            return b + Bound.of(40)
        if code in ("GT", "GA"):
            self.eat("t") or self.eat("n")
            return self.encoding() + Bound.of(30)
        raise Unbounded(f"special name {code!r}")

    def call_offset(self, kind: str) -> None:
        self.match(_NUMBER)
        self.expect("_")
        if kind == "v":
            self.match(_NUMBER)
            self.expect("_")
        elif kind != "h":
            raise Unbounded("call offset")

    def name(self) -> Bound:
        self.enter()
        c = self.peek()
        arguments = None
        if c == "N":
            b = self.nested()
            arguments = self.name_arguments
        elif c == "Z":
            b = self.local()
        elif c == "S" and self.peek(1) != "t":
            b = self.substitution()
        else:
            b = Bound.of(5) + self.unqualified() if self.eat("St") else self.unqualified()
        if self.peek() == "I":
            b = self.candidate(self.candidate(b) + self.template_args())
            arguments = self.last_arguments
        self.name_arguments = arguments
        self.depth -= 1
        return b

    def nested(self) -> Bound:
        self.expect("N")
        b = Bound.of(9 * self.qualifiers() + (3 if self.peek() in "RO" else 0))
        self.eat("R") or self.eat("O")
        arguments = None
        while not self.eat("E"):
            c = self.peek()
            arguments = None
            if c == "I":
                b += self.template_args()
                arguments = self.last_arguments
            elif self.eat("St"):
                b += Bound.of(5)
            elif c == "S":
                b += self.substitution() + Bound.of(2)
            elif c == "T":
                b += self.template_param() + Bound.of(2)
            elif c == "D" and self.peek(1) in "tT":
                b += self.decltype() + Bound.of(2)
            elif c == "M":
                self.i += 1
            else:
                b += self.unqualified() + Bound.of(2)
            self.candidate(b)
        self.name_arguments = arguments
        return b

    def qualifiers(self) -> int:
        count = 0
        while self.peek() and self.peek() in "rVK":
            self.i += 1
            count += 1
        return count

    def local(self) -> Bound:
        self.expect("Z")
        b = self.encoding()
        self.expect("E")
        if self.eat("s"):
            b += Bound.of(16)
        else:
            if self.eat("d"):  # a default argument's scope: d [number] _
                self.match(re.compile(r"[0-9]*_"))
                b += Bound.of(30)
            b += self.name() + Bound.of(2)
            self.refer(self.name_arguments)
        if self.eat("_"):  # a discriminator: _N or __N_
            if self.eat("_"):
                self.match(re.compile(r"[0-9]+_"))
            else:
                self.match(re.compile(r"[0-9]"))
        return b

    def unqualified(self) -> Bound:
        c = self.peek()
        if c.isdigit():
            b = self.source_name()
        elif c == "L":
            self.i += 1
            b = self.source_name()
            if self.eat("_"):
                self.match(re.compile(r"[0-9]+_?"))
        elif c == "C" and self.peek(1) in "12345I":
            self.i += 2
            b = Bound.of(self.identifier)
            if c == "C" and self.s[self.i - 1] == "I":  # an inheriting constructor names its base
                self.i += 1
                b += self.type()
        elif c == "D" and self.peek(1) in "012345":
            self.i += 2
            b = Bound.of(self.identifier + 1)
        elif self.eat("DC"):
            b = Bound()
            while not self.eat("E"):
                b += self.source_name() + Bound.of(2)
        elif self.eat("Ut"):
            self.match(re.compile(r"[0-9]*_"))
            b = Bound.of(40)
        elif self.eat("Ul"):
            b = Bound.of(40)
            while not self.eat("E"):
                b += self.type() + Bound.of(2)
            self.match(re.compile(r"[0-9]*_"))
        elif c.islower():
            b = self.operator_name()
        else:
            raise Unbounded(f"unqualified name at {self.i}")
        while self.eat("B"):  # ABI tags: [abi:cxx11]
            b += self.source_name() + Bound.of(6)
        return b

    def source_name(self) -> Bound:
        digits = self.match(re.compile(r"[0-9]+"))
        length = int(digits) if len(digits) < 6 else len(self.s)
        if length == 0 or self.i + length > len(self.s):
            raise Unbounded("a source name runs past the end")
        self.i += length
        self.identifier = max(self.identifier, length)
        return Bound.of(max(length, 21))  # _GLOBAL__N_1 prints as "(anonymous namespace)"

    def operator_name(self) -> Bound:
        code = self.s[self.i:self.i + 2]
        self.i += 2
        if code == "cv":
            self.conversion = True
            return self.type() + Bound.of(10)
        if code == "li":
            return self.source_name() + Bound.of(12)
        if code[:1] == "v" and code[1:].isdigit():
            return self.source_name() + Bound.of(10)
        if code in OPERATORS:
            return Bound.of(20)
        raise Unbounded(f"operator {code!r}")

    def substitution(self) -> Bound:
        self.expect("S")
        if self.peek() and self.peek() in "absiod":
            self.i += 1
            return Bound.of(WIDE)
        self.match(_SEQ_ID)
        return self.candidates

    def template_args(self) -> Bound:
        self.enter()
        self.expect("I")
        b = Bound.of(3)
        arguments = []
        while not self.eat("E"):
            argument = self.template_arg()
            arguments.append(argument)
            b += argument + Bound.of(2)
        self.arguments.extend(arguments)
        self.last_arguments = arguments
        self.lists += 1
        self.depth -= 1
        return b

    def template_arg(self) -> Bound:
        c = self.peek()
        if c == "X":
            self.i += 1
            b = self.expression()
            self.expect("E")
            return b
        if c == "L":
            return self.literal()
        if c == "J":
            self.i += 1
            b, count = Bound.of(2), 0
            while not self.eat("E"):
                b += self.template_arg() + Bound.of(2)
                count += 1
            self.pack = max(self.pack, count)
            return b
        return self.type()

    # -- types ----------------------------------------------------------------------------------------------

    def type(self) -> Bound:
        self.enter()
        b = self._type()
        self.depth -= 1
        return b

    def _type(self) -> Bound:
        c, d = self.peek(), self.peek(1)
        if c in _BUILTIN and c:
            self.i += 1
            return Bound.of(20)
        if c == "u":
            self.i += 1
            b = self.source_name()
            return self.candidate(b + self.template_args() if self.peek() == "I" else b)
        if c == "D":
            return self.d_type(d)
        if c in "rVK" and c:
            return self.candidate(Bound.of(9 * self.qualifiers()) + self.type())
        if c in "PROCG" and c:
            self.i += 1
            return self.candidate(self.type() + Bound.of(4))
        if c == "F":
            return self.candidate(self.function_type())
        if c == "A":
            self.i += 1
            if self.peek().isdigit():
                b = Bound.of(len(self.match(re.compile(r"[0-9]+"))))
            elif self.peek() == "_":
                b = Bound()
            else:
                b = self.expression()
            self.expect("_")
            return self.candidate(b + self.type() + Bound.of(6))
        if c == "M":
            self.i += 1
            return self.candidate(self.type() + self.type() + Bound.of(8))
        if c == "T" and d in "sue" and d:
            self.i += 2
            return self.candidate(self.name() + Bound.of(8))
        if c == "T":
            b = self.candidate(self.template_param())
            return self.candidate(b + self.template_args()) if self.peek() == "I" else b
        if c == "S" and d != "t":
            b = self.substitution()
            return self.candidate(b + self.template_args()) if self.peek() == "I" else b
        if c == "U" and d not in "tl":
            self.i += 1
            b = self.source_name() + Bound.of(2)
            if self.peek() == "I":
                b += self.template_args()
            return self.candidate(b + self.type())
        if c in "NZSU" or c.isdigit():
            return self.candidate(self.name())
        raise Unbounded(f"type at {self.i}")

    def d_type(self, d: str) -> Bound:
        self.i += 2
        if d in _BUILTIN_D and d:
            return Bound.of(24)
        if d == "F":  # DF16_, DF32x, DF16b
            self.match(re.compile(r"[0-9]+[_xb]"))
            return Bound.of(24)
        if d in "BU" and d:
            b = Bound.of(24) if self.peek().isdigit() and self.match(re.compile(r"[0-9]+")) else self.expression()
            self.expect("_")
            return b + Bound.of(24)
        if d == "p":
            return self.candidate(self.type().times_p() + Bound.of(5))
        if d in "tT" and d:
            self.i -= 2
            return self.candidate(self.decltype())
        if d == "v":
            b = Bound.of(24) if self.peek().isdigit() and self.match(re.compile(r"[0-9]+")) else Bound()
            if not b.terms:
                self.expect("_")
                b = self.expression()
            self.expect("_")
            return self.candidate(b + self.type() + Bound.of(30))
        if d == "x":
            return self.type() + Bound.of(20)
        if d == "o":
            return self.type() + Bound.of(10)
        if d == "O":
            b = self.expression()
            self.expect("E")
            return b + self.type() + Bound.of(12)
        if d == "w":
            b = Bound.of(8)
            while not self.eat("E"):
                b += self.type() + Bound.of(2)
            return b + self.type()
        raise Unbounded(f"type D{d}")

    def function_type(self) -> Bound:
        self.expect("F")
        self.eat("Y")
        b = Bound.of(12)
        while not self.eat("E"):
            if self.peek() in "RO" and self.peek(1) == "E":
                self.i += 1
                b += Bound.of(3)
                continue
            b += self.type() + Bound.of(2)
        return b
