"""The per-tile memory model every reader produces and every renderer consumes (docs/ARCHITECTURE.md).

It sits just above the floor (errors, units) and imports nothing above it.
numpy is imported where arrays are made or checked, not here, so
``memreport --version`` stays quick; :mod:`.tensor_map` (numpy-backed) is
imported where it is used.
"""
from .report import (
                     BREAKDOWN_KINDS,
                     FORMAT_NAMES,
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
                     resolve_target,
)
from .values import (
                     Bin,
                     Column,
                     Histogram,
                     PrintedSummary,
                     SkippedMember,
                     TileBytes,
                     TileDetail,
                     check_sums,
                     exact_sum,
                     sums_by,
)

__all__ = [
                     "ARCHES",
                     "ARCH_BY_EFLAGS",
                     "BREAKDOWN_KINDS",
                     "CLI_NAMES",
                     "FORMAT_NAMES",
                     "KIB",
                     "MAX_TILES",
                     "PYTHON_NAMES",
                     "Arch",
                     "Bin",
                     "Column",
                     "Histogram",
                     "MemoryReport",
                     "OptionNames",
                     "PrintedSummary",
                     "SkippedMember",
                     "StatedTarget",
                     "SummaryReport",
                     "Target",
                     "TensorMapReport",
                     "TileBytes",
                     "TileDetail",
                     "TileReport",
                     "check_sums",
                     "exact_sum",
                     "install_views",
                     "resolve_target",
                     "sums_by",
]
