"""Linkability and Anonymeter-style inference: leaky against unrelated releases, ties, tolerance, bad parameters."""

import numpy as np
import pandas as pd
import pytest

from alc_dask.apps.synthetic import make_population
from alc_dask.data import Release, ScenarioError
from alc_dask.families.presentation import verdict_labels
from alc_dask.families.wp29.inference import Inference
from alc_dask.families.wp29.linkability import Linkability
from alc_dask.testing.truth import truth_releases
from alc_dask.verdict import judged

HALVES = [["age", "sex", "region"], ["education", "income", "hours_per_week"]]
AUX = ["age", "sex", "region", "education", "hours_per_week", "married"]


@pytest.fixture(scope="module")
def people():
    population = make_population(3000, seed=4)
    return population.iloc[:1500].reset_index(drop=True), population.iloc[1500:].reset_index(drop=True)


def test_a_release_of_the_members_links_them_and_not_the_others(people):
    members, others = people
    result = Linkability(aux_cols=HALVES, n_neighbors=1, n_attacks=300).evaluate(Release.load(members, [members], control=others), seed=0).measures
    assert result["attack_rate"] > result["control_rate"] + 0.2
    assert result["privacy_risk_low"] > 0.2 and result["beats_baseline"]


def test_an_unrelated_release_links_nobody_beyond_chance(people):
    members, others = people
    unrelated = make_population(1500, seed=77)
    result = Linkability(aux_cols=HALVES, n_neighbors=5, n_attacks=300).evaluate(Release.load(members, [unrelated], control=others), seed=0).measures
    assert result["privacy_risk_low"] == 0.0


def test_rows_at_equal_distance_are_ranked_at_random_not_by_row_number():
    """Every anonymized row is the same: one tie order for both halves (row number, or one shuffle)
    would make them pick the same k rows and link every target; drawn apart per half, they link
    about as often as the random baseline."""
    rng = np.random.default_rng(0)
    members = pd.DataFrame(
        {"a": rng.choice(list("xyz"), 400), "b": rng.choice(list("uv"), 400), "c": rng.choice(list("pq"), 400), "d": rng.choice(list("rs"), 400)}
    )
    flat = pd.DataFrame({column: [members[column].iloc[0]] * 400 for column in members.columns})
    result = (
        Linkability(aux_cols=[["a", "b"], ["c", "d"]], n_neighbors=5, n_attacks=400).evaluate(Release.load(members, [flat], control=members), seed=1).measures
    )
    assert result["attack_rate"] < 0.2
    assert abs(result["attack_rate"] - result["baseline_rate"]) < 0.1


def test_inference_of_a_leaked_secret_beats_the_control(people):
    members, others = people
    result = Inference(aux_cols=AUX, secret="condition", n_attacks=300).evaluate(Release.load(members, [members], control=others), seed=0).measures
    assert result["attack_rate"] > result["control_rate"] and result["secret"] == "condition"
    leaked_income = Inference(aux_cols=AUX, secret="income", n_attacks=300).evaluate(Release.load(members, [members], control=others), seed=0).measures
    assert leaked_income["attack_rate"] > 0.9 and leaked_income["privacy_risk_low"] > 0.3


@pytest.mark.parametrize("secret", ["x", None, 3.0, np.nan], ids=["constant", "all_missing", "constant_number", "all_missing_number"])
def test_a_secret_that_tells_nothing_is_not_informative_never_flagged(secret):
    """A constant or empty secret is "inferred" for everyone: Wilson's correction read 100% of 400
    members against 100% of 150 others as a risk of 0.49 [0, 1] (0.79 [0.50, 1], flagged, for 500 against 100)."""
    truth = truth_releases(rows=400, control_rows=150)
    members, others, release = (table.assign(secret=secret) for table in (truth.members, truth.control, truth.releases["bootstrap"]))
    row = Inference(aux_cols=AUX[:4], secret="secret", n_attacks=300).evaluate(Release.load(members, [release], control=others), seed=0).measures
    assert row["n_control_success"] == row["n_control_attacks"] == 150
    assert np.isnan(row["privacy_risk"]) and "risk" not in row  # labelled by the verdict, on Anonymeter's scale
    verdict = judged(Inference, pd.Series({**row, "scenario_id": "inference", "params": "{}"}), Inference.threshold.value)
    assert verdict.label == "not_informative" and "inferring it tells nothing about anyone" in verdict.evidence
    assert (
        Inference.not_informative({**row, "warning": None}) == "people not in the release are inferred right every time: the secret tells nothing about anyone"
    )
    assert verdict_labels(Inference, pd.DataFrame([row])) == ["not_informative"]  # the report's section says what the verdict says


def test_a_secret_constant_among_members_alone_is_not_informative():
    truth = truth_releases(rows=400, control_rows=150)
    members, release = truth.members.assign(condition="none"), truth.releases["copy"].assign(condition="none")
    row = Inference(aux_cols=AUX[:4], secret="condition", n_attacks=300).evaluate(Release.load(members, [release], control=truth.control), seed=0).measures
    assert row["n_control_success"] < row["n_control_attacks"]
    assert Inference.not_informative(row) == "'condition' holds one value or none in the original: inferring it tells nothing about anyone"


