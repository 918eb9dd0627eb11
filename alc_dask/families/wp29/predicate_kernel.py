"""The Numba kernel counting, per predicate, the rows that meet it (up to a cap) and finding the first: see ``predicates.count_matches``."""

import numba
import numpy as np

from alc_dask.families.wp29.conditions import INTERVAL, NOT_EQUAL, NULL, PRESENT


@numba.njit(nogil=True, cache=True)
def match_up_to(column, lo, hi, mode, order, present, values, cap):
    """Per predicate, the rows meeting it (0 to ``cap``, ``cap`` meaning that many or more) and the first row found
    (-1: none). order (m, n): each column's rows by increasing value, missing last (searched
    through, not beside a sorted copy of the values: a table's copy less); present (m,): values
    per column; values (m, n): the rows column by column."""
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
                a, b = _search_sorted(values[c], order[c], present[c], lo[p, j], False), _search_sorted(values[c], order[c], present[c], hi[p, j], True)
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


@numba.njit(nogil=True, cache=True)
def _search_sorted(column, order, present, key, right):
    """``np.searchsorted(known, key, "right" if right else "left")`` as Numba's (NaN after every
    value) on ``known``, the first ``present`` values of ``column`` in ``order``, by a bisection of
    its own: Numba's compiles its generic comparisons, a second or more on a fresh worker."""
    low, high = 0, present
    while low < high:
        middle = low + ((high - low) >> 1)
        x = column[order[middle]]
        before = (np.isnan(key) or x <= key) if right else (x < key or (np.isnan(key) and not np.isnan(x)))
        if before:
            low = middle + 1
        else:
            high = middle
    return low


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
def counting_orders(by_column):
    """Per column of ``by_column`` (m, n): its rows by increasing value, missing (NaN) last, equal
    values by row (numpy's stable argsort) and how many are present, made by a counting sort where
    the values are integers spanning at most a few times n (codes, ages, counts). Returns orders
    (m, n), present (m,) and per column whether it was sorted (False: left for numpy's sort)."""
    m, n = by_column.shape
    order = np.empty((m, n), dtype=np.int32)  # rows are counted up to 2**31 (``predicates._increasing``)
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
            counts[key] += 1
        done[j] = True
    return order, present, done
