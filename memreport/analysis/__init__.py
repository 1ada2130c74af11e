"""Pure functions of reports: figures, out-of-memory counts, summaries, diffs, gates, tensors.

Analysis reads the model and nothing above it (docs/ARCHITECTURE.md). The
names below are the ones notebooks and renderers use; :func:`summarize`
computes all of a report's figures at once.
"""
from .fit_plan import FitItem, FitPlan, Shared, TileItems, fit_plan, variable_items, variable_plans
from .summary import Summary, summarize, summarize_all
from .tiles import (
                  MAX_BINS,
                  IpuSummary,
                  TopTile,
                  bin_counts,
                  choose_bin_kib,
                  histogram,
                  histogram_if_known,
                  largest,
                  max_excluding_gaps,
                  max_including_gaps,
                  per_ipu,
                  tile_breakdown,
                  top_tile_ids,
                  top_tiles,
                  total_excluding_gaps,
                  total_including_gaps,
)
from .verdict import (
                  BYTES_PER_TILE_UNKNOWN,
                  Largest,
                  OutOfMemoryCount,
                  Verdict,
                  bins_out_of_memory,
                  count_out_of_memory,
                  detail_out_of_memory,
                  known_out_of_memory_tiles,
                  out_of_memory,
                  out_of_memory_count,
                  partial_reason,
)

__all__ = [
                  "BYTES_PER_TILE_UNKNOWN",
                  "MAX_BINS",
                  "FitItem",
                  "FitPlan",
                  "IpuSummary",
                  "Largest",
                  "OutOfMemoryCount",
                  "Shared",
                  "Summary",
                  "TileItems",
                  "TopTile",
                  "Verdict",
                  "bin_counts",
                  "bins_out_of_memory",
                  "choose_bin_kib",
                  "count_out_of_memory",
                  "detail_out_of_memory",
                  "fit_plan",
                  "histogram",
                  "histogram_if_known",
                  "known_out_of_memory_tiles",
                  "largest",
                  "max_excluding_gaps",
                  "max_including_gaps",
                  "out_of_memory",
                  "out_of_memory_count",
                  "partial_reason",
                  "per_ipu",
                  "summarize",
                  "summarize_all",
                  "tile_breakdown",
                  "top_tile_ids",
                  "top_tiles",
                  "total_excluding_gaps",
                  "total_including_gaps",
                  "variable_items",
                  "variable_plans",
]
