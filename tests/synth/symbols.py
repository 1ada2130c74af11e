"""Inputs whose symbol tables the tests read: a tile ELF shaped as poplibs' codelets with the symbols it must read
as, objects gcc builds from small C and C++ sources, and C++ mangled names.

The codelet ELF is written with tests.synth.archive; its expected reading is
worked out from the sections and symbols written, not from the reader.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from memreport.model import Symbol, TileSymbols

from .archive import (
    SHF_ALLOC,
    SHF_EXECINSTR,
    SHN_ABS,
    SHN_COMMON,
    SHT_PROGBITS,
    STB_LOCAL,
    STB_WEAK,
    STT_FUNC,
    STT_NOTYPE,
    STT_OBJECT,
    Section,
    Sym,
    ar_archive,
    bss,
    elf_file,
    note,
    section_symbols,
    text,
    tile_elf,
)

# Built by gcc in compile_objects: templates, a static, a constant and C linkage (nm and pyelftools read them too).
CPP_SOURCE = """\
namespace poplin { template <class T> struct OuterProduct { static T buf[300]; int compute(); };
template <class T> T OuterProduct<T>::buf[300];
template <class T> int OuterProduct<T>::compute() { return (int)buf[3] + 7; }
template struct OuterProduct<float>; template struct OuterProduct<short>; }
int weights[1000] = {1};
static char scratch[4096];
extern "C" int run(int x) { scratch[x] = 1; return weights[x] * 3 + scratch[x + 1]; }
const char message[] = "a constant in .rodata";
extern "C" const char *msg(void) { return message; }
"""
C_SOURCE = "int activations[17];\nstatic int counter;\nint f(void) { return activations[3] + counter++; }\n"

# poplibs codelet entry points, as their symbols are named.
CONV = "__runCodelet_poplin__ConvPartial1x1Out___half_half_true_false"
ADD = "__runCodelet_popops__ScaledAddSupervisor___float_float_float_true_false"
CAST = "__runCodelet_popfloat__experimental__CastFloatToGf8Supervisor"
TABLE = f"{CONV}_jump_table"


def codelet_elf(*, e_type: int = 2, elfclass: int = 32, little: bool = True) -> bytes:
    """A tile ELF laid out as poplibs' codelets are (research notes §3.2): each codelet in its own .text.<name>
    section; ScaledAdd's .size counted from a _START label before a nop (so it runs 4 bytes past its
    section); CastFloatToGf8's global entry without a size, its local label holding it; a jump table in a
    .data.<name> section ("a", progbits); a C++ vertex's compute(); variables in .bss, some bytes covered twice
    (an alias), some by none; section and file symbols; an absolute and a common symbol (in no section)."""
    sections = [
        Section(f".text.{CONV}", 200, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, b"\x90"),
        Section(f".text.{ADD}", 120, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, b"\x90"),
        Section(".text.castFloatToGf8Supervisor", 64, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, b"\x90"),
        text(100),
        Section(f".data.{TABLE}", 48, SHT_PROGBITS, SHF_ALLOC, b"\x01"),
        bss(10_000),
        note(40),
    ]
    syms = section_symbols(sections, "tile_0.S") + [
        Sym(CONV, f".text.{CONV}", 0, 200, STT_FUNC),
        Sym(f"{ADD}_START", f".text.{ADD}", 0, 0, STT_NOTYPE, STB_LOCAL),
        Sym(ADD, f".text.{ADD}", 4, 120, STT_FUNC),  # .size ADD, . - ADD_START: 4 bytes past the end
        Sym(CAST, ".text.castFloatToGf8Supervisor", 0, 0, STT_FUNC),
        Sym("castFloatToGf8Supervisor", ".text.castFloatToGf8Supervisor", 0, 60, STT_NOTYPE, STB_LOCAL),
        Sym("_ZN6popops9BroadcastIfE7computeEv", ".text", 16, 50, STT_FUNC, STB_WEAK),
        Sym(TABLE, f".data.{TABLE}", 0, 48, STT_OBJECT, STB_LOCAL),
        Sym("conv2d_7/weights", ".bss", 0, 6_000, STT_OBJECT),
        Sym("conv2d_7/weights_alias", ".bss", 0, 6_000, STT_OBJECT, STB_WEAK),  # the same bytes again
        Sym("relu_3/activations", ".bss", 6_000, 3_000, STT_OBJECT),
        Sym("__poplar_version", None, 0x30400, 0, STT_OBJECT, shndx=SHN_ABS),
        Sym("scratch", None, 8, 64, STT_OBJECT, shndx=SHN_COMMON),
        Sym("__comment_marker", ".comment", 0, 8, STT_OBJECT),  # in a section that is not tile memory
    ]
    return elf_file(sections, symbols=syms, e_type=e_type, elfclass=elfclass, little=little)


def codelet_expected(member: str | None = "tile_0.elf", notes: tuple[str, ...] = ()) -> TileSymbols:
    conv_at = 0x4C000  # the writer's image base
    add_at, cast_at = conv_at + 200, conv_at + 320
    text_at, table_at, bss_at = conv_at + 384, conv_at + 488, conv_at + 536

    def at(base: int, offset: int) -> int:
        return base + offset

    sym = Symbol
    return TileSymbols(
        tile=0, member=member,
        sections={f".text.{CONV}": 200, f".text.{ADD}": 120, ".text.castFloatToGf8Supervisor": 64, ".text": 100,
                  f".data.{TABLE}": 48, ".bss": 10_000},
        attributed={f".text.{CONV}": 200, f".text.{ADD}": 116, ".text.castFloatToGf8Supervisor": 60, ".text": 50,
                    f".data.{TABLE}": 48, ".bss": 9_000},
        symbols=(
            sym("conv2d_7/weights", ".bss", 6_000, at(bss_at, 0), "object", "global"),
            sym("conv2d_7/weights_alias", ".bss", 6_000, at(bss_at, 0), "object", "weak"),
            sym("relu_3/activations", ".bss", 3_000, at(bss_at, 6_000), "object", "global"),
            sym(CONV, f".text.{CONV}", 200, conv_at, "function", "global"),
            sym(ADD, f".text.{ADD}", 120, at(add_at, 4), "function", "global"),
            sym("castFloatToGf8Supervisor", ".text.castFloatToGf8Supervisor", 60, cast_at, "notype", "local"),
            sym("_ZN6popops9BroadcastIfE7computeEv", ".text", 50, at(text_at, 16), "function", "weak",
                "popops::Broadcast<float>::compute()"),
            sym(TABLE, f".data.{TABLE}", 48, table_at, "object", "local"),
        ),
        unsized=(sym(CAST, ".text.castFloatToGf8Supervisor", 0, cast_at, "function", "global"),
                 sym(f"{ADD}_START", f".text.{ADD}", 0, add_at, "notype", "local")),
        notes=("1 common symbol(s) are in no section yet (a relocatable object): not counted", *notes),
    )


def compile_objects(tmp_path) -> list[str]:
    """a.o and b.o in ``tmp_path``, built by g++ and gcc from CPP_SOURCE and C_SOURCE; their names."""
    (tmp_path / "a.cpp").write_text(CPP_SOURCE)
    (tmp_path / "b.c").write_text(C_SOURCE)
    subprocess.run(["g++", "-c", "-O1", "-fno-common", "-o", "a.o", "a.cpp"], cwd=tmp_path, check=True)
    subprocess.run(["gcc", "-c", "-O1", "-fno-common", "-o", "b.o", "b.c"], cwd=tmp_path, check=True)
    return ["a.o", "b.o"]


def archive_with_damage(tmp_path) -> Path:
    """An archive at ``tmp_path/d.a``: the codelet ELF as tile 0, a member that is no ELF, a plain tile 2."""
    members = [("tile_0.elf", codelet_elf()), ("t1", b"damaged"), ("t2", tile_elf(2, 10, 0, 7))]
    path = tmp_path / "d.a"
    path.write_bytes(ar_archive(members))
    return path


# Mangled C++ names (functions, a template's static member, a local static, a pack), for the demangler.
NAMES = ["_ZN6popops9BroadcastIfE7computeEv", "_ZN6poplin12OuterProductIfE3bufE", "_Z3fooi",
         "_ZNSt6vectorIiSaIiEE9push_backERKi", "_ZN6poplar6Vertex7computeEv", "_ZN5poplar6Vertex7computeEv",
         "_ZZ4mainE5count",
         "_ZN2ns1CIJifEEC2Ev"]
