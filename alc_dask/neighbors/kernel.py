"""Numba kernel of the nearest-rows stack: Gower distances of a batch of queries to a block of rows,
tile by tile, reduced per query to the minimum and the histogram of a secret's codes there
(`best_match_histograms`, the best row match) or to the k nearest rows (`k_nearest_rows`); and
the k nearest rows of a block sorted into blocks with bounds, reading only the blocks the bounds do
not rule out (`_k_nearest_sorted`, laid out by `alc_dask.neighbors.pruned`).

A row's distance to a query: per continuous column, `|(y * scale - low) / span - x|`, at most 1,
where `(y * scale - low) / span` places the row's value y on the query's scale of that column and x
is the query's own place there; per categorical column, 0 if the codes are equal, else 1. The
continuous distances are summed in column order, the mismatches added and the sum divided by the
number of columns. A missing value is a category of its own: two missing values match (0), a
missing and a present one do not (1; NaN compares false, so a missing row value gives 1). Scale is
1, or 0.5 where the column's range overflows a double (low and span are then of halved values).
`alc_dask.neighbors.query` lays out the scales of each search.

Rows tie when these floats are equal; nothing is rounded here. A row's distance does not depend on
how the table is split into blocks, so neither do the minimum, the histogram nor the k nearest.

Most rows are dropped before their distance is complete, an exact early exit. A row's distance is
`fl(fl(S + M) / n)`: S the continuous distances summed in column order from 0, each term in
[0, 1], M the mismatches (an integer), n the number of columns. Rounding is monotone, so a partial
sum S' of S is at most S, `fl(S' + M) <= fl(S + M)`, and `t -> fl(t / n)` is monotone. A reducer
that keeps only distances up to a bound b (the best row match: the minimum so far; the k nearest:
the double before the k-th so far) can thus never keep a row once `fl(S' + M)` exceeds
`largest_sum(b, n)`, the largest t with `fl(t / n) <= b`. Per tile and query (`survivors`):

1. the mismatches are counted (narrow integers, vectorised) and the rows with at most the limit
   listed from a 64-bit mask per `CHUNK` rows;
2. the continuous columns are added in column order for the listed rows only, and after each column
   the rows over the limit are dropped again;
3. the kept rows' sums are completed as `S + M` and the reducer takes their distances as ever.

When most rows survive (no bound yet, or no categorical column), steps 1 and 2 run over the whole
tile without a list until a column drops at least half of it. The reducers and the steps share this
module because Numba's cache of a function is renewed only when its own file changes.

A fresh process without that cache compiles each kernel (a few seconds per code type), so the
compiled code is kept small: the steps are plain loops in one function, `survivors`, compiled once
per code and count type for both reducers (each function costs a compilation of its own, and
inlining at Numba's IR level copies the IR per call); its arguments are arrays and numbers, never
tuples or literals (each literal argument compiles another version); and the count type and the
narrowed query codes are chosen in Python, so only the version a block needs is compiled.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from alc_dask.neighbors.row_blocks import BLOCK

FIRST_TILE, TILE = 128, 4096
"""Rows per tile, from the first to the largest (each tile twice the last): the searched columns of
a tile stay in the cache while every query passes over it, and a query's bound is tightened after
each tile, so the first tiles are short while the bounds are loose."""

QUERIES_PER_PASS = 64
"""Queries of a pruned search that meet a block of rows while it is in the cache."""
GROUP = 32
"""Blocks of a pruned search whose bounds are tried together first: most groups are skipped whole."""

CHUNK = 64
"""Rows screened together: their mismatch counts fit one 64-bit mask of the rows kept."""

_MOST_NARROW_COUNTS = np.iinfo(np.uint8).max
"""Up to this many categorical columns, mismatches are counted in bytes (64 rows per vector)."""


def best_match_histograms(query_codes, query_values, query_low, query_span, query_scale, codes, values, cat_columns, cont_columns, secret, n_secret_codes):
    """Per query, the minimum distance (inf for an empty block) and the histogram of `secret` there.

    query_codes (q, c) integer: the queries' codes of the searched categorical columns; query_values,
    query_low, query_span, query_scale (q, v) float64: per query and searched continuous column, its
    place x on its scale (NaN if missing) and the scale `(y * scale - low) / span` of the block's
    values. At least one searched column. codes (C, n) integer and values (V, n) float64: the block,
    column by column; cat_columns (c,) and cont_columns (v,) pick its searched columns. secret (n,)
    int32: the secret's code per row, below n_secret_codes.
    """
    best = np.full(query_codes.shape[0], np.inf)
    histogram = np.zeros((query_codes.shape[0], n_secret_codes), dtype=np.int32)
    search = (*narrowed(query_codes, codes), query_values, query_low, query_span, query_scale, codes, values, cat_columns, cont_columns)
    _best_match_histograms(*search, *_scratch(query_codes.shape[0], cat_columns.shape[0]), secret, best, histogram)
    return best, histogram


@numba.njit(nogil=True, cache=True)
def _best_match_histograms(
    narrow,
    held,
    unheld,
    query_values,
    query_low,
    query_span,
    query_scale,
    codes,
    values,
    cat_columns,
    cont_columns,
    limit,
    counts,
    rows,
    sums,
    secret,
    best,
    histogram,
):
    n_queries, n_rows = narrow.shape[0], secret.shape[0]
    n_columns = cat_columns.shape[0] + cont_columns.shape[0]
    start, size = np.int64(0), np.int64(FIRST_TILE)  # not literals: one compiled `survivors`
    while start < n_rows:
        width = min(size, n_rows - start)
        for q in range(n_queries):
            kept = survivors(
                q,
                start,
                width,
                narrow,
                held,
                unheld,
                query_values,
                query_low,
                query_span,
                query_scale,
                codes,
                values,
                cat_columns,
                cont_columns,
                limit[q],
                counts,
                rows,
                sums,
            )
            lowered = False
            for i in range(kept):
                distance = sums[i] / n_columns
                if distance <= best[q]:
                    if distance < best[q]:
                        best[q], lowered = distance, True
                        histogram[q, :] = 0
                    histogram[q, secret[start + rows[i]]] += 1
            if lowered:  # rows beyond the minimum are dropped
                limit[q] = largest_sum(best[q], n_columns)
        start, size = start + width, min(2 * size, TILE)


def k_nearest_rows(query_codes, query_values, query_low, query_span, query_scale, codes, values, cat_columns, cont_columns, k, offset):
    """Per query, the k smallest distances and their rows, sorted by (distance, row); pads: inf, -1.

    The queries and the block as for `best_match_histograms`. A row's index is `offset` + its
    position in the block; the block's rows come in increasing index, so among equal distances the
    lower index is kept first, as in the whole table.
    """
    nearest = np.full((query_codes.shape[0], k), np.inf)
    found = np.full((query_codes.shape[0], k), -1, dtype=np.int64)
    search = (*narrowed(query_codes, codes), query_values, query_low, query_span, query_scale, codes, values, cat_columns, cont_columns)
    _k_nearest_rows(*search, *_scratch(query_codes.shape[0], cat_columns.shape[0]), offset, nearest, found)
    return nearest, found


@numba.njit(nogil=True, cache=True)
def _k_nearest_rows(
    narrow,
    held,
    unheld,
    query_values,
    query_low,
    query_span,
    query_scale,
    codes,
    values,
    cat_columns,
    cont_columns,
    limit,
    counts,
    rows,
    sums,
    offset,
    nearest,
    found,
):
    n_queries, n_rows, k = narrow.shape[0], codes.shape[1], nearest.shape[1]
    n_columns = cat_columns.shape[0] + cont_columns.shape[0]
    start, size = np.int64(0), np.int64(FIRST_TILE)  # not literals: one compiled `survivors`
    while start < n_rows:
        width = min(size, n_rows - start)
        for q in range(n_queries):
            kept = survivors(
                q,
                start,
                width,
                narrow,
                held,
                unheld,
                query_values,
                query_low,
                query_span,
                query_scale,
                codes,
                values,
                cat_columns,
                cont_columns,
                limit[q],
                counts,
                rows,
                sums,
            )
            last = nearest[q, k - 1]
            for i in range(kept):
                distance = sums[i] / n_columns
                if distance < nearest[q, k - 1]:
                    _insert(nearest[q], found[q], distance, offset + start + rows[i])
            if nearest[q, k - 1] < last:  # a row must come below the k-th: at most the double before it
                limit[q] = largest_sum(np.nextafter(nearest[q, k - 1], -np.inf), n_columns)
        start, size = start + width, min(2 * size, TILE)


def k_nearest_sorted(
    query_codes, query_values, query_low, query_span, query_scale, codes, values, places, bounds, group_bounds, start_block, in_turn, k, offset, most_read
):
    """The k nearest rows of each query in a sorted block (`_k_nearest_sorted`), and how many
    queries, in turn, it answered before its bounds failed (the rest are left at inf, -1).

    The queries as for `k_nearest_rows`, their codes and places on the block's searched columns
    alone; codes (c, n) and values (v, n) those columns of the block in its sorted order, ``places``
    each place's row; ``bounds`` and ``group_bounds`` per block of `BLOCK` rows and per group of
    `GROUP` blocks (`alc_dask.neighbors.row_blocks.BlockBounds`); ``start_block`` the block each
    query reads first; ``in_turn`` the order the queries pass in."""
    nearest = np.full((query_codes.shape[0], k), np.inf)
    found = np.full((query_codes.shape[0], k), -1, dtype=np.int64)
    every = np.arange(codes.shape[0], dtype=np.int64), np.arange(values.shape[0], dtype=np.int64)
    search = (*narrowed(query_codes, codes), query_values, query_low, query_span, query_scale, codes, values, *every)
    wide_codes = np.ascontiguousarray(query_codes, dtype=np.int64)
    answered = _k_nearest_sorted(
        *search,
        *_scratch(query_codes.shape[0], codes.shape[0]),
        wide_codes,
        places,
        bounds,
        group_bounds,
        start_block,
        in_turn,
        offset,
        most_read,
        nearest,
        found,
    )
    return nearest, found, answered


@numba.njit(nogil=True, cache=True)
def _k_nearest_sorted(
    narrow,
    held,
    unheld,
    query_values,
    query_low,
    query_span,
    query_scale,
    codes,
    values,
    cat_columns,
    cont_columns,
    limit,
    counts,
    rows,
    sums,
    query_codes,
    places,
    bounds,
    group_bounds,
    start_block,
    in_turn,
    offset,
    most_read,
    nearest,
    found,
):
    """`_k_nearest_rows` on a block sorted so that alike rows are neighbours (``places[p]``: the
    block's row at place p), cut into blocks of `BLOCK` rows with their ``bounds`` and into groups
    of `GROUP` blocks with theirs (`alc_dask.neighbors.pruned`). Queries pass `QUERIES_PER_PASS` at a
    time in the order ``in_turn``; each first reads the block ``start_block`` names (where its own
    row would sort), then every block whose bound and whose group's bound are not above its k-th
    distance, each through `survivors` as the scan reads a tile. Rows come in no order, so equal
    distances are ordered by row here, and the limit keeps them (at most the k-th).

    Returns how many queries (in turn) it answered: it stops after the pass where the rows read
    exceed the share ``most_read`` of what a scan of those queries reads (the bounds then fail, and
    the scan is faster)."""
    n_queries, k, n_rows = narrow.shape[0], nearest.shape[1], places.shape[0]
    n_columns = cat_columns.shape[0] + cont_columns.shape[0]
    n_blocks = (n_rows + BLOCK - 1) // BLOCK
    n_groups = (n_blocks + GROUP - 1) // GROUP
    read = 0
    for first in range(0, n_queries, QUERIES_PER_PASS):
        passed = min(QUERIES_PER_PASS, n_queries - first)
        for g in range(-1, n_groups):
            for i in range(passed):
                q = in_turn[first + i]
                if g >= 0 and _block_bound(q, g, query_codes, query_values, query_low, query_span, query_scale, group_bounds, n_columns) > nearest[q, k - 1]:
                    continue
                low, high = (start_block[q], start_block[q] + 1) if g < 0 else (g * GROUP, min((g + 1) * GROUP, n_blocks))
                for b in range(low, high):
                    if g >= 0 and (
                        b == start_block[q]
                        or _block_bound(q, b, query_codes, query_values, query_low, query_span, query_scale, bounds, n_columns) > nearest[q, k - 1]
                    ):
                        continue
                    start = b * BLOCK
                    width = min(BLOCK, n_rows - start)
                    read += width
                    kept = survivors(
                        q,
                        start,
                        width,
                        narrow,
                        held,
                        unheld,
                        query_values,
                        query_low,
                        query_span,
                        query_scale,
                        codes,
                        values,
                        cat_columns,
                        cont_columns,
                        limit[q],
                        counts,
                        rows,
                        sums,
                    )
                    for j in range(kept):
                        distance = sums[j] / n_columns
                        row = offset + places[start + rows[j]]
                        last = nearest[q, k - 1]
                        if distance < last or (distance == last and row < found[q, k - 1]):
                            _insert_ordered(nearest[q], found[q], distance, row)
                    if nearest[q, k - 1] < np.inf:
                        limit[q] = largest_sum(nearest[q, k - 1], n_columns)
        if read > most_read * n_rows * (first + passed):
            return first + passed
    return n_queries


@numba.njit(nogil=True, cache=True, inline="always")
def _block_bound(q, b, query_codes, query_values, query_low, query_span, query_scale, bounds, n_columns):
    """No row of block b is nearer to query q than this: per continuous column, the nearer end of
    the range of the block's present values placed on the query's scale by the operations that place
    a row's value (1 where it has none), added in column order; then the categorical columns whose
    code lies outside the block's range. Every operation rounds monotonically, so the bound is at
    most any row's distance as `survivors` computes it."""
    code_low, code_high, value_low, value_high, value_missing = bounds
    mismatches = 0
    for j in range(query_codes.shape[1]):
        code = query_codes[q, j]
        mismatches += code < code_low[b, j] or code > code_high[b, j]
    total = 0.0
    for j in range(query_values.shape[1]):
        x = query_values[q, j]
        if np.isnan(x):
            total += 0.0 if value_missing[b, j] else 1.0
        elif value_low[b, j] > value_high[b, j]:
            total += 1.0
        else:
            low, span, scale = query_low[q, j], query_span[q, j], query_scale[q, j]
            below = (value_low[b, j] * scale - low) / span - x
            above = (value_high[b, j] * scale - low) / span - x
            d = below if below > 0.0 else (-above if above < 0.0 else 0.0)
            total += d if d < 1.0 else 1.0
    return (total + mismatches) / n_columns


@numba.njit(nogil=True, cache=True)
def _insert_ordered(distances, rows, distance, row):
    """Put (distance, row) into the lists sorted by (distance, row), dropping the last."""
    position = distances.shape[0] - 1
    while position > 0 and (distances[position - 1] > distance or (distances[position - 1] == distance and rows[position - 1] > row)):
        distances[position] = distances[position - 1]
        rows[position] = rows[position - 1]
        position -= 1
    distances[position] = distance
    rows[position] = row


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


@numba.njit(nogil=True, cache=True)
def largest_sum(bound, n_columns):
    """The largest double t with `fl(t / n_columns) <= bound` (bound finite)."""
    t = bound * n_columns
    while t / n_columns > bound:
        t = np.nextafter(t, -np.inf)
    while np.nextafter(t, np.inf) / n_columns <= bound:
        t = np.nextafter(t, np.inf)
    return t


def merged_k_nearest(*parts):
    """The k nearest among several blocks' k nearest (distances and rows, each (q, k)), sorted by
    (distance, row index); pads (inf, -1) stay last, as every real distance is finite."""
    distances = np.concatenate([d for d, _ in parts], axis=1)
    rows = np.concatenate([r for _, r in parts], axis=1)
    order = np.lexsort((rows, distances), axis=1)[:, : parts[0][0].shape[1]]
    return np.take_along_axis(distances, order, axis=1), np.take_along_axis(rows, order, axis=1)


def narrowed(query_codes, codes):
    """The query codes in the block's code type, whether that type holds each of them, and per
    query how many it does not hold (those columns mismatch every row of the block)."""
    narrow = query_codes.astype(codes.dtype)
    held = narrow == query_codes
    return narrow, held, (~held).sum(axis=1, dtype=np.int64)


def _scratch(n_queries, n_categorical):
    """Per query, the bound on `fl(S + M)` (none yet: inf); per tile, the mismatch counts (bytes, 64
    rows per vector, while they fit, else int32), the kept rows and their sums. Allocated here:
    each allocation in Numba compiles a function of its own."""
    counts = np.empty(TILE, np.uint8 if n_categorical <= _MOST_NARROW_COUNTS else np.int32)
    return np.full(n_queries, np.inf), counts, np.empty(TILE, np.int64), np.empty(TILE, np.float64)


@numba.njit(nogil=True, cache=True)
def survivors(
    q, start, width, narrow, held, unheld, query_values, query_low, query_span, query_scale, codes, values, cat_columns, cont_columns, limit, counts, rows, sums
):
    """How many rows of the tile `start` to `start + width` may have `fl(S + M) <= limit` for query
    q; their positions in the tile (increasing) in `rows` and `fl(S + M)` in `sums`.

    narrow, held, unheld: the queries' codes in the block's type, whether it holds them and per query
    how many it does not (`narrowed`); the other arguments as for the kernels.
    """
    n_cat, n_cont = cat_columns.shape[0], cont_columns.shape[0]
    unheld_q = unheld[q]
    screen = limit - unheld_q  # the unheld columns mismatch every row
    if screen < 0:
        return 0
    counted = counts[:width]  # the mismatches of the columns whose query code the block's type holds
    counted[:] = 0
    for j in range(n_cat):
        if held[q, j]:
            column = codes[cat_columns[j], start : start + width]
            code = narrow[q, j]
            for r in range(width):
                counted[r] += column[r] != code
    dense = n_cat == 0 or screen >= n_cat
    kept = width
    if not dense:  # list the rows with at most `within` mismatches, a 64-bit mask per chunk
        most = counts[:1].copy()  # the largest count within the screen, in the counts' type
        most[0] = int(screen)
        within = most[0]
        kept = 0
        for chunk in range(0, width, CHUNK):
            mask = np.uint64(0)
            if chunk + CHUNK <= width:  # a slice and a constant trip count: the loop is vectorised
                counted_chunk = counted[chunk : chunk + CHUNK]
                for b in range(CHUNK):
                    mask |= np.uint64(counted_chunk[b] <= within) << np.uint64(b)
            else:
                counted_chunk = counted[chunk:width]
                for b in range(width - chunk):
                    mask |= np.uint64(counted_chunk[b] <= within) << np.uint64(b)
            while mask:
                rows[kept] = chunk + trailing_zeros(mask)
                kept += 1
                mask &= mask - np.uint64(1)
    sums[:kept] = 0.0
    for j in range(n_cont):
        if kept == 0:
            return 0
        column = values[cont_columns[j], start : start + width]
        x = query_values[q, j]
        if np.isnan(x):  # 0 to a missing row value, 1 to a present one
            if dense:
                for r in range(kept):
                    sums[r] += column[r] == column[r]
            else:
                for i in range(kept):
                    y = column[rows[i]]
                    sums[i] += y == y
        else:  # the row's place on the query's scale against x, at most 1 (NaN, a missing row value, gives 1)
            low, span, scale = query_low[q, j], query_span[q, j], query_scale[q, j]  # `y * 1.0` is y exactly
            if dense:
                for r in range(kept):
                    d = abs((column[r] * scale - low) / span - x)
                    sums[r] += d if d < 1.0 else 1.0
            else:
                for i in range(kept):
                    d = abs((column[rows[i]] * scale - low) / span - x)
                    sums[i] += d if d < 1.0 else 1.0
        if j == n_cont - 1:
            break
        if dense:  # list the whole tile once a column drops at least half of it
            left = 0
            for r in range(width):
                left += sums[r] + (counted[r] + unheld_q) <= limit
            if 2 * left > width:
                continue
        left = 0  # keep the rows still within the limit, in order
        for i in range(kept):
            r = i if dense else rows[i]
            s = sums[i]
            rows[left], sums[left] = r, s
            left += s + (counted[r] + unheld_q) <= limit
        kept, dense = left, False
    if dense:
        for r in range(width):
            rows[r] = r
    for i in range(kept):
        sums[i] += counted[rows[i]] + unheld_q
    return kept
