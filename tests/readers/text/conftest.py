"""What the text readers' tests share: the facts of a read summary that no layout may change."""
from __future__ import annotations

from dataclasses import replace


def facts(report):
    """What must survive any change of layout: target, printed figures, detailed tiles (not their scope label)."""
    details = tuple(replace(d, extra={k: v for k, v in d.extra.items() if k != "memory_scope"})
                    for d in report.detailed_tiles)
    return report.target, report.printed, details
