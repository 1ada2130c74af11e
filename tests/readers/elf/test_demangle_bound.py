"""The bound on a mangled name's C++ length (memreport/readers/elf/demangle_bound.py), against the demangler."""
from __future__ import annotations

import ctypes
import sys

import pytest

from memreport.readers.elf import demangle
from memreport.readers.elf.demangle_bound import SATURATED, Unbounded, bound, coarse_bound
from tests.synth.archive import demangling_bomb
from tests.synth.symbols import NAMES

# Real names (libstdc++, LLVM, abseil, greenlet) whose grammar the walk must follow: a pack expansion, template
# arguments that are expressions (sr, decltype, calls, an external name), a lambda and a local name, a default
# argument's scope, virtual and non-virtual thunks, a construction vtable, a guard variable, an ABI tag, a vector
# type, nullptr in a pack, a conversion operator, a clone.
GRAMMAR = [
    "_ZNSt5dequeIiSaIiEE16_M_push_back_auxIJiEEEvDpOT_",
    "_ZN4absl7debian316strings_internal7CompareILi84ELi84EEEiRKNS1_11BigUnsignedIXT_EEERKNS3_IXT0_EEE",
    "_ZSt14__copy_move_a1ILb0EPbbEN9__gnu_cxx11__enable_ifIXsrSt23__is_random_access_iterIT0_NSt15iterator_traitsI"
    "S4_E17iterator_categoryEE7__valueESt15_Deque_iteratorIT1_RSA_PSA_EE6__typeES4_S4_SD_",
    "_ZN4absl7debian318container_internal15memory_internal17DecomposePairImplINS1_12raw_hash_setINS1_17FlatHashMap"
    "PolicyINS0_11string_viewEPNS0_15CommandLineFlagEEENS1_10StringHashENS1_8StringEqESaISt4pairIKS6_S8_EEE19Empla"
    "ceDecomposableEOS6_St5tupleIJOS8_EEEEDTclcl7declvalIT_EEcl7declvalIRKT0_EEL_ZSt19piecewise_constructEcl7declv"
    "alISJ_IJSN_EEEEcl7declvalIT1_EEEEOSM_SC_ISQ_SR_E",
    "_ZN8greenlet4refs14OwnedReferenceI9_greenletXadL_ZNS0_15GreenletCheckerEPvEEED1Ev",
    "_ZN4llvm25ComputeMappedEditDistanceIcZNS_19ComputeEditDistanceIcEEjNS_8ArrayRefIT_EES4_bjEUlRKcE_EEjS4_S4_T0_bj",
    "_ZTIZNK5clang15LocationContext9printJsonERN4llvm11raw_ostreamEPKcjbSt8functionIFvPKS0_EEEd_UlS8_E_",
    "_ZTIN4llvm2cl3optIbLb0ENS0_6parserIbEEEUlRKbE_E",
    "_ZThn16_NSt9strstreamD1Ev", "_ZTv0_n24_NSiD1Ev", "_ZTCN5clang7targets15RISCVTargetInfoE0_NS_10TargetInfoE",
    "_ZGVNSt8messagesIwE2idE", "_Z9TimeToStrB5cxx11m", "_ZN10zmm_vectorItE9reduceminEDv8_x",
    "_ZNSt5dequeISt4pairIPKN4llvm4LoopEPNS1_26BlockFrequencyInfoImplBase8LoopDataEESaIS8_EE16_M_push_back_auxIJRS4_"
    "DnEEEvDpOT_",
    "_ZZN5clang12TargetCXXABI9getABIMapEvE6ABIMap", "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEcvSt17basic"
    "_string_viewIcS2_EEv", "_ZN4llvm2cl3optIbLb0ENS0_6parserIbEEED0Ev.cold",
]


def cxa_length(name: str) -> int | None:
    """The length of what ``__cxa_demangle`` prints for ``name``, whatever it is (None: it prints nothing)."""
    loaded = demangle._load()
    if loaded is None:
        pytest.skip("no C++ runtime to compare with")
    demangler, free, strlen = loaded
    status = ctypes.c_int(0)
    pointer = demangler(name.encode(), None, None, ctypes.byref(status))
    if not pointer:
        return None
    try:
        return strlen(pointer) if status.value == 0 else None
    finally:
        free(pointer)


@pytest.mark.parametrize("name", GRAMMAR + NAMES)
def test_the_bound_is_never_below_what_the_demangler_prints(name):
    length = cxa_length(name)
    if length is None:  # not a valid name (_ZN5poplar6...): nothing printed, nothing to bound
        assert demangle.demangle(name) is None
        return
    assert bound(name) >= length


def test_every_name_the_cxx_runtime_exports_is_bounded_and_none_is_kept_mangled():
    """The names the C++ runtime itself exports (libstdc++: some 5,800): the walk knows their grammar, its bound
    is at least what the demangler prints, and every one is shown demangled."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the loaded libraries are read from /proc/self/maps")
    cxa_length("_Z1fv")
    with open("/proc/self/maps") as maps:
        path = next((line.split()[-1] for line in maps if "libstdc++" in line or "libc++" in line), None)
    if path is None:
        pytest.skip("no C++ runtime library mapped")
    from elftools.elf.elffile import ELFFile
    with open(path, "rb") as f:
        names = sorted({s.name for s in ELFFile(f).get_section_by_name(".dynsym").iter_symbols()
                        if s.name.startswith("_Z")})
    assert len(names) > 1_000
    under = [name for name in names if (cxa_length(name) or 0) > bound(name)]
    assert under == []
    assert demangle.demangle_all(names).kept == {}


def test_a_bomb_is_bounded_within_a_few_times_its_real_length():
    """Pair<S_, S_> level after level: the length doubles, the bound follows it (within 8x), in a walk of the
    mangled name alone."""
    for levels in range(2, 15):
        name = demangling_bomb(levels)
        length = cxa_length(name)
        assert length <= bound(name) <= 8 * length, levels
    assert bound(demangling_bomb(20)) == 50_331_651  # 12,058,619 characters printed
    assert bound(demangling_bomb(40)) == SATURATED  # 2 ** 40: past it, only "too long" matters


def test_a_name_nested_past_what_the_walk_follows_is_bounded_coarsely():
    """10,000 levels (a 70 KB name): the walk stops at its depth limit (no RecursionError); the coarse bound
    saturates, and the name stays mangled, unread by the demangler."""
    name = demangling_bomb(10_000)
    with pytest.raises(Unbounded, match="nested too deeply"):
        bound(name)
    assert coarse_bound(name) == SATURATED
    assert demangle.demangle_all([name]).kept == {name: "its C++ name has no length this can bound"}


def test_the_coarse_bound_lets_short_plain_names_through_and_counts_every_reference():
    assert coarse_bound("_Z3fooi") == 73 * 7
    assert coarse_bound("_ZN6popops9BroadcastIfE7computeEv") == 73 * 33
    assert coarse_bound("_Z1fIJiiEEvDpT_") == 73 * 15 * 15 * 2
    assert coarse_bound("_ZN1SIS_S_S_E") == 73 * 13 * 2 ** 4
