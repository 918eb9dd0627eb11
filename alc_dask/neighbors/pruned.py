"""The k nearest rows of a large block by Gower distance, reading only the rows that may be among
them: the scan's answer (`alc_dask.neighbors.kernel.k_nearest_rows`) to the last bit, in a fraction
of its time when the rows are alike in places, as people are.

The block is sorted so that alike rows are neighbours and cut into blocks of `BLOCK` rows, each
with its columns' bounds, and into groups of `GROUP` blocks with theirs
(`alc_dask.neighbors.row_blocks`). A query first reads the block where its own row would sort,
then every group and block whose bound is not above the k-th distance it holds. A bound adds up, in
the order a distance is added up, what the bounds force on each column: a categorical code outside
the range mismatches every row; a continuous value outside the range of the present values is at
least as far as the nearer end, placed on the query's scale by the operations that place a row's
value. Each operation rounds monotonically, so a bound is at most the distance the scan computes
for any row under it, and a skipped block holds no row the scan would keep. Rows at an equal
distance are ordered by row number, as the scan orders them.

Where the bounds fail (columns of independent values: no row is much like another), the queries
left go to the scan once the rows read pass `MOST_READ` of the scan's. A large block is sorted
`PIECE` rows at a time, so that its sorted copy stays small; the pieces' k nearest are combined as
the parts' are. Measured on `check`'s generated people (1e6 rows, 14 columns, 4 000 to 40 000
queries): 0.4% of the rows read, 2 to 6.6 times faster than the scan; on independent uniform
columns, 0.8 times (the sorting, then the scan).
"""

from __future__ import annotations

import numpy as np

from alc_dask.neighbors.kernel import GROUP, k_nearest_rows, k_nearest_sorted, merged_k_nearest
from alc_dask.neighbors.query import Query
from alc_dask.neighbors.row_blocks import BLOCK, BlockBounds, SortedRows

PRUNE_FROM = 1 << 16
PRUNE_QUERIES = 1 << 10
"""Rows of a block and queries from which a search is pruned: sorting a row costs what a scan pays
for a row and about 250 queries."""
MOST_READ = 0.1
"""The share of a scan's rows past which the pruned search gives its remaining queries to the scan:
reading a row through the bounds costs about five times what the scan pays (columns of independent
uniform values, where 41% of the rows were read, took twice the scan's time)."""
PIECE = 1 << 20
"""Rows sorted together: a sorted copy of a million rows of ten columns is about 50 MiB."""


def worth_pruning(n_queries: int, n_rows: int) -> bool:
    """Whether a search of ``n_queries`` in a block of ``n_rows`` is pruned."""
    return n_rows >= PRUNE_FROM and n_queries >= PRUNE_QUERIES


def k_nearest_pruned(query: Query, codes: np.ndarray, values: np.ndarray, k: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """As `k_nearest_rows(*query.arguments(), codes, values, query.cat_columns, query.cont_columns,
    k, offset)`: per query the k smallest distances and their rows, sorted by (distance, row)."""
    searched_codes, searched_values = codes[query.cat_columns], values[query.cont_columns]
    n_rows = codes.shape[1] if codes.shape[0] else values.shape[1]
    parts = [_piece(query, searched_codes[:, s : s + PIECE], searched_values[:, s : s + PIECE], k, offset + s) for s in range(0, n_rows, PIECE)]
    return merged_k_nearest(*parts) if len(parts) > 1 else parts[0]


def _piece(query: Query, codes: np.ndarray, values: np.ndarray, k: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest among ``codes`` and ``values`` (the searched columns only, in the query's order)."""
    with np.errstate(over="ignore", invalid="ignore"):  # values near ±1.8e308 overflow their levels: the order alone changes
        rows = SortedRows.of(codes, values, _disagreement(codes))
        raw = query.low / query.scale  # the queries' own values: a k-nearest search centres their scales on them
        query_keys = rows.key_of.keys(query.codes.T, raw.T)
        sorted_keys = rows.key_of.keys(rows.codes, rows.values)
    in_turn = np.argsort(query_keys)  # alike queries pass together
    start_block = np.minimum(np.searchsorted(sorted_keys, query_keys) // BLOCK, (sorted_keys.size - 1) // BLOCK)
    bounds = BlockBounds.of(rows.codes, rows.values)
    layout = (rows.codes, rows.values, rows.rows, bounds, _grouped(bounds), start_block, in_turn)
    nearest, found, answered = k_nearest_sorted(*query.arguments(), *layout, k, offset, MOST_READ)
    rest = in_turn[answered:]
    if rest.size:  # the bounds fail on these rows: the scan is faster
        asked = [np.ascontiguousarray(a[rest]) for a in query.arguments()]
        every = np.arange(codes.shape[0], dtype=np.int64), np.arange(values.shape[0], dtype=np.int64)
        nearest[rest], found[rest] = k_nearest_rows(*asked, np.ascontiguousarray(codes), np.ascontiguousarray(values), *every, k, offset)
    return nearest, found


def _disagreement(codes: np.ndarray) -> np.ndarray:
    """Per column, the chance that two rows drawn at random disagree on it: the columns that tell
    rows apart most lead the sort."""
    shares = []
    for column in codes:
        p = np.bincount(column.astype(np.int64) - int(column.min())) / column.size
        shares.append(1.0 - float(p @ p))
    return np.array(shares, dtype=np.float64)


def _grouped(bounds: BlockBounds) -> BlockBounds:
    """The bounds of each `GROUP` consecutive blocks."""
    starts = np.arange(0, bounds.code_low.shape[0], GROUP)
    return BlockBounds(
        np.minimum.reduceat(bounds.code_low, starts, axis=0),
        np.maximum.reduceat(bounds.code_high, starts, axis=0),
        np.minimum.reduceat(bounds.place_low, starts, axis=0),
        np.maximum.reduceat(bounds.place_high, starts, axis=0),
        np.logical_or.reduceat(bounds.place_missing, starts, axis=0),
    )
