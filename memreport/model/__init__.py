"""The per-tile memory model every reader produces and every renderer consumes (docs/ARCHITECTURE.md).

It sits just above the floor (errors, units) and imports nothing above it.
numpy is imported where arrays are made or checked, not here, so
``memreport --version`` stays quick; :mod:`.tensor_map` (numpy-backed) is
imported where it is used.
"""
from .compiles import (
                     Compilation,
                     CompileHistory,
                     CompileLogInfo,
                     CompileTarget,
                     ExecutableLoad,
                     Finding,
                     LineRef,
)
from .liveness import ALWAYS_LIVE, NOT_ALWAYS_LIVE, NOT_ALWAYS_LIVE_MAX, ProgramLiveness
from .report import (
                     BREAKDOWN_KINDS,
                     FORMAT_NAMES,
                     OOM_MESSAGES_FORMAT,
                     MemoryReport,
                     SummaryReport,
                     TensorMapReport,
                     TileReport,
                     install_views,
                     source_notes,
)
from .symbols import Symbol, TileSymbols
from .target import (
                     ARCH_BY_EFLAGS,
                     ARCHES,
                     CLI_NAMES,
                     KIB,
                     MAX_TILES,
                     PYTHON_NAMES,
                     Arch,
                     OptionNames,
                     StatedTarget,
                     Target,
                     inferred_arch,
                     overrides_of,
                     resolve_target,
)
from .values import (
                     OOM_KINDS,
                     Bin,
                     Column,
                     Histogram,
                     OutOfMemoryMessage,
                     PrintedSummary,
                     ReportPosition,
                     SkippedMember,
                     TileBytes,
                     TileDetail,
)

__all__ = [
                     "ALWAYS_LIVE",
                     "ARCHES",
                     "ARCH_BY_EFLAGS",
                     "BREAKDOWN_KINDS",
                     "CLI_NAMES",
                     "FORMAT_NAMES",
                     "KIB",
                     "MAX_TILES",
                     "NOT_ALWAYS_LIVE",
                     "NOT_ALWAYS_LIVE_MAX",
                     "OOM_KINDS",
                     "OOM_MESSAGES_FORMAT",
                     "PYTHON_NAMES",
                     "Arch",
                     "Bin",
                     "Column",
                     "Compilation",
                     "CompileHistory",
                     "CompileLogInfo",
                     "CompileTarget",
                     "ExecutableLoad",
                     "Finding",
                     "Histogram",
                     "LineRef",
                     "MemoryReport",
                     "OptionNames",
                     "OutOfMemoryMessage",
                     "PrintedSummary",
                     "ProgramLiveness",
                     "ReportPosition",
                     "SkippedMember",
                     "StatedTarget",
                     "SummaryReport",
                     "Symbol",
                     "Target",
                     "TensorMapReport",
                     "TileBytes",
                     "TileDetail",
                     "TileReport",
                     "TileSymbols",
                     "inferred_arch",
                     "install_views",
                     "overrides_of",
                     "resolve_target",
                     "source_notes",
]
