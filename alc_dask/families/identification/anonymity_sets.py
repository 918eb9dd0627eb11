"""Anonymity sets of a table on quasi-identifier columns, measured at many population sizes in one
pass over its partitions (Rocher et al. 2025): correctness κ(n) (sets over records), uniqueness, and the
frequency profile of set sizes.

Nested random subsamples without a shuffle: each row gets a seeded random priority u in [0, 1) (a
hash of the seed, the repeat and its row number), and the subsample at level g holds the rows with
u below n_g / N, so the subsamples grow with g and hold about n_g rows each. A row's level is the
first that holds it. Per quasi-identifier value (a 64-bit hash of the row's quasi-identifiers;
collisions are negligible below ~1e8 distinct values) it is enough to know the two lowest levels
among its rows and its row count: the set exists at level g when the lowest is at most g, and is a
single record when the second lowest is above g. These merge associatively, so each partition is
summarised where it is held, summaries are split by hash into buckets, and each bucket is merged
by one task: memory per task is a bucket of distinct values, never the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import dask
import numpy as np
import pandas as pd

from alc_dask.data import EncodedTable
from alc_dask.data.partitioned import PartitionedTable, compute

NEVER = np.iinfo(np.int32).max
"""The second-lowest level of a value seen once: no level holds a second row."""


@dataclass(frozen=True)
class SetCurves:
    """Per repeat (rows) and level (columns): the records sampled, the sets among them and the sets
    of one record; and the frequency profile of the whole table (sizes, how many sets of each)."""

    levels: np.ndarray
    """The target sample size of each level (the last is every row)."""
    records: np.ndarray
    sets: np.ndarray
    singletons: np.ndarray
    profile_sizes: np.ndarray
    profile_counts: np.ndarray

    @property
    def correctness(self) -> np.ndarray:
        return self.sets / np.maximum(self.records, 1)

    @property
    def uniqueness(self) -> np.ndarray:
        return self.singletons / np.maximum(self.records, 1)

    def points(self, repeat: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(records, κ) of one repeat, or of every repeat pooled, at the levels that sampled someone."""
        rows = range(len(self.records)) if repeat is None else [repeat]
        sizes, kappa = np.concatenate([self.records[r] for r in rows]), np.concatenate([self.correctness[r] for r in rows])
        return sizes[sizes >= 1].astype(float), kappa[sizes >= 1]

    def k_violations(self, k: int) -> float:
        """Share of the table's records in sets of fewer than ``k``."""
        small = self.profile_sizes < k
        return float((self.profile_sizes[small] * self.profile_counts[small]).sum() / (self.profile_sizes * self.profile_counts).sum())


def geometric_levels(n_rows: int, count: int = 30) -> np.ndarray:
    """Sample sizes from 1 to ``n_rows``, evenly spaced in log, distinct."""
    return np.unique(np.round(np.geomspace(1, max(n_rows, 1), count)).astype(np.int64))


def anonymity_sets(table: EncodedTable | PartitionedTable, columns, seed: int = 0, repeats: int = 5, levels: int = 30, buckets: int = 16) -> SetCurves:
    """The curves of ``table`` on quasi-identifier ``columns``: one task per block and one per bucket."""
    if not columns:
        raise ValueError("quasi-identifiers: the set is empty")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"quasi-identifiers: {missing} are not columns of {table.name}; it has {list(table.columns)}")
    grid = geometric_levels(table.n_rows, levels)
    thresholds = grid / table.n_rows
    blocks, starts = (table.blocks, table.starts) if isinstance(table, PartitionedTable) else ((table,), (0,))
    summaries = [dask.delayed(_summarise, pure=False, nout=2)(b, tuple(columns), start, thresholds, seed, repeats, buckets) for b, start in zip(blocks, starts)]
    merged = [dask.delayed(_merge_bucket, pure=False)([s[0][b] for s in summaries], len(grid), repeats) for b in range(buckets)]
    sampled = dask.delayed(sum)([s[1] for s in summaries])
    results = compute(blocks, *merged, sampled)
    *per_bucket, records = results
    sets = sum(r[0] for r in per_bucket)
    singletons = sum(r[1] for r in per_bucket)
    profile = pd.concat([r[2] for r in per_bucket]).groupby(level=0).sum().sort_index()  # a set lives in one bucket
    return SetCurves(grid, np.cumsum(records, axis=1), sets, singletons, profile.index.to_numpy(), profile.to_numpy())


