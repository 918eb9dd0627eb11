"""Rows equal on chosen columns, found by hashing (Numba): the first few rows of each distinct row,
and which distinct row each row is.

Two values are equal as the searches see them: two missing values (NaN) are equal, and so are 0.0
and -0.0 (every distance and every count is the same for either). Rows are hashed into an
open-addressing table and compared only when their hashes meet: one pass over the values.
"""

from __future__ import annotations

import numba
import numpy as np

_NAN = np.uint64(0x7FF8000000000000)


def distinct_rows(by_column: np.ndarray, keep: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """For the rows of ``by_column`` (m, n) float64: the rows kept, the first ``keep`` of each
    distinct row in row order (increasing), and per row the first row equal to it."""
    by_column = np.ascontiguousarray(by_column, dtype=np.float64)
    return _distinct_rows(by_column, by_column.view(np.uint64), keep)


@numba.njit(nogil=True, cache=True)
def _distinct_rows(by_column, raw, keep):
    m, n = by_column.shape
    bits = np.empty((n, m), dtype=np.uint64)
    for j in range(m):
        for r in range(n):
            x = by_column[j, r]
            bits[r, j] = _NAN if np.isnan(x) else (np.uint64(0) if x == 0.0 else raw[j, r])
    size = 1
    while size < 2 * n:
        size *= 2
    slots = np.full(size, -1, dtype=np.int64)
    hashes = np.empty(n, dtype=np.uint64)
    seen = np.zeros(n, dtype=np.int64)  # per first row of a distinct row: rows equal to it so far
    kept = np.empty(n, dtype=np.int64)
    first_of = np.empty(n, dtype=np.int64)
    found = 0
    for r in range(n):
        h = np.uint64(0xCBF29CE484222325)
        for j in range(m):
            h = (h ^ bits[r, j]) * np.uint64(0x100000001B3)
            h ^= h >> np.uint64(29)
        hashes[r] = h
        slot = np.int64(h & np.uint64(size - 1))
        while True:
            other = slots[slot]
            if other < 0:
                slots[slot] = r
                other = r
                break
            if hashes[other] == h and _same_row(bits, r, other):
                break
            slot = (slot + 1) & (size - 1)
        first_of[r] = other
        if seen[other] < keep:
            kept[found] = r
            found += 1
        seen[other] += 1
    return kept[:found], first_of


@numba.njit(nogil=True, inline="always")
def _same_row(bits, a, b):
    for j in range(bits.shape[1]):
        if bits[a, j] != bits[b, j]:
            return False
    return True
