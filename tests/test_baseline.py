"""Baseline models: the one-to-one predictor, model selection, control blocks."""

import numpy as np
import pandas as pd
import pytest

from alc_dask import Release
from alc_dask.apps.synthetic import make_population
from alc_dask.baseline import BaselineSettings, FeatureLayout, OneToOnePredictor, block_size, fit_without_block, select_model
from alc_dask.baseline.selection import predict_with_confidence


def test_one_to_one_learns_a_determining_column():
    X = np.array([[0, 5.0], [1, 3.0], [2, 1.0]] * 50)
    y = np.array([7, 8, 9] * 50)
    model = OneToOnePredictor(categorical=np.array([True, False])).fit(X, y)
    assert model.column_ == 0
    np.testing.assert_array_equal(model.predict(np.array([[2, 0.0], [0, 0.0]])), [9, 7])
    unseen = model.predict_proba(np.array([[5, 0.0]]))
    np.testing.assert_allclose(unseen, [[1 / 3] * 3])


def test_one_to_one_refuses_when_no_column_determines():
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, (300, 2)), rng.integers(0, 3, 300)
    with pytest.raises(ValueError, match="no categorical column"):
        OneToOnePredictor(categorical=np.array([True, True])).fit(X, y)


def test_block_size_follows_the_spec():
    assert block_size(30000) == 1000
    assert block_size(5000) == 501
    assert block_size(10) == 2


@pytest.fixture(scope="module")
def release():
    population = make_population(3000, seed=4)
    population["education_copy"] = population["education"]
    return Release.load(population, [population])


def test_selection_finds_the_determining_column(release):
    layout = FeatureLayout.of(release, ["age", "education_copy", "region"])
    X, y = layout.matrix(release.original), release.true_codes("education", release.original)
    choice = select_model(X, y, layout, BaselineSettings(trees=10))
    assert choice.expected_prc > 0.95
    assert choice.scores["one_to_one"] == pytest.approx(choice.expected_prc)
    assert choice.scores["majority"] < 0.5


def test_selection_of_unrelated_columns_is_near_the_majority_share(release):
    layout = FeatureLayout.of(release, ["sex", "region"])
    X, y = layout.matrix(release.original), release.true_codes("married", release.original)
    choice = select_model(X, y, layout, BaselineSettings(candidates=("majority", "logistic_regression"), trees=10))
    majority_share = np.bincount(y).max() / len(y)
    assert abs(choice.expected_prc - majority_share) < 0.1


def test_logistic_regression_learns_from_numbers_near_the_largest_double():
    """The secret is the sign of a number near ±1.7e308: the imputer's and scaler's sums overflowed,
    every feature became NaN and the candidate could not be fitted at all."""
    rng = np.random.default_rng(3)
    huge = rng.choice([1.7e308, -1.7e308, 1e308, -5e307], 400) * rng.uniform(0.5, 1, 400)
    table = pd.DataFrame({"huge": huge, "sign": np.where(huge > 0, "+", "-"), "noise": rng.integers(0, 3, 400)})
    release = Release.load(table, [table], columns={"huge": "continuous"})
    layout = FeatureLayout.of(release, ["huge", "noise"])
    X, y = layout.matrix(release.original), release.true_codes("sign", release.original)
    choice = select_model(X, y, layout, BaselineSettings(candidates=("majority", "logistic_regression"), trees=10))
    assert choice.name == "logistic_regression" and choice.expected_prc > 0.95


def test_ordinary_numbers_reach_the_linear_models_unchanged():
    from alc_dask.baseline.power_of_two import PowerOfTwoScaler

    X = np.array([[1.5, np.nan, -1e120], [2.0**399, np.nan, 7.0]])
    scaled = PowerOfTwoScaler().fit(X).transform(X)
    np.testing.assert_array_equal(scaled, X)  # nothing reaches 2^400: no change at all
    X[0, 0] = 1.7e308
    scaled = PowerOfTwoScaler().fit(X).transform(X)
    assert np.abs(scaled[:, 0]).max() <= 2.0**400 and scaled[0, 0] / scaled[1, 0] == X[0, 0] / X[1, 0]
    np.testing.assert_array_equal(scaled[:, 1:], X[:, 1:])


