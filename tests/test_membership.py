"""The membership family: copies expose their members, independent releases do not, results keep
the ROC, per-record scores hold no values, and bad input is named."""

import numpy as np
import pandas as pd
import pytest
import yaml

from alc_dask.anonymize import swap_frame
from alc_dask.apps.synthetic import make_population
from alc_dask.attacks import registry
from alc_dask.attacks.base import MembershipAttack
from alc_dask.attacks.prepared import PREPARED
from alc_dask.data import Release, ReleaseError, ScenarioError
from alc_dask.engine import prepare_release
from alc_dask.families.membership.attacks import ClosestDistance
from alc_dask.families.membership.family import Membership
from alc_dask.jobs import JobSpecError, expand, load_job
from alc_dask.measure import Roc, Skew
from alc_dask.neighbors import nearest

ATTACKS = ["closest_distance", "distance_ratio"]


@pytest.fixture(scope="module")
def people():
    population = make_population(4000, seed=4)
    return population.iloc[:2000].reset_index(drop=True), population.iloc[2000:].reset_index(drop=True)


@pytest.fixture(scope="module")
def copied(people):
    members, others = people
    return Release.load(members, [members], control=others)


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_release_that_copies_its_members_exposes_them(copied, attack):
    result = Membership(attack=attack, skew="1:100").evaluate(copied, seed=0).measures
    at_100 = next(at for at in result["precision_at_skews"] if at["skew"] == "1:100")
    assert result["auc"] > 0.95 and result["auc_low"] > 0.9 and result["auc_low"] <= result["auc"] <= result["auc_high"] <= 1.0
    assert at_100["above_baseline"] and at_100["precision_low"] > 10 * at_100["baseline"]
    assert result["membership_alc"] > 0.75 and result["risk"] == "serious"


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_release_made_without_its_members_exposes_no_one(people, attack):
    """The anonymized table is other people of the population, heavily swapped: nothing in it comes from the members."""
    members, others = people
    unrelated = swap_frame(make_population(2000, seed=77), 0.8, seed=5)
    result = Membership(attack=attack).evaluate(Release.load(members, [unrelated], control=others), seed=0).measures
    assert abs(result["auc"] - 0.5) < 0.05 and result["auc_low"] < 0.5 < result["auc_high"]
    assert not any(at["above_baseline"] for at in result["precision_at_skews"])
    assert result["membership_alc"] < 0.1 and result["risk"] in ("no loss", "safe")


def test_results_keep_the_roc_so_a_skew_nobody_asked_for_can_be_computed(copied):
    result = Membership(attack="closest_distance").evaluate(copied, seed=0).measures
    roc = Roc.from_counts(result["roc_false_positives"], result["roc_true_positives"], result["n_members"], result["n_non_members"])
    stored = {at["skew"]: at for at in result["precision_at_skews"]}
    assert list(stored) == ["1:1", "1:2", "1:5", "1:10", "1:50", "1:100", "1:1000"]
    again = roc.precision_at(Skew.parse("1:50"))
    assert again.precision == pytest.approx(stored["1:50"]["precision"]) and again.recall == pytest.approx(stored["1:50"]["recall"])
    assert roc.auc() == pytest.approx(result["auc"])
    assert 0 < roc.precision_at(Skew.parse("1:240")).precision < stored["1:100"]["precision"]


def test_per_record_scores_are_kept_without_values(copied):
    evaluation = Membership(attack="distance_ratio", n_members=300, n_non_members=200).evaluate(copied, seed=3)
    predictions = evaluation.predictions.to_pandas()
    assert list(predictions.columns) == ["target", "side", "confidence"]
    assert predictions["side"].tolist() == ["member"] * 300 + ["non_member"] * 200
    assert predictions["target"].between(0, 1999).all() and predictions["target"].iloc[:300].is_monotonic_increasing
    assert evaluation.measures["n_members"] == 300 and evaluation.measures["n_non_members"] == 200
    again = Membership(attack="distance_ratio", n_members=300, n_non_members=200).evaluate(copied, seed=3).predictions.to_pandas()
    pd.testing.assert_frame_equal(predictions, again)
    same_people = Membership(attack="closest_distance", n_members=300, n_non_members=200).evaluate(copied, seed=4).predictions.to_pandas()
    assert predictions["target"].tolist() == same_people["target"].tolist()  # every attack scores the same people
    other = Membership(attack="distance_ratio", n_members=300, n_non_members=200, sample_seed=1).evaluate(copied, seed=3).predictions.to_pandas()
    assert predictions["target"].tolist() != other["target"].tolist()


def test_the_attackers_skew_comes_from_the_population(copied):
    result = Membership(attack="closest_distance", population=200_000).evaluate(copied, seed=0).measures
    assert result["skew"] == "2000:198000" and result["baseline_precision"] == pytest.approx(0.01)
    assert result["precision_at_skews"][-1]["skew"] == "2000:198000" and len(result["precision_at_skews"]) == 8
    assert Membership(skew="1:100").evaluate(copied, seed=0).measures["precision_at_skews"][-1]["skew"] == "1:1000"  # on the grid already


