"""Numba kernels: minimum Gower distance of each query over a block of rows, and the histogram of
the secret's codes among the rows at that minimum.

Distances are kept as integer keys, `rint(d * 1000)`: `numpy.round(d, 3)` times 1000, so rows tie
exactly when their distances rounded to 3 decimals are equal, as in the reference. Each row's
distance is summed in a fixed column order (categorical columns, then continuous ones), so a row's
key does not depend on how the table is split into blocks.
"""

from __future__ import annotations

import numba
import numpy as np

NO_MATCH = np.iinfo(np.int32).max
"""Key of a query that met no row (an empty block)."""

_TILE = 2048
"""Rows per tile: a tile of every known column stays in the L2 cache while all queries pass over it."""

_ROUNDING_SLACK = 1e-9
"""Margin of the pre-filter before exact rounding; far above float error, far below 0.0005."""


@numba.njit(nogil=True, cache=True)
def best_match_histograms(
    query_codes, query_values, query_inv_range, codes, values, cat_columns, cont_columns,
    secret, n_secret_codes, n_known, missing_weight,
):
    """Per query, the minimum distance key and the histogram of `secret` at that minimum.

    query_codes (q, c) int32 and query_values (q, v) float64: the queries' known columns present in
    the block; query_inv_range (q, v): 1 / range per query and continuous column (1 when the query
    value is missing). codes (C, n) int32 and values (V, n) float64: the block, column by column;
    cat_columns (c,) and cont_columns (v,) pick its known columns. secret (n,) int32: the secret's
    code per row, below n_secret_codes. n_known: number of known columns of the scenario;
    missing_weight: 0.5 times the known columns absent from the block.

    Distance of a row: (sum over present known columns + missing_weight) / n_known, each column
    contributing categorical 0/1, continuous min(|x - y| * inv_range, 1), and for missing values
    0 when both are missing, 1 otherwise (NaN compares false, so a missing row value gives 1).
    """
    n_queries = query_codes.shape[0]
    n_rows = secret.shape[0]
    best = np.full(n_queries, NO_MATCH, dtype=np.int32)
    histogram = np.zeros((n_queries, n_secret_codes), dtype=np.int32)
    total = np.empty(_TILE, dtype=np.float64)
    for start in range(0, n_rows, _TILE):
        width = min(_TILE, n_rows - start)
        for q in range(n_queries):
            total[:width] = 0.0
            for j in range(cat_columns.shape[0]):
                column = codes[cat_columns[j], start : start + width]
                code = query_codes[q, j]
                for r in range(width):
                    total[r] += column[r] != code
            for j in range(cont_columns.shape[0]):
                column = values[cont_columns[j], start : start + width]
                x = query_values[q, j]
                if np.isnan(x):
                    for r in range(width):
                        total[r] += column[r] == column[r]
                else:
                    inv = query_inv_range[q, j]
                    for r in range(width):
                        d = abs(x - column[r]) * inv
                        total[r] += d if d < 1.0 else 1.0  # NaN (missing row value) gives 1.0
            bound = _sum_bound(best[q], n_known, missing_weight)
            for r in range(width):
                if total[r] <= bound:
                    key = np.int32(np.rint((total[r] + missing_weight) / n_known * 1000.0))
                    if key < best[q]:
                        best[q] = key
                        histogram[q, :] = 0
                        bound = _sum_bound(key, n_known, missing_weight)
                    if key == best[q]:
                        histogram[q, secret[start + r]] += 1
    return best, histogram


@numba.njit(inline="always")
def _sum_bound(key, n_known, missing_weight):
    """Largest column sum that can still round to `key` or below (inf before any match)."""
    if key == NO_MATCH:
        return np.inf
    return ((key + 0.5) / 1000.0 + _ROUNDING_SLACK) * n_known - missing_weight
