"""Choose the baseline model of a scenario by the best PRC it reaches on held-out original rows.

The chosen model's PRC is the *expected base PRC*, which the halting rules compare with the base
PRC measured on the targets. The candidates train on as many rows as the chosen model will
(``selection_train_rows`` = ``training_rows``): a model that wins on 2 000 rows may lose on 10 000,
and choosing on too few rows made the baseline weaker than the reference implementation's, which
chooses on every row but its 3 000 test rows. Forests are small (``selection_trees``). On 1000 attacks of
the paper's datasets, 10-tree forests instead of 30 chose the same model for 95% of the attacks
and left every attack's measured base PRC unchanged (5% and 95% quantiles of the change: 0), at
half the cost of a scenario; the chosen forest is then fitted with ``trees``.
"""

import warnings
from dataclasses import dataclass, field
from functools import cache

import numpy as np
from threadpoolctl import ThreadpoolController

from alc_dask.baseline.budget import logistic_rows
from alc_dask.baseline.features import FeatureLayout
from alc_dask.baseline.zoo import DEFAULT_CANDIDATES, DEFAULT_REGRESSORS, MODELS, REGRESSORS, build_model
from alc_dask.measure import MeasureSettings, SettingError, Tolerance
from alc_dask.measure._checks import check_count, check_number
from alc_dask.seeds import derived_seed, stream

SMALL_TABLE_ROWS = 6000
"""Below this many rows half the table is the test split; above, ``selection_test_rows`` rows."""


@dataclass(frozen=True)
class BaselineSettings:
    candidates: tuple[str, ...] = DEFAULT_CANDIDATES
    regressors: tuple[str, ...] = DEFAULT_REGRESSORS
    """The candidates for a continuous secret scored within a tolerance (predicting numbers)."""
    trees: int = 100
    """Trees of the forest that predicts the targets."""
    selection_trees: int = 10
    selection_train_rows: int = 10000
    selection_test_rows: int = 3000
    training_rows: int | None = 10000
    """At most this many rows (sampled) train each block's model; None: all rows outside the block."""
    attack_on_others: bool = True
    """The scenario's attack on the original without the block's targets competes with the model
    (``sources.OthersAttack``); the stronger of the two on the targets so far is the baseline."""
    boosting_patience: int = 5
    """Iterations without gain on its held-out tenth before gradient boosting stops. scikit-learn's
    default, 10 (before 0.13.0), cost a quarter more time on the paper's selections (iterations 26
    → 21 on average) for no gain: over 100 selections of the paper's five datasets the test split's
    PRC was 0.012 higher on average at 5 (median change 0.0001, 5% quantile −0.004;
    ``benchmarks/RESULTS-performance.md``)."""
    logistic_tolerance: float = 1e-3
    """Logistic regression's L-BFGS stops when no gradient component exceeds this. scikit-learn's
    default, 1e-4 (before 0.13.0), took 54 iterations on average over the same 100 selections and
    1e-3 took 19 (fits 2.3 times faster); the test split's PRC changed by −0.005 to +0.003 (5% and
    95% quantiles, median 0)."""
    first_block_from_selection: bool = True
    """Model selection trains its candidates without the first block of targets, so that its fit of
    the chosen model serves as that block's model where a block fit would build the same model on
    as many rows (``sources.MlBaseline``); False: selection trains on every row outside its test
    split and every block is refitted (before 0.13.0)."""
    near_duplicate_ratio: float | None = None
    """Leave out of a block's training rows every record markedly closer to one of its targets than
    that target's next closest record (nearer than this times it: a possible dependent twin, see
    ``baseline.dependence``); None: keep them."""

    def __post_init__(self):
        """Refuse settings that would drop a candidate or fit nothing; a ``SettingError`` names the field."""
        if isinstance(self.candidates, str) or not self.candidates:
            raise SettingError("candidates", self.candidates, f"a list of at least one model name among {', '.join(MODELS)}")
        for i, name in enumerate(self.candidates):
            if name not in MODELS:
                raise SettingError(f"candidates[{i}]", name, f"one of {', '.join(MODELS)}")
        if isinstance(self.regressors, str) or not self.regressors:
            raise SettingError("regressors", self.regressors, f"a list of at least one model name among {', '.join(REGRESSORS)}")
        for i, name in enumerate(self.regressors):
            if name not in REGRESSORS:
                raise SettingError(f"regressors[{i}]", name, f"one of {', '.join(REGRESSORS)}")
        for name in ("trees", "selection_trees", "selection_train_rows", "selection_test_rows", "boosting_patience"):
            check_count(name, getattr(self, name))
        check_number("logistic_tolerance", self.logistic_tolerance, 0.0, 1.0, open_low=True)
        if self.training_rows is not None:
            check_count("training_rows", self.training_rows)
        if self.near_duplicate_ratio is not None:
            check_number("near_duplicate_ratio", self.near_duplicate_ratio, 0.0, 1.0, open_low=True)


@dataclass(frozen=True)
class ModelChoice:
    name: str
    expected_prc: float
    scores: dict[str, float] = field(default_factory=dict)
    """PRC of every candidate on the test split (NaN where it could not be fitted)."""
    trained_rows: int = 0
    """The rows the chosen candidate was fitted on."""
    fitted: object = field(default=None, compare=False, repr=False)
    """The chosen candidate as selection fitted it (``select_model``'s ``left_out``: it may serve as
    that block's model); None once remembered, so that the memo holds no models."""


