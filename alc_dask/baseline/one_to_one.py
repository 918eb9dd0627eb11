"""The one-to-one predictor: a known column whose every value (nearly) determines the secret.

Trees can learn such a mapping too, but only from enough rows of each value; a lookup table
learns it from one, and costs nothing to fit.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class OneToOnePredictor(ClassifierMixin, BaseEstimator):
    """Predict the secret through the categorical column whose values map to one secret value in
    at least ``min_share`` of the rows. ``fit`` raises ``ValueError`` when no column qualifies."""

    def __init__(self, categorical=None, min_share: float = 0.95):
        self.categorical = categorical
        self.min_share = min_share

    def fit(self, X, y):
        X, y = np.asarray(X), np.asarray(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        columns = np.flatnonzero(self.categorical) if self.categorical is not None else range(X.shape[1])
        best = None
        for column in columns:
            values, x_index = np.unique(X[:, column], return_inverse=True)
            counts = np.zeros((len(values), len(self.classes_)))
            np.add.at(counts, (x_index, y_index), 1)
            share = counts.max(axis=1).sum() / len(y)
            if share >= self.min_share and (best is None or share > best[0]):
                best = (share, column, values, counts)
        if best is None:
            raise ValueError(f"no categorical column determines the secret in {self.min_share:.0%} of rows")
        _, self.column_, self.values_, counts = best
        self.proba_ = counts / counts.sum(axis=1, keepdims=True)
        self.prior_ = np.bincount(y_index, minlength=len(self.classes_)) / len(y)
        return self

    def predict_proba(self, X):
        x = np.asarray(X)[:, self.column_]
        position = np.clip(np.searchsorted(self.values_, x), 0, len(self.values_) - 1)
        seen = self.values_[position] == x
        return np.where(seen[:, None], self.proba_[position], self.prior_)

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]
