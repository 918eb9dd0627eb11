"""Numba kernel of the nearest-rows stack: Gower distances of a batch of queries to a block of rows,
tile by tile, reduced per query to the minimum and the histogram of a secret's codes there
(`best_match_histograms`, the best row match) or to the k nearest rows (`k_nearest_rows`).

A row's distance to a query (`_tile_distances`, shared by both): per continuous column,
`|(y * scale - low) / span - x|`, at most 1, where `(y * scale - low) / span` places the row's value
y on the query's scale of that column and x is the query's own place there; per categorical column,
0 if the codes are equal, else 1. The continuous distances are summed in column order, the
mismatches added and the sum divided by the number of columns. A missing value is a category of its
own: two missing values match (0), a missing and a present one do not (1; NaN compares false, so a
missing row value gives 1). Scale is 1, or 0.5 where the column's range overflows a double (low and
span are then of halved values). `alc_dask.neighbors.query` lays out the scales of each search.

Rows tie when these floats are equal; nothing is rounded here. A row's distance does not depend on
how the table is split into blocks, so neither do the minimum, the histogram nor the k nearest.
"""

from __future__ import annotations

import numba
import numpy as np

_TILE = 2048
"""Rows per tile: a tile of every searched column stays in the L2 cache while all queries pass over it."""


@numba.njit(nogil=True, cache=True)
def best_match_histograms(query_codes, query_values, query_low, query_span, query_scale, codes, values, cat_columns, cont_columns, secret, n_secret_codes):
    """Per query, the minimum distance (inf for an empty block) and the histogram of `secret` there.

    query_codes (q, c) int32: the queries' codes of the searched categorical columns; query_values,
    query_low, query_span, query_scale (q, v) float64: per query and searched continuous column, its
    place x on its scale (NaN if missing) and the scale `(y * scale - low) / span` of the block's
    values. At least one searched column. codes (C, n) int32 and values (V, n) float64: the block,
    column by column; cat_columns (c,) and cont_columns (v,) pick its searched columns. secret (n,)
    int32: the secret's code per row, below n_secret_codes.
    """
    query, block = (query_codes, query_values, query_low, query_span, query_scale), (codes, values, cat_columns, cont_columns)
    n_queries, n_rows = query_codes.shape[0], secret.shape[0]
    best = np.full(n_queries, np.inf)
    histogram = np.zeros((n_queries, n_secret_codes), dtype=np.int32)
    scratch = _scratch()
    for start in range(0, n_rows, _TILE):
        width = min(_TILE, n_rows - start)
        for q in range(n_queries):
            distances = _tile_distances(q, start, width, query, block, scratch)
            for r in range(width):
                if distances[r] <= best[q]:
                    if distances[r] < best[q]:
                        best[q] = distances[r]
                        histogram[q, :] = 0
                    histogram[q, secret[start + r]] += 1
    return best, histogram


@numba.njit(nogil=True, cache=True)
def k_nearest_rows(query_codes, query_values, query_low, query_span, query_scale, codes, values, cat_columns, cont_columns, k, offset):
    """Per query, the k smallest distances and their rows, sorted by (distance, row); pads: inf, -1.

    The queries and the block as for `best_match_histograms`. A row's index is `offset` + its
    position in the block; the block's rows come in increasing index, so among equal distances the
    lower index is kept first, as in the whole table.
    """
    query, block = (query_codes, query_values, query_low, query_span, query_scale), (codes, values, cat_columns, cont_columns)
    n_queries, n_rows = query_codes.shape[0], codes.shape[1]
    nearest = np.full((n_queries, k), np.inf)
    rows = np.full((n_queries, k), -1, dtype=np.int64)
    scratch = _scratch()
    for start in range(0, n_rows, _TILE):
        width = min(_TILE, n_rows - start)
        for q in range(n_queries):
            distances = _tile_distances(q, start, width, query, block, scratch)
            for r in range(width):
                if distances[r] < nearest[q, k - 1]:
                    _insert(nearest[q], rows[q], distances[r], offset + start + r)
    return nearest, rows


@numba.njit(nogil=True, cache=True, inline="always")
def _scratch():
    """A tile's distances, and its categorical mismatches while they are counted."""
    return np.empty(_TILE, dtype=np.float64), np.empty(_TILE, dtype=np.int32)


@numba.njit(nogil=True, cache=True, inline="always")
def _tile_distances(q, start, width, query, block, scratch):
    """Query q's distances to the rows `start` to `start + width` of the block (the kernels'
    arguments, grouped), in the first `width` entries of the returned scratch array."""
    query_codes, query_values, query_low, query_span, query_scale = query
    codes, values, cat_columns, cont_columns = block
    distances, mismatches = scratch
    distances[:width] = 0.0
    mismatches[:width] = 0
    for j in range(cont_columns.shape[0]):
        column = values[cont_columns[j], start : start + width]
        x = query_values[q, j]
        if np.isnan(x):
            for r in range(width):
                distances[r] += column[r] == column[r]
        elif query_scale[q, j] == 1.0:
            low, span = query_low[q, j], query_span[q, j]
            for r in range(width):
                d = abs((column[r] - low) / span - x)
                distances[r] += d if d < 1.0 else 1.0  # NaN (missing row value) gives 1.0
        else:  # y - low would overflow: scale y first
            low, span, scale = query_low[q, j], query_span[q, j], query_scale[q, j]
            for r in range(width):
                d = abs((column[r] * scale - low) / span - x)
                distances[r] += d if d < 1.0 else 1.0
    for j in range(cat_columns.shape[0]):
        column = codes[cat_columns[j], start : start + width]
        code = query_codes[q, j]
        for r in range(width):
            mismatches[r] += column[r] != code
    n_columns = cat_columns.shape[0] + cont_columns.shape[0]
    for r in range(width):
        distances[r] = (distances[r] + mismatches[r]) / n_columns
    return distances


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
