"""The Numba replay of ``draws.random_conditions``: numpy's bounded integer draws, one after another,
each range set by the draws before it. Plain loops (the few picked columns sorted by insertion, not
``np.sort``): a fresh worker compiles this kernel on its first baseline."""

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _bounded(stream, position, high):
    """numpy's draw of an integer in [0, high] (Lemire's, with rejection) from ``stream`` at
    ``position``; returns the integer and the next position (-1: the stream ran out)."""
    if high == 0:
        return 0, position
    excl = np.uint64(high) + np.uint64(1)
    while True:
        if position >= stream.shape[0]:
            return 0, -1
        m = np.uint64(stream[position]) * excl
        position += 1
        leftover = m & np.uint64(0xFFFFFFFF)
        if leftover >= excl or leftover >= (np.uint64(0xFFFFFFFF) - np.uint64(high)) % excl:
            return np.int64(m >> np.uint64(32)), position


@numba.njit(cache=True, nogil=True)
def _sort_into(values, out):
    """``out``: ``values`` increasing (insertion sort: a handful of columns)."""
    for t in range(values.shape[0]):
        i = t
        while i > 0 and out[i - 1] > values[t]:
            out[i] = out[i - 1]
            i -= 1
        out[i] = values[t]


@numba.njit(cache=True, nogil=True)
def replay_conditions(stream, n_columns, n_cols, count, n_values, n_ops):
    """Columns, value indices and op indices (count, n_cols) of ``random_conditions`` drawn from the
    32-bit ``stream``, and the draws used (-1: the stream ran out)."""
    columns = np.empty((count, n_cols), dtype=np.int64)
    values = np.empty((count, n_cols), dtype=np.int64)
    ops = np.empty((count, n_cols), dtype=np.int64)
    position = np.int64(0)  # not a literal: one compiled `_bounded`
    picked = np.empty(n_cols, dtype=np.int64)
    chosen = np.empty(n_cols, dtype=np.int64)
    for p in range(count):
        for t in range(n_cols):  # Floyd's algorithm, then the shuffle of its picks
            j = n_columns - n_cols + t
            value, position = _bounded(stream, position, j)
            if position < 0:
                return columns, values, ops, -1
            for s in range(t):
                if picked[s] == value:
                    value = j
                    break
            picked[t] = value
        for i in range(n_cols - 1, 0, -1):
            j, position = _bounded(stream, position, i)
            if position < 0:
                return columns, values, ops, -1
            picked[i], picked[j] = picked[j], picked[i]
        _sort_into(picked, chosen)
        for t in range(n_cols):
            c = chosen[t]
            columns[p, t] = c
            values[p, t], position = _bounded(stream, position, n_values[c] - 1)
            if position < 0:
                return columns, values, ops, -1
            ops[p, t], position = _bounded(stream, position, n_ops[c] - 1)
            if position < 0:
                return columns, values, ops, -1
    return columns, values, ops, position
