"""Swap anonymization: a share of each column's values exchanged between random pairs of rows.

Used by the prior approach's baseline (Francis & Wagner 2025, §6) and to make test releases. Each
column is swapped independently, so rows keep realistic values while links between columns break.
"""

from dataclasses import replace

import numpy as np
import pandas as pd

from alc_dask.data import EncodedTable
from alc_dask.seeds import stream
from alc_dask.shown import shown


def _swap_pairs(n_rows: int, fraction: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Disjoint random row pairs covering ``fraction`` of the rows."""
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"swap fraction must lie in [0, 1]; got {shown(fraction)}")
    pairs = int(fraction * n_rows) // 2
    rows = rng.choice(n_rows, 2 * pairs, replace=False)
    return rows[:pairs], rows[pairs:]


def _swapped(column: np.ndarray, fraction: float, rng: np.random.Generator) -> np.ndarray:
    first, second = _swap_pairs(len(column), fraction, rng)
    out = column.copy()
    out[first], out[second] = column[second], column[first]
    return out


def swap_frame(frame: pd.DataFrame, fraction: float, seed: int = 0) -> pd.DataFrame:
    """A copy of ``frame`` with ``fraction`` of every column's values swapped between rows: the
    prior approach's weak release (Francis & Wagner 2025, §6), every marginal kept.

    Parameters
    ----------
    frame : pandas.DataFrame
    fraction : float
        The share of each column's values swapped, in [0, 1].
    seed : int, default 0

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from alc_dask.anonymize import swap_frame
    >>> from alc_dask.testing.truth import truth_releases
    >>> people = truth_releases(rows=500).members
    >>> swapped = swap_frame(people, 0.2)
    >>> round(float((swapped["age"] != people["age"]).mean()), 2)
    0.2
    >>> sorted(swapped["age"]) == sorted(people["age"])  # every marginal kept
    True
    """
    rng = stream(seed, "swap")
    return pd.DataFrame({c: _swapped(frame[c].to_numpy(), fraction, rng) for c in frame.columns}, index=frame.index)


def swap_encoded(table: EncodedTable, fraction: float, seed: int = 0) -> EncodedTable:
    """The same swapping on an encoded table (codes and continuous values alike): the prior
    baseline's stand-in release, made without decoding.

    Parameters
    ----------
    table : EncodedTable
    fraction : float
    seed : int, default 0

    Returns
    -------
    EncodedTable

    Examples
    --------
    >>> from alc_dask.anonymize import swap_encoded
    >>> from alc_dask.testing.truth import truth_releases
    >>> original = truth_releases(rows=500).release("copy").original
    >>> swapped = swap_encoded(original, 0.2)
    >>> swapped.n_rows, swapped.columns == original.columns
    (500, True)
    """
    rng = stream(seed, "swap")
    codes = np.stack([_swapped(c, fraction, rng) for c in table.codes]) if len(table.codes) else table.codes.copy()
    values = np.stack([_swapped(v, fraction, rng) for v in table.values]) if len(table.values) else table.values.copy()
    return replace(table, codes=codes, values=values)
