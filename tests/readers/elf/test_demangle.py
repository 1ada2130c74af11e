"""C++ names through the C++ runtime's ``__cxa_demangle``, checked against ``c++filt``."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from memreport.readers.elf import demangle

NAMES = ["_ZN6popops9BroadcastIfE7computeEv", "_ZN6poplin12OuterProductIfE3bufE", "_Z3fooi",
         "_ZNSt6vectorIiSaIiEE9push_backERKi", "_ZN6poplar6Vertex7computeEv", "_ZN5poplar6Vertex7computeEv",
         "_ZZ4mainE5count",
         "_ZN2ns1CIJifEEC2Ev"]


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="c++filt is not installed")
def test_names_demangle_as_cxxfilt_prints_them():
    assert demangle.available()
    expected = subprocess.run(["c++filt", *NAMES], check=True, capture_output=True, text=True).stdout.splitlines()
    assert [demangle.demangle(name) or name for name in NAMES] == expected  # c++filt echoes an invalid name
    assert demangle.demangle_all(NAMES + ["main", NAMES[0]]) == {n: e for n, e in zip(NAMES, expected) if n != e}


def test_names_that_are_not_mangled_or_not_valid_stay_as_they_are():
    for name in ("main", "__runCodelet_poplin__ConvPartial1x1Out___half_half_true_false", "conv2d_7/weights", "",
                 "_Zbogus", "_Z"):
        assert demangle.demangle(name) is None
    assert demangle.is_mangled("_ZN1a1bEv") and not demangle.is_mangled("__Z3foo")


def test_without_a_cxx_runtime_names_stay_mangled(monkeypatch):
    monkeypatch.setattr(demangle, "_loaded", None)
    assert not demangle.available()
    assert demangle.demangle(NAMES[0]) is None
    from memreport.readers.elf.symbols import tile_symbols
    from tests.readers.elf.test_symbols import codelet_elf
    table = tile_symbols(0, "t", codelet_elf())
    assert all(s.demangled is None for s in table.symbols)
    assert table.notes[-1] == "C++ names are shown mangled: no C++ runtime (__cxa_demangle) could be loaded"
