"""A warning for a continuous column whose range a few extreme values dominate.

Distances divide a continuous column's differences by its range (Gower), so a few values far
from the rest (1e300 among ages, a sentinel 99999999) make every other difference nearly 0: the
column stops telling rows apart, and a release looks safer than it is. The rule: over every table
of the release, leave out the lowest and the highest 1% of the column's values (at least one at
each end); when what is left is not one value and spans less than 1/``RANGE_TO_SPREAD`` of the
whole range, the column is named in a warning.

The span is bounded from a histogram of ``BINS`` bins of the range that keeps each bin's lowest
and highest value, summed over the parts of a table held on a cluster as over a whole table; the
bound exceeds the span by at most two bins (1/5000 of the range), so the rule reads "about".
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from alc_dask.data.encoding import Bins
from alc_dask.data.errors import ReleaseWarning
from alc_dask.data.table import EncodedTable

RANGE_TO_SPREAD = 1000
"""A range wider than this many times the spread of the other values is dominated by extremes."""
TRIMMED = 0.01
"""The share of values left out at each end: the spread is that of the 1st to the 99th percentile."""
BINS = 10_000


@dataclass(frozen=True)
class _Histogram:
    counts: np.ndarray
    lowest: np.ndarray
    """Each bin's lowest value (+inf when empty)."""
    highest: np.ndarray

    def merge(self, other: _Histogram) -> _Histogram:
        return _Histogram(self.counts + other.counts, np.fmin(self.lowest, other.lowest), np.fmax(self.highest, other.highest))

    def central(self) -> tuple[float, float] | None:
        """Bounds of the values left once the lowest and highest 1% are left out (None: too few values)."""
        n = int(self.counts.sum())
        trimmed = max(1, int(n * TRIMMED))
        if n <= 2 * trimmed:
            return None
        cumulative = np.cumsum(self.counts)
        first, last = np.searchsorted(cumulative, [trimmed, n - 1 - trimmed], side="right")
        return float(self.lowest[first]), float(self.highest[last])


def warn_of_extremes(tables: list) -> None:
    """A ``ReleaseWarning`` per continuous column of ``tables`` (``EncodedTable``s or ``PartitionedTable``s
    of one release, the latter read where their parts are) whose range a few extreme values dominate."""
    ranges = _ranges(tables)
    for column, histogram in _histograms_of(tables, ranges).items():
        message = _dominated(column, histogram, *ranges[column])
        if message:
            warnings.warn(message, ReleaseWarning, stacklevel=3)


def _histograms_of(tables: list, ranges: dict) -> dict[str, _Histogram]:
    """Per column with a range, its histogram over every table (block by block for a table in parts)."""
    bins = {column: Bins(min(lows), max(highs), BINS) for column, (_, lows, highs) in ranges.items() if min(lows) < max(highs)}
    merged: dict[str, _Histogram] = {}
    for table in tables:
        held = {c: b for c, b in bins.items() if c in table.continuous}
        if not held:
            continue
        for block in [_histograms(table, held)] if isinstance(table, EncodedTable) else table.map_blocks(_histograms, held):
            for column, histogram in block.items():
                merged[column] = merged[column].merge(histogram) if column in merged else histogram
    return merged


def _dominated(column: str, histogram: _Histogram, names: list[str], lows: list[float], highs: list[float]) -> str | None:
    """The warning for ``column`` when a few extreme values dominate its range, else None."""
    central = histogram.central()
    low, high = min(lows), max(highs)
    if central is None or not central[0] < central[1] or not _halved(low, high) > RANGE_TO_SPREAD * _halved(*central):
        return None
    above = _halved(central[1], high) >= _halved(low, central[0])
    extreme, table = (high, names[highs.index(high)]) if above else (low, names[lows.index(low)])
    return (
        f"column {column!r}: a few extreme values (e.g. {extreme:.6g} in {table}) stretch its range, {low:.6g} to {high:.6g}, to more than "
        f"{RANGE_TO_SPREAD} times the span of the other values ({central[0]:.6g} to {central[1]:.6g}), so distances in it hardly tell "
        "those apart; check the extremes, or clip or transform the column"
    )


def _ranges(tables: list) -> dict[str, tuple[list[str], list[float], list[float]]]:
    """Per continuous column: the names, lowest and highest values of the tables holding values of it."""
    ranges: dict[str, tuple[list[str], list[float], list[float]]] = {}
    for table in tables:
        for j, column in enumerate(table.continuous):
            if not np.isnan(table.value_min[j]):
                names, lows, highs = ranges.setdefault(column, ([], [], []))
                names.append(table.name)
                lows.append(float(table.value_min[j]))
                highs.append(float(table.value_max[j]))
    return ranges


def _histograms(block: EncodedTable, bins: dict[str, Bins]) -> dict[str, _Histogram]:
    return {column: _histogram(block.column_array(column), column_bins) for column, column_bins in bins.items()}


def _histogram(values: np.ndarray, bins: Bins) -> _Histogram:
    present = ~np.isnan(values)
    codes, values = bins.encode(values)[present], values[present]
    lowest, highest = np.full(BINS, np.inf), np.full(BINS, -np.inf)
    np.minimum.at(lowest, codes, values)
    np.maximum.at(highest, codes, values)
    return _Histogram(np.bincount(codes, minlength=BINS), lowest, highest)


def _halved(low: float, high: float) -> float:
    """high - low, halved as ``Bins`` does, so that a range wider than the largest double still compares."""
    return high / 2 - low / 2