def test_block_rows_never_train_their_own_model():
    """A secret value only the block holds cannot be predicted by a model fitted without the block."""
    X = np.arange(200, dtype=float)[:, None]
    y = np.where(np.arange(200) < 20, 5, np.arange(200) % 2)
    layout = FeatureLayout(("x",), np.array([False]), np.array([0]))
    block = np.arange(20)
    model = fit_without_block("random_forest", X, y, block, layout, BaselineSettings(trees=5), seed=0)
    assert 5 not in model.classes_
    with_block = fit_without_block("random_forest", X, y, np.arange(20, 40), layout, BaselineSettings(trees=5), seed=0)
    codes, confidence = predict_with_confidence(with_block, X[:20])
    assert (codes == 5).all() and (confidence > 0.5).all()


def test_training_rows_cap_subsamples():
    X = np.arange(1000, dtype=float)[:, None]
    y = np.arange(1000) % 3
    layout = FeatureLayout(("x",), np.array([False]), np.array([0]))

    def rows_seen(settings):
        forest = fit_without_block("random_forest", X, y, np.arange(10), layout, settings, seed=0)
        return forest.estimators_[0].tree_.weighted_n_node_samples[0]  # a bootstrap sample as large as the training set

    assert rows_seen(BaselineSettings(trees=1, training_rows=100)) == 100
    assert rows_seen(BaselineSettings(trees=1)) == 990


def test_scenarios_sharing_original_columns_and_seed_fit_their_baseline_once(release, monkeypatch):
    """The weak and the strong release of one original (or several attacks on one secret) share it."""
    import alc_dask.baseline.sources as sources
    from alc_dask.baseline.memo import BASELINES
    from alc_dask.measure import MeasureSettings

    calls = {"select": 0, "fit": 0}

    def counted(key, function):
        def call(*args, **kwargs):
            calls[key] += 1
            return function(*args, **kwargs)

        return call

    monkeypatch.setattr(sources, "select_model", counted("select", sources.select_model))
    monkeypatch.setattr(sources, "fit_without_block", counted("fit", sources.fit_without_block))
    BASELINES.clear()
    settings, block = BaselineSettings(trees=5), np.arange(100, 400)

    def baseline(secret, seed=3):
        ml = sources.MlBaseline(release, secret, ["age", "region", "sex"], settings, MeasureSettings(), seed)
        ml.start_block(block)
        return ml, ml.predict(block[:50], np.arange(50))

    first, first_predictions = baseline("education")
    again, again_predictions = baseline("education")
    assert calls == {"select": 1, "fit": 1} and BASELINES.hits == 2
    assert again.choice == first.choice
    for a, b in zip(first_predictions, again_predictions):
        np.testing.assert_array_equal(a, b)
    baseline("married")
    baseline("education", seed=4)
    assert calls == {"select": 3, "fit": 3}


def test_the_memo_forgets_the_least_recently_used():
    from alc_dask.baseline.memo import Memo, digest

    memo = Memo(entries=2)
    for key in ("a", "b", "a", "c"):  # "b" is the least recently used when "c" comes
        memo.get(key, lambda key=key: key.upper())
    assert memo.get("b", lambda: "computed again") == "computed again"
    assert memo.get("a", lambda: "computed again") == "computed again"  # "a" went when "b" came back
    assert digest(np.arange(3)) != digest(np.arange(3).astype(np.int32)) != digest(np.arange(1, 4))


def test_block_fits_within_budget_keep_their_settings():
    from alc_dask.baseline.budget import affordable

    rng = np.random.default_rng(0)
    census_like = rng.integers(0, 30, (40000, 4)).astype(float)  # 4 known columns of a few dozen values
    settings = BaselineSettings()
    assert affordable("random_forest", settings, census_like, 51) == (settings, None)
    assert affordable("logistic_regression", settings, census_like, 51) == (settings, None)


