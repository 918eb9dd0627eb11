"""Predicates on release rows (``column op value`` conditions joined by AND) and a Numba kernel
that counts the rows meeting each one, stopping at two: singling out only asks "exactly one?".

Rows are a float64 matrix, one column per attribute: continuous values as they are, categorical
codes as numbers (code order is value order for numeric categories), a missing value as NaN. A
value condition never holds on a missing value; ``IS_NULL`` holds only there, so a missing value
is a category of its own, as everywhere in this project.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from alc_dask.data import ColumnKind, EncodedTable, Release
from alc_dask.families.wp29.conditions import INTERVAL, NOT_EQUAL, NULL, PRESENT

EQ, NE, LT, LE, GT, GE, IS_NULL, NOT_NULL = range(8)
ORDERED_OPS = (EQ, NE, GT, LT, GE, LE)
EQUALITY_OPS = (EQ, NE)


@dataclass(frozen=True)
class RowMatrix:
    """Rows of one table over chosen columns, which columns may be compared by order, and where
    each row is in the table it was read from (to name the records a predicate isolates). Held
    column by column, the layout every count reads."""

    columns: tuple[str, ...]
    by_column: np.ndarray
    """(m, n): the rows, column by column."""
    ordered: np.ndarray
    source: np.ndarray
    """Per row, its row index in the table read (of identical rows, the first)."""

    @property
    def rows(self) -> np.ndarray:
        """(n, m): the rows (a view)."""
        return self.by_column.T

    @cached_property
    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        return _increasing(self.by_column)

    @property
    def order(self) -> np.ndarray:
        """(m, n): each column's rows by increasing value, missing values last (equal values by row)."""
        return self._sorted[0]

    @cached_property
    def sorted_values(self) -> np.ndarray:
        """(m, n): each column's values increasing, missing values last. Made only for the table
        predicates are drawn from: counting searches through ``order`` (at 1e7 rows, a copy of
        each table counted was 800 MB for ten columns)."""
        return np.take_along_axis(self.by_column, self.order, axis=1)

    @property
    def present(self) -> np.ndarray:
        """Per column, how many rows have a value."""
        return self._sorted[1]

    @cached_property
    def runs(self) -> tuple[np.ndarray, np.ndarray]:
        """(m, n) each: where in ``sorted_values`` a run of equal present values starts, and where one ends."""
        values = self.sorted_values
        inside = np.arange(values.shape[1]) < self.present[:, None]
        differs = values[:, 1:] != values[:, :-1]  # true next to a missing value (NaN)
        starts, ends = inside.copy(), inside.copy()
        starts[:, 1:] &= differs
        ends[:, :-1] &= differs
        return starts, ends

    @classmethod
    def of(cls, release: Release, table: EncodedTable, columns: tuple[str, ...], distinct: bool = True) -> RowMatrix:
        """``table``'s rows over ``columns``; with ``distinct``, each distinct row once (a duplicated
        record can never be singled out, so duplicates would only dilute the counts)."""
        by_column = np.empty((len(columns), table.n_rows), dtype=np.float64)
        ordered = np.empty(len(columns), dtype=bool)
        for j, name in enumerate(columns):
            column = release.column(name)
            if column.kind is ColumnKind.CONTINUOUS:
                by_column[j] = table.values[table.continuous.index(name)]
                ordered[j] = True
            else:
                codes = table.codes[table.categorical.index(name)]
                by_column[j] = codes
                by_column[j, codes == column.codes.missing_code] = np.nan
                ordered[j] = column.codes.values.dtype == np.float64
        source = np.arange(table.n_rows, dtype=np.int64)
        if distinct and table.n_rows:
            source = _first_of_distinct_rows(by_column)
            by_column = np.ascontiguousarray(by_column[:, source])  # numpy gives this selection column-major; the kernels want rows of columns
        return cls(tuple(columns), by_column, ordered, source)

    def subset(self, rows: np.ndarray) -> RowMatrix:
        """These rows (positions in ``rows``), keeping where each comes from."""
        return RowMatrix(self.columns, np.ascontiguousarray(self.by_column[:, rows]), self.ordered, self.source[rows])


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
        """One byte string per predicate: equal predicates (conditions in column order) share it
        (its columns', operators' and values' bytes, made for all predicates at once)."""
        order = np.argsort(self.column, axis=1, kind="stable")
        parts = [np.take_along_axis(a, order, axis=1) for a in (self.column, self.op, self.value)]
        packed = np.ascontiguousarray(
            np.concatenate([parts[0].astype(np.int64), parts[1].astype(np.int64), parts[2].astype(np.float64).view(np.int64)], axis=1)
        )
        return packed.view(np.dtype((np.void, packed.shape[1] * 8))).ravel().tolist()

    def select(self, keep: np.ndarray) -> Predicates:
        return Predicates(self.column[keep], self.op[keep], self.value[keep])


