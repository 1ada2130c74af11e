"""C++ names through the C++ runtime's ``__cxa_demangle``, checked against ``c++filt``."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from memreport.readers.elf import demangle
from tests.synth.symbols import NAMES


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="c++filt is not installed")
def test_names_demangle_as_cxxfilt_prints_them():
    assert demangle.available()
    expected = subprocess.run(["c++filt", *NAMES], check=True, capture_output=True, text=True).stdout.splitlines()
    assert [demangle.demangle(name) or name for name in NAMES] == expected  # c++filt echoes an invalid name
    assert demangle.demangle_all(NAMES + ["main", NAMES[0]]) == ({n: e for n, e in zip(NAMES, expected) if n != e}, {})


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
    from tests.synth.symbols import codelet_elf
    table = tile_symbols(0, "t", codelet_elf())
    assert all(s.demangled is None for s in table.symbols)
    assert table.notes[-1] == "C++ names are shown mangled: no C++ runtime (__cxa_demangle) could be loaded"


# ---------------------------------------------------------------- a demangling bomb (issue #33 item 11)

class Counting:
    """The loaded demangler, counting the names it is asked to demangle."""

    def __init__(self, loaded) -> None:
        self.loaded, self.asked = loaded, []

    def __call__(self, name, *args):
        self.asked.append(name)
        return self.loaded[0](name, *args)


def test_a_name_that_would_demangle_to_megabytes_is_never_handed_to_the_demangler(monkeypatch):
    """20 levels of Pair<S_, S_>: 167 bytes whose C++ name is 12 MB, which __cxa_demangle builds whole before it
    returns. The name stays mangled, the demangler is not asked, and why is said."""
    from tests.synth.archive import demangling_bomb
    assert demangle.available()
    counting = Counting(demangle._load())
    monkeypatch.setattr(demangle, "_loaded", (counting, *demangle._loaded[1:]))
    bomb = demangling_bomb(20)
    assert len(bomb) == 167
    assert demangle.demangle(bomb) is None
    assert demangle.demangle_all([bomb, NAMES[0]]) == (
        {NAMES[0]: "popops::Broadcast<float>::compute()"},
        {bomb: "its C++ name could run to 50,331,651 characters (substitutions that repeat each other)"})
    assert counting.asked == [NAMES[0].encode()]


def test_a_name_the_demangler_may_build_but_longer_than_what_is_kept_stays_mangled():
    """Ten levels: 11,771 characters, under what the demangler may build (64 KiB), over what is kept (4 KiB)."""
    from tests.synth.archive import demangling_bomb
    eight, ten = demangling_bomb(8, "f"), demangling_bomb(10, "f")
    assert len(demangle.demangle(eight)) == 2_939  # f(Pair<Pair<...>, ...>*): kept
    assert demangle.demangle(ten) is None
    assert demangle.demangle_all([ten]).kept == {ten: "its C++ name is 11,771 characters"}
