"""A stand-in for Graphcore's libpva ``pva`` module: the attribute paths public code reads, nothing more.

No Poplar SDK can be installed here, so memreport's libpva bridge is tested
against this module, injected as ``sys.modules["pva"]``. It spells every
attribute as Graphcore's own code does (research notes, issue 13 §1), mixed
case included: ``target.tilesPerIpu`` but ``target.bytesPerIPU`` and
``target.numIPUs``; ``category.constant`` (singular); per-region category
parts with ``nonOverlapped``/``overlapped`` (the C++ API's shape) unless
``totals_only``; enums whose members have a ``.name``.
"""
from __future__ import annotations

import enum
import types
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any


class TargetType(enum.Enum):
    Ipu = 0
    IpuModel = 1
    Cpu = 2
    Unknown = 3


class Architecture(enum.Enum):
    Ipu1 = 1
    Ipu2 = 2
    Ipu21 = 21


def fake_pva(*, excluding: Sequence[int], including: Sequence[int],
             categories: Mapping[str, Mapping[str, Sequence[int]]] | None = None,
             always_live: Sequence[int] | None = None, not_always_live: Sequence[int] | None = None,
             steps: Sequence[tuple[str, int]] | None = None, num_tiles: int | None = None,
             step_variables: Mapping[int, Sequence[tuple[str, int]]] | None = None,
             tiles_per_ipu: int = 4, num_ipus: int = 1, bytes_per_tile: int = 638_976,
             architecture: str | None = "Ipu2", target_type: str = "Ipu", clock_hz: float = 1.33e9,
             totals_only: bool = False, replicas: int = 1, open_error: str | None = None,
             opened: list[str] | None = None) -> types.ModuleType:
    """A module with ``openReport`` returning a report of these tiles.

    ``categories`` maps a category to ``{"nonInterleaved": [...], "interleaved": [...], "overflowed": [...],
    "nonInterleaved.overlapped": [...]}`` (any subset); ``totals_only`` gives each category only ``.total``
    (their sum), as the Python API's public users read it. ``opened`` collects the paths opened.
    ``step_variables`` gives step ``i``'s ``notAlwaysLiveMemory.variables`` as (name, size) pairs.
    """
    n = len(excluding)
    tiles = []
    for t in range(n):
        category = SimpleNamespace()
        for name, parts in (categories or {}).items():
            if totals_only:
                setattr(category, name, SimpleNamespace(total=sum(int(v[t]) for v in parts.values())))
                continue
            regions = {}
            for region in ("nonInterleaved", "interleaved", "overflowed"):
                if region in parts:
                    part = SimpleNamespace(nonOverlapped=int(parts[region][t]))
                    if f"{region}.overlapped" in parts:
                        part.overlapped = int(parts[f"{region}.overlapped"][t])
                    regions[region] = part
            total = sum(int(v[t]) for k, v in parts.items())
            setattr(category, name, SimpleNamespace(total=total, **regions))
        total = SimpleNamespace(excludingGaps=int(excluding[t]), includingGaps=int(including[t]))
        memory = SimpleNamespace(total=total, category=category)
        if always_live is not None:
            memory.alwaysLiveBytes = int(always_live[t])
        if not_always_live is not None:
            memory.notAlwaysLiveBytes = int(not_always_live[t])
        over = sum(int(parts["overflowed"][t]) for parts in (categories or {}).values() if "overflowed" in parts)
        memory.overflowed = SimpleNamespace(excludingGaps=over, includingGaps=over)
        tiles.append(SimpleNamespace(memory=memory))
    target = SimpleNamespace(
        numTiles=n if num_tiles is None else num_tiles, tilesPerIpu=tiles_per_ipu, numIPUs=num_ipus,
        bytesPerTile=bytes_per_tile, bytesPerIPU=bytes_per_tile * tiles_per_ipu,
        totalMemory=bytes_per_tile * n, clockFrequency=clock_hz, numReplicas=replicas,
        ipusPerReplica=num_ipus // replicas, tilesPerReplica=n // replicas,
        memoryPerReplica=bytes_per_tile * n // replicas, type=TargetType[target_type],
        architecture=None if architecture is None else Architecture[architecture])
    live = step_variables or {}
    liveness = [SimpleNamespace(notAlwaysLiveMemory=SimpleNamespace(bytes=b, variables=[
                    SimpleNamespace(name=v, size=size) for v, size in live.get(i, ())]),
                                program=SimpleNamespace(name=name, type="OnTileExecute", _id=i))
                for i, (name, b) in enumerate(steps or [])]
    compilation = SimpleNamespace(target=target, tiles=tiles, livenessProgramSteps=liveness,
                                  graph=SimpleNamespace(numComputeSets=12, numVertices=340),
                                  ipus=[SimpleNamespace(tiles=tiles[i:i + tiles_per_ipu])
                                        for i in range(0, n, tiles_per_ipu)])
    report = SimpleNamespace(compilation=compilation, poplarVersion=SimpleNamespace(string="3.4.0 (deadbeef)"),
                             version=SimpleNamespace(major=1, minor=2, point=0, isUnstableFormat=False))

    def open_report(path: str, *args: Any) -> Any:
        if opened is not None:
            opened.append(path)
        if open_error is not None:
            raise RuntimeError(open_error)
        return report

    module = types.ModuleType("pva")
    module.openReport = open_report  # type: ignore[attr-defined]
    module.Target = SimpleNamespace(Type=TargetType)  # type: ignore[attr-defined]
    module.IPU = SimpleNamespace(Architecture=Architecture)  # type: ignore[attr-defined]
    return module
