"""The candidate baseline models, built fresh for each fit.

Tree ensembles use categorical codes as ordered numbers (they split on them well enough and need
no encoding); logistic regression gets one-hot categories and scaled numbers. Every model is
single-threaded: the engine runs many scenarios at once instead. scikit-learn is imported when a
model is built, so that settings naming models are checked without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from alc_dask.baseline.features import FeatureLayout
from alc_dask.seeds import derived_seed

if TYPE_CHECKING:
    from sklearn.compose import ColumnTransformer

    from alc_dask.baseline.selection import BaselineSettings

ModelFactory = Callable[[FeatureLayout, int, int, "BaselineSettings"], object]
"""(feature layout, trees, seed, settings) -> an unfitted classifier."""

HGB_MAX_CATEGORIES = 254
"""Histogram gradient boosting bins at most this many categories; larger ones are used as numbers."""


def _random_forest(layout, trees, seed, settings):
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=trees, random_state=seed, n_jobs=1)


def _regularized_random_forest(layout, trees, seed, settings):
    """Resists dependent records (paper §3.7): replicated rows cannot each get a leaf of their own."""
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=2 * trees, min_samples_split=10, min_samples_leaf=10, random_state=seed, n_jobs=1)


def _extra_trees(layout, trees, seed, settings):
    from sklearn.ensemble import ExtraTreesClassifier

    return ExtraTreesClassifier(n_estimators=trees, random_state=seed, n_jobs=1)


def _hist_gradient_boosting(layout, trees, seed, settings):
    """Stops after ``settings.boosting_patience`` iterations without gain on a held-out tenth: a
    second or two on 10 000 rows, even with dozens of secret values (one tree per value and iteration)."""
    from alc_dask.baseline.boosting import EarlyStoppedBoosting

    native = layout.categorical & (layout.n_codes <= HGB_MAX_CATEGORIES)
    return EarlyStoppedBoosting(
        max_iter=500,
        early_stopping=True,
        n_iter_no_change=settings.boosting_patience,
        categorical_features=native if native.any() else None,
        random_state=seed,
    )


def _encoding(layout) -> ColumnTransformer:
    """One-hot categories, imputed and scaled numbers: what the linear models see."""
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from alc_dask.baseline.power_of_two import PowerOfTwoScaler

    categorical = layout.categorical
    numbers = make_pipeline(PowerOfTwoScaler(), SimpleImputer(strategy="median", add_indicator=True), StandardScaler())
    return ColumnTransformer(
        [
            ("categories", OneHotEncoder(handle_unknown="ignore", min_frequency=5), np.flatnonzero(categorical)),
            ("numbers", numbers, np.flatnonzero(~categorical)),
        ]
    )


def _logistic_regression(layout, trees, seed, settings):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    return make_pipeline(_encoding(layout), LogisticRegression(max_iter=5000, tol=settings.logistic_tolerance, random_state=seed))


def _one_to_one(layout, trees, seed, settings):
    from alc_dask.baseline.one_to_one import OneToOnePredictor

    return OneToOnePredictor(categorical=layout.categorical)


def _majority(layout, trees, seed, settings):
    from sklearn.dummy import DummyClassifier

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


def _median(layout, trees, seed, settings):
    from sklearn.dummy import DummyRegressor

    return DummyRegressor(strategy="median")


def _linear_regression(layout, trees, seed, settings):
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline

    return make_pipeline(_encoding(layout), Ridge(alpha=1.0))


def _random_forest_regressor(layout, trees, seed, settings):
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(n_estimators=trees, random_state=seed, n_jobs=1)


def _regularized_random_forest_regressor(layout, trees, seed, settings):
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(n_estimators=2 * trees, min_samples_split=10, min_samples_leaf=10, random_state=seed, n_jobs=1)


REGRESSORS: dict[str, ModelFactory] = {
    "median": _median,
    "linear_regression": _linear_regression,
    "random_forest": _random_forest_regressor,
    "regularized_random_forest": _regularized_random_forest_regressor,
}
"""The candidates that predict a continuous secret as a number (scored within a tolerance)."""

DEFAULT_REGRESSORS = ("median", "linear_regression", "random_forest")

BUILT_AS_SELECTED = frozenset({"majority", "logistic_regression", "hist_gradient_boosting", "median", "linear_regression"})
"""Models that a block fit builds exactly as model selection does: fitted on as many rows outside
the block, selection's fit is the block's model. Forests grow more trees for the block fits, and a
one-to-one lookup drops its share threshold there."""

DEFAULT_CANDIDATES = ("majority", "one_to_one", "logistic_regression", "hist_gradient_boosting", "random_forest", "extra_trees")
"""The reference implementation's zoo (Francis & Wagner 2025, §5): the ALC's premise is the best
model an attacker could train without the person, and a weaker baseline inflates it."""


def build_model(name: str, layout: FeatureLayout, trees: int, seed: int, settings: BaselineSettings, numeric: bool = False):
    """A fresh classifier ``name`` (or regressor, ``numeric``), tuned by ``settings``."""
    models = REGRESSORS if numeric else MODELS
    if name not in models:
        raise ValueError(f"unknown baseline model {name!r}; expected one of {list(models)}")
    return models[name](layout, trees, derived_seed(seed, "model"), settings)
