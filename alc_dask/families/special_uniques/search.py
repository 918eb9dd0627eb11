"""Minimal sample uniques of every record of a table, found block by block without moving rows.

A record's combination on a subset S of the key variables is an MSU when it occurs once in the
table and its combination on every subset of S one variable smaller occurs more than once (a
unique combination stays unique on any superset, so checking the next smaller subsets suffices;
Manning, Haglin & Keane 2008, §2). Up to the maximum size this is exact with counts alone:

1. each block counts its rows per combination of every subset (and of all key variables, for the
   DIS), counts capped at 3 (only 1, 2 and more matter); the counts of blocks are summed in a tree;
2. each block then marks its rows whose combination counts 1, finds their MSUs, and summarises:
   MSUs per size, the distribution of SUDA scores, the records of highest score, the variables'
   shares of the score, and, against a release's counts, the records having an MSU that occurs
   exactly once in the release too (a *replicated* special unique).

Memory is the distinct combinations of each subset, never the rows; the summaries of blocks merge
exactly, so 1 and N blocks (and workers) give the same result.
"""

from __future__ import annotations

from dataclasses import dataclass

import dask
import numpy as np

from alc_dask.data import EncodedTable
from alc_dask.data.partitioned import SPLIT_EVERY, PartitionedTable
from alc_dask.families.special_uniques.keys import KeySpace

CAP = 3


@dataclass(frozen=True)
class Counts:
    """Per subset (and last, all key variables): the sorted keys of the table and their counts, capped at 3."""

    keys: list[np.ndarray]
    counts: list[np.ndarray]

    def unique(self, position: int) -> np.ndarray:
        """The sorted keys occurring once on subset ``position``."""
        return self.keys[position][self.counts[position] == 1]

    def full_profile(self) -> tuple[int, int]:
        """Records unique on all key variables, and records in pairs on them."""
        counts = self.counts[-1]
        return int((counts == 1).sum()), 2 * int((counts == 2).sum())


@dataclass(frozen=True)
class Summary:
    """What a table's special uniques come to, merged over its blocks."""

    n_rows: int
    msus_by_size: np.ndarray
    """MSUs found of each size 1..max_size."""
    score_values: np.ndarray
    score_counts: np.ndarray
    """The distinct SUDA scores (0 included) and how many records have each."""
    contributions: np.ndarray
    """Per key variable, the scores of the MSUs holding it, summed over records (sdcMicro's attribute contributions, before dividing by the total)."""
    top_rows: np.ndarray
    top_scores: np.ndarray
    """The records of highest score (rows of the table, ties by row), at most the number asked for."""
    replicated_rows: np.ndarray
    replicated_scores: np.ndarray
    """Records with an MSU whose combination occurs exactly once in the release (none when not compared)."""

    @property
    def n_special(self) -> int:
        return int(self.score_counts[self.score_values > 0].sum())


def blocks_of(table: EncodedTable | PartitionedTable) -> tuple[tuple, tuple[int, ...]]:
    return (table.blocks, table.starts) if isinstance(table, PartitionedTable) else ((table,), (0,))


def counts_of(table, space: KeySpace):
    """The delayed ``Counts`` of ``table``: one task per block, then a tree of merges."""
    blocks, _ = blocks_of(table)
    return _tree([dask.delayed(block_counts, pure=False)(b, space) for b in blocks], merge_counts)


def summary_of(table, space: KeySpace, counts, weights: np.ndarray, top: int, release_counts=None):
    """The delayed ``Summary`` of ``table`` given its ``counts`` (and a release's, to find replicated ones)."""
    blocks, starts = blocks_of(table)
    parts = [dask.delayed(block_summary, pure=False)(b, start, space, counts, weights, top, release_counts) for b, start in zip(blocks, starts)]
    return _tree(parts, lambda pieces: merge_summaries(pieces, top))


def _tree(parts: list, merge):
    while len(parts) > 1:
        parts = [dask.delayed(merge, pure=False)(parts[i : i + SPLIT_EVERY]) for i in range(0, len(parts), SPLIT_EVERY)]
    return dask.delayed(merge, pure=False)(parts) if parts else None


