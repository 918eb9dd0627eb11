"""Rows of several tables as 64-bit keys that are equal where the rows are equal, value for value:
what "this row of the release is a row of the original" and "this control row is a row of the
original" are counted by.

Each column is coded once over all the tables (``pandas.factorize`` of their values together: a
value has one code in every table, a missing value one code of its own), and a row's codes are
hashed into its key column by column. Two different rows share a key with chance about 2**-64.
Coding the values, not printing them as text and hashing that, takes about a tenth of the time: a
table of 3 million rows and 15 columns had its numbers printed in 16 s.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

MIX = np.uint64(0x100000001B3)
"""The FNV prime: multiplies the key so far before a column's hash is added and the sum hashed."""


def row_keys(frames: Sequence[pd.DataFrame], columns: Sequence[str]) -> list[np.ndarray]:
    """Each frame's rows on ``columns`` as uint64 keys, comparable across ``frames``."""
    sizes = [len(frame) for frame in frames]
    keys = np.zeros(sum(sizes), dtype=np.uint64)
    for name in columns:
        codes, _ = pd.factorize(pd.concat([frame[name] for frame in frames], ignore_index=True))
        with np.errstate(over="ignore"):
            keys = pd.util.hash_array(keys * MIX + pd.util.hash_array(codes.astype(np.int64, copy=False)))
    return np.split(keys, np.cumsum(sizes)[:-1])
