"""Histogram gradient boosting with early stopping that accepts a secret value only one row has.

Early stopping holds out a validation split stratified by the secret, which scikit-learn refuses
when a value has a single training row (the reference implementation crashes there). One row
teaches a model nothing it could predict a value from, so such rows are left out of the fit.
"""

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier


class EarlyStoppedBoosting(HistGradientBoostingClassifier):
    def fit(self, X, y, sample_weight=None):
        values, counts = np.unique(y, return_counts=True)
        kept = np.isin(y, values[counts >= 2])
        if kept.all():
            return super().fit(X, y, sample_weight=sample_weight)
        return super().fit(X[kept], y[kept], sample_weight=None if sample_weight is None else sample_weight[kept])
