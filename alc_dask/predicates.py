"""Predicates on release rows (``column op value`` conditions joined by AND) and a Numba kernel
that counts the rows meeting each one, stopping at two: singling out only asks "exactly one?".

Rows are a float64 matrix, one column per attribute: continuous values as they are, categorical
codes as numbers (code order is value order for numeric categories), a missing value as NaN. A
value condition never holds on a missing value; ``IS_NULL`` holds only there, so a missing value
is a category of its own, as everywhere in this project.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from alc_dask.data import ColumnKind, EncodedTable, Release

EQ, NE, LT, LE, GT, GE, IS_NULL, NOT_NULL = range(8)
ORDERED_OPS = (EQ, NE, GT, LT, GE, LE)
EQUALITY_OPS = (EQ, NE)


@dataclass(frozen=True)
class RowMatrix:
    """Rows of one table over chosen columns, and which columns may be compared by order."""

    columns: tuple[str, ...]
    rows: np.ndarray
    ordered: np.ndarray

    @classmethod
    def of(cls, release: Release, table: EncodedTable, columns: tuple[str, ...], distinct: bool = True) -> RowMatrix:
        """``table``'s rows over ``columns``; with ``distinct``, each distinct row once (a duplicated
        record can never be singled out, so duplicates would only dilute the counts)."""
        matrix = np.empty((table.n_rows, len(columns)), dtype=np.float64)
        ordered = np.empty(len(columns), dtype=bool)
        for j, name in enumerate(columns):
            column = release.column(name)
            if column.kind is ColumnKind.CONTINUOUS:
                matrix[:, j] = table.values[table.continuous.index(name)]
                ordered[j] = True
            else:
                codes = table.codes[table.categorical.index(name)].astype(np.float64)
                codes[codes == column.codes.missing_code] = np.nan
                matrix[:, j] = codes
                ordered[j] = column.codes.values.dtype == np.float64
        if distinct and len(matrix):
            matrix = _distinct_rows(matrix)
        return cls(tuple(columns), np.ascontiguousarray(matrix), ordered)


@dataclass(frozen=True)
class Predicates:
    """``count`` predicates of ``width`` conditions each; unused conditions have column -1."""

    column: np.ndarray
    op: np.ndarray
    value: np.ndarray

    @classmethod
    def stack(cls, conditions: list[list[tuple[int, int, float]]]) -> Predicates:
        width = max((len(c) for c in conditions), default=1)
        column = np.full((len(conditions), width), -1, dtype=np.int64)
        op = np.zeros((len(conditions), width), dtype=np.int64)
        value = np.zeros((len(conditions), width), dtype=np.float64)
        for i, predicate in enumerate(conditions):
            for j, (col, operator, threshold) in enumerate(predicate):
                column[i, j], op[i, j], value[i, j] = col, operator, threshold
        return cls(column, op, value)

    def __len__(self) -> int:
        return len(self.column)

    def keys(self) -> list[bytes]:
        """One byte string per predicate: equal predicates (conditions in column order) share it."""
        order = np.argsort(self.column, axis=1, kind="stable")
        parts = [np.take_along_axis(a, order, axis=1) for a in (self.column, self.op)]
        value = np.take_along_axis(self.value, order, axis=1)
        return [c.tobytes() + o.tobytes() + v.tobytes() for c, o, v in zip(*parts, value)]

    def select(self, keep: np.ndarray) -> Predicates:
        return Predicates(self.column[keep], self.op[keep], self.value[keep])


def count_matches(predicates: Predicates, rows: RowMatrix) -> np.ndarray:
    """Per predicate, how many rows meet it: 0, 1, or 2 meaning "two or more"."""
    if len(predicates) == 0:
        return np.zeros(0, dtype=np.int64)
    return _count_up_to_two(predicates.column, predicates.op, predicates.value, rows.rows)


@numba.njit(nogil=True, cache=True)
def _count_up_to_two(column, op, value, rows):
    counts = np.zeros(column.shape[0], dtype=np.int64)
    for p in range(column.shape[0]):
        for r in range(rows.shape[0]):
            if _holds(column[p], op[p], value[p], rows[r]):
                counts[p] += 1
                if counts[p] == 2:
                    break
    return counts


@numba.njit(nogil=True, inline="always")
def _holds(column, op, value, row):
    for j in range(column.shape[0]):
        if column[j] < 0:
            continue
        x = row[column[j]]
        missing = np.isnan(x)
        o = op[j]
        if o == IS_NULL:
            ok = missing
        elif o == NOT_NULL:
            ok = not missing
        elif missing:
            ok = False
        elif o == EQ:
            ok = x == value[j]
        elif o == NE:
            ok = x != value[j]
        elif o == LT:
            ok = x < value[j]
        elif o == LE:
            ok = x <= value[j]
        elif o == GT:
            ok = x > value[j]
        else:
            ok = x >= value[j]
        if not ok:
            return False
    return True


def _distinct_rows(matrix: np.ndarray) -> np.ndarray:
    """Each distinct row once, in order of first appearance (two missing values are equal)."""
    keyed = np.where(np.isnan(matrix), np.inf, matrix)  # NaN never equals itself; releases hold no inf
    _, first = np.unique(keyed, axis=0, return_index=True)
    return matrix[np.sort(first)]
