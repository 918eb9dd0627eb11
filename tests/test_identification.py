"""Identification at population scale: anonymity sets counted in one pass over partitions match a
direct count, the family forecasts with the scaling law, and bad input is named."""

import warnings

import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster
from hypothesis import given
from hypothesis import strategies as st

from alc_dask.apps.synthetic import make_population
from alc_dask.data import Release, ScenarioError
from alc_dask.data.partitioned import partition_table
from alc_dask.families.identification.anonymity_sets import anonymity_sets
from alc_dask.families.identification.family import ALL_ALONE, Identification, forecast_interval
from alc_dask.measure.pitman_yor import PitmanYor
from alc_dask.report import summarize

QUASI = ["age", "sex", "region", "education"]


@pytest.fixture(scope="module")
def people():
    return make_population(6000, seed=9)


def test_the_whole_table_matches_a_direct_count(people):
    release = Release.load(people, [people])
    curves = anonymity_sets(release.original, QUASI, seed=1, repeats=2)
    sizes = people.groupby(QUASI, dropna=False).size()
    assert curves.records[:, -1].tolist() == [6000, 6000]
    assert curves.correctness[:, -1] == pytest.approx(len(sizes) / 6000)
    assert curves.uniqueness[:, -1] == pytest.approx((sizes == 1).sum() / 6000)
    assert dict(zip(curves.profile_sizes, curves.profile_counts)) == sizes.value_counts().to_dict()
    assert curves.k_violations(5) == pytest.approx(sizes[sizes < 5].sum() / 6000)
    assert np.all(np.diff(curves.records, axis=1) >= 0)  # nested subsamples
    kappa = curves.correctness[:, curves.records.min(axis=0) >= 1]
    assert kappa[:, 0] == pytest.approx(1.0) and kappa[0, -1] < kappa[0, 1]


def test_a_subsample_level_matches_a_direct_count_of_its_rows(people):
    """Level g holds exactly the rows whose priority is below n_g / N: recount them directly."""
    from alc_dask.families.identification.anonymity_sets import _unit, geometric_levels

    release = Release.load(people, [people])
    curves = anonymity_sets(release.original, QUASI, seed=4, repeats=1, levels=12)
    grid = geometric_levels(6000, 12)
    priority = _unit(np.arange(6000, dtype=np.uint64), 4, 0)
    for g in (5, 8, 10):
        chosen = people[priority < grid[g] / 6000]
        sizes = chosen.groupby(QUASI, dropna=False).size()
        assert curves.records[0, g] == len(chosen)
        assert curves.sets[0, g] == len(sizes) and curves.singletons[0, g] == (sizes == 1).sum()


def test_partitions_on_a_cluster_give_the_same_curves(people):
    release = Release.load(people, [people])
    whole = anonymity_sets(release.original, QUASI, seed=3, repeats=3)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        parted = anonymity_sets(partition_table(release.original, 700, client=client), QUASI, seed=3, repeats=3, buckets=5)
    for name in ("records", "sets", "singletons", "profile_sizes", "profile_counts"):
        np.testing.assert_array_equal(getattr(parted, name), getattr(whole, name))


def test_the_family_forecasts_a_pitman_yor_population():
    """A table drawn from a known Pitman-Yor population: the forecast at 20x its size is close to the law's."""
    truth = PitmanYor.of_entropy(7.0, 0.3)
    rng = np.random.default_rng(5)
    sets = []
    for i in range(5000):
        if rng.random() < (truth.alpha + truth.d * len(sets)) / (i + truth.alpha):
            sets.append(1)
        else:
            weights = np.array(sets) - truth.d
            chosen = rng.choice(len(sets), p=weights / weights.sum())
            sets[chosen] += 1
    table = pd.DataFrame({"set": rng.permutation(np.repeat(np.arange(len(sets)), sets)).astype(str), "other": "x"})
    release = Release.load(table, [table], columns={"set": "categorical"})
    for fit in ("measurements", "profile"):
        measures = Identification(quasi_identifiers=["set"], population=100_000, fit=fit).evaluate(release, seed=0).measures
        assert measures["fit_converged"] and measures["kappa_population"] == pytest.approx(truth.correctness(100_000), abs=0.03)
        assert measures["kappa_table"] == pytest.approx(len(sets) / 5000)
    assert all(np.isnan(measures[f"{name}_population_low"]) for name in ("kappa", "uniqueness", "k_violations"))  # MAP: one fit, no spread
    section = summarize(pd.DataFrame([{**measures, "status": "ok", "family": "identification", "release": "r", "scenario_id": "id-1"}])).section(
        "Identification"
    )
    assert "would be identified correctly" in section.notes[0] and len(section.figures) == 1


def test_few_distinct_values_leave_buckets_empty():
    """Three quasi-identifier values in sixteen buckets: most buckets hold none."""
    table = pd.DataFrame({"q": ["a", "b", "c"] * 40, "other": range(120)})
    curves = anonymity_sets(Release.load(table, [table]).original, ["q"], repeats=2, buckets=16)
    assert curves.sets[:, -1].tolist() == [3, 3] and curves.correctness[0, -1] == pytest.approx(3 / 120)