def test_both_attacks_measure_the_anonymized_distances_once(copied, monkeypatch):
    searched = []

    def counting(queries, candidates, columns, k, **options):
        searched.append(candidates.name)
        return real(queries, candidates, columns, k, **options)

    real = nearest.k_nearest
    monkeypatch.setattr(nearest, "k_nearest", counting)  # the attacks import it when they measure
    Membership(attack="closest_distance", n_members=500, n_non_members=400).evaluate(copied, seed=11)
    Membership(attack="distance_ratio", n_members=500, n_non_members=400).evaluate(copied, seed=12)
    assert searched.count(copied.anonymized[0].name) == 1 and searched.count(copied.control.name) == 1
    assert Membership(attack="closest_distance").shared_work(1) == Membership(attack="distance_ratio").shared_work(2)
    assert Membership(attack="closest_distance").shared_work(1) != Membership(attack="closest_distance", sample_seed=2).shared_work(1)


def test_distance_ratio_leaves_a_non_members_own_row_out(people):
    """Each non-member is also in the control table it is compared with: its own row (distance 0)
    must not count as its closest neighbour in the population."""
    members, others = people
    release = Release.load(members, [members], control=others)
    scores = Membership(attack="distance_ratio", n_members=50, n_non_members=2000).evaluate(release, seed=0).predictions.to_pandas()
    non_members = scores[scores["side"] == "non_member"]["confidence"]
    assert (non_members > -1e6).all()  # a zero distance to itself would make the ratio ~1e9


def test_bad_parameters_name_what_is_wrong(people, copied):
    members, _ = people
    with pytest.raises(ValueError, match="skew '0:5' has no members"):
        Membership(skew="0:5")
    with pytest.raises(ValueError, match="skew '1:0' has no non-members"):
        Membership(skews=["1:1", "1:0"])
    with pytest.raises(ValueError, match="give skew .* or population .*, not both"):
        Membership(skew="1:10", population=10**6)
    with pytest.raises(ValueError, match="unknown membership attack 'shadow_model'; known: closest_distance, density_ratio, distance_ratio"):
        Membership(attack="shadow_model")
    with pytest.raises(ScenarioError, match="release.control"):
        Membership().check(Release.load(members, [members]))
    with pytest.raises(ScenarioError, match="population 1500 must be larger than the 2000 members"):
        Membership(population=1500).check(copied)
    with pytest.raises(ScenarioError, match="columns: 'shoe_size' is not a column"):
        Membership(columns=["age", "shoe_size"]).check(copied)


def test_scores_with_nan_fail_the_evaluation_naming_them(copied, monkeypatch):
    class Broken(MembershipAttack):
        def score(self, prepared, records):
            scores = np.zeros(records.encoded.n_rows)
            scores[7] = np.nan
            return scores

    monkeypatch.setitem(registry._REGISTERED, "broken", Broken)
    with pytest.raises(ValueError, match=r"member_scores holds NaN \(first at position 7\)"):
        Membership(attack="broken").evaluate(copied, seed=0)


def test_an_attack_of_another_kind_is_refused_naming_the_membership_attacks():
    with pytest.raises(
        ValueError,
        match="attack: attack 'best_row_match' is for attribute inference, not membership; known membership attacks: closest_distance, density_ratio, distance_ratio",
    ):
        Membership(attack="best_row_match")
    with pytest.raises(ValueError, match=r"attack_params.k: must be a parameter of attack 'distance_ratio', one of: \(none\); got 3"):
        Membership(attack_params={"k": 3})


class SeededNoise(MembershipAttack):
    """Scores at random from the evaluation's seed, after a preparation that counts the records."""

    def __init__(self, spread: float = 1.0):
        self.spread = spread

    def prepare(self, release, task):
        return task.records(release).n_rows

    def score(self, prepared, records):
        return np.random.default_rng(records.seed).normal(0.0, self.spread, prepared)


def test_a_registered_membership_attack_is_prepared_once_per_release_and_scores_with_the_seed(copied, monkeypatch):
    monkeypatch.setitem(registry._REGISTERED, "seeded_noise", SeededNoise)
    before = PREPARED.prepared
    first = Membership(attack="seeded_noise", attack_params={"spread": 2.0}, n_members=300, n_non_members=200).evaluate(copied, seed=1)
    again = Membership(attack="seeded_noise", attack_params={"spread": 2.0}, n_members=300, n_non_members=200).evaluate(copied, seed=2)
    assert PREPARED.prepared == before + 1  # the same attack, release and people: prepared once
    assert first.predictions["confidence"].to_pylist() != again.predictions["confidence"].to_pylist()
    assert abs(first.measures["auc"] - 0.5) < 0.15


