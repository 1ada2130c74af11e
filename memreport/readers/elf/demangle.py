"""C++ symbol names as people write them, through the C++ runtime's own demangler.

libstdc++ (and libc++) export ``__cxa_demangle``, the Itanium C++ ABI's
demangler, which is what ``c++filt`` prints. It is called through ctypes,
so memreport needs no dependency for it; where no C++ runtime can be
loaded, names stay mangled and the caller says so.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

_LIBRARIES = ("stdc++", "c++")  # libstdc++ (GNU), libc++ (LLVM)
_SONAMES = ("libstdc++.so.6", "libc++.so.1")  # tried first: find_library may run ldconfig or a compiler
_lock = threading.Lock()
_loaded: Any = False  # False: not tried yet; None: unavailable; else (__cxa_demangle, free)


def _load() -> tuple[Any, Any] | None:
    """(``__cxa_demangle``, libc ``free``), or None when no C++ runtime is found. ctypes is imported here, on
    the first mangled name, not with the module (ctypes.util alone costs 10 ms of every run)."""
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
                free = _free(ctypes)
            except (OSError, AttributeError):
                continue
            demangler.restype = ctypes.c_void_p
            demangler.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
            free.argtypes = [ctypes.c_void_p]
            free.restype = None
            _loaded = (demangler, free)
            break
        return _loaded


def _free(ctypes: Any) -> Any:
    """libc's ``free``: from the process's own symbols (the C library is loaded), else found by name."""
    try:
        return ctypes.CDLL(None).free
    except (OSError, AttributeError):
        return ctypes.CDLL(ctypes.util.find_library("c")).free


def available() -> bool:
    """Whether C++ names can be demangled on this machine."""
    return _load() is not None


def is_mangled(name: str) -> bool:
    """An Itanium C++ ABI mangled name (``_Z...``), which is what IPU (and most Linux) C++ compilers write."""
    return name.startswith("_Z")


def demangle(name: str) -> str | None:
    """The C++ name of a mangled symbol; None when ``name`` is not mangled, is invalid, or no demangler loads."""
    if not is_mangled(name):
        return None
    loaded = _load()
    if loaded is None:
        return None
    import ctypes  # loaded by _load already
    demangler, free = loaded
    status = ctypes.c_int(0)
    pointer = demangler(name.encode("utf-8", "surrogateescape"), None, None, ctypes.byref(status))
    if not pointer:
        return None
    try:
        text = ctypes.string_at(pointer).decode("utf-8", "replace")
    finally:
        free(pointer)
    return text if status.value == 0 else None


def demangle_all(names: Iterable[str]) -> dict[str, str]:
    """Name -> C++ name for every name among ``names`` that demangles."""
    found = {}
    for name in dict.fromkeys(names):
        text = demangle(name)
        if text is not None:
            found[name] = text
    return found
