"""A trend's words: the answer first ("tile 40 first went over in build3"), each tile's history, the notes."""
from __future__ import annotations

from collections.abc import Sequence

from ...analysis.results import TileHistory, Trend, TrendBuild
from ...units import count
from .counts import count_tiles, partial_reason, reason
from .diffs import which_report
from .verdicts import Verdict

TILES_NAMED = 3  # tiles a sentence names before it counts the rest
GROUPS_NAMED = 3  # builds the verdict names tiles going over in


def _tile_list(tiles: Sequence[int]) -> str:
    """``tile 40``, ``tiles 17 and 1402``, ``tiles 5, 17 and 1402``, ``12 tiles (5, 17, 40, ...)``."""
    if len(tiles) == 1:
        return f"tile {tiles[0]}"
    if len(tiles) <= TILES_NAMED:
        return f"tiles {', '.join(map(str, tiles[:-1]))} and {tiles[-1]}"
    return f"{len(tiles):,} tiles ({', '.join(map(str, tiles[:TILES_NAMED]))}, ...)"


def cannot_say(trend: Trend, before: int) -> list[str]:
    """The builds before ``before`` that cannot say which tiles were out of memory (no per-tile status)."""
    return [b.label for b in trend.builds[:before] if b.over is None]


def _named(labels: Sequence[str]) -> str:
    shown = ", ".join(labels[:2]) + (f" and {len(labels) - 2:,} more" if len(labels) > 2 else "")
    return f"{shown} cannot say"


Group = tuple[int, bool, bool]  # first, first_certain, went_over: tiles with the same words


def went_over(trend: Trend, group: Group, tiles: Sequence[int]) -> str:
    """When some tiles first went over: ``tile 40 first went over in build3``; in the first build, that they
    already were; when a build before cannot say, that they may have been over earlier too (``build3 (maybe
    earlier too: build1 cannot say)``), or gone over earlier (``build3 or earlier``) when it is the build just
    before."""
    first, certain, went = group
    label, were = trend.builds[first].label, "was" if len(tiles) == 1 else "were"
    if first == 0:
        return f"{_tile_list(tiles)} {were} already out of memory in {label} (the first build)"
    if certain:
        return f"{_tile_list(tiles)} first went over in {label}"
    unknown = _named(cannot_say(trend, first))
    if went:
        return f"{_tile_list(tiles)} went over in {label} (maybe earlier too: {unknown})"
    return f"{_tile_list(tiles)} went over in {label} or earlier ({unknown})"


def _groups(trend: Trend) -> list[tuple[Group, list[int]]]:
    """The tiles out of memory in the last build grouped by when they first went over, the latest first."""
    groups: dict[Group, list[int]] = {}
    for tile, first, certain, went in zip(trend.tiles.tolist() if trend.tiles is not None else [],
                                          trend.first.tolist(), trend.first_certain.tolist(),
                                          trend.went_over.tolist()):
        groups.setdefault((first, certain, went), []).append(tile)
    return sorted(groups.items(), key=lambda g: -g[0][0])


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def worst_line(build: TrendBuild) -> str | None:
    """``Worst tile in pr: 1402, 788,976 B, 123.5% of 638,976 B: 150,000 B over`` (None when unknown)."""
    worst, per_tile, headroom = build.worst, build.figures.bytes_per_tile, build.headroom
    if worst is None:
        return None
    line = f"Worst tile in {build.label}: {worst.tile}, {worst.bytes:,} B"
    if per_tile and headroom is not None and build.share is not None:
        line += f", {100 * build.share:.1f}% of {per_tile:,} B: " + (
            f"{-headroom:,} B over" if headroom < 0 else f"{headroom:,} B free")
    return line


def _out_of_memory(build: TrendBuild) -> str:
    """``3 of 1,472 tiles out of memory in pr``."""
    c, tiles = build.count, build.figures.num_tiles
    figure = f"{c.count:,}" if c.count is not None else f"At least {c.at_least:,}"
    noun = "tile" if (c.count or c.at_least) == 1 and tiles is None else "tiles"
    return f"{figure}{f' of {tiles:,}' if tiles is not None else ''} {noun} out of memory in {build.label}"


def no_status(build: TrendBuild) -> str:
    """Why a build holds no per-tile status: what it is, or bytes per tile unknown."""
    figures = build.figures
    if figures.partial is not None:
        return partial_reason(figures.partial)
    return "bytes per tile unknown: give --tile-memory or --arch"


def trend_verdict(trend: Trend) -> Verdict:
    """The answer first: when the tiles out of memory in the last build went over (the latest first), how many
    are, and its worst tile; or that none is, and when tiles last were."""
    last = trend.last
    c = last.count
    lines = []
    if c.count == 0:
        level, headline = "ok", f"No tile out of memory in {last.label}"
        earlier = [b for b in trend.builds[:-1] if b.count.at_least]
        if earlier:
            lines.append(f"Last out of memory: {earlier[-1].label} ({count_tiles(earlier[-1].count)})")
    elif not c.known:
        level = "unknown"
        headline = f"Tiles out of memory in {last.label}: unknown" + (f" ({reason(c.reason)})" if c.reason else "")
    elif trend.tiles is None:
        level, headline = "oom", _out_of_memory(last)
        lines.append(f"Which tiles, and when each went over: unknown ({last.label}: {no_status(last)})")
    else:
        level = "oom"
        groups = _groups(trend)
        headline = _capital(went_over(trend, *groups[0]))
        rest = [went_over(trend, *group) for group in groups[1:GROUPS_NAMED]]
        more = sum(len(t) for _, t in groups[GROUPS_NAMED:])
        if more:
            rest.append(f"{count(more, 'more tile')} went over earlier")
        lines.append("; ".join([_out_of_memory(last), *rest]))
    worst = worst_line(last)
    if worst is not None:
        lines.append(worst)
    return Verdict(level, headline, tuple(lines), None)


def first_phrase(history: TileHistory, trend: Trend) -> str:
    """The build a tile first went over in: ``build3``; ``build3 or earlier`` when the build just before cannot say,
    ``build3 (maybe earlier too)`` when an earlier one cannot (it may have been over then as well)."""
    label = trend.builds[history.first].label
    if history.first_certain:
        return label
    return f"{label} (maybe earlier too)" if history.went_over else f"{label} or earlier"


def trend_notes(trend: Trend) -> tuple[str, ...]:
    """What a reader of a trend must know: which report of a file was taken, which builds hold no per-tile
    status (the tiles' histories are unknown there), counts that are bounds."""
    notes = []
    for b in trend.builds:
        s = b.figures
        if s.of_reports > 1 and s.name is not None:
            notes.append(f"{b.label}: {s.source} holds {s.of_reports} reports; the largest{which_report(s)} is the "
                         "build")
    blind = [b for b in trend.builds if b.over is None]
    if blind and trend.tiles is not None:
        for b in blind:
            notes.append(f"{b.label} holds no per-tile status ({no_status(b)}): which tiles were out of memory in "
                         "it is unknown")
    skipped = [b for b in trend.builds if b.unknown.size]
    for b in skipped:
        notes.append(f"{b.label} has {count(int(b.unknown.size), 'tile')} of unknown bytes (damaged members "
                     "skipped): their status there is unknown")
    return tuple(notes)
