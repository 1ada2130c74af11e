"""Not-always-live memory by program step, where a profile holds it (docs/FORMATS.md §2).

A JSON graph profile of SDK 2.1 may hold ``memory.liveness.notAlwaysLive.byProgram``:
a tree of ``{"bytes": N, "children": [...]}``, one node per program; libpva
gives a flat list of ``livenessProgramSteps``, each with its program's name
and ``notAlwaysLiveMemory.bytes``. Both land here, as a tree whose leaves
are the steps. Bytes are the whole program's (every tile), per replica.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

# Per-tile liveness columns of a report's breakdown (not counted in the tile's bytes: another view of them).
ALWAYS_LIVE = "liveness.alwaysLive"              # JSON memory.liveness.alwaysLive.bytesByTile; libpva alwaysLiveBytes
NOT_ALWAYS_LIVE_MAX = "liveness.notAlwaysLiveMax"  # JSON memory.liveness.notAlwaysLive.maxBytesByTile
NOT_ALWAYS_LIVE = "liveness.notAlwaysLive"        # libpva tile.memory.notAlwaysLiveBytes


@dataclass(frozen=True)
class ProgramLiveness:
    """Not-always-live bytes at one program step (``name`` None where the source gives none).

    ``variables`` are the (name, bytes) the source says are live at the step:
    libpva's ``notAlwaysLiveMemory.variables``, read for the peak step only
    (the first with the most bytes); None where they were not read or the
    source names none (a JSON profile's ``byProgram`` tree names none).
    """

    bytes: int
    name: str | None = None
    children: tuple[ProgramLiveness, ...] = ()
    variables: tuple[tuple[str, int], ...] | None = None

    def __post_init__(self) -> None:
        if self.bytes < 0:
            raise ValueError("not-always-live bytes must be >= 0")
        if self.variables is not None and any(size < 0 for _, size in self.variables):
            raise ValueError("a live variable's bytes must be >= 0")


def walk(steps: tuple[ProgramLiveness, ...]) -> Iterator[tuple[str, ProgramLiveness]]:
    """Every step in order (depth first), with its path: "3" for the fourth top-level step, "3.0" its first child."""
    stack = [(str(i), step) for i, step in reversed(list(enumerate(steps)))]
    while stack:
        path, step = stack.pop()
        yield path, step
        stack.extend((f"{path}.{i}", child) for i, child in reversed(list(enumerate(step.children))))