def test_bad_input_is_named(people):
    release = Release.load(people, [people])
    with pytest.raises(ValueError, match="quasi_identifiers"):
        Identification(quasi_identifiers=[], population=10**6)
    with pytest.raises(ScenarioError, match=r"quasi_identifiers: \['shoe_size'\] are not columns"):
        Identification(quasi_identifiers=["age", "shoe_size"], population=10**6).check(release)
    with pytest.raises(ScenarioError, match="population: 1000 is smaller than the 6000 records"):
        Identification(quasi_identifiers=["age"], population=1000).check(release)
    with pytest.raises(ValueError, match="quasi-identifiers: the set is empty"):
        anonymity_sets(release.original, [])
    with pytest.raises(ValueError, match=r"quasi-identifiers: \['shoe_size'\] are not columns"):
        anonymity_sets(release.original, ["age", "shoe_size"])


def test_a_job_samples_quasi_identifier_sets(tmp_path, people):
    import yaml

    from alc_dask.engine import prepare_release
    from alc_dask.jobs import JobSpecError, expand, load_job

    people.to_parquet(tmp_path / "original.parquet")
    job = {"name": "id", "release": {"original": "original.parquet", "anonymized": ["original.parquet"]}, "output": "out", "seed": 3}
    job["scenarios"] = [{"generate": "quasi_identifier_sets", "count": 3, "size": 2, "columns": QUASI, "population": 100_000}]
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    spec = load_job(tmp_path / "job.yaml")
    scenarios = expand(spec, prepare_release(spec))
    sets = [s.params.quasi_identifiers for s in scenarios]
    assert len(sets) == 3 == len(set(sets)) and all(len(q) == 2 and set(q) <= set(QUASI) and list(q) == sorted(q) for q in sets)
    assert all(s.family.name == "identification" and s.params.population == 100_000 for s in scenarios)
    assert [s.params.quasi_identifiers for s in expand(spec, prepare_release(spec))] == sets  # seeded
    job["scenarios"][0] |= {"population": 10}
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    with pytest.raises(JobSpecError, match=r"scenarios\[0\].*population: 10 is smaller than the 6000 records"):
        spec = load_job(tmp_path / "job.yaml")
        expand(spec, prepare_release(spec))


def test_a_fit_that_does_not_converge_is_reported(people, monkeypatch):
    from alc_dask.measure import scaling_fits
    from alc_dask.measure.scaling_fits import Fit

    monkeypatch.setattr(
        scaling_fits, "fit_correctness", lambda *a: Fit("PYC-MB", PitmanYor.of_entropy(5.0, 0.2), False, "Maximum number of iterations has been exceeded.")
    )
    measures = Identification(quasi_identifiers=QUASI, population=10**6).evaluate(Release.load(people, [people]), seed=0).measures
    assert not measures["fit_converged"] and "did not converge (Maximum number of iterations" in measures["warning"]


def test_population_forecasts_have_intervals_over_the_repeats(people):
    """κ, uniqueness and k-violations at the population: each repeat's curve fitted on its own, the
    spread of their forecasts (median to 2.5th and to 97.5th percentile) around the point forecast;
    the report shows them beside the point forecasts."""
    from alc_dask.measure.scaling_fits import fit_correctness

    release = Release.load(people, [people])
    measures = Identification(quasi_identifiers=QUASI, population=10**6, repeats=4, k=3).evaluate(release, seed=2).measures
    curves = anonymity_sets(release.original, QUASI, seed=2, repeats=4)
    models = [fit_correctness(*curves.points(r)).model for r in range(4)]
    for name, forecast in (
        ("kappa", lambda m: m.correctness(10**6)),
        ("uniqueness", lambda m: m.uniqueness(10**6)),
        ("k_violations", lambda m: m.k_violations(10**6, 3)),
    ):
        values, point = [forecast(m) for m in models], measures[f"{name}_population"]
        low, high = measures[f"{name}_population_low"], measures[f"{name}_population_high"]
        below, middle, above = np.percentile(values, [2.5, 50, 97.5])
        assert (low, high) == pytest.approx((point - (middle - below), point + (above - middle)), rel=1e-9)
        assert 0 < low < point < high < measures[f"{name}_table"]
    row = {**measures, "status": "ok", "family": "identification", "release": "r", "scenario_id": "id-1"}
    section = summarize(pd.DataFrame([row])).section("Identification")
    exposure = section.tables["Uniqueness and k-anonymity violations, in the table and forecast at the population"].iloc[0]
    assert exposure["uniqueness_population_low"] == f"{measures['uniqueness_population_low']:.3g}"
    assert exposure["k_violations_population_high"] == f"{measures['k_violations_population_high']:.3g}"
    assert f"{100 * measures['kappa_population_low']:.3g}%–" in section.notes[0]