def count_matches(predicates: Predicates, rows: RowMatrix, cap: int = 2) -> np.ndarray:
    """Per predicate, how many rows meet it, from 0 to ``cap`` (meaning ``cap`` or more).

    Every condition but ``!=`` selects a contiguous run of its column's sorted values, found by
    binary search; the kernel walks only the shortest run of each predicate, checks the other
    conditions on those rows, and stops at the ``cap``-th match. An isolating predicate thus costs a
    few rows, not a scan of the table.
    """
    return _matches(predicates, rows, cap)[0]


def isolated_records(predicates: Predicates, rows: RowMatrix) -> np.ndarray:
    """Per predicate, the row (of the table ``rows`` were read from) of the only row meeting it;
    -1 when no row or several do. Its non-negative entries are as many as ``count_matches``'s ones."""
    counts, first = _matches(predicates, rows)
    records = np.full(len(counts), -1, dtype=np.int64)
    records[counts == 1] = rows.source[first[counts == 1]]
    return records


def _matches(predicates: Predicates, rows: RowMatrix, cap: int = 2) -> tuple[np.ndarray, np.ndarray]:
    if len(predicates) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    from alc_dask.families.wp29.predicate_kernel import match_up_to  # Numba: loaded when predicates are counted

    lo, hi, mode = _as_intervals(predicates)
    return match_up_to(predicates.column, lo, hi, mode, rows.order, rows.present, rows.by_column, cap)


def _as_intervals(predicates: Predicates):
    """Each condition as a closed interval a present value must lie in, a null test, or ``!=``."""
    op, value = predicates.op, predicates.value
    lo = np.select([op == EQ, op == GE, op == GT, op == NE], [value, value, np.nextafter(value, np.inf), value], -np.inf)
    hi = np.select([op == EQ, op == LE, op == LT, op == NE], [value, value, np.nextafter(value, -np.inf), value], np.inf)
    mode = np.select([op == IS_NULL, op == NE, op == NOT_NULL], [NULL, NOT_EQUAL, PRESENT], INTERVAL)
    return lo, hi, mode


def _increasing(by_column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column of ``by_column`` (m, n): its rows by increasing value, missing last, equal values
    by row, as numpy's stable argsort orders them; how many are present.
    A counting sort where the values are integers of a narrow span (every categorical code, many
    continuous columns), numpy's sort elsewhere."""
    from alc_dask.families.wp29.predicate_kernel import counting_orders  # Numba: loaded when rows are counted

    if by_column.shape[1] > np.iinfo(np.int32).max:
        raise ValueError(f"{by_column.shape[1]} rows are more than a table's rows can be counted in (2**31 - 1)")
    order, present, done = counting_orders(by_column)
    for j in np.flatnonzero(~done):
        order[j] = np.argsort(by_column[j], kind="stable")
    return order, present


def _first_of_distinct_rows(by_column: np.ndarray) -> np.ndarray:
    """Where each distinct row of ``by_column`` (m, n) first appears, in order (two missing values are
    equal, and so are 0.0 and -0.0, as in pandas' ``drop_duplicates``)."""
    from alc_dask.neighbors.distinct import distinct_rows  # Numba: loaded when rows are read

    return distinct_rows(by_column)[0]