def predict_with_confidence(model, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Predicted codes and their probability (the rank score of a baseline prediction)."""
    proba = model.predict_proba(X)
    best = proba.argmax(axis=1)
    return model.classes_[best].astype(np.int32), proba[np.arange(len(best)), best]


@dataclass(frozen=True)
class Numbers:
    """A continuous secret predicted as a number, right within ``tolerance`` (``span``: the column's
    range; ``origin``: what its numbers are measured from)."""

    tolerance: Tolerance
    span: float
    origin: int = 0

    def predict(self, model, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Predicted numbers and their confidence: for a forest, the share of its trees that agree
        with it within the tolerance (a spread that ranks predictions); other regressors cannot
        rank theirs, so every prediction gets 1 and they are measured at recall 1."""
        values = model.predict(X)
        trees = getattr(model, "estimators_", None)
        if trees is None:
            return values, np.ones(len(values))
        per_tree = np.stack([tree.predict(X) for tree in trees])
        return values, self.tolerance.correct(per_tree, values[None, :], self.span, self.origin).mean(axis=0)

    def correct(self, predicted: np.ndarray, truth: np.ndarray) -> np.ndarray:
        return self.tolerance.correct(predicted, truth, self.span, self.origin)


def fit_model(model, X: np.ndarray, y: np.ndarray):
    """Fit on one thread: scenarios run side by side, and BLAS threads competing for the same
    cores made a 0.4 s fit take 10 s on a busy 2-core machine. The models are built here with
    valid parameters, so sklearn's per-call parameter validation is skipped."""
    import sklearn
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(), _blas_controller().limit(limits=1), sklearn.config_context(skip_parameter_validation=True):
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


@cache
def _blas_controller() -> ThreadpoolController:
    """Finding the loaded BLAS and OpenMP libraries takes 13 ms: once per process, not per fit."""
    return ThreadpoolController()


def select_model(
    X,
    y: np.ndarray,
    layout: FeatureLayout,
    settings: BaselineSettings = BaselineSettings(),
    measure: MeasureSettings = MeasureSettings(),
    seed: int = 0,
    tight_interval: float = 0.1,
    loose_interval: float = 0.25,
    numbers: Numbers | None = None,
    held_out: bool = True,
    left_out: np.ndarray | None = None,
) -> ModelChoice:
    """Fit every candidate on a train split, keep the one with the best PRC on the test split.

    `X` is the feature matrix, or anything that gives its rows for an index array (`FeatureRows`).
    With `numbers`, the candidates are the regressors and `y` the secret's numbers (NaN: missing,
    never trained on). Not `held_out`: the PRC is measured on the train split itself (the model
    that best reproduces the rows it learned, for an attacker whose targets may be among them).
    `left_out` rows (a block of targets) never train a candidate.
    """
    X_train, X_test, y_train, y_test = _split(X, y, settings, seed, numeric=numbers is not None, left_out=left_out)
    if not held_out:
        X_test, y_test = X_train, y_train
    scores, fitted, trained_rows = {}, {}, {}
    for name in settings.regressors if numbers else settings.candidates:
        rows = min(len(y_train), logistic_rows(len(np.unique(y_train)))) if name == "logistic_regression" and numbers is None else len(y_train)
        trained_rows[name] = rows
        try:
            fitted[name] = model = fit_model(
                build_model(name, layout, settings.selection_trees, seed, settings, numeric=numbers is not None), X_train[:rows], y_train[:rows]
            )
        except ValueError:
            scores[name] = float("nan")  # e.g. no column is one-to-one with the secret
            continue
        if numbers:
            values, confidence = numbers.predict(model, X_test)
            correct = numbers.correct(values, y_test)
        else:
            codes, confidence = predict_with_confidence(model, X_test)
            correct = codes == y_test
        result = measure.best_prc(correct, confidence, tight_interval)
        if not result.found:
            result = measure.best_prc(correct, confidence, loose_interval)
        scores[name] = result.prc
    fitted_scores = {name: score for name, score in scores.items() if not np.isnan(score)}
    if not fitted_scores:
        raise ValueError(f"no baseline candidate could be fitted among {list(settings.candidates)}")
    name = max(fitted_scores, key=fitted_scores.get)  # first of equals: candidates are listed cheapest first
    return ModelChoice(name, fitted_scores[name], scores, trained_rows[name], fitted[name])


def _split(X, y, settings: BaselineSettings, seed: int, numeric: bool = False, left_out: np.ndarray | None = None):
    """Train and test rows; split by index, so that `X` may fetch just the rows it is asked for.
    Numbers are split at random (not stratified); rows with a missing number, and `left_out` rows,
    never train."""
    from sklearn.model_selection import train_test_split

    test_size = len(y) // 2 if len(y) < SMALL_TABLE_ROWS else min(settings.selection_test_rows, len(y) // 2)
    _, counts = np.unique(y, return_counts=True)
    stratify = y if not numeric and counts.min() >= 2 else None
    train, test = train_test_split(np.arange(len(y)), test_size=test_size, random_state=derived_seed(seed, "model selection"), stratify=stratify)
    if numeric:
        train = train[~np.isnan(y[train])]
    if left_out is not None:
        train = train[~np.isin(train, left_out)]
    if len(train) > settings.selection_train_rows:
        train = train[stream(seed, "model selection").choice(len(train), settings.selection_train_rows, replace=False)]
    return X[train], X[test], y[train], y[test]