def test_a_tail_lighter_than_geometric_is_pointed_out():
    """Few sets of even sizes (a finite population of sets): with γ kept at 0 or above the fit stops
    at the bound and misses the table; the warning says so, and allowing γ < 0 fits it, though at
    the bound −1, which the warning says too."""
    table = pd.DataFrame({"q": np.random.default_rng(0).integers(0, 300, 4000).astype(str), "other": "x"})
    release = Release.load(table, [table], columns={"q": "categorical"})
    bounded = Identification(quasi_identifiers=["q"], population=10**6).evaluate(release, seed=0).measures
    assert bounded["gamma"] == 0 and "gamma at its bound 0" in bounded["warning"] and "try allow_negative_gamma" in bounded["warning"]
    free = Identification(quasi_identifiers=["q"], population=10**6, allow_negative_gamma=True).evaluate(release, seed=0).measures
    assert free["gamma"] == pytest.approx(-1.0)
    assert free["warning"] == f"gamma at its bound -1 (kappa at the table: fitted {free['kappa_table_fitted']:.3g}, measured {free['kappa_table']:.3g})"
    assert abs(free["kappa_table_fitted"] - free["kappa_table"]) < abs(bounded["kappa_table_fitted"] - bounded["kappa_table"])


@pytest.fixture(scope="module")
def probed():
    """The table where the defects below were met."""
    table = make_population(4000, seed=9)
    return Release.load(table, [table])


def test_a_fit_at_the_heaviest_tail_says_so(probed):
    """Two columns of few values whose pooled fit runs to γ = 1, the other end of its range."""
    measures = Identification(quasi_identifiers=["married", "condition"], population=10**6).evaluate(probed, seed=0).measures
    assert measures["gamma"] == pytest.approx(1.0)
    assert measures["warning"].startswith("gamma at its bound 1 (kappa at the table: fitted ")


def test_a_table_unique_per_row_is_forecast_without_overflow():
    """1e5 records, each alone on its quasi-identifier: κ(n) = 1 at every size, any large h fits and
    the optimiser wanders to huge concentrations. The forecast is 1, without an OverflowError or an
    overflow warning, and the warning says the fit is arbitrary."""
    table = pd.DataFrame({"id": np.arange(100_000).astype(str), "other": "x"})
    release = Release.load(table, [table], columns={"id": "categorical"})
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        measures = Identification(quasi_identifiers=["id"], population=10**7).evaluate(release, seed=2).measures
    assert measures["kappa_table"] == 1.0 and measures["kappa_population"] == pytest.approx(1.0, abs=1e-9)
    assert measures["kappa_population_low"] <= measures["kappa_population"] <= measures["kappa_population_high"]
    assert ALL_ALONE in measures["warning"]


@pytest.mark.parametrize("quasi", [["age", "income"], ["married", "condition"]])
def test_every_forecast_lies_in_its_interval(probed, quasi):
    """Quasi-identifier sets whose fit of all repeats forecast outside the spread of the repeats' own fits."""
    measures = Identification(quasi_identifiers=quasi, population=10**6).evaluate(probed, seed=0).measures
    for name in ("kappa", "uniqueness", "k_violations"):
        assert measures[f"{name}_population_low"] <= measures[f"{name}_population"] <= measures[f"{name}_population_high"], name


shares = st.floats(0.0, 1.0)


@given(point=st.tuples(shares, shares, shares), forecasts=st.lists(st.tuples(shares, shares, shares), min_size=1, max_size=50))
def test_the_interval_holds_its_point_and_the_repeats_spread(point, forecasts):
    low, high = forecast_interval(point, forecasts)
    below, middle, above = np.percentile(forecasts, [2.5, 50, 97.5], axis=0)
    for i in range(3):
        assert 0.0 <= low[i] <= point[i] <= high[i] <= 1.0
        assert low[i] == max(0.0, point[i] - (middle[i] - below[i])) and high[i] == min(1.0, point[i] + (above[i] - middle[i]))


def test_report_labels_tell_alike_evaluations_apart(people):
    """The figure keys curves by label: evaluations of the same quasi-identifiers must not share one."""
    import json

    measures = Identification(quasi_identifiers=QUASI, population=10**6, repeats=2).evaluate(Release.load(people, [people]), seed=0).measures
    base = {**measures, "status": "ok", "family": "identification", "release": "r"}
    rows = [
        {**base, "scenario_id": "id-1", "params": json.dumps({"allow_negative_gamma": False})},
        {**base, "scenario_id": "id-2", "params": json.dumps({"allow_negative_gamma": True})},
        {**base, "scenario_id": "id-3", "params": json.dumps({"allow_negative_gamma": False})},
    ]
    notes = summarize(pd.DataFrame(rows)).section("Identification").notes
    labels = sorted(note.split(":")[0] for note in notes if "would be identified" in note)
    quasi = ", ".join(QUASI)
    assert labels == [f"{quasi} (γ < 0 allowed)", f"{quasi} [id-1]", f"{quasi} [id-3]"]
