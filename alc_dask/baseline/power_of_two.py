"""Numbers near the largest double made fit for the linear models (see ``PowerOfTwoScaler``)."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin


class PowerOfTwoScaler(TransformerMixin, BaseEstimator):
    """Each column divided by the power of two that brings its largest magnitude below 2^400.
    Near the largest double, the sums of the imputer and of ``StandardScaler`` overflow and every
    value becomes NaN; dividing by a power of two only changes exponents, so it is exact, and a
    column of ordinary numbers is left as it is."""

    LARGEST_EXPONENT = 400
    """Squares of 2^400 summed over 2^200 rows stay finite."""

    def fit(self, X, y=None):
        largest = np.fmax.reduce(np.abs(X), axis=0, initial=0.0)  # fmax passes over missing values
        self.shift_ = np.maximum(np.frexp(largest)[1] - self.LARGEST_EXPONENT, 0)
        return self

    def transform(self, X):
        return np.ldexp(X, -self.shift_)
