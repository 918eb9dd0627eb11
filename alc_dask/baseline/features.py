"""Known columns of encoded rows as a model's feature matrix, and the secret as its labels."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from alc_dask.data import ColumnKind, EncodedTable, Release


@dataclass(frozen=True)
class FeatureLayout:
    """Which known columns are categorical (codes) and which continuous (numbers, NaN missing)."""

    known: tuple[str, ...]
    categorical: np.ndarray
    n_codes: np.ndarray
    """Codes of each categorical column (0 for continuous ones)."""

    @classmethod
    def of(cls, release: Release, known: Sequence[str]) -> "FeatureLayout":
        columns = [release.columns[release.column(c).name] for c in known]
        categorical = np.array([c.kind is ColumnKind.CATEGORICAL for c in columns], dtype=bool)
        n_codes = np.array([c.codes.n_codes if c.kind is ColumnKind.CATEGORICAL else 0 for c in columns])
        return cls(tuple(c.name for c in columns), categorical, n_codes)

    def matrix(self, table: EncodedTable) -> np.ndarray:
        columns = [
            table.codes[table.categorical.index(c)] if is_cat else table.values[table.continuous.index(c)] for c, is_cat in zip(self.known, self.categorical)
        ]
        return np.column_stack(columns).astype(np.float64)


@dataclass(frozen=True)
class FeatureRows:
    """The feature matrix of a partitioned table, rows fetched from the cluster only when indexed:
    a model trains on a sample, so the whole matrix is never needed."""

    layout: FeatureLayout
    table: object
    """A `PartitionedTable`."""

    def __getitem__(self, rows: np.ndarray) -> np.ndarray:
        return self.layout.matrix(self.table.rows(np.asarray(rows)))

    def __len__(self) -> int:
        return self.table.n_rows
