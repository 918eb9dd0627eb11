"""k-nearest-rows search of a batch of queries over a table, whole or split into partitions.

The distance is Gower's, as Anonymeter's `MixedTypeKNeighbors` defines it (see
`alc_dask.nearest_kernel` for the formula and the missing-value rule): a continuous column's
difference is divided by its range over both the candidate table and the queries, as Anonymeter's
`mixed_types_transform` scales both tables together. The candidates' part of the range is the
table's recorded `value_min`/`value_max` (the whole table, whatever its partitions); the queries'
part is taken from the query rows themselves, since a slice of a table keeps the whole table's
min/max. The range so depends on the batch of queries, as in Anonymeter. Anonymeter itself reports
the sum over columns without dividing by their number (the same order), and its `argsort` leaves
the order of equal distances unspecified; here they are ordered by row index.

A partitioned table is searched with one Dask task per block, and the blocks' top-k lists are
merged by (distance, row index) in a tree. Rows are ordered by global index everywhere, so the
answer is the same for one partition or a thousand, in process or on a cluster.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import dask
import numpy as np
from dask.base import tokenize

from alc_dask.data import EncodedTable
from alc_dask.data.partitioned import SPLIT_EVERY, PartitionedTable, compute
from alc_dask.nearest_kernel import k_nearest_rows


@dataclass(frozen=True, eq=False)
class NearestQuery:
    """A batch of queries laid out for the kernel against one candidate table's columns."""

    codes: np.ndarray
    values: np.ndarray
    cat_columns: np.ndarray
    cont_columns: np.ndarray
    span: np.ndarray
    shrink: np.ndarray
    k: int


def k_nearest(
    queries: EncodedTable,
    candidates: EncodedTable | PartitionedTable,
    columns: Sequence[str],
    k: int,
    client=None,
    split_every: int = SPLIT_EVERY,
    shared_as: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The `k` candidate rows nearest to each query over `columns`: distances (q, k) float64 and row
    indices (q, k) int64 into `candidates`, sorted by distance, equal distances by lower index.

    With fewer than `k` candidate rows, the missing neighbours are index -1 at distance inf. An
    `EncodedTable` is searched in process; a `PartitionedTable` through Dask, one task per block,
    computed on `client` or on the default scheduler. `shared_as` names the queries (the caller
    vouches that the same name means the same queries): the search's tasks are then keyed by it and
    the table, so evaluations running it at the same time on a cluster get it computed once.
    """
    query = prepare_query(queries, candidates, columns, k)
    if isinstance(candidates, EncodedTable):
        return search_block(candidates, query, 0)
    if shared_as is None:
        shared = dask.delayed(query, pure=False)  # a block held on a worker is measured there, so it never moves
        parts = [dask.delayed(search_block, pure=False)(b, shared, start) for b, start in zip(candidates.blocks, candidates.starts, strict=True)]
    else:
        blocks = [getattr(b, "key", b) for b in candidates.blocks]  # a future by its key: the same in every process
        token = tokenize(shared_as, tuple(columns), k, candidates.name, candidates.starts, blocks)
        shared = dask.delayed(query, name=f"nearest-query-{token}")
        parts = [
            dask.delayed(search_block)(b, shared, start, dask_key_name=f"search_block-{token}-{i}")
            for i, (b, start) in enumerate(zip(candidates.blocks, candidates.starts, strict=True))
        ]
    result = _tree_reduce(parts, split_every)
    return client.compute(result, sync=True) if client is not None else compute(candidates.blocks, result)[0]


def prepare_query(queries: EncodedTable, candidates: EncodedTable | PartitionedTable, columns: Sequence[str], k: int) -> NearestQuery:
    """Lay out `queries` for `candidates` (`EncodedTable` or `PartitionedTable`), continuous columns
    scaled by their range over both."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not columns:
        raise ValueError("k_nearest needs at least one column")
    cat = [c for c in columns if c in candidates.categorical and c in queries.categorical]
    cont = [c for c in columns if c in candidates.continuous and c in queries.continuous]
    unusable = [c for c in columns if c not in cat + cont]
    if unusable:
        raise ValueError(f"columns {unusable} are not in both tables with the same kind")
    query_values = np.stack([queries.values[queries.continuous.index(c)] for c in cont], axis=1) if cont else np.empty((queries.n_rows, 0))
    high = np.fmax(np.fmax.reduce(query_values, axis=0, initial=np.nan), [candidates.value_max[candidates.continuous.index(c)] for c in cont])
    low = np.fmin(np.fmin.reduce(query_values, axis=0, initial=np.nan), [candidates.value_min[candidates.continuous.index(c)] for c in cont])
    span, shrink = _safe_span(low, high)
    codes = np.stack([queries.codes[queries.categorical.index(c)] for c in cat], axis=1) if cat else np.empty((queries.n_rows, 0), dtype=np.int32)
    return NearestQuery(
        codes=np.ascontiguousarray(codes),
        values=np.ascontiguousarray(query_values),
        cat_columns=np.array([candidates.categorical.index(c) for c in cat], dtype=np.int64),
        cont_columns=np.array([candidates.continuous.index(c) for c in cont], dtype=np.int64),
        span=span,
        shrink=shrink,
        k=k,
    )


def _safe_span(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`high - low`, both halved first where the difference overflows; 1 for a constant or empty
    column, where every present value is equal so every difference is 0."""
    with np.errstate(over="ignore", invalid="ignore"):
        shrink = np.where(np.isfinite(high - low) | np.isnan(high - low), 1.0, 0.5)
        span = high * shrink - low * shrink
    return np.where(np.isnan(span) | (span == 0), 1.0, span), shrink


def search_block(block: EncodedTable, query: NearestQuery, start: int) -> tuple[np.ndarray, np.ndarray]:
    """Run the kernel on one block whose first row is row `start` of the table."""
    return k_nearest_rows(query.codes, query.values, block.codes, block.values, query.cat_columns, query.cont_columns, query.span, query.shrink, query.k, start)


def merge_nearest(*parts: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest among several blocks' k nearest, sorted by (distance, row index); pads
    (inf, -1) stay last, as every real distance is finite."""
    distances = np.concatenate([d for d, _ in parts], axis=1)
    rows = np.concatenate([r for _, r in parts], axis=1)
    order = np.lexsort((rows, distances), axis=1)[:, : parts[0][0].shape[1]]
    return np.take_along_axis(distances, order, axis=1), np.take_along_axis(rows, order, axis=1)


def _tree_reduce(parts: list, split_every: int):
    while len(parts) > 1:
        parts = [dask.delayed(merge_nearest, pure=True)(*parts[i : i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


@dataclass(frozen=True, eq=False)
class ShuffledTable:
    """A table searched with its rows in a seeded random order, so rows at equal distance rank at
    random (yet reproducibly) instead of by row number; indices come back in the table's own numbering."""

    table: EncodedTable
    order: np.ndarray
    shuffled: EncodedTable

    @classmethod
    def of(cls, table: EncodedTable, rng: np.random.Generator) -> ShuffledTable:
        order = rng.permutation(table.n_rows)
        return cls(table, order, table.rows(order))

    def k_nearest(self, queries: EncodedTable, columns: Sequence[str], k: int) -> np.ndarray:
        """Indices (q, k) of the k nearest rows, -1 where the table has fewer than k."""
        _, found = k_nearest(queries, self.shuffled, columns, k)
        return np.where(found >= 0, self.order[np.maximum(found, 0)], -1)