def test_block_fits_on_hundreds_of_secret_values_are_bounded_and_say_so():
    """500 secret values and a known column of 2700: a 100-tree block fit took a minute and gigabytes."""
    from alc_dask.baseline.budget import FOREST_BUDGET, MIN_TREES, affordable

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 2700, 20000), rng.integers(18, 90, 20000), rng.integers(0, 2, 20000)]).astype(float)
    forest, note = affordable("extra_trees", BaselineSettings(), X, 500)
    distinct = len(np.unique(X[np.random.default_rng(0).choice(20000, 10000, replace=False)], axis=0))
    assert MIN_TREES <= forest.trees == int(FOREST_BUDGET // (2 * distinct * 500)) < 100 and forest.training_rows == 10000
    assert note == f"extra_trees: {forest.trees} of 100 trees (500 secret values, {distinct} distinct feature rows)"
    logistic, note = affordable("logistic_regression", BaselineSettings(), X, 500)
    assert logistic.training_rows == 2000 and logistic.trees == 100
    assert note == "logistic_regression: trained on 2000 of 10000 rows (500 secret values)"


def test_a_bounded_baseline_is_reported_with_the_scenario(release, monkeypatch):
    import alc_dask.baseline.budget as budget
    from alc_dask.families.alc.loop import run_attack

    monkeypatch.setattr(budget, "FOREST_BUDGET", 1.0)
    result = run_attack(release, "education", ["age", "region"], baseline_settings=BaselineSettings(candidates=("random_forest",), trees=20), seed=2)
    assert result.measures()["baseline_note"].startswith("random_forest: 10 of 20 trees")  # also where the floor is reported
    unbounded = run_attack(release, "education", ["age", "region"], baseline_settings=BaselineSettings(candidates=("majority",)), seed=2)
    assert unbounded.measures()["baseline_note"] is None


def test_a_chosen_one_to_one_lookup_fits_every_block_even_below_its_selection_share():
    """Selection found a column determining the secret in 95% of its 2000 rows; on a block's 10 000
    training rows the share was 94%, and the block fit raised: the census scenario failed."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 20, 2000)
    y = np.where(rng.random(2000) < 0.93, x % 5, rng.integers(0, 5, 2000))  # x determines y in ~94% of rows
    X = x[:, None].astype(float)
    layout = FeatureLayout(("x",), np.array([True]), np.array([20]))
    with pytest.raises(ValueError, match="no categorical column"):
        OneToOnePredictor(categorical=layout.categorical).fit(X, y)  # not a candidate at selection
    model = fit_without_block("one_to_one", X, y, np.arange(100), layout, BaselineSettings(), seed=0)
    codes, _ = predict_with_confidence(model, X[:100])
    assert np.mean(codes == x[:100] % 5) == 1.0


def test_boosting_fits_a_secret_value_only_one_row_has():
    """Early stopping's stratified split refused a one-row value: boosting dropped out of every such selection."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] > 0).astype(np.int32)
    y[7] = 2  # one row of its own value
    layout = FeatureLayout(("a", "b"), np.array([False, False]), np.array([0, 0]))
    model = fit_without_block("hist_gradient_boosting", X, y, np.arange(10, 20), layout, BaselineSettings(), seed=0)
    assert list(model.classes_) == [0, 1]
    codes, _ = predict_with_confidence(model, X[:100])
    assert (codes == y[:100]).mean() > 0.9
    choice = select_model(X, y, layout, BaselineSettings())
    assert choice.scores["hist_gradient_boosting"] > 0.9


def test_selection_chooses_among_the_reference_zoo_at_the_size_the_model_is_fitted():
    settings = BaselineSettings()
    assert {"hist_gradient_boosting", "logistic_regression", "random_forest", "extra_trees"} <= set(settings.candidates)
    assert settings.selection_train_rows == settings.training_rows


def test_features_of_1e300_stay_within_float32_in_their_order():
    """Values of 1e300 overflowed scikit-learn's float32 features to infinity, a RuntimeWarning each."""
    people = make_population(300, 0)
    people["income"] = people["income"] * 1e296
    release = Release.load(people, [people])
    layout = FeatureLayout.of(release, ["income", "sex"])
    matrix = layout.matrix(release.original)
    as_float32 = matrix.astype(np.float32)
    assert np.isfinite(as_float32).all()
    order = np.argsort(people["income"].to_numpy(), kind="stable")
    assert (np.diff(matrix[order, 0]) >= 0).all()
    plain = FeatureLayout.of(Release.load(make_population(300, 0), [make_population(300, 1)]), ["income"])
    assert (plain.scales == 1).all()


def test_selection_never_trains_a_candidate_on_the_rows_left_out():
    from alc_dask.baseline.selection import _split

    X = np.arange(20000, dtype=float)[:, None]  # a row's feature is its index
    y = np.arange(20000) % 3
    block = np.random.default_rng(0).choice(20000, 1000, replace=False)
    X_train, X_test, _, _ = _split(X, y, BaselineSettings(), seed=1, left_out=block)
    assert len(X_train) == 10000 and not np.isin(X_train[:, 0], block).any()
    assert np.isin(X_test[:, 0], block).any()  # the test split may hold them: they are scored, never learned


@pytest.fixture(scope="module")
def larger_release():
    population = make_population(8000, seed=5)
    return Release.load(population, [population])


@pytest.mark.parametrize("candidate", ["logistic_regression", "hist_gradient_boosting"])
def test_selections_fit_is_the_first_blocks_model_when_a_block_fit_would_build_the_same(larger_release, monkeypatch, candidate):
    """One fit fewer a scenario: selection's candidates train without the first block, on as many
    rows as a block fit would; the block's predictions are that fit's. Refitting is kept for the
    settings that ask for it, and gives predictions of the same quality."""
    import alc_dask.baseline.sources as sources
    from alc_dask.baseline.memo import BASELINES
    from alc_dask.families.alc.loop import run_attack
    from alc_dask.measure import MeasureSettings

    fits = []
    monkeypatch.setattr(sources, "fit_without_block", lambda *args, **kwargs: fits.append(args) or fit_without_block(*args, **kwargs))
    known, secret = ["age", "region", "sex"], "education"
    settings = BaselineSettings(candidates=(candidate,), training_rows=2000, selection_train_rows=2000, attack_on_others=False)
    BASELINES.clear()
    reused = run_attack(larger_release, secret, known, baseline_settings=settings, seed=3)
    assert fits == [] and reused.measures()["model"] == candidate

    layout = FeatureLayout.of(larger_release, known)
    X, y = layout.matrix(larger_release.original), larger_release.secret_column(secret)
    first_block = reused.columns["target"][:1]  # the order's first target opens the first block
    from alc_dask.families.alc.loop.targets import target_order

    order = target_order(larger_release, None, 3)[0][: block_size(8000)]
    assert first_block[0] == order[0]
    choice = select_model(X, y, layout, settings, MeasureSettings(), 3, left_out=order)
    codes, confidence = predict_with_confidence(choice.fitted, X[reused.columns["target"]])
    np.testing.assert_array_equal(codes, reused.columns["base_code"])
    np.testing.assert_allclose(confidence, reused.columns["base_confidence"])

    BASELINES.clear()
    refitted = run_attack(
        larger_release, secret, known, baseline_settings=BaselineSettings(**{**settings.__dict__, "first_block_from_selection": False}), seed=3
    )
    assert len(fits) == 1
    assert abs(refitted.measures()["base_prc"] - reused.measures()["base_prc"]) < 0.1


def test_the_models_stopping_rules_are_settings_checked_before_any_fit():
    from alc_dask.measure import SettingError

    for field, value in (("boosting_patience", 0), ("logistic_tolerance", 0.0), ("logistic_tolerance", float("nan"))):
        with pytest.raises(SettingError, match=field):
            BaselineSettings(**{field: value})
    layout = FeatureLayout(("a",), np.array([False]), np.array([0]))
    from alc_dask.baseline.zoo import build_model

    settings = BaselineSettings(boosting_patience=7, logistic_tolerance=1e-5)
    assert build_model("hist_gradient_boosting", layout, 10, 0, settings).n_iter_no_change == 7
    assert build_model("logistic_regression", layout, 10, 0, settings)[-1].tol == 1e-5


def test_a_regressors_selection_fit_is_the_first_blocks_model_too(larger_release, monkeypatch):
    """A continuous secret scored within a tolerance: the chosen linear regression is fitted once."""
    import alc_dask.baseline.sources as sources
    from alc_dask.baseline.memo import BASELINES
    from alc_dask.families.alc.loop import run_attack
    from alc_dask.measure import Tolerance

    fits = []
    monkeypatch.setattr(sources, "fit_without_block", lambda *args, **kwargs: fits.append(args) or fit_without_block(*args, **kwargs))
    settings = BaselineSettings(regressors=("linear_regression",), training_rows=2000, selection_train_rows=2000, attack_on_others=False)
    BASELINES.clear()
    result = run_attack(larger_release, "income", ["age", "education", "hours_per_week"], baseline_settings=settings, tolerance=Tolerance(0.1), seed=3)
    assert fits == [] and result.measures()["model"] == "linear_regression"
    assert (result.columns["base_confidence"] == 1.0).all()  # a linear model cannot rank its guesses
