"""Value <-> code mappings shared by every table of a release.

A categorical column has one `CodeTable` for the original, control and every anonymized table, so
equal values get equal codes everywhere. A continuous column has `Bins`, used only when the column
is a secret: the attack predicts a bin, not a number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from alc_dask.shown import shown

CODE_DTYPE = np.int32


@dataclass(frozen=True, eq=False)
class CodeTable:
    """Sorted distinct values; code i is `values[i]`, and `missing_code` (the last) is a missing value.

    A missing value is a category of its own: two missing values match, a missing and a present
    value do not. `values` are float64 numbers, text, or (`exact_numbers`) Python ints and floats:
    the numbers of a column holding an integer beyond 2^53, which float64 would merge with its
    neighbours (see `alc_dask.data.numbers`); those are looked up by exact equality.
    """

    values: np.ndarray
    exact_numbers: bool = False

    @property
    def missing_code(self) -> int:
        return len(self.values)

    @property
    def n_codes(self) -> int:
        return len(self.values) + 1

    def encode(self, series: pd.Series) -> np.ndarray:
        """Codes of `series`, whose values must all be in the table (missing values aside)."""
        if self.values.dtype == np.float64:
            values = series.to_numpy(dtype=np.float64, na_value=np.nan)
            codes = np.minimum(np.searchsorted(self.values, values), len(self.values)).astype(CODE_DTYPE)
            known = np.append(self.values, np.nan)[codes] == values
        elif self.exact_numbers:
            found = pd.Index(self.values, dtype=object).get_indexer(series.to_numpy(dtype=object))
            known = found >= 0
            codes = np.where(known, found, self.missing_code).astype(CODE_DTYPE)
        else:
            text = pa.array(series, from_pandas=True)
            found = pc.index_in(text, value_set=pa.array(self.values.tolist(), type=text.type))
            codes = found.fill_null(self.missing_code).to_numpy().astype(CODE_DTYPE)
            known = ~np.asarray(found.is_null())
        missing = series.isna().to_numpy()
        if not (known | missing).all():
            raise ValueError(f"value {shown(series[~(known | missing)].iloc[0])} is not in the code table")
        codes[missing] = self.missing_code
        return codes

    def decode(self, codes: np.ndarray) -> np.ndarray:
        labels = np.append(self.values.astype(object), None)
        return labels[np.asarray(codes)]

    @classmethod
    def from_values(cls, parts: list[pd.Series], numeric: bool) -> CodeTable:
        """The table of every value in `parts`: typed alike, float64 or Python numbers if `numeric`."""
        present = pd.concat([p.dropna() for p in parts], ignore_index=True)
        distinct = sorted(pd.unique(present).tolist())
        if numeric and present.dtype == np.float64:
            return cls(np.array(distinct, dtype=np.float64))
        values = np.empty(len(distinct), dtype=object)  # element by element: a list of ints may not become a 2-D array
        values[:] = distinct
        return cls(values, exact_numbers=numeric)


@dataclass(frozen=True, eq=False)
class ValuePoints:
    """A continuous secret's values as codes, for predicting numbers: the distinct values the
    anonymized tables hold (at most ``LIMIT``; beyond, that many quantiles of them). A value's code
    is its nearest point; code ``missing_code`` is a missing value. Searched like ``Bins``, so the
    best row match's histogram of codes is the distribution of its matches' values."""

    points: np.ndarray
    LIMIT = 4096

    @classmethod
    def of(cls, values: np.ndarray) -> ValuePoints:
        distinct = np.unique(values[~np.isnan(values)])
        if distinct.size > cls.LIMIT:
            distinct = np.unique(np.quantile(distinct, np.linspace(0.0, 1.0, cls.LIMIT)))
        return cls(distinct)

    @property
    def missing_code(self) -> int:
        return len(self.points)

    @property
    def n_codes(self) -> int:
        return len(self.points) + 1

    def encode(self, values: np.ndarray) -> np.ndarray:
        middles = (self.points[1:] + self.points[:-1]) / 2
        codes = np.searchsorted(middles, values).astype(CODE_DTYPE)
        codes[np.isnan(values)] = self.missing_code
        return codes

    def decode(self, codes: np.ndarray) -> np.ndarray:
        return np.append(self.points, np.nan)[np.asarray(codes)]


@dataclass(frozen=True, eq=False)
class Bins:
    """`n_bins` uniform bins between `low` and `high`: the discretized copy of a continuous secret.

    Values outside [low, high] (e.g. in a control table) fall in the first or last bin; code
    `missing_code` (= n_bins) is a missing value. A constant column has all its values in bin 0.
    A range wider than the largest double (high - low overflows) is binned on halved values.
    """

    low: float
    high: float
    n_bins: int = 20

    @property
    def missing_code(self) -> int:
        return self.n_bins

    @property
    def n_codes(self) -> int:
        return self.n_bins + 1

    @property
    def scale(self) -> float:
        """1, or 0.5 when the range overflows: halving is exact, and halves of doubles never overflow."""
        return 1.0 if math.isfinite(float(self.high) - float(self.low)) else 0.5

    @property
    def edges(self) -> np.ndarray:
        return np.linspace(self.low * self.scale, self.high * self.scale, self.n_bins + 1) / self.scale

    def encode(self, values: np.ndarray) -> np.ndarray:
        scale = self.scale
        low = self.low * scale
        width = (self.high * scale - low) / self.n_bins
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            scaled = np.floor((values * scale - low) / width) if width > 0 else np.zeros_like(values)
        codes = np.clip(np.nan_to_num(scaled, nan=0.0), 0, self.n_bins - 1).astype(CODE_DTYPE)
        codes[np.isnan(values)] = self.missing_code
        return codes

    def decode(self, codes: np.ndarray) -> np.ndarray:
        labels = np.append(pd.IntervalIndex.from_breaks(self.edges, closed="left").to_numpy(), None)
        return labels[np.asarray(codes)]
