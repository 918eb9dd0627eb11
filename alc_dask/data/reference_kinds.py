"""The column-kind rule of the reference package (anonymity-loss-coefficient 1.0.32), opt-in with
``kinds: reference`` in a job's release so that a comparison with it is like for like.

The reference makes every float column continuous, whatever its number of values (a continuous
secret is then scored on 20 equal-width bins), and an integer column continuous when it has at
least 50 distinct values, or from 10 to 49 distinct values that are dense in their range (at least
3 in 10 of the integers between the extremes) and shaped like a measurement: value counts
(in value order) that mostly rise or mostly fall, or with at most two peaks or two fifths of the
rows in the middle third of the values, or very dense values (more than 7 in 10, at least 15 of
them). Everything else is categorical. An integer column with missing values counts as float, as
pandas reads it. Differences from the reference: it counts distinct values after dropping every
row with a missing value in any column; here, in the column's own non-missing values.

This project's rule (``kinds: alc_dask``, the default; see ``schema.infer_kind``) makes a numeric
column categorical up to 20 distinct values: a 20-level code is a category, not a measurement,
and binning it into 20 equal-width bins leaves bins empty and merges levels.
"""

import numpy as np
import pandas as pd

from alc_dask.data.schema import ColumnKind

KINDS = ("alc_dask", "reference")
"""The rules a release may infer its column kinds by."""
FEWEST_CONTINUOUS = 10  # distinct integers below which a column is categorical
ALWAYS_CONTINUOUS = 50  # distinct integers from which a column is continuous


def reference_kind(original: pd.Series) -> ColumnKind:
    """The kind the reference gives the column holding ``original`` (its values in the original table, as read)."""
    if pd.api.types.is_bool_dtype(original) or not pd.api.types.is_numeric_dtype(original):
        return ColumnKind.CATEGORICAL
    if pd.api.types.is_float_dtype(original) or original.isna().any():
        return ColumnKind.CONTINUOUS
    return ColumnKind.CONTINUOUS if _integers_look_continuous(original.to_numpy()) else ColumnKind.CATEGORICAL


def _integers_look_continuous(values: np.ndarray) -> bool:
    distinct, counts = np.unique(values, return_counts=True)
    n = len(distinct)
    if n < FEWEST_CONTINUOUS:
        return False
    if n >= ALWAYS_CONTINUOUS:
        return True
    density = n / (float(distinct[-1]) - float(distinct[0]) + 1)
    if density < 0.3:
        return False
    return _mostly_monotonic(counts) or _few_peaks(counts) or (density > 0.7 and n >= 15)


def _mostly_monotonic(counts: np.ndarray) -> bool:
    """More than 70% of the steps between neighbouring counts do not rise, or do not fall."""
    steps = np.diff(counts)
    return max(np.mean(steps <= 0), np.mean(steps >= 0)) > 0.7


def _few_peaks(counts: np.ndarray) -> bool:
    """At most two strict local maxima, or more than 40% of the rows in the middle third."""
    inner = counts[1:-1]
    if np.sum((inner > counts[:-2]) & (inner > counts[2:])) <= 2:
        return True
    n = len(counts)
    return counts[n // 3 : 2 * n // 3].sum() / counts.sum() > 0.4
