"""Group-by counts of a table's key columns over its row blocks, combined by hash bucket: memory per
task is bounded by the distinct key combinations of a bucket, never by the rows.

A table is a list of delayed pandas frames of coded columns (``coded_block`` for a release's
encoded blocks, ``coded_frame`` for the partitions of a Dask DataFrame): every value an int64 or a
float64 code, a missing value a code of its own, so that equal values are equal codes in every
block and table. Each block is counted where it is held and its counts split by the hash of the
key; each bucket is merged by one task. Counts are integers summed in any order, so the result is
the same on any number of partitions and workers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from alc_dask.data.table import EncodedTable
from alc_dask.measure.disclosure import COUNT

MISSING = -1
"""The code of a missing value of a binned continuous column."""
MISSING_NUMBER = np.inf
"""A missing value of an unbinned number: ordered after every value."""
BUCKETS = 16


class BinsMissing(ValueError):
    """A continuous column was asked for as a key without declared bins."""

    def __init__(self, column: str):
        super().__init__(column)
        self.column = column


def bin_codes(values: np.ndarray, edges: Sequence[float]) -> np.ndarray:
    """Bins ``[e_i, e_{i+1})`` of ``values``: 0 below the first edge, ``len(edges)`` from the last
    on, ``MISSING`` for a missing value."""
    codes = np.searchsorted(np.asarray(edges, dtype=np.float64), values, side="right").astype(np.int64)
    codes[np.isnan(values)] = MISSING
    return codes


def coded_block(block: EncodedTable, columns: Sequence[str], bins: Mapping[str, Sequence[float]], start: int = 0) -> pd.DataFrame:
    """The ``columns`` of an encoded block as codes: categorical codes (missing is the last code),
    continuous values by their ``bins`` (else the numbers, missing ordered last), indexed by row."""
    coded = {}
    for name in columns:
        values = block.column_array(name)
        if name in block.categorical:
            coded[name] = values.astype(np.int64)
        elif name in bins:
            coded[name] = bin_codes(values, bins[name])
        else:
            coded[name] = np.where(np.isnan(values), MISSING_NUMBER, values)
    return pd.DataFrame(coded, index=pd.RangeIndex(start, start + block.n_rows))


def coded_frame(frame: pd.DataFrame, columns: Sequence[str], bins: Mapping[str, Sequence[float]], continuous: Sequence[str] = ()) -> pd.DataFrame:
    """The ``columns`` of a raw pandas partition as codes: binned numbers, unbinned numbers
    (missing ordered last), any other value as its 64-bit hash (missing a value of its own).
    ``continuous`` columns must have bins (``BinsMissing`` names the first that has none)."""
    coded = {}
    for name in columns:
        series = frame[name]
        if name in bins:
            coded[name] = bin_codes(series.to_numpy(dtype=np.float64, na_value=np.nan), bins[name])
        elif name in continuous:
            raise BinsMissing(name)
        elif pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
            coded[name] = np.nan_to_num(series.to_numpy(dtype=np.float64, na_value=np.nan), nan=MISSING_NUMBER, posinf=np.inf)
        else:
            coded[name] = pd.util.hash_array(series.astype(object).to_numpy()).view(np.int64)
    return pd.DataFrame(coded, index=frame.index)


def counted(frame: pd.DataFrame, by: Sequence[str], key: Sequence[str], buckets: int) -> list[pd.DataFrame]:
    """Rows per distinct ``by`` of one block, split into ``buckets`` by the hash of ``key``."""
    counts = frame.groupby(list(by), sort=False).size().rename(COUNT).reset_index()
    bucket = bucket_of(counts, key, buckets)
    return [counts[bucket == b].reset_index(drop=True) for b in range(buckets)]


def bucket_of(frame: pd.DataFrame, key: Sequence[str], buckets: int) -> np.ndarray:
    if frame.empty:
        return np.zeros(0, dtype=np.int64)
    return (pd.util.hash_pandas_object(frame[list(key)], index=False).to_numpy() % np.uint64(buckets)).astype(np.int64)


def merged(pieces: Sequence[pd.DataFrame], by: Sequence[str]) -> pd.DataFrame:
    """One bucket's counts from every block, summed per distinct ``by``, sorted (a stable order)."""
    whole = pd.concat(pieces, ignore_index=True)
    return whole.groupby(list(by), sort=True)[COUNT].sum().reset_index()


def bucket_counts(frames: Sequence, by: Sequence[str], key: Sequence[str], buckets: int = BUCKETS) -> list:
    """Delayed counts per bucket of a table given as delayed coded ``frames``."""
    import dask

    split = [dask.delayed(counted, pure=False, nout=buckets)(f, tuple(by), tuple(key), buckets) for f in frames]
    return [dask.delayed(merged, pure=False)([s[b] for s in split], tuple(by)) for b in range(buckets)]


def table_frames(table, columns: Sequence[str], bins: Mapping[str, Sequence[float]]) -> tuple[tuple, list]:
    """The blocks of a release table (an ``EncodedTable`` or a ``PartitionedTable``) and a delayed
    coded frame of each, indexed by the table's rows."""
    import dask

    blocks, starts = (table.blocks, table.starts) if hasattr(table, "blocks") else ((table,), (0,))
    return tuple(blocks), [dask.delayed(coded_block, pure=False)(b, tuple(columns), dict(bins), s) for b, s in zip(blocks, starts)]


def dataframe_frames(frame, columns: Sequence[str], bins: Mapping[str, Sequence[float]], continuous: Sequence[str] = ()) -> list:
    """A delayed coded frame of each partition of a Dask DataFrame."""
    import dask

    return [dask.delayed(coded_frame, pure=False)(part, tuple(columns), dict(bins), tuple(continuous)) for part in frame.to_delayed()]


def matching_rows(frame: pd.DataFrame, flagged: pd.DataFrame, limit: int) -> tuple[np.ndarray, int]:
    """The index labels (rows) of ``frame`` whose values on ``flagged``'s columns are a row of
    ``flagged``: the first ``limit`` of them, and how many there are."""
    if flagged.empty or frame.empty:
        return np.zeros(0, dtype=np.int64), 0
    on = list(flagged.columns)
    hits = frame[on].reset_index(names="__row").merge(flagged.drop_duplicates(), on=on, how="inner")["__row"].to_numpy(dtype=np.int64)
    hits = np.sort(hits)
    return hits[:limit], int(hits.size)


def rows_in(frames: Sequence, flagged, limit: int) -> list:
    """Delayed ``matching_rows`` of every frame against ``flagged`` (a frame or a delayed one)."""
    import dask

    return [dask.delayed(matching_rows, pure=False)(f, flagged, limit) for f in frames]


def first_rows(found: Sequence[tuple[np.ndarray, int]], limit: int) -> tuple[np.ndarray, int]:
    """The first ``limit`` rows over blocks, and the total count."""
    rows = np.sort(np.concatenate([f[0] for f in found])) if found else np.zeros(0, dtype=np.int64)
    return rows[:limit], int(sum(f[1] for f in found))
