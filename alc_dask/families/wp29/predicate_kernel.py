"""The Numba kernel counting, per predicate, the rows that meet it (up to a cap) and finding the first: see ``predicates.count_matches``."""

import numba
import numpy as np

from alc_dask.families.wp29.predicates import INTERVAL, NOT_EQUAL, NULL, PRESENT


@numba.njit(nogil=True, cache=True)
def match_up_to(column, lo, hi, mode, order, sorted_values, present, values, cap):
    """Per predicate, the rows meeting it (0 to ``cap``, ``cap`` meaning that many or more) and the first row found
    (-1: none). order, sorted_values (m, n): each column's rows and values by increasing value,
    missing last; present (m,): values per column; values (m, n): the rows column by column."""
    n = values.shape[1]
    counts = np.zeros(column.shape[0], dtype=np.int64)
    first = np.full(column.shape[0], -1, dtype=np.int64)
    for p in range(column.shape[0]):
        pivot, start, stop = -1, 0, n
        for j in range(column.shape[1]):
            c = column[p, j]
            if c < 0 or mode[p, j] == NOT_EQUAL:
                continue
            if mode[p, j] == NULL:
                a, b = present[c], n
            elif mode[p, j] == PRESENT:
                a, b = 0, present[c]
            else:
                known = sorted_values[c, : present[c]]
                a, b = np.searchsorted(known, lo[p, j], "left"), np.searchsorted(known, hi[p, j], "right")
            if pivot < 0 or b - a < stop - start:
                pivot, start, stop = c, a, b
        for i in range(start, stop):
            r = order[pivot, i] if pivot >= 0 else i
            ok = True
            for j in range(column.shape[1]):
                if column[p, j] >= 0 and not meets(values[column[p, j], r], lo[p, j], hi[p, j], mode[p, j]):
                    ok = False
                    break
            if ok:
                counts[p] += 1
                if counts[p] == 1:
                    first[p] = r
                else:
                    break
    return counts, first


@numba.njit(nogil=True, inline="always")
def meets(x, lo, hi, mode):
    if mode == INTERVAL:
        return lo <= x <= hi  # false for a missing (NaN) value
    if mode == NULL:
        return np.isnan(x)
    if mode == NOT_EQUAL:
        return not np.isnan(x) and x != lo
    return not np.isnan(x)


@numba.njit(nogil=True, cache=True)
def first_of_distinct_rows(by_column, raw):
    """Where each distinct row of ``by_column`` (m, n) first appears, in order; ``raw`` is the same
    memory as 64-bit patterns. Two missing values are equal, and so are 0.0 and -0.0: each value
    is hashed and compared by one pattern. Rows are hashed into an open-addressing table and
    compared only when their hashes meet: one pass over the values."""
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
    first = np.empty(n, dtype=np.int64)
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
                first[found] = r
                found += 1
                break
            if hashes[other] == h and _same_row(bits, r, other):
                break
            slot = (slot + 1) & (size - 1)
    return first[:found]


_NAN = np.uint64(0x7FF8000000000000)


@numba.njit(nogil=True, inline="always")
def _same_row(bits, a, b):
    for j in range(bits.shape[1]):
        if bits[a, j] != bits[b, j]:
            return False
    return True


@numba.njit(nogil=True, cache=True)
def counting_orders(by_column):
    """Per column of ``by_column`` (m, n): its rows by increasing value, missing (NaN) last, equal
    values by row (numpy's stable argsort), its values in that order and how many are present,
    made by a counting sort where the values are integers spanning at most a few times n (codes,
    ages, counts). Returns orders and sorted values (m, n), present (m,) and per column whether it
    was sorted (False: order and values left for numpy's sort)."""
    m, n = by_column.shape
    order = np.empty((m, n), dtype=np.int64)
    values = np.empty((m, n), dtype=np.float64)
    present = np.zeros(m, dtype=np.int64)
    done = np.zeros(m, dtype=np.bool_)
    for j in range(m):
        column = by_column[j]
        low, high, integral = np.inf, -np.inf, True
        for r in range(n):
            x = column[r]
            if not np.isnan(x):
                present[j] += 1
                low, high = min(low, x), max(high, x)
                integral = integral and x == np.floor(x)
        if not integral or (high >= low and high - low > 4 * n + 1024):
            continue
        span = np.int64(high - low) + 1 if high >= low else 0
        counts = np.zeros(span + 2, dtype=np.int64)  # slot span: missing values
        for r in range(n):
            x = column[r]
            counts[(np.int64(x - low) if not np.isnan(x) else span) + 1] += 1
        for k in range(1, span + 2):
            counts[k] += counts[k - 1]
        for r in range(n):
            x = column[r]
            key = np.int64(x - low) if not np.isnan(x) else span
            order[j, counts[key]] = r
            values[j, counts[key]] = x
            counts[key] += 1
        done[j] = True
    return order, values, present, done
