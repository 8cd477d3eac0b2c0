"""Containment tests between spans in O(log n) each, for the passes that compare every span
with every other one (which made a report of thousands of mentions quadratic).

Offsets are ``[start, end)`` of one source text. Both structures answer exactly what the pairwise
scans they replace answered, including their rule that a span never contains its own offsets
(another span with the same ``(start, end)`` is neither inside nor around it).
"""

import bisect
from collections.abc import Sequence


class Containment:
    """A fixed set of ``(start, end, extent)`` intervals (``extent >= end``: where the name as
    written ends): is a span inside one of them, does it contain one of them."""

    def __init__(self, intervals: Sequence[tuple[int, int, int]]) -> None:
        ordered = sorted(intervals)
        self._starts = [start for start, _, _ in ordered]
        self._ordered = ordered
        self._max_extent: list[int] = []
        for _, _, extent in ordered:
            self._max_extent.append(max(extent, self._max_extent[-1] if self._max_extent else -1))
        self._min_end = [0] * len(ordered)
        lowest = None
        for index in range(len(ordered) - 1, -1, -1):
            end = ordered[index][1]
            lowest = end if lowest is None else min(lowest, end)
            self._min_end[index] = lowest

    def _same_start(self, start: int) -> list[tuple[int, int, int]]:
        low = bisect.bisect_left(self._starts, start)
        high = bisect.bisect_right(self._starts, start)
        return self._ordered[low:high]

    def inside(self, start: int, end: int) -> bool:
        """Some other interval has ``other.start <= start and end <= other.extent``."""
        before = bisect.bisect_left(self._starts, start)
        if before > 0 and self._max_extent[before - 1] >= end:
            return True
        return any(e != end and x >= end for _, e, x in self._same_start(start))

    def around(self, start: int, end: int) -> bool:
        """Some other interval has ``start <= other.start and other.end <= end``."""
        after = bisect.bisect_right(self._starts, start)
        if after < len(self._starts) and self._min_end[after] <= end:
            return True
        return any(e < end for _, e, _ in self._same_start(start))


class GrowingContainment:
    """Intervals added one by one (all starts known in advance): is a span inside one added so
    far. A Fenwick tree of the largest end by start."""

    def __init__(self, starts: Sequence[int]) -> None:
        self._starts = sorted(set(starts))
        self._tree = [-1] * (len(self._starts) + 1)
        self._end_at: dict[int, int] = {}

    def add(self, start: int, end: int) -> None:
        """Add ``[start, end)`` (``start`` must be one of the starts given)."""
        self._end_at[start] = max(end, self._end_at.get(start, -1))
        index = bisect.bisect_left(self._starts, start) + 1
        while index < len(self._tree):
            self._tree[index] = max(self._tree[index], end)
            index += index & -index

    def inside(self, start: int, end: int) -> bool:
        """Some added interval other than ``[start, end)`` itself has ``k.start <= start`` and
        ``end <= k.end``."""
        if self._end_at.get(start, -1) > end:
            return True
        index = bisect.bisect_left(self._starts, start)  # the starts strictly before
        largest = -1
        while index > 0:
            largest = max(largest, self._tree[index])
            index -= index & -index
        return largest >= end
