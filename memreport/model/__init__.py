"""The per-tile memory model every reader produces and every renderer consumes (docs/ARCHITECTURE.md).

It sits just above the floor (errors, units) and imports nothing above it.
numpy is imported where arrays are made or checked, not here, so
``memreport --version`` stays quick; :mod:`.tensor_map` (numpy-backed) is
imported where it is used.
"""
from .report import (
                     BREAKDOWN_KINDS,
                     FORMAT_NAMES,
                     OOM_MESSAGES_FORMAT,
                     MemoryReport,
                     SummaryReport,
                     TensorMapReport,
                     TileReport,
                     install_views,
)
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
                     "ARCHES",
                     "ARCH_BY_EFLAGS",
                     "BREAKDOWN_KINDS",
                     "CLI_NAMES",
                     "FORMAT_NAMES",
                     "KIB",
                     "MAX_TILES",
                     "OOM_KINDS",
                     "OOM_MESSAGES_FORMAT",
                     "PYTHON_NAMES",
                     "Arch",
                     "Bin",
                     "Column",
                     "Histogram",
                     "MemoryReport",
                     "OptionNames",
                     "OutOfMemoryMessage",
                     "PrintedSummary",
                     "ReportPosition",
                     "SkippedMember",
                     "StatedTarget",
                     "SummaryReport",
                     "Target",
                     "TensorMapReport",
                     "TileBytes",
                     "TileDetail",
                     "TileReport",
                     "inferred_arch",
                     "install_views",
                     "resolve_target",
]
