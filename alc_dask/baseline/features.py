"""Known columns of encoded rows as a model's feature matrix, and the secret as its labels."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from alc_dask.data import ColumnKind, EncodedTable, Release

FLOAT32_SAFE = 2.0**100
"""The largest magnitude a continuous feature keeps unscaled: scikit-learn's trees read features as
float32 (largest 3.4e38), and values of 1e300 overflowed to infinity with a RuntimeWarning each."""


@dataclass(frozen=True)
class FeatureLayout:
    """Which known columns are categorical (codes) and which continuous (numbers, NaN missing), and
    the power of two each continuous one is divided by to stay within float32 (1 for most)."""

    known: tuple[str, ...]
    categorical: np.ndarray
    n_codes: np.ndarray
    """Codes of each categorical column (0 for continuous ones)."""
    scales: np.ndarray | None = None
    """Per column, the power of two its values are divided by (exact, order kept); None: all 1."""

    @classmethod
    def of(cls, release: Release, known: Sequence[str]) -> "FeatureLayout":
        columns = [release.columns[release.column(c).name] for c in known]
        categorical = np.array([c.kind is ColumnKind.CATEGORICAL for c in columns], dtype=bool)
        n_codes = np.array([c.codes.n_codes if c.kind is ColumnKind.CATEGORICAL else 0 for c in columns])
        return cls(tuple(c.name for c in columns), categorical, n_codes, np.array([_scale(c) for c in columns]))

    def matrix(self, table: EncodedTable) -> np.ndarray:
        columns = [
            table.codes[table.categorical.index(c)] if is_cat else table.values[table.continuous.index(c)] for c, is_cat in zip(self.known, self.categorical)
        ]
        matrix = np.column_stack(columns).astype(np.float64)
        return matrix if self.scales is None or (self.scales == 1).all() else matrix / self.scales


def _scale(column) -> float:
    """The power of two that brings a continuous column's extremes (over the release's tables) within ``FLOAT32_SAFE``."""
    if column.kind is ColumnKind.CATEGORICAL or column.bins is None:
        return 1.0
    largest = max(abs(column.bins.low), abs(column.bins.high))
    return 1.0 if not np.isfinite(largest) or largest <= FLOAT32_SAFE else float(2.0 ** np.ceil(np.log2(largest / FLOAT32_SAFE)))


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
