"""The small records reports are made of check themselves, and sums never wrap (model/values.py)."""
from __future__ import annotations

import numpy as np
import pytest

from memreport.model import SummaryReport, Target


def test_out_of_memory_messages_and_positions_check_themselves():
    from memreport.model import Histogram, OutOfMemoryMessage, ReportPosition
    with pytest.raises(ValueError, match="kind must be one of"):
        OutOfMemoryMessage(kind="oops", line=1, text="")
    with pytest.raises(ValueError, match="bytes_used must be in"):
        OutOfMemoryMessage(kind="tile-memory", line=1, text="", bytes_used=2 ** 63)
    with pytest.raises(ValueError, match="report position"):
        ReportPosition(line=3, index=2, count=1)
    with pytest.raises(ValueError, match="elided_before"):
        Histogram(1, (), (1,))
    message = OutOfMemoryMessage(kind="tile-memory", line=1, text="", tile=9)
    with pytest.raises(ValueError, match="names tile 9, outside 0..7"):
        SummaryReport(source="s", format="poplar-text", target=Target(8), oom_messages=(message,))
    unknown = SummaryReport(source="s", format="oom-messages", target=Target(0), oom_messages=(message,))
    assert not unknown.num_tiles_known


# ---------------------------------------------------------------- sums past int64 (issue #16)

def test_exact_sum_does_not_wrap():
    from memreport.model import exact_sum
    assert exact_sum(np.array([2 ** 62, 2 ** 62], dtype=np.int64)) == 2 ** 63  # numpy's sum: -2**63
    assert exact_sum(np.array([2 ** 63 - 1] * 5 + [7], dtype=np.int64)) == 5 * (2 ** 63 - 1) + 7
    assert exact_sum(np.array([-2 ** 62, -2 ** 62, 3], dtype=np.int64)) == -2 ** 63 + 3
    assert exact_sum(np.array([1, 2, 3], dtype=np.uint8)) == 6
    assert exact_sum(np.zeros(0, dtype=np.int64)) == 0


def test_sums_by_bin_are_exact_or_an_overflow_error():
    from memreport.model import check_sums, sums_by
    index = np.array([0, 1, 1, 2])
    values = np.array([5, 2 ** 62, 2 ** 62 - 1, 2 ** 62], dtype=np.int64)
    assert sums_by(index, values, 4).tolist() == [5, 2 ** 63 - 1, 2 ** 62, 0]
    with pytest.raises(OverflowError, match=r"^tile 1 sum to 9,223,372,036,854,775,808: 2\*\*63 or more$"):
        sums_by(index, values + np.array([0, 0, 1, 0]), 4, "tile")
    check_sums(index, values, 4)  # fits: no error
