"""Numba kernel: the k rows of a block nearest to each query, by Gower distance.

A row's distance adds up as in `alc_dask.kernels` (the best row match): the continuous columns'
distances (in column order), plus the number of categorical mismatches, over the number of columns.
A continuous distance is `|x - y| / span`, both values first multiplied by the column's `shrink`
(1, or 0.5 when `high - low` overflows a float; a power of two changes no ratio). Since
`|x - y| <= high - low` for values in the range, and rounding is monotonic, it is at most 1.

Missing values are a category of their own: two missing values match (0), a missing and a present
value do not (1), for continuous columns too. Anonymeter differs: its `gower_distance` counts two
missing continuous values as a mismatch, one missing continuous value makes its distance NaN, and
its label encoding makes a missing categorical value a category that matches itself.
"""

from __future__ import annotations

import numba
import numpy as np

_TILE = 2048
"""Rows per tile: a tile of every searched column stays in the L2 cache while all queries pass over it."""


@numba.njit(nogil=True, cache=True)
def k_nearest_rows(query_codes, query_values, codes, values, cat_columns, cont_columns, span, shrink, k, offset):
    """Per query, the k smallest distances and their rows, sorted by (distance, row); pads: inf, -1.

    query_codes (q, c) int32 and query_values (q, v) float64 (NaN if missing): the queries' searched
    columns; codes (C, n) int32 and values (V, n) float64: the block, column by column, whose
    columns cat_columns (c,) and cont_columns (v,) are searched; span and shrink (v,): the scaling
    of each continuous column (span > 0). At least one column. A row's index is `offset` + its
    position in the block; the block's rows come in increasing index, so among equal distances the
    lower index is kept first, as in the whole table.
    """
    n_queries, n_rows = query_codes.shape[0], codes.shape[1]
    n_columns = cat_columns.shape[0] + cont_columns.shape[0]
    distances = np.full((n_queries, k), np.inf)
    rows = np.full((n_queries, k), -1, dtype=np.int64)
    continuous = np.empty(_TILE, dtype=np.float64)
    mismatches = np.empty(_TILE, dtype=np.int32)
    for start in range(0, n_rows, _TILE):
        width = min(_TILE, n_rows - start)
        for q in range(n_queries):
            continuous[:width] = 0.0
            mismatches[:width] = 0
            for j in range(cont_columns.shape[0]):
                column = values[cont_columns[j], start : start + width]
                x = query_values[q, j]
                if np.isnan(x):
                    for r in range(width):
                        continuous[r] += column[r] == column[r]
                else:
                    factor, scaled_x, column_span = shrink[j], x * shrink[j], span[j]
                    for r in range(width):
                        d = abs(column[r] * factor - scaled_x) / column_span
                        continuous[r] += d if d <= 1.0 else 1.0  # NaN (missing row value) gives 1.0
            for j in range(cat_columns.shape[0]):
                column = codes[cat_columns[j], start : start + width]
                code = query_codes[q, j]
                for r in range(width):
                    mismatches[r] += column[r] != code
            for r in range(width):
                distance = (continuous[r] + mismatches[r]) / n_columns
                if distance < distances[q, k - 1]:
                    _insert(distances[q], rows[q], distance, offset + start + r)
    return distances, rows


@numba.njit(nogil=True, cache=True)
def _insert(distances, rows, distance, row):
    """Put (distance, row) into the sorted lists, dropping the last; `row` is above every row there,
    so it goes after the entries at an equal distance."""
    position = distances.shape[0] - 1
    while position > 0 and distances[position - 1] > distance:
        distances[position] = distances[position - 1]
        rows[position] = rows[position - 1]
        position -= 1
    distances[position] = distance
    rows[position] = row
