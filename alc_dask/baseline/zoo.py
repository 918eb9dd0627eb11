"""The candidate baseline models, built fresh for each fit.

Tree ensembles use categorical codes as ordered numbers (they split on them well enough and need
no encoding); logistic regression gets one-hot categories and scaled numbers. Every model is
single-threaded: the engine runs many scenarios at once instead.
"""

from collections.abc import Callable

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.compose import ColumnTransformer
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.ensemble import ExtraTreesClassifier, HistGradientBoostingClassifier, RandomForestClassifier, RandomForestRegressor
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from alc_dask.baseline.features import FeatureLayout
from alc_dask.baseline.one_to_one import OneToOnePredictor
from alc_dask.seeds import derived_seed

ModelFactory = Callable[[FeatureLayout, int, int], object]
"""(feature layout, trees, seed) -> an unfitted classifier."""

HGB_MAX_CATEGORIES = 254
"""Histogram gradient boosting bins at most this many categories; larger ones are used as numbers."""


def _random_forest(layout, trees, seed):
    return RandomForestClassifier(n_estimators=trees, random_state=seed, n_jobs=1)


def _regularized_random_forest(layout, trees, seed):
    """Resists dependent records (paper §3.7): replicated rows cannot each get a leaf of their own."""
    return RandomForestClassifier(n_estimators=2 * trees, min_samples_split=10, min_samples_leaf=10, random_state=seed, n_jobs=1)


def _extra_trees(layout, trees, seed):
    return ExtraTreesClassifier(n_estimators=trees, random_state=seed, n_jobs=1)


def _hist_gradient_boosting(layout, trees, seed):
    native = layout.categorical & (layout.n_codes <= HGB_MAX_CATEGORIES)
    return HistGradientBoostingClassifier(max_iter=500, early_stopping=True, categorical_features=native if native.any() else None, random_state=seed)


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


def _encoding(layout) -> ColumnTransformer:
    """One-hot categories, imputed and scaled numbers: what the linear models see."""
    categorical = layout.categorical
    numbers = make_pipeline(PowerOfTwoScaler(), SimpleImputer(strategy="median", add_indicator=True), StandardScaler())
    return ColumnTransformer(
        [
            ("categories", OneHotEncoder(handle_unknown="ignore", min_frequency=5), np.flatnonzero(categorical)),
            ("numbers", numbers, np.flatnonzero(~categorical)),
        ]
    )


def _logistic_regression(layout, trees, seed):
    return make_pipeline(_encoding(layout), LogisticRegression(max_iter=5000, random_state=seed))


def _one_to_one(layout, trees, seed):
    return OneToOnePredictor(categorical=layout.categorical)


def _majority(layout, trees, seed):
    return DummyClassifier(strategy="prior")


MODELS: dict[str, ModelFactory] = {
    "majority": _majority,
    "one_to_one": _one_to_one,
    "logistic_regression": _logistic_regression,
    "hist_gradient_boosting": _hist_gradient_boosting,
    "random_forest": _random_forest,
    "extra_trees": _extra_trees,
    "regularized_random_forest": _regularized_random_forest,
}


def _median(layout, trees, seed):
    return DummyRegressor(strategy="median")


def _linear_regression(layout, trees, seed):
    return make_pipeline(_encoding(layout), Ridge(alpha=1.0))


def _random_forest_regressor(layout, trees, seed):
    return RandomForestRegressor(n_estimators=trees, random_state=seed, n_jobs=1)


def _regularized_random_forest_regressor(layout, trees, seed):
    return RandomForestRegressor(n_estimators=2 * trees, min_samples_split=10, min_samples_leaf=10, random_state=seed, n_jobs=1)


REGRESSORS: dict[str, ModelFactory] = {
    "median": _median,
    "linear_regression": _linear_regression,
    "random_forest": _random_forest_regressor,
    "regularized_random_forest": _regularized_random_forest_regressor,
}
"""The candidates that predict a continuous secret as a number (scored within a tolerance)."""

DEFAULT_REGRESSORS = ("median", "linear_regression", "random_forest")

DEFAULT_CANDIDATES = ("majority", "one_to_one", "logistic_regression", "random_forest", "extra_trees")
"""Histogram gradient boosting is left out by default: with many secret values it costs minutes
(one tree per value and iteration) and did not beat the forests on the paper's datasets."""


def build_model(name: str, layout: FeatureLayout, trees: int, seed: int, numeric: bool = False):
    """A fresh classifier ``name`` (or regressor, ``numeric``)."""
    models = REGRESSORS if numeric else MODELS
    if name not in models:
        raise ValueError(f"unknown baseline model {name!r}; expected one of {list(models)}")
    return models[name](layout, trees, derived_seed(seed, "model"))
