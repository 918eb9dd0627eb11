"""A mixture density for mixed tabular rows: Gaussian components on the continuous columns, each
with its own frequencies of every categorical column.

The components are found by scikit-learn's ``GaussianMixture`` (full covariances, EM started from
k-means++ seeds) on the continuous columns, standardised by a scale the caller fixes (the same for
every model whose densities are compared, so their ratio does not depend on it) with a missing value
put at the scale's centre. Each categorical column, and the missingness of each continuous column
that has missing values, is then given per component the frequencies of its codes weighted by the
component's responsibilities, with add-one (Laplace) smoothing over every code of the column. A row's
log density is ``log Σ_c π_c · N(x | μ_c, Σ_c) · Π_j θ_cj(x_j)``: a latent-class model whose classes
are the continuous columns' clusters, so categorical values depend on the numbers and, through the
clusters, on each other. Without continuous columns there is one component: the product of the
categorical columns' smoothed frequencies.

Fitting runs single-threaded (``threadpoolctl``), so the same rows and seed give the same density to
the last bit in any process, a cluster's worker or the client.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from alc_dask.data import EncodedTable

REG_COVAR = 1e-2
"""Added to the diagonal of every covariance, in standardised units (a variance floor of 1% of the
column's): a component cannot collapse onto the rows of one value of a column on a grid."""
SMOOTHING = 1.0
"""Pseudo-count of every code of a categorical column in every component (add-one smoothing)."""


@dataclass(frozen=True)
class RowLayout:
    """How rows become the model's inputs: the continuous columns standardised by ``centre`` and
    ``spread``, and the categorical codes (``levels`` codes each), missingness of the continuous
    columns in ``with_missing`` included."""

    continuous: tuple[str, ...]
    categorical: tuple[str, ...]
    levels: tuple[int, ...]
    centre: np.ndarray
    spread: np.ndarray
    with_missing: tuple[str, ...]

    @classmethod
    def of(cls, columns: tuple[str, ...], levels: dict[str, int], scale_on: EncodedTable, tables: list[EncodedTable]) -> RowLayout:
        """The layout of ``columns`` (``levels``: each categorical column's number of codes), standardised
        by ``scale_on``'s mean and standard deviation; missingness modelled where any of ``tables`` misses a number."""
        continuous = tuple(c for c in columns if c in scale_on.continuous)
        values = _values(scale_on, continuous)
        centre = np.nan_to_num(np.nanmean(values, axis=0)) if values.size else np.zeros(len(continuous))
        spread = np.nan_to_num(np.nanstd(values, axis=0)) if values.size else np.ones(len(continuous))
        with_missing = tuple(c for c in continuous if any(np.isnan(t.column_array(c)).any() for t in tables))
        categorical = tuple(c for c in columns if c in scale_on.categorical)
        return cls(continuous, categorical, tuple(levels[c] for c in categorical), centre, np.where(spread > 0, spread, 1.0), with_missing)

    def numbers(self, table: EncodedTable) -> np.ndarray:
        """(rows, continuous columns): standardised, a missing value at 0."""
        return np.nan_to_num((_values(table, self.continuous) - self.centre) / self.spread)

    def codes(self, table: EncodedTable) -> list[tuple[np.ndarray, int]]:
        """Per modelled categorical quantity: each row's code and the number of codes."""
        found = [(table.column_array(c).astype(np.int64), n) for c, n in zip(self.categorical, self.levels)]
        return found + [(np.isnan(table.column_array(c)).astype(np.int64), 2) for c in self.with_missing]


@dataclass(frozen=True)
class MixtureDensity:
    """A fitted mixture: log weights (c,), the Gaussian part (None without continuous columns) and,
    per categorical quantity, log frequencies (c, codes)."""

    layout: RowLayout
    log_weights: np.ndarray
    gaussian: object
    log_frequencies: tuple[np.ndarray, ...]

    @classmethod
    def fit(cls, layout: RowLayout, table: EncodedTable, components: int, seed: int) -> MixtureDensity:
        """The mixture of at most ``components`` components (no more than the table has rows) fitted on ``table``'s rows."""
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.mixture import GaussianMixture
        from threadpoolctl import threadpool_limits

        numbers = layout.numbers(table)
        if layout.continuous:
            gaussian = GaussianMixture(min(components, table.n_rows), covariance_type="full", reg_covar=REG_COVAR, init_params="k-means++", random_state=seed)
            with threadpool_limits(1), warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)  # EM stopped at max_iter still gives a density
                gaussian.fit(numbers)
                responsibilities = gaussian.predict_proba(numbers)
            log_weights = np.log(gaussian.weights_)
        else:
            gaussian, responsibilities, log_weights = None, np.ones((table.n_rows, 1)), np.zeros(1)
        frequencies = []
        for codes, n_codes in layout.codes(table):
            counts = np.stack([np.bincount(codes, weights=responsibilities[:, c], minlength=n_codes) for c in range(responsibilities.shape[1])])
            frequencies.append(np.log(counts + SMOOTHING) - np.log(counts.sum(axis=1, keepdims=True) + SMOOTHING * n_codes))
        return cls(layout, log_weights, gaussian, tuple(frequencies))

    def log_density(self, table: EncodedTable) -> np.ndarray:
        """Each row's log density under the mixture."""
        from threadpoolctl import threadpool_limits

        joint = np.broadcast_to(self.log_weights, (table.n_rows, self.log_weights.size)).copy()
        if self.gaussian is not None:
            with threadpool_limits(1):
                joint += _gaussian_log_densities(self.layout.numbers(table), self.gaussian.means_, self.gaussian.precisions_cholesky_)
        for (codes, _), log_frequencies in zip(self.layout.codes(table), self.log_frequencies):
            joint += log_frequencies[:, codes].T
        return logsumexp(joint, axis=1)


def _gaussian_log_densities(x: np.ndarray, means: np.ndarray, precision_factors: np.ndarray) -> np.ndarray:
    """(rows, components): log N(x | μ_c, Σ_c), each Σ_c^-1 given as U_c U_c^T (U_c upper triangular):
    -(d/2) log 2π + log det U_c - |(x - μ_c) U_c|² / 2."""
    d = x.shape[1]
    out = np.empty((x.shape[0], means.shape[0]))
    for c, (mean, factor) in enumerate(zip(means, precision_factors)):
        whitened = (x - mean) @ factor
        out[:, c] = np.sum(np.log(np.diag(factor))) - 0.5 * np.einsum("ij,ij->i", whitened, whitened)
    return out - 0.5 * d * np.log(2 * np.pi)


def _values(table: EncodedTable, columns: tuple[str, ...]) -> np.ndarray:
    return np.stack([table.column_array(c) for c in columns], axis=1) if columns else np.empty((table.n_rows, 0))