def _summarise(block: EncodedTable, columns: tuple[str, ...], start: int, thresholds: np.ndarray, seed: int, repeats: int, buckets: int):
    """Per bucket, per quasi-identifier hash: the row count and the two lowest levels in each
    repeat; and the rows entering each level, per repeat."""
    key = _row_hashes(block, columns)
    rows = np.arange(start, start + len(key), dtype=np.uint64)
    keys, counts = np.unique(key, return_counts=True)
    summary = {"key": keys, "rows": counts}
    entering = np.zeros((repeats, len(thresholds)), dtype=np.int64)
    for r in range(repeats):
        level = np.searchsorted(thresholds, _unit(rows, seed, r), side="right").astype(np.int32)
        entering[r] = np.bincount(level, minlength=len(thresholds))[: len(thresholds)]
        _, summary[f"a{r}"], summary[f"b{r}"] = _two_lowest(key, level)
    bucket = (keys % np.uint64(buckets)).astype(np.int64)
    return [{name: values[bucket == b] for name, values in summary.items()} for b in range(buckets)], entering


def _merge_bucket(pieces: list[dict], n_levels: int, repeats: int):
    """Sets and single-record sets per repeat and level, and the sizes profile, of one bucket."""
    key = np.concatenate([p["key"] for p in pieces])
    keys, inverse = np.unique(key, return_inverse=True)
    sizes = np.bincount(inverse, weights=np.concatenate([p["rows"] for p in pieces])).astype(np.int64)
    sets = np.zeros((repeats, n_levels), dtype=np.int64)
    singletons = np.zeros((repeats, n_levels), dtype=np.int64)
    for r in range(repeats):
        both = np.concatenate([np.concatenate([p[f"a{r}"] for p in pieces]), np.concatenate([p[f"b{r}"] for p in pieces])])
        _, first, second = _two_lowest(np.concatenate([key, key]), both)
        entered = np.bincount(first, minlength=n_levels)[:n_levels]
        seconds = np.bincount(np.minimum(second, n_levels), minlength=n_levels + 1)[:n_levels]
        sets[r], singletons[r] = np.cumsum(entered), np.cumsum(entered - seconds)
    profile_sizes, profile_counts = np.unique(sizes, return_counts=True)
    return sets, singletons, pd.Series(profile_counts, index=profile_sizes)


def _two_lowest(key: np.ndarray, level: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per distinct key (sorted): its lowest level and its second lowest (``NEVER`` if it has one row)."""
    order = np.lexsort((level, key))
    key, level = key[order], level[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.empty(0, dtype=np.int64)
    has_second = np.r_[starts[1:], len(key)] - starts > 1
    second = np.full(len(starts), NEVER, dtype=np.int32)
    second[has_second] = level[starts[has_second] + 1]
    return key[starts], level[starts].astype(np.int32), second


def _row_hashes(block: EncodedTable, columns: tuple[str, ...]) -> np.ndarray:
    frame = pd.DataFrame({c: block.column_array(c) for c in columns})
    return pd.util.hash_pandas_object(frame, index=False).to_numpy()


def _unit(rows: np.ndarray, seed: int, repeat: int) -> np.ndarray:
    """A SplitMix64 hash of (row, seed, repeat) as a float in [0, 1): the row's priority."""
    x = rows * np.uint64(0x9E3779B97F4A7C15) + np.uint64((seed * 1_000_003 + repeat) & 0xFFFFFFFFFFFFFFFF)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return (x >> np.uint64(11)).astype(np.float64) / float(2**53)
