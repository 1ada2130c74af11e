"""C++ symbol names as people write them, through the C++ runtime's own demangler.

libstdc++ (and libc++) export ``__cxa_demangle``, the Itanium C++ ABI's
demangler, which is what ``c++filt`` prints. It is called through ctypes,
so memreport needs no dependency for it; where no C++ runtime can be
loaded, names stay mangled and the caller says so.

``__cxa_demangle`` has no limit: a 150-byte name whose substitutions double
at each level demangles to 12 MB, built whole before it returns. So a name
is handed to it only when its C++ name cannot be longer than
:data:`WORK_CHARS` (:mod:`.demangle_bound` tells without printing it), and
a C++ name longer than :data:`SHOWN_CHARS` is not kept: the mangled name
stays, and :attr:`Demangled.kept` says why.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any, NamedTuple

from . import demangle_bound

SHOWN_CHARS = 4096       # the longest C++ name kept; a longer one keeps its mangled name, with a note
WORK_CHARS = 64 << 10    # the longest C++ name the demangler is asked to build (the walk's bound decides)

_LIBRARIES = ("stdc++", "c++")  # libstdc++ (GNU), libc++ (LLVM)
_SONAMES = ("libstdc++.so.6", "libc++.so.1")  # tried first: find_library may run ldconfig or a compiler
_lock = threading.Lock()
_loaded: Any = False  # False: not tried yet; None: unavailable; else (__cxa_demangle, free, strlen)


def _load() -> tuple[Any, Any, Any] | None:
    """(``__cxa_demangle``, libc ``free`` and ``strlen``), or None when no C++ runtime is found. ctypes is imported
    here, on the first mangled name, not with the module (ctypes.util alone costs 10 ms of every run)."""
    global _loaded
    with _lock:
        if _loaded is not False:
            return _loaded
        _loaded = None
        import ctypes
        import ctypes.util

        def found():
            yield from _SONAMES
            yield from (ctypes.util.find_library(name) for name in _LIBRARIES)

        for candidate in found():
            if not candidate:
                continue
            try:
                runtime = ctypes.CDLL(candidate)
                demangler = runtime.__cxa_demangle
                free = _libc(ctypes, "free")
            except (OSError, AttributeError):
                continue
            demangler.restype = ctypes.c_void_p
            demangler.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
            free.argtypes = [ctypes.c_void_p]
            free.restype = None
            strlen = _libc(ctypes, "strlen")
            strlen.argtypes = [ctypes.c_void_p]
            strlen.restype = ctypes.c_size_t
            _loaded = (demangler, free, strlen)
            break
        return _loaded


def _libc(ctypes: Any, function: str) -> Any:
    """A libc function: from the process's own symbols (the C library is loaded), else found by name."""
    try:
        return getattr(ctypes.CDLL(None), function)
    except (OSError, AttributeError):
        return getattr(ctypes.CDLL(ctypes.util.find_library("c")), function)


def available() -> bool:
    """Whether C++ names can be demangled on this machine."""
    return _load() is not None


def is_mangled(name: str) -> bool:
    """An Itanium C++ ABI mangled name (``_Z...``), which is what IPU (and most Linux) C++ compilers write."""
    return name.startswith("_Z")


class Demangled(NamedTuple):
    """C++ names by mangled name, and the mangled names kept as they are with why (a C++ name too long)."""

    names: dict[str, str]
    kept: dict[str, str]


def demangle(name: str) -> str | None:
    """The C++ name of a mangled symbol; None when ``name`` is not mangled, is invalid, no demangler loads, or its
    C++ name would be longer than :data:`SHOWN_CHARS` (:func:`demangle_all` says why)."""
    return _demangled(name)[0]


def _demangled(name: str) -> tuple[str | None, str | None]:
    """(the C++ name or None, why a valid mangled name stays mangled or None)."""
    if not is_mangled(name):
        return None, None
    loaded = _load()
    if loaded is None:
        return None, None
    most = longest(name)
    if most > WORK_CHARS:  # not asked of the demangler at all: it would build the whole of it first
        return None, (f"its C++ name could run to {most:,} characters (substitutions that repeat each other)"
                      if most < demangle_bound.SATURATED else "its C++ name has no length this can bound")
    import ctypes  # loaded by _load already
    demangler, free, strlen = loaded
    status = ctypes.c_int(0)
    pointer = demangler(name.encode("utf-8", "surrogateescape"), None, None, ctypes.byref(status))
    if not pointer:
        return None, None
    try:
        length = strlen(pointer)
        if status.value != 0:
            return None, None
        if length > SHOWN_CHARS:
            return None, f"its C++ name is {length:,} characters"
        return ctypes.string_at(pointer, length).decode("utf-8", "replace"), None
    finally:
        free(pointer)


def longest(name: str) -> int:
    """The most characters the C++ name of ``name`` can have: the cheap bound when it is small enough, else the
    grammar's (:mod:`.demangle_bound`), else the cheap one."""
    coarse = demangle_bound.coarse_bound(name)
    if coarse <= WORK_CHARS:
        return coarse
    try:
        return demangle_bound.bound(name)
    except (demangle_bound.Unbounded, RecursionError):
        return coarse


def demangle_all(names: Iterable[str]) -> Demangled:
    """Name -> C++ name for every name among ``names`` that demangles, and name -> why for each kept mangled
    because its C++ name is (or could be) longer than :data:`SHOWN_CHARS`."""
    found, kept = {}, {}
    for name in dict.fromkeys(names):
        text, why = _demangled(name)
        if text is not None:
            found[name] = text
        elif why is not None:
            kept[name] = why
    return Demangled(found, kept)
