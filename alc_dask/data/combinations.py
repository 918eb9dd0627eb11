"""Rows told apart by their combination of values in some columns, exactly: each column given as
ranks (dense codes 0..count-1), a row's ranks combine into one integer, equal for two rows exactly
when the rows are equal on every column. Sorting one integer per row replaces sorting the rows as
records (``np.lexsort``, ``DataFrame.duplicated``), several times faster, for the many combinations
of columns planning and the battery compare."""

from __future__ import annotations

import numpy as np

KEY_SPAN = 2**62
"""Combined ranks stay below this: an int64 with room to spare."""


def combined_ranks(ranked: list[tuple[np.ndarray, int]]) -> np.ndarray:
    """One integer per row from each column's (ranks, count of distinct values): the ranks as digits
    of mixed radix, the partial key ranked again when the next digit would overflow."""
    key, span = np.zeros(len(ranked[0][0]), dtype=np.int64), 1
    for ranks, count in ranked:
        if span * count >= KEY_SPAN:
            distinct, key = np.unique(key, return_inverse=True)
            key, span = key.reshape(-1).astype(np.int64), len(distinct)
        key, span = key * count + ranks, span * count
    return key


def alone(keys: np.ndarray) -> np.ndarray:
    """Per row (in sorted order), whether no other row has its key: sorted, equal keys are neighbours."""
    ordered = np.sort(keys)
    starts = np.ones(len(ordered) + 1, dtype=bool)  # where a run of equal keys starts; the last entry closes the last run
    starts[1:-1] = ordered[1:] != ordered[:-1]
    return starts[:-1] & starts[1:]
