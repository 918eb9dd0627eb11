"""One scenario end to end: batching, seeds, baseline modes, custom attacks, and sanity anchors."""

import numpy as np
import pandas as pd
import pytest

from alc_dask import Release
from alc_dask.apps.synthetic import make_population
from alc_dask.attacks.base import AttributeAttack, AttributeTask, Predictions
from alc_dask.baseline import BaselineSettings
from alc_dask.data import ScenarioError
from alc_dask.families.alc.best_row_match import BestRowMatch
from alc_dask.families.alc.loop import AttackLoop, run_attack
from alc_dask.families.alc.loop.attacker import Attacker

FAST = dict(baseline_settings=BaselineSettings(candidates=("majority", "logistic_regression", "random_forest"), trees=20))
KNOWN = ["age", "sex", "region", "education", "hours_per_week", "married"]


@pytest.fixture(scope="module")
def population():
    return make_population(2500, seed=11)


@pytest.fixture(scope="module")
def leaky(population):
    """The original released as it is: every target's row is in the release."""
    return Release.load(population, [population])


@pytest.fixture(scope="module")
def unrelated(population):
    """A release of independent random rows: every column shuffled on its own."""
    rng = np.random.default_rng(5)
    shuffled = pd.DataFrame({c: rng.permutation(population[c].to_numpy()) for c in population})
    return Release.load(population, [shuffled], control=make_population(800, seed=12))


def scores(result):
    return result.to_frame().drop(columns=["seconds"])


def test_batching_never_changes_the_result(leaky):
    results = [run_attack(leaky, "occupation", KNOWN, seed=3, batch_size=size, **FAST) for size in (1, 13, 50, 400)]
    for other in results[1:]:
        pd.testing.assert_frame_equal(scores(results[0]), scores(other))
        pd.testing.assert_frame_equal(results[0].predictions, other.predictions)


def test_custom_attack_loop_reproduces_run_attack(leaky):
    expected = run_attack(leaky, "occupation", KNOWN, seed=3, **FAST)
    brm = Attacker(BestRowMatch(), AttributeTask("occupation", tuple(KNOWN)))
    loop = AttackLoop(leaky, "occupation", KNOWN, name="best_row_match", seed=3, **FAST)
    for target in loop:
        assert set(target.known) == set(KNOWN)
        prediction = brm.predict(leaky, np.array([target.row]))
        value = leaky.decode("occupation", prediction.codes)[0]
        loop.predict(value, confidence=prediction.confidence[0])
    pd.testing.assert_frame_equal(scores(loop.result()), scores(expected))


def test_custom_loop_insists_on_an_answer(leaky):
    loop = AttackLoop(leaky, "occupation", KNOWN, seed=0, **FAST)
    with pytest.raises(RuntimeError, match="predict\\(\\) or abstain\\(\\)"):
        for _ in loop:
            pass


def test_abstaining_everywhere_copies_the_baseline_with_zero_confidence(leaky):
    loop = AttackLoop(leaky, "occupation", KNOWN, seed=1, **FAST)
    for _ in loop:
        loop.abstain()
    predictions = loop.result().predictions
    assert predictions["abstained"].all()
    assert (predictions["attack_code"] == predictions["base_code"]).all()
    assert (predictions["attack_confidence"] == 0).all()


def test_seeded_runs_repeat_bit_for_bit(leaky):
    first = run_attack(leaky, "education", ["age", "region", "occupation"], seed=9, **FAST)
    second = run_attack(leaky, "education", ["age", "region", "occupation"], seed=9, **FAST)
    pd.testing.assert_frame_equal(scores(first), scores(second))
    pd.testing.assert_frame_equal(first.predictions, second.predictions)
    other = run_attack(leaky, "education", ["age", "region", "occupation"], seed=10, **FAST)
    assert not np.array_equal(first.predictions["target"][:50], other.predictions["target"][:50])


def test_original_as_its_own_release_loses_nearly_all_anonymity(leaky):
    result = run_attack(leaky, "occupation", KNOWN, seed=0, **FAST)
    assert result.attack.measured_precision == 1.0
    assert result.alc > 0.9


def test_independent_random_rows_lose_nothing(unrelated):
    result = run_attack(unrelated, "occupation", KNOWN, seed=0, **FAST)
    assert result.alc <= 0


