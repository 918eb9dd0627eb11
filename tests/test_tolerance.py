"""Continuous secrets scored as numbers within a tolerance: the rule's vectors, the attack's median,
the regression baseline, job settings and bad input."""

import numpy as np
import pandas as pd
import pytest
import yaml

from alc_dask.apps.synthetic import make_demo_release
from alc_dask.data import Release, ValuePoints
from alc_dask.engine import prepare_release
from alc_dask.families.alc.best_row_match import median_of_matches
from alc_dask.families.alc.family import AlcFamily
from alc_dask.jobs import JobSpecError, expand, load_job
from alc_dask.measure import SettingError, Tolerance

KNOWN = ["age", "sex", "region", "education", "occupation"]


@pytest.mark.parametrize(
    ("predicted", "truth", "right"),
    [
        (104, 100, True),
        (106, 100, False),
        (96, 100, True),
        (0, 0, True),
        (0.001, 0, False),
        (-104, -100, True),
        (-106, -100, False),
        (np.nan, np.nan, True),
        (np.nan, 100, False),
        (100, np.nan, False),
    ],
)
def test_relative_to_the_value(predicted, truth, right):
    assert bool(Tolerance(0.05).correct(predicted, truth)) is right


def test_relative_to_the_range():
    """5% of a range of 200 is 10, for small and large values alike."""
    rule = Tolerance(0.05, "range")
    assert rule.correct([110, 111, -9, 1010], [100, 100, 0, 1000], span=200).tolist() == [True, False, True, True]


@pytest.mark.parametrize(("settings", "field"), [({"epsilon": 0.0}, "epsilon"), ({"epsilon": -1}, "epsilon"), ({"relative_to": "mean"}, "relative_to")])
def test_bad_tolerances_name_the_field(settings, field):
    with pytest.raises(SettingError) as error:
        Tolerance(**settings)
    assert error.value.field == field


def test_value_points_code_a_value_by_its_nearest_point():
    points = ValuePoints.of(np.array([3.0, 1.0, np.nan, 10.0, 3.0]))
    assert points.points.tolist() == [1.0, 3.0, 10.0] and points.missing_code == 3
    assert points.encode(np.array([0.0, 1.9, 2.1, 6.4, 6.6, np.nan])).tolist() == [0, 0, 1, 1, 2, 3]
    many = ValuePoints.of(np.arange(100_000.0))
    assert len(many.points) == ValuePoints.LIMIT and many.points[0] == 0 and many.points[-1] == 99_999


def test_the_attack_predicts_the_median_of_its_matches():
    points = np.array([10.0, 20.0, 21.0, 50.0])
    histogram = np.array([[1, 2, 1, 0, 0], [0, 0, 0, 0, 3], [0, 0, 0, 2, 2]])  # last column: missing values
    median, share = median_of_matches(histogram, points, Tolerance(0.1), span=40.0)
    assert median[0] == 20.0 and np.isnan(median[1]) and median[2] == 50.0
    assert share.tolist() == [0.75, 1.0, 0.5]  # 20 and 21 agree with 20 within 10%; all missing agree; half missing


@pytest.fixture(scope="module")
def demo():
    return make_demo_release(2000, seed=5)


def test_a_copied_release_gives_the_number_away(demo):
    release = Release.load(demo["original"], [demo["original"]], control=demo["control"])
    measures = AlcFamily(secret="income", known=KNOWN, tolerance={"epsilon": 0.05}).evaluate(release, seed=0).measures
    assert measures["attack_precision"] > 0.9 and measures["tolerance"] == '{"epsilon":0.05,"relative_to":"value"}'
    assert measures["model"] in ("median", "linear_regression", "random_forest", "most common value (floor)")


def test_the_weak_release_leaks_more_numbers_than_the_strong_one(demo):
    alcs = {}
    for level in ("weak", "strong"):
        release = Release.load(demo["original"], [demo[level]], control=demo["control"])
        alcs[level] = AlcFamily(secret="income", known=KNOWN, tolerance={"epsilon": 0.05}).evaluate(release, seed=0).measures["alc"]
    assert alcs["weak"] > 0.5 > alcs["strong"]


def write_job(folder, demo, **extra) -> str:
    for name in ("original", "weak"):
        demo[name].to_parquet(folder / f"{name}.parquet")
    job = {"name": "t", "release": {"original": "original.parquet", "anonymized": ["weak.parquet"]}, "output": "out", **extra}
    (folder / "job.yaml").write_text(yaml.safe_dump(job))
    return folder / "job.yaml"


def test_a_jobs_tolerance_applies_to_its_continuous_secrets(tmp_path, demo):
    spec = load_job(write_job(tmp_path, demo, scenarios=[{"generate": "each_column", "secrets": ["income", "sex"]}], tolerance={"epsilon": 0.05}))
    scenarios = {s.params.secret: s for s in expand(spec, prepare_release(spec))}
    assert scenarios["income"].params.tolerance.epsilon == 0.05 and scenarios["sex"].params.tolerance is None
    assert "tolerance" in scenarios["income"].identity_json and "tolerance" not in scenarios["sex"].identity_json


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"scenarios": [{"secret": "sex", "known": ["age"], "tolerance": {"epsilon": 0.05}}]}, r"scenarios\[0\]\.tolerance: secret 'sex' is categorical"),
        ({"scenarios": [{"generate": "each_column"}], "tolerance": {"epsilon": 0}}, r"tolerance.*epsilon"),
        ({"scenarios": [{"generate": "each_column"}], "tolerance": {"relative_to": "mean"}}, r"tolerance.*relative_to"),
    ],
)
def test_bad_tolerances_in_a_job_are_named(tmp_path, demo, extra, message):
    with pytest.raises(JobSpecError, match=message):
        spec = load_job(write_job(tmp_path, demo, **extra))
        expand(spec, prepare_release(spec))


def test_values_are_stored_as_numbers_when_asked(demo):
    release = Release.load(demo["original"], [demo["weak"]])
    evaluation = AlcFamily(secret="income", known=KNOWN, tolerance={"epsilon": 0.05}, store_values=True).evaluate(release, seed=0)
    predictions = evaluation.predictions.to_pandas()
    truth = demo["original"]["income"].iloc[predictions["target"]].to_numpy()
    np.testing.assert_allclose(predictions["true"].astype(float).to_numpy(), truth)
    assert pd.to_numeric(predictions["predicted"]).notna().all()