def test_continuous_guess_is_right_within_the_tolerance_of_the_true_value():
    family = Inference(aux_cols=["k"], secret="x", tolerance=0.05)
    release = Release.load(pd.DataFrame({"k": list("ab") * 30, "x": np.linspace(-50, 50, 60)}), [pd.DataFrame({"k": ["a"], "x": [1.0]})])
    guess = np.array([105.0, 95.5, -94.0, 0.0, 0.1, np.nan, np.nan])
    truth = np.array([100.0, 100.0, -100.0, 0.0, 0.0, np.nan, 1.0])
    assert family._right(guess, truth, release).tolist() == [True, True, False, True, False, True, False]


def test_same_seed_same_result(people):
    members, others = people
    release = Release.load(members, [members.sample(frac=1.0, random_state=3)], control=others)
    family = Linkability(aux_cols=HALVES, n_neighbors=3, n_attacks=200)
    assert family.evaluate(release, seed=4).measures == family.evaluate(release, seed=4).measures


def test_bad_parameters_name_the_field_and_value(people):
    members, others = people
    release = Release.load(members, [members], control=others)
    with pytest.raises(ValueError, match=r"aux_cols: the two halves must be disjoint; both hold \['sex'\]"):
        Linkability(aux_cols=[["age", "sex"], ["sex", "region"]])
    with pytest.raises(ValueError, match="aux_cols"):
        Linkability(aux_cols=[[], ["sex"]])
    with pytest.raises(ValueError, match="secret: 'sex' is also one of the aux_cols"):
        Inference(aux_cols=["sex", "age"], secret="sex")
    with pytest.raises(ScenarioError, match="n_neighbors: 5000 is more than the 1500 rows"):
        Linkability(aux_cols=HALVES, n_neighbors=5000).check(release)
    with pytest.raises(ScenarioError, match="release.control"):
        Inference(aux_cols=AUX, secret="income").check(Release.load(members, [members]))
    with pytest.raises(ScenarioError, match="aux_cols: .*'shoe_size'"):
        Inference(aux_cols=["shoe_size"], secret="income").check(release)
    with pytest.raises(ScenarioError, match="table: 3 is not an anonymized table"):
        Inference(aux_cols=AUX, secret="income", table=3).check(release)


def test_a_secret_people_not_in_the_release_are_inferred_on_anyway_cannot_block_a_pass():
    """Adult's education-num (one-to-one with education) is inferred for 91.7% of people not in a
    bootstrap of other people: the risk 0.02 [0, 0.15] held that release inconclusive, though no
    outcome of these counts could clear it. Not informative, unless flagged."""
    from alc_dask.measure import AttackCounts

    def stored(success, control, n=5000):
        counts = AttackCounts(n, success, n, 0, n, control)
        return pd.Series(
            {
                **counts.measures(),
                "n_attacks": n,
                "n_success": success,
                "n_baseline_attacks": n,
                "n_baseline_success": 0,
                "n_control_attacks": n,
                "n_control_success": float(control),
                "confidence_level": 0.95,
                "warning": None,
                "secret": "education-num",
                "scenario_id": "i",
                "params": "{}",
            }
        )

    anyway = judged(Inference, stored(4596, 4585), Inference.threshold.value)
    assert anyway.label == "not_informative" and "the attack succeeds on 91.7% of people not in the release" in anyway.evidence
    assert judged(Inference, stored(5000, 4585), Inference.threshold.value).label == "flagged"  # a copy's excess still flags
    assert judged(Inference, stored(2510, 2500), Inference.threshold.value).label == "pass"  # room to clear it: cleared


def test_checking_an_evaluation_gathers_no_table_kept_in_parts(people, monkeypatch):
    """Planning checks every evaluation of the battery on the client: each check gathered the
    release and the control whole into it (a large release's tables, once per evaluation)."""
    from alc_dask.data.partitioned import PartitionedTable, partition
    from alc_dask.families.wp29.singling_out import SinglingOut

    members, others = people
    parts = partition(Release.load(members, [members], control=others), 500)

    def gathered(table, index):
        raise AssertionError(f"{table.name} gathered")

    monkeypatch.setattr(PartitionedTable, "rows", gathered)
    Inference(aux_cols=AUX, secret="condition").check(parts)
    Linkability(aux_cols=HALVES).check(parts)
    SinglingOut(mode="multivariate", n_cols=3).check(parts)
    with pytest.raises(ScenarioError, match="aux_cols: 'nope' is not a column"):
        Inference(aux_cols=["nope"], secret="condition").check(parts)


def test_rarity_weights_of_a_table_in_parts_are_those_of_the_whole_table(people):
    from alc_dask.data.partitioned import partition_table
    from alc_dask.neighbors.weighted import RarityWeights

    members, others = people
    original = Release.load(members, [members], control=others).original
    whole, parts = (RarityWeights.of(table, AUX) for table in (original, partition_table(original, 400)))
    assert whole.costs.keys() == parts.costs.keys() and len(whole.costs) >= 3
    for name in whole.costs:
        np.testing.assert_array_equal(whole.costs[name], parts.costs[name])
    assert whole.unseen == parts.unseen