def test_prior_mode_measures_both_sides_at_recall_one(leaky):
    result = run_attack(leaky, "occupation", KNOWN, baseline="prior", seed=0, swap_fraction=0.3)
    assert result.base.recall == 1.0 and result.attack.recall == 1.0
    # the swapped copy's guesses, or always guessing the most common value where that does better: never below it
    assert result.model in ("swap-anonymized original", "most common value (floor)") and result.base.prc >= result.floor_prc
    assert (result.model == "most common value (floor)") == (result.base.prc == result.floor_prc)
    assert result.alc > 0  # a 30%-swapped copy infers less than the original itself


def test_control_mode_attacks_control_records(unrelated):
    result = run_attack(unrelated, "occupation", KNOWN, baseline="control", seed=0)
    # On a release of random rows the control records' guesses are chance: the floor is the baseline
    assert result.baseline == "control" and result.model == "most common value (floor)" and result.base.prc == result.floor_prc
    assert result.pairs <= 800
    assert abs(result.alc) < 0.5  # members and non-members are alike to a release of random rows


def test_pretargeted_recall_is_relative_to_the_population(leaky, population):
    selector = {"conditions": [{"column": "region", "op": "eq", "value": "islands"}]}
    result = run_attack(leaky, "occupation", KNOWN, targets=selector, seed=0, **FAST)
    share = (population["region"] == "islands").mean()
    assert result.recall_basis == "population"
    assert result.attack.recall <= share + 1e-12
    targeted = set(result.predictions["target"])
    assert targeted <= set(np.flatnonzero(population["region"] == "islands"))
    relative = run_attack(leaky, "occupation", KNOWN, targets={**selector, "recall_basis": "pretargeted"}, seed=0, **FAST)
    assert relative.attack.recall > share


@pytest.mark.parametrize(
    "secret, known, options, message",
    [
        ("occupation", ["occupation", "age"], {}, "also a known column"),
        ("occupation", [], {}, "no known columns"),
        ("constant", ["age"], {}, "single value"),
        ("occupation", ["age"], {"targets": {"conditions": [{"column": "town", "op": "eq", "value": 1}]}}, "unknown column 'town'"),
        ("occupation", ["age"], {"targets": {"conditions": [{"column": "age", "op": "gt", "value": 500}]}}, "matches no row"),
        ("occupation", ["age"], {"baseline": "oracle"}, "baseline must be one of"),
        ("occupation", ["age"], {"baseline": "control"}, "control table"),
    ],
)
def test_bad_scenarios_are_clear_errors(population, secret, known, options, message):
    frame = population.assign(constant="same")
    release = Release.load(frame, [frame])
    with pytest.raises(ScenarioError, match=message):
        run_attack(release, secret, known, **options, **FAST)


@pytest.mark.long  # 110 s on 2 cores: out of the default run, in make test's second step
def test_weak_release_leaks_more_than_strong_on_adult(shared_data):
    """fnlwgt is nearly unique per person: where a release keeps it, it points at the target's row."""
    folder = shared_data / "alc-paper" / "adult"
    original = pd.read_parquet(folder / "original.parquet")
    scenarios = [("relationship", ["fnlwgt"]), ("race", ["capital-loss", "fnlwgt"]), ("sex", ["fnlwgt", "native-country"])]
    alcs = {}
    for strength in ("weak", "strong"):
        release = Release.load(original, [folder / f"{strength}.parquet"])
        alcs[strength] = np.array([run_attack(release, secret, known, seed=0).alc for secret, known in scenarios])
    assert (alcs["weak"] > alcs["strong"] + 0.2).all(), alcs


class AlwaysFirstValue(AttributeAttack):
    """A registered attack that always predicts code 0 with a fixed rank score."""

    def __init__(self, score: float = 0.5):
        self.score = score

    def predict(self, prepared, targets):
        n = len(targets.rows)
        return Predictions(np.zeros(n, np.int32), np.full(n, self.score), np.zeros(n, bool))


