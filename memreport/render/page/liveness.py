"""The liveness curve on the page: its data for ``js/liveness.mjs`` (bytes live at each step, the steps' paths and
names, the peak, the limit) and the words under it; a report's one curve, a diff's two on one axis."""
from __future__ import annotations

from typing import Any

from ...analysis import LivenessCurve
from ..words.liveness import live_at_peak, peak_phrase, what_is_live
from . import document as doc


def curve_data(curve: LivenessCurve, label: str = "") -> dict[str, Any]:
    """One curve (``contract.CURVE``); ``label`` names it where there are two (Old, New)."""
    return {"label": label, "live": curve.live.tolist(), "steps": list(curve.paths), "names": list(curve.names),
            "peak": curve.peak_index or 0, "limit": curve.limit,
            "description": f"{peak_phrase(curve)}; {live_at_peak(curve)}"}


def curve_html(sid: str, curves: list[tuple[str, LivenessCurve]]) -> str:
    """The chart's heading, canvas and the curves in words (readable with scripts off)."""
    if not curves:
        return ""
    said = "".join(f"<p class=hint>{doc.text((label + ': ') if label else '')}{doc.text(peak_phrase(c))}; "
                   f"{doc.text(live_at_peak(c))}</p>" for label, c in curves)
    what = what_is_live(curves[-1][1])
    return (f"<h3>Liveness over program steps</h3><p class=hint>Bytes live at each step: {doc.text(what)}. "
            "Hover for a step and its bytes.</p>"
            f"<canvas class=liveness id={sid}-liveness></canvas>{said}")