def write_job(folder, people, scenario: dict, control: bool = True) -> str:
    members, others = people
    members.to_parquet(folder / "original.parquet")
    (others if control else others.iloc[:0]).to_parquet(folder / "control.parquet")
    job = {"name": "m", "release": {"original": "original.parquet", "anonymized": ["original.parquet"], "control": "control.parquet"}}
    job |= {"scenarios": [{"family": "membership", **scenario}], "output": "out"}
    path = folder / "job.yaml"
    path.write_text(yaml.safe_dump(job))
    return path


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ({"skew": "0:5"}, r"scenarios\[0\].*skew '0:5' has no members"),
        ({"attack": "nope"}, r"scenarios\[0\].*unknown membership attack 'nope'"),
        ({"population": 100}, r"scenarios\[0\] \(membership\): membership: population 100 must be larger"),
    ],
)
def test_a_job_with_a_bad_membership_scenario_is_refused_at_load(tmp_path, people, scenario, message):
    with pytest.raises(JobSpecError, match=message):
        spec = load_job(write_job(tmp_path, people, scenario))
        expand(spec, prepare_release(spec))


def test_an_empty_control_table_is_refused_at_load(tmp_path, people):
    with pytest.raises(ReleaseError, match=r"control\.parquet: the table is empty"):
        prepare_release(load_job(write_job(tmp_path, people, {}, control=False)))


def test_adults_weak_release_is_more_exposed_than_its_strong_one_at_every_skew(shared_data):
    """adult's original split into members (the first 24 000 rows, those a release is cut to) and a
    control (the last 6 000, never released)."""
    folder = shared_data / "alc-paper" / "adult"
    original = pd.read_parquet(folder / "original.parquet")
    members, control = original.iloc[:24_000].reset_index(drop=True), original.iloc[24_000:].reset_index(drop=True)
    measured = {}
    for level in ("weak", "strong"):
        released = pd.read_parquet(folder / f"{level}.parquet").iloc[:24_000].reset_index(drop=True)
        release = Release.load(members, [released], control=control)
        measured[level] = Membership(attack="closest_distance", n_members=24_000).evaluate(release, seed=0).measures
    assert measured["weak"]["auc"] > measured["strong"]["auc"] + 0.05
    for weak, strong in zip(measured["weak"]["precision_at_skews"], measured["strong"]["precision_at_skews"]):
        assert weak["skew"] == strong["skew"]
        assert weak["above_baseline"] and not strong["above_baseline"], weak["skew"]
        assert weak["precision_low"] > strong["precision_high"] and weak["alc"] > strong["alc"] + 0.1, weak["skew"]


WITHOUT_CONTROL = {"attack": "closest_distance", "reference": "original"}


@pytest.mark.parametrize("leak", ["copy", "swap_20"])
def test_without_a_control_table_a_copy_or_a_swap_is_told_apart_from_the_population(people, leak):
    """A check without control skipped membership: a copy or a 20% swap passed for want of non-members."""
    members, _ = people
    released = members.sample(frac=1.0, random_state=1) if leak == "copy" else swap_frame(members, 0.2, seed=1)
    row = Membership(**WITHOUT_CONTROL).evaluate(Release.load(members, [released]), seed=0).measures
    assert row["n_members"] == row["n_non_members"] == 2000, "every person is scored on both sides"
    assert Membership.breaches(row) is not None and row["auc_low"] >= 0.6


def test_without_a_control_table_every_person_is_scored_as_member_and_as_non_member(people):
    """Halves scored half as many people on each side: a 10% noisy copy of a table of categories
    (AUC 0.64 against a control table) stayed inconclusive or passed without one."""
    members, others = people
    release = Release.load(members, [others])
    task = Membership(**WITHOUT_CONTROL).task(release)
    assert np.array_equal(task.member_rows, task.control_rows) and task.n_members == len(members)
    row = Membership(**WITHOUT_CONTROL).evaluate(release, seed=0).measures
    rng = np.random.default_rng(0)
    halves = Roc.from_scores(rng.normal(size=1000), rng.normal(size=1000)).auc_interval()  # the independent interval at 1 000 a side, AUC 0.5
    assert row["auc_high"] - row["auc_low"] < 0.8 * (halves[1] - halves[0])


@pytest.mark.parametrize("unrelated", ["others", "others_swapped"])
def test_without_a_control_table_a_release_of_other_people_is_not_told_apart(people, unrelated):
    members, others = people
    released = others if unrelated == "others" else swap_frame(others, 0.8, seed=5)
    row = Membership(**WITHOUT_CONTROL).evaluate(Release.load(members, [released]), seed=0).measures
    assert row["auc_low"] < 0.55 and Membership.breaches(row) is None


def test_the_test_without_control_needs_the_closest_distance():
    with pytest.raises(ValueError, match="reference: original compares closest distances; attack 'distance_ratio' needs a control table"):
        Membership(attack="distance_ratio", reference="original")


def test_without_a_control_table_a_persons_twin_is_another_person_and_their_own_row_is_not():
    """Rows equal on every column sort by row number: a person's own row could come second, after a
    twin's, and was then taken for another person (two neighbours at distance 0 instead of one)."""
    people = make_population(300, seed=9)
    twins = pd.concat([people, people], ignore_index=True).sample(frac=1.0, random_state=2).reset_index(drop=True)
    release = Release.load(twins, [make_population(700, seed=10)])  # larger: every other person is searched
    task = Membership(**WITHOUT_CONTROL).task(release)
    ratios = ClosestDistance().prepare(release, task)[task.n_members :]
    assert (ratios < 1e-6).all()  # the twin at distance 0, the next other person further