def _codes(block: EncodedTable, space: KeySpace) -> list[np.ndarray]:
    return [block.column_array(c) for c in space.columns]


def block_counts(block: EncodedTable, space: KeySpace) -> Counts:
    codes = _codes(block, space)
    keys, counts = [], []
    for subset in (*space.subsets, space.full):
        distinct, n = np.unique(space.keys(codes, subset), return_counts=True)
        keys.append(distinct)
        counts.append(np.minimum(n, CAP).astype(np.uint8))
    return Counts(keys, counts)


def merge_counts(pieces: list[Counts]) -> Counts:
    keys, counts = [], []
    for position in range(len(pieces[0].keys)):
        distinct, inverse = np.unique(np.concatenate([p.keys[position] for p in pieces]), return_inverse=True)
        summed = np.bincount(inverse, weights=np.concatenate([p.counts[position] for p in pieces]), minlength=len(distinct))
        keys.append(distinct)
        counts.append(np.minimum(summed, CAP).astype(np.uint8))
    return Counts(keys, counts)


def _member(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    if not len(sorted_keys):
        return np.zeros(len(keys), dtype=bool)
    found = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[found] == keys


def block_msus(block: EncodedTable, space: KeySpace, counts: Counts) -> tuple[np.ndarray, list[np.ndarray]]:
    """Per subset, which rows of ``block`` have it as an MSU (a boolean matrix, subsets by rows),
    and each subset's keys of the rows (for comparing with a release)."""
    codes = _codes(block, space)
    keys = [space.keys(codes, subset) for subset in space.subsets]
    unique = np.stack([_member(k, counts.unique(i)) for i, k in enumerate(keys)]) if keys else np.zeros((0, block.n_rows), dtype=bool)
    minimal = unique.copy()
    for position, smaller in enumerate(space.children()):
        for child in smaller:
            minimal[position] &= ~unique[child]
    return minimal, keys


def block_summary(block: EncodedTable, start: int, space: KeySpace, counts: Counts, weights: np.ndarray, top: int, release_counts: Counts | None) -> Summary:
    minimal, keys = block_msus(block, space, counts)
    sizes = np.array([len(s) for s in space.subsets])
    by_size = np.stack([minimal[sizes == k].sum(axis=0) for k in range(1, space.max_size + 1)], axis=1)
    scores = by_size @ weights
    contributions = np.zeros(len(space.columns))
    for position, subset in enumerate(space.subsets):
        contributions[list(subset)] += weights[len(subset) - 1] * minimal[position].sum()
    values, value_counts = np.unique(scores, return_counts=True)
    rows = np.arange(start, start + block.n_rows, dtype=np.int64)
    replicated = np.zeros(block.n_rows, dtype=bool)
    if release_counts is not None:
        for position, subset_keys in enumerate(keys):
            candidates = minimal[position] & ~replicated
            if candidates.any():
                replicated[candidates] = _member(subset_keys[candidates], release_counts.unique(position))
    order = np.lexsort((rows, -scores))[:top]
    order = order[scores[order] > 0]
    return Summary(block.n_rows, by_size.sum(axis=0), values, value_counts, contributions, rows[order], scores[order], rows[replicated], scores[replicated])


def merge_summaries(pieces: list[Summary], top: int) -> Summary:
    values, inverse = np.unique(np.concatenate([p.score_values for p in pieces]), return_inverse=True)
    value_counts = np.bincount(inverse, weights=np.concatenate([p.score_counts for p in pieces]), minlength=len(values)).astype(np.int64)
    top_rows = np.concatenate([p.top_rows for p in pieces])
    top_scores = np.concatenate([p.top_scores for p in pieces])
    best = np.lexsort((top_rows, -top_scores))[:top]
    replicated_rows = np.concatenate([p.replicated_rows for p in pieces])
    order = np.argsort(replicated_rows, kind="stable")
    return Summary(
        sum(p.n_rows for p in pieces),
        sum(p.msus_by_size for p in pieces),
        values,
        value_counts,
        sum(p.contributions for p in pieces),
        top_rows[best],
        top_scores[best],
        replicated_rows[order],
        np.concatenate([p.replicated_scores for p in pieces])[order],
    )
