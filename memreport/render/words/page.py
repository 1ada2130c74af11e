"""The page script's words: every label and sentence it shows, as templates whose ``{placeholders}`` it fills
with the numbers it formats (the script composes no sentence of its own). The same words as the other forms':
the out-of-memory phrase is :data:`.counts.OUT_OF_MEMORY`."""
from __future__ import annotations

from collections.abc import Mapping

from .counts import OUT_OF_MEMORY

# The words the script shows, by where it shows them: templates whose {placeholders} it fills with formatted
# numbers (and names from the data).
LABELS: Mapping[str, str] = {
    # numbers with their units
    "unknown": "unknown", "bytes": "{n} B", "kib": "{n} KiB", "mib": "{n} MiB", "percent": "{n}%", "seconds": "{n} s",
    "tiles_one": "{n} tile", "tiles_many": "{n} tiles",
    # the chart of every tile
    "fit_height": "Fit height", "to_tile_memory": "Tile memory",
    "tile_memory": "tile memory {size}", "tile_memory_above": "tile memory {size} ↑",
    "chart_view": "tiles {first}–{last} of {n}", "ipu": "IPU {ipu}", "no_tiles": "No tiles: this report has none.",
    "range_tiles": "tiles {first}–{last} ({n})", "range_largest": "largest {size} (tile {tile})",
    "range_smallest": "smallest {size}", "range_out_of_memory": "{n} out of memory",
    # a tile under the pointer
    "tip_tile": "tile {tile}", "tip_tile_ipu": "tile {tile} · IPU {ipu}",
    "tip_unknown": "bytes unknown (member skipped)",
    "tip_excluding": "{size} excluding gaps", "tip_excluding_share": "{size} excluding gaps ({share})",
    "tip_including": "{size} including gaps", "tip_out_of_memory": OUT_OF_MEMORY,
    "tip_out_of_memory_by": OUT_OF_MEMORY + " by {size}",
    # a tile's panel
    "panel_tile": "Tile {tile}", "panel_tile_ipu": "Tile {tile} (IPU {ipu})", "panel_named": "{title} · {name}",
    "panel_bytes": "Bytes", "panel_bytes_unknown": "unknown (its member was skipped)",
    "panel_excluding": "Excluding gaps", "panel_share": "{size} ({share} of {limit})",
    "panel_including": "Including gaps", "panel_out_of_memory": "Out of memory", "yes_by": "yes, by {size}",
    "yes": "yes", "no": "no", "not_counted": "{name} (not counted)", "regions": "Regions",
    "symbols": "Symbols", "symbols_of": "Symbols of {member}", "symbol": "Symbol", "section": "Section",
    "size": "Bytes", "more_symbols": "+{n} more symbols",
    "symbols_elsewhere": "Symbols were read for the top tiles and the tiles asked for only (run memreport with "
                         "--tile {tile}).",
    # a tile's fit plan, in its panel
    "fit_plan": "Fit plan", "item_class": "Class", "item_frees": "Frees",
    "more_plans": "The fit plans of {n} more tiles over are not on this page (--format json lists them).",
    # the liveness curve
    "liveness_step": "step {step}", "liveness_step_named": "step {step} ({name})", "liveness_live": "{size} live",
    "liveness_share": "{size} live ({share} of the IPU's memory)", "liveness_peak": "peak {size}",
    "liveness_limit": "IPU memory {size}", "liveness_series": "{label}: {text}",
    # the heat map
    "heat_all_tiles": "tiles 0–{last}", "heat_of_limit": "Colour: bytes excluding gaps as a share of tile memory "
                                                         "({size})",
    "heat_of_largest": "Colour: bytes excluding gaps as a share of the largest tile ({size})",
    "heat_out_of_memory": "out of memory", "heat_ringed": "out of memory (ringed: too small to see at this scale)",
    "heat_unknown": "unknown",
    # the By Tile histogram
    "bin": "{low} – {high} KiB", "bin_out_of_memory": "holds an out-of-memory tile",
    "bin_maybe": "out of memory: cannot say", "log_count": "Log count", "linear_count": "Linear count",
    "tile_memory_right": "tile memory {size} →", "tile_memory_left": "← tile memory {size}",
    # the diff
    "unchanged": "unchanged", "diff_change": "{old} → {new}", "newly_out_of_memory": "newly out of memory",
    "kind": "Kind", "name": "Name", "old": "Old", "new": "New", "change": "Change", "absent": "absent",
    "below_the_tile": "Below the tile", "diff_range": "tiles {first}–{last}",
    "diff_range_change": "largest change {largest}, smallest {smallest}", "most_changed": "most changed: tile {tile}",
    # the trend's charts
    "at_least": "at least {n}", "trend_limit_zero": "0 B: out of memory below",
    # the compiles timeline
    "with_cache": "{result}, cache {cache}", "duration_unknown": "duration unknown",
    # a part of the page the script could not draw
    "failed": "This part of the page could not be drawn ({error}); the rest of the page is unaffected.",
}
