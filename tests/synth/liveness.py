"""A profile's liveness as the model holds it: a four-tile report with always-live and not-always-live columns,
and a tree of program steps."""
from __future__ import annotations

import numpy as np

from memreport.model import ALWAYS_LIVE, NOT_ALWAYS_LIVE_MAX, Column, ProgramLiveness, Target, TileReport


def report(steps=None, liveness=True) -> TileReport:
    """Four tiles on two IPUs at 1,000 bytes each, with the liveness columns (``liveness``) and program ``steps``."""
    breakdown = {"variable": Column(np.array([100, 700, 50, 900])), "vertexCode": Column(np.array([400, 100, 50, 100]))}
    if liveness:
        breakdown[ALWAYS_LIVE] = Column(np.array([400, 100, 50, 100]), counted=False)
        breakdown[NOT_ALWAYS_LIVE_MAX] = Column(np.array([100, 700, 50, 900]), counted=False)
    return TileReport("p.json", "json-profile", Target(num_tiles=4, num_ipus=2, tiles_per_ipu=2, bytes_per_tile=1000),
                      excluding_gaps=np.array([500, 800, 100, 1000]), breakdown=breakdown,
                      breakdown_kind="category", liveness_steps=steps)


# Two steps: an unnamed one of 100 bytes holding "fwd" (900, the first peak) and an unnamed 40; "bwd", 900 again.
TREE = (ProgramLiveness(100, None, (ProgramLiveness(900, "fwd"), ProgramLiveness(40))), ProgramLiveness(900, "bwd"))
