"""Numba kernels: minimum Gower distance of each query over a block of rows, and the histogram of
the secret's codes among the rows at that minimum.

A row's distance is computed as the reference computes it: the sum of the continuous columns'
distances (in column order), plus the number of categorical mismatches, divided by the number of
columns. Rows tie when these floats are equal; nothing is rounded here (the reference rounds only
the minimum it reports, see `alc_dask.search`). A row's distance does not depend on how the table
is split into blocks, so the minimum and the histogram do not either.
"""

from __future__ import annotations

import numba
import numpy as np

_TILE = 2048
"""Rows per tile: a tile of every known column stays in the L2 cache while all queries pass over it."""


@numba.njit(nogil=True, cache=True)
def best_match_histograms(query_codes, query_values, query_low, query_span, query_scale, codes, values, cat_columns, cont_columns, secret, n_secret_codes):
    """Per query, the minimum distance (inf for an empty block) and the histogram of `secret` there.

    query_codes (q, c) int32: the queries' known categorical columns present in the block;
    query_values (q, v) float64: their known continuous values, already scaled to [0, 1] (NaN if
    missing), and query_low, query_span, query_scale (q, v): the scaling, applied to the block's
    values as the reference does, `(y - low) / span`, or `(y * 0.5 - low) / span` where scale is
    0.5 (a range that overflows a double; low and span are then of halved values). At least one
    known column. codes (C, n) int32 and values (V, n) float64: the block, column by column;
    cat_columns (c,) and cont_columns (v,) pick its known columns. secret (n,) int32: the secret's code per row, below n_secret_codes.

    Per column: categorical 0 if equal else 1; continuous |scaled x - scaled y|; a missing value
    gives 0 when both are missing, else 1 (NaN compares false, so a missing row value gives 1).
    """
    n_queries = query_codes.shape[0]
    n_rows = secret.shape[0]
    n_columns = cat_columns.shape[0] + cont_columns.shape[0]
    best = np.full(n_queries, np.inf)
    histogram = np.zeros((n_queries, n_secret_codes), dtype=np.int32)
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
                elif query_scale[q, j] == 1.0:
                    low, span = query_low[q, j], query_span[q, j]
                    for r in range(width):
                        d = abs((column[r] - low) / span - x)
                        continuous[r] += d if d < 1.0 else 1.0  # NaN (missing row value) gives 1.0
                else:  # y - low would overflow: scale y first
                    low, span, scale = query_low[q, j], query_span[q, j], query_scale[q, j]
                    for r in range(width):
                        d = abs((column[r] * scale - low) / span - x)
                        continuous[r] += d if d < 1.0 else 1.0
            for j in range(cat_columns.shape[0]):
                column = codes[cat_columns[j], start : start + width]
                code = query_codes[q, j]
                for r in range(width):
                    mismatches[r] += column[r] != code
            for r in range(width):
                distance = (continuous[r] + mismatches[r]) / n_columns
                if distance <= best[q]:
                    if distance < best[q]:
                        best[q] = distance
                        histogram[q, :] = 0
                    histogram[q, secret[start + r]] += 1
    return best, histogram