def test_a_registered_attack_runs_by_name(leaky):
    from alc_dask.attacks.registry import register_attack

    register_attack("always_first_value", AlwaysFirstValue)
    with pytest.raises(ValueError, match="already registered"):
        register_attack("always_first_value", AlwaysFirstValue)
    result = run_attack(leaky, "occupation", KNOWN, attack="always_first_value", attack_params={"score": 0.7}, seed=0, **FAST)
    assert result.attack_name == "always_first_value"
    assert (result.predictions["attack_code"] == 0).all()
    assert (result.predictions["attack_confidence"] == 0.7).all()
    with pytest.raises(ValueError, match="unknown attribute inference attack 'no_such_attack'; known: always_first_value, .*best_row_match"):
        run_attack(leaky, "occupation", KNOWN, attack="no_such_attack")


class GuessesTheRarest:
    """Predicts the secret's rarest code for every target: a baseline weaker than guessing the most
    common value. Written for the earlier contract (a plain object), which still runs."""

    def predict(self, release, secret, known, target_rows, source="original", client=None):
        rarest = int(np.bincount(release.secret_column(secret)).argmin())
        n = len(target_rows)
        return Predictions(np.full(n, rarest, np.int32), np.ones(n), np.zeros(n, bool))


@pytest.mark.parametrize("baseline", ["prior", "ml"])
def test_the_baseline_is_never_weaker_than_guessing_the_most_common_value(baseline):
    from alc_dask.attacks.registry import _REGISTERED, register_attack
    from alc_dask.families.alc.loop.summary import FLOOR_MODEL
    from alc_dask.measure import MeasureSettings

    if "guesses_the_rarest" not in _REGISTERED:
        register_attack("guesses_the_rarest", GuessesTheRarest)
    rng = np.random.default_rng(2)
    table = pd.DataFrame({"noise": rng.integers(0, 50, 3000), "s": rng.choice(["common", "rare", "other"], 3000, p=[0.8, 0.05, 0.15])})
    release = Release.load(table, [table.assign(noise=rng.permutation(table["noise"].to_numpy()))])
    settings = {"baseline_settings": BaselineSettings(candidates=("logistic_regression",), trees=10)} if baseline == "ml" else {}
    result = run_attack(release, "s", ["noise"], attack="guesses_the_rarest", baseline=baseline, seed=3, **settings)
    truth = result.predictions["base_true"].to_numpy()
    floor = MeasureSettings().at_full_recall(truth == release.secret_codes("s").encode(pd.Series(["common"]))[0])
    assert result.base.prc >= floor.prc - 1e-12
    assert result.alc_full_recall <= 0  # the rarest value beats the most common one at no recall
    if baseline == "prior":  # the swapped copy's guesses are the rarest value's: the floor is the baseline
        assert result.model == FLOOR_MODEL and result.base == floor


def test_the_pair_log_keeps_every_batch_in_order_as_it_grows():
    from alc_dask.families.alc.loop.pairs import COLUMNS, PairLog

    rng = np.random.default_rng(0)
    log, batches = PairLog(capacity=4), []
    for size, code_type in ((3, np.int32), (7, np.int32), (1, np.int64), (40, np.int16)):
        batch = {
            name: rng.integers(0, 5, size).astype(code_type) for name in COLUMNS if "confidence" not in name and "correct" not in name and name != "abstained"
        }
        batch |= {"base_confidence": rng.random(size), "attack_confidence": rng.random(size), "abstained": rng.random(size) < 0.2}
        batch |= {"base_correct": batch["base_code"] == batch["base_true"], "attack_correct": batch["attack_code"] == batch["attack_true"]}
        log.append(**batch)
        batches.append(batch)
        expected = {name: np.concatenate([b[name] for b in batches]) for name in COLUMNS}
        base_correct, base_confidence, attack_correct, _ = log.measures()
        np.testing.assert_array_equal(base_correct, expected["base_code"] == expected["base_true"])
        np.testing.assert_array_equal(base_confidence, expected["base_confidence"])
        np.testing.assert_array_equal(attack_correct, expected["attack_code"] == expected["attack_true"])
    columns = log.columns()
    assert log.count == 51 and columns["target"].dtype == np.int64 and columns["abstained"].dtype == bool
    np.testing.assert_array_equal(columns["target"], expected["target"])
    np.testing.assert_array_equal(columns["attack_correct"], expected["attack_code"] == expected["attack_true"])
