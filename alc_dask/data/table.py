"""`EncodedTable`: one release table as numpy arrays, the form every attack and search works on."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from alc_dask.data.encoding import CODE_DTYPE


@dataclass(frozen=True, eq=False)
class EncodedTable:
    """The rows of one table, column by column (each column contiguous, for the search kernels).

    `codes[i]` holds the codes of categorical column `categorical[i]` (in the narrowest integer type
    that holds them); `values[j]` the numbers of
    continuous column `continuous[j]`, NaN where missing. `value_min`/`value_max` are taken over the
    whole table and kept by `rows()`, so a slice (a partition) normalizes distances exactly as the
    whole table does.
    """

    name: str
    categorical: tuple[str, ...]
    continuous: tuple[str, ...]
    codes: np.ndarray
    values: np.ndarray
    value_min: np.ndarray
    value_max: np.ndarray

    @classmethod
    def build(cls, name: str, codes: dict[str, np.ndarray], values: dict[str, np.ndarray]) -> EncodedTable:
        n_rows = len(next(iter({**codes, **values}.values())))
        code_matrix = np.empty((len(codes), n_rows), dtype=_narrowest_code_type(codes.values()))
        for i, column in enumerate(codes.values()):
            code_matrix[i] = column
        value_matrix = np.empty((len(values), n_rows), dtype=np.float64)
        for j, column in enumerate(values.values()):
            value_matrix[j] = column
        return cls(name, tuple(codes), tuple(values), code_matrix, value_matrix, *_nan_range(value_matrix))

    @property
    def n_rows(self) -> int:
        return self.codes.shape[1] if self.categorical else self.values.shape[1]

    @property
    def columns(self) -> tuple[str, ...]:
        return self.categorical + self.continuous

    def column_array(self, name: str) -> np.ndarray:
        """The codes (categorical) or values (continuous) of column `name`."""
        if name in self.categorical:
            return self.codes[self.categorical.index(name)]
        return self.values[self.continuous.index(name)]

    def rows(self, index: slice | np.ndarray) -> EncodedTable:
        """The given rows, each column copied contiguous; min/max stay those of the whole table."""
        return replace(
            self,
            codes=np.ascontiguousarray(self.codes[:, index]),
            values=np.ascontiguousarray(self.values[:, index]),
        )

    def select(self, names) -> EncodedTable:
        """The columns ``names`` holds, in this table's order (min/max kept)."""
        wanted = set(names)
        codes = [i for i, c in enumerate(self.categorical) if c in wanted]
        values = [j for j, c in enumerate(self.continuous) if c in wanted]
        return replace(
            self,
            categorical=tuple(self.categorical[i] for i in codes),
            continuous=tuple(self.continuous[j] for j in values),
            codes=self.codes[codes],
            values=self.values[values],
            value_min=self.value_min[values],
            value_max=self.value_max[values],
        )

    def split(self, rows_per_part: int) -> list[EncodedTable]:
        """Consecutive slices of at most `rows_per_part` rows (at least one slice)."""
        starts = range(0, max(self.n_rows, 1), rows_per_part)
        return [self.rows(slice(start, start + rows_per_part)) for start in starts]


def _narrowest_code_type(columns) -> np.dtype:
    """int8 when every code fits (most categorical columns), else int16, else `CODE_DTYPE`: a table
    kept in memory for every scenario takes a quarter of the room. Comparisons, and so every
    distance, are the same in any of them."""
    largest = max((int(column.max()) for column in columns if len(column)), default=0)
    for dtype in (np.int8, np.int16):
        if largest <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(CODE_DTYPE)


def _nan_range(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    low = np.full(values.shape[0], np.nan)
    high = np.full(values.shape[0], np.nan)
    for j, column in enumerate(values):
        present = column[~np.isnan(column)]
        if present.size:
            low[j], high[j] = present.min(), present.max()
    return low, high
