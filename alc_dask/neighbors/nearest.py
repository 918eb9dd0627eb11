"""The k nearest rows of a table to each of a batch of queries, by Gower distance.

The distance is Gower's as Anonymeter's `MixedTypeKNeighbors` defines it (Giomi et al. 2023; the
formula and the missing-value rule in `alc_dask.neighbors.kernel`, the range over the candidate
table and the batch of queries in `alc_dask.neighbors.query`). Anonymeter differs in three points:
it reports the sum over columns without dividing by their number (the same order); its
`gower_distance` counts two missing continuous values as a mismatch, makes the distance NaN where one
is missing, and its label encoding makes a missing categorical value a category that matches itself;
its `argsort` leaves the order of equal distances unspecified, here they are ordered by row index.

Blocks' top-k lists are merged by (distance, row index); rows are numbered by their index in the
whole table everywhere, so the answer is the same for one partition or a thousand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from alc_dask.data import EncodedTable
from alc_dask.data.partitioned import PartitionedTable
from alc_dask.neighbors.kernel import k_nearest_rows, merged_k_nearest
from alc_dask.neighbors.partitioned import SPLIT_EVERY, search_tables
from alc_dask.neighbors.pruned import k_nearest_pruned, worth_pruning
from alc_dask.neighbors.query import Query, centred_on_queries


@dataclass(frozen=True, eq=False)
class KNearestSearch:
    """Queries laid out for the candidate table's searched columns, and how many rows to keep."""

    query: Query
    k: int

    @classmethod
    def of(cls, queries: EncodedTable, candidates: EncodedTable | PartitionedTable, columns: Sequence[str], k: int) -> KNearestSearch:
        """`queries` laid out for `candidates` over `columns` (in that order), each in both tables with the same kind."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if not columns:
            raise ValueError("k_nearest needs at least one column")
        categorical = [c for c in columns if c in candidates.categorical and c in queries.categorical]
        continuous = [c for c in columns if c in candidates.continuous and c in queries.continuous]
        unusable = [c for c in columns if c not in categorical + continuous]
        if unusable:
            raise ValueError(f"columns {unusable} are not in both tables with the same kind")
        return cls(centred_on_queries(queries, candidates, categorical, continuous), k)

    def block(self, block: EncodedTable, start: int) -> tuple[np.ndarray, np.ndarray]:
        q = self.query
        if worth_pruning(len(q.codes), block.n_rows):
            return k_nearest_pruned(q, block.codes, block.values, self.k, start)
        return k_nearest_rows(*q.arguments(), block.codes, block.values, q.cat_columns, q.cont_columns, self.k, start)

    combine = staticmethod(merged_k_nearest)


def k_nearest(
    queries: EncodedTable,
    candidates: EncodedTable | PartitionedTable,
    columns: Sequence[str],
    k: int,
    split_every: int = SPLIT_EVERY,
    shared_as: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The `k` candidate rows nearest to each query over `columns`: distances (q, k) float64 and row
    indices (q, k) int64 into `candidates`, sorted by distance, equal distances by lower index.

    With fewer than `k` candidate rows, the missing neighbours are index -1 at distance inf. An
    `EncodedTable` is searched in process; a `PartitionedTable` through Dask (see
    `alc_dask.neighbors.partitioned`), on the cluster holding its blocks. `shared_as` names
    the queries (the caller vouches that the same name means the same queries): evaluations running
    the search at the same time on a cluster then get it computed once.
    """
    search = KNearestSearch.of(queries, candidates, columns, k)
    shared = None if shared_as is None else (shared_as, tuple(columns), k)
    return search_tables([(candidates, search)], split_every, shared)[0]


@dataclass(frozen=True, eq=False)
class ShuffledTable:
    """A table searched with its rows in a seeded random order, so rows at equal distance rank at
    random (yet reproducibly) instead of by row number; indices come back in the table's own numbering.

    Rows equal on the searched columns are at equal distance from every query, so only the first
    ``k`` of them in the shuffled order can be among a query's ``k`` nearest: the search reads
    those alone, and each distinct query once. The answer is the one the whole table gives."""

    table: EncodedTable
    order: np.ndarray

    @classmethod
    def of(cls, table: EncodedTable, rng: np.random.Generator) -> ShuffledTable:
        return cls(table, rng.permutation(table.n_rows))

    def k_nearest(self, queries: EncodedTable, columns: Sequence[str], k: int) -> np.ndarray:
        """Indices (q, k) of the k nearest rows, -1 where the table has fewer than k."""
        from alc_dask.neighbors.distinct import distinct_rows  # Numba: loaded with the search

        shuffled = _matrix(self.table, columns, self.order)
        positions, _ = distinct_rows(shuffled, keep=k)  # in the shuffled order, increasing
        rows = self.order[positions]
        unique, first_of = distinct_rows(_matrix(queries, columns))
        _, found = k_nearest(_searched(queries, columns, unique), _searched(self.table, columns, rows), columns, k)
        found = np.where(found >= 0, rows[np.maximum(found, 0)], -1)
        query_of = np.empty(queries.n_rows, dtype=np.int64)
        query_of[unique] = np.arange(len(unique))
        return found[query_of[first_of]]


def _matrix(table: EncodedTable, columns: Sequence[str], rows: np.ndarray | None = None) -> np.ndarray:
    """(len(columns), n) float64: the columns' codes or values, of ``rows`` (default: all) in that order."""
    matrix = np.empty((len(columns), table.n_rows if rows is None else len(rows)), dtype=np.float64)
    for j, name in enumerate(columns):
        column = table.column_array(name)
        matrix[j] = column if rows is None else column[rows]
    return matrix


def _searched(table: EncodedTable, columns: Sequence[str], rows: np.ndarray) -> EncodedTable:
    """``rows`` of ``table`` (in that order) over the searched ``columns`` alone; the continuous
    columns' min and max stay the whole table's, so distances are scaled as on the whole table."""
    categorical = tuple(c for c in table.categorical if c in columns)
    continuous = tuple(c for c in table.continuous if c in columns)
    cat = [table.categorical.index(c) for c in categorical]
    cont = [table.continuous.index(c) for c in continuous]
    return EncodedTable(
        table.name,
        categorical,
        continuous,
        np.ascontiguousarray(table.codes[cat][:, rows]),  # the kernel is compiled for contiguous columns
        np.ascontiguousarray(table.values[cont][:, rows]),
        table.value_min[cont],
        table.value_max[cont],
    )
