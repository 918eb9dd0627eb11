"""The density-ratio membership attack on releases whose truth is known: copies are flagged, releases
that teach only the population are not, a release kept in parts scores as a copied one, and the
reference never holds the record scored."""

import numpy as np
import pandas as pd
import pytest

from alc_dask.data import Release, ScenarioError
from alc_dask.data.partitioned import partition
from alc_dask.families.membership.density import DensityRatio, ReferenceSplit
from alc_dask.families.membership.family import Membership
from alc_dask.measure import Roc
from alc_dask.measure.verdict import Label
from alc_dask.neighbors import nearest
from alc_dask.testing.truth import noisy_copy, truth_releases
from alc_dask.verdict import judged

MIXTURE = {"density": "mixture"}


@pytest.fixture(scope="module")
def truth():
    return truth_releases(1000, seed=0)


def auc_interval(measures: dict) -> tuple[float, float]:
    """From the ROC counts the row keeps."""
    roc = Roc.from_counts(measures["roc_false_positives"], measures["roc_true_positives"], measures["n_members"], measures["n_non_members"])
    return roc.auc_interval(measures["confidence_level"])


def label(measures: dict) -> Label:
    return Label(judged(Membership, pd.Series({**measures, "scenario_id": "x"}), Membership.threshold.value).label)


@pytest.mark.parametrize("name", ["copy", "noisy_5"])
def test_a_copy_and_a_noisy_copy_are_flagged(truth, name):
    measures = Membership(attack="density_ratio", skew="1:10").evaluate(truth.release(name), seed=0).measures
    assert auc_interval(measures)[0] > 0.8 and label(measures) is Label.FLAGGED


@pytest.mark.parametrize("name", ["smoothed_marginals", "bootstrap"])
@pytest.mark.parametrize("params", [{}, MIXTURE], ids=["knn", "mixture"])
def test_releases_that_teach_only_the_population_are_not_flagged(truth, name, params):
    measures = Membership(attack="density_ratio", attack_params=params, skew="1:10").evaluate(truth.release(name), seed=0).measures
    low, high = auc_interval(measures)
    assert low < 0.5 < high
    assert label(measures) is not Label.FLAGGED and not measures["above_baseline"]


def numeric_people(rows: int, seed: int) -> pd.DataFrame:
    """Eight correlated numeric columns and a category: the mixture's kind of table."""
    mixing = np.random.default_rng(0).normal(size=(8, 8))
    rng = np.random.default_rng(seed)
    numbers = rng.normal(size=(rows, 8)) @ mixing
    return pd.DataFrame({f"x{i}": np.round(numbers[:, i], 3) for i in range(8)} | {"group": rng.choice(list("abc"), rows)})


def test_the_mixture_ranks_the_members_of_a_numeric_copy_higher():
    """Ten components cannot single out a record at this size (no high-precision cut: see the module),
    yet the release's density is higher at its members on the whole."""
    members, control, others = numeric_people(1000, 1), numeric_people(1000, 2), numeric_people(1000, 3)
    for released, leaks in ((members, True), (noisy_copy(members, 0.05), True), (others, False)):
        measures = Membership(attack="density_ratio", attack_params=MIXTURE).evaluate(Release.load(members, [released], control=control), seed=0).measures
        low, high = auc_interval(measures)
        assert (low > 0.53) is leaks and (low < 0.5 < high) is not leaks


@pytest.mark.parametrize("params", [{}, {"k": 3, "reference_k": 2}, MIXTURE | {"components": 4, "fit_rows": 600}], ids=["knn", "knn-k3", "mixture"])
def test_a_release_kept_in_parts_scores_as_a_copied_one(truth, params):
    copied = truth.release("noisy_10")
    parted = partition(copied, 97)
    scenario = Membership(attack="density_ratio", attack_params=params, n_members=600, n_non_members=500)
    whole, parts = (scenario.evaluate(release, seed=0).predictions.to_pandas() for release in (copied, parted))
    pd.testing.assert_frame_equal(whole, parts)
    assert whole["confidence"].nunique() > 500


def test_same_seed_same_scores_another_split_other_scores(truth):
    release = truth.release("noisy_10")
    first, again = (Membership(attack="density_ratio", attack_params=MIXTURE).evaluate(release, seed=s).predictions["confidence"].to_numpy() for s in (1, 2))
    np.testing.assert_array_equal(first, again)  # the evaluation's seed draws nothing: the split's is the attack's
    other = Membership(attack="density_ratio", attack_params=MIXTURE | {"seed": 1}).evaluate(release, seed=1).predictions["confidence"].to_numpy()
    assert not np.array_equal(first, other)


def test_the_reference_never_holds_the_record_scored(truth):
    release = Release.load(truth.members, [truth.members], control=truth.control.iloc[:999])
    task = Membership(n_members=400, n_non_members=999).task(release)
    split = ReferenceSplit.of(release.control.n_rows, task, seed=3)
    first, second = split.halves
    assert first.size == second.size == 499 and not set(first) & set(second)  # the odd row is in neither
    halves_of_non_members = split.half_of_record[task.n_members :]
    assert not np.isin(task.control_rows[halves_of_non_members == 0], first).any()
    assert not np.isin(task.control_rows[halves_of_non_members == 1], second).any()
    assert 150 < (split.half_of_record[: task.n_members] == 0).sum() < 250  # members drawn to both halves


def test_the_release_search_is_closest_distances_at_k_1(truth, monkeypatch):
    release = truth.release("noisy_5")
    searched = []

    def counting(queries, candidates, columns, k, **options):
        searched.append((candidates.name, k))
        return real(queries, candidates, columns, k, **options)

    real = nearest.k_nearest
    monkeypatch.setattr(nearest, "k_nearest", counting)
    people = {"n_members": 300, "n_non_members": 300, "sample_seed": 7}
    closest = Membership(attack="closest_distance", **people).evaluate(release, seed=0)
    density = Membership(attack="density_ratio", **people).evaluate(release, seed=0)
    released = release.anonymized[0].name
    assert searched.count((released, 1)) == 1 and searched.count((release.control.name, 5)) == 2
    assert density.measures["auc"] != closest.measures["auc"]


def test_bad_parameters_and_a_control_too_small_are_named(truth):
    with pytest.raises(ValueError, match="attack_params.density: must be one of knn, mixture; got 'kde'"):
        Membership(attack="density_ratio", attack_params={"density": "kde"})
    with pytest.raises(ValueError, match="attack_params.reference_k: must be"):
        Membership(attack="density_ratio", attack_params={"reference_k": 0})
    small = Release.load(truth.members, [truth.members], control=truth.control.iloc[:9])
    with pytest.raises(ScenarioError, match=r"each half of the control table \(4 rows\) must hold at least 5 rows"):
        Membership(attack="density_ratio").check(small)
    Membership(attack="density_ratio", attack_params={"reference_k": 4}).check(small)
    assert DensityRatio().get_params() == {"density": "knn", "k": 1, "reference_k": 5, "components": 10, "fit_rows": 20_000, "seed": 0}
