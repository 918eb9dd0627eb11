"""``ml_on_release``: the baseline's model zoo and selection fitted on the release, pinned on releases
of known truth (``alc_dask.testing.truth``): a copy of the members is flagged, a bootstrap of other
people of the population is not; the same model and predictions whatever the seed's reruns and
wherever the release is held; and as the inference family's option."""

import numpy as np
import pytest
from distributed import Client, LocalCluster

from alc_dask.attacks.base import AttributeTask, TargetBlock
from alc_dask.attacks.registry import build_attack
from alc_dask.data import Release, ScenarioError
from alc_dask.data.partitioned import partition
from alc_dask.families.alc.family import AlcFamily
from alc_dask.families.alc.loop import run_attack
from alc_dask.families.wp29.inference import Inference
from alc_dask.measure import SettingError, Tolerance
from alc_dask.measure.verdict import Label, interval_label
from alc_dask.testing.truth import truth_releases

SECRET = "education"
KNOWN = ("age", "sex", "region", "occupation", "income", "hours_per_week", "married")
"""Known columns that tell members apart and predict the secret (education sets occupation, within a level)."""
FAST = {"trees": 30}


@pytest.fixture(scope="module")
def truth():
    return truth_releases(1000, seed=0)


def alc_interval(truth, release: str, **attack_params):
    result = run_attack(
        truth.release(release),
        SECRET,
        KNOWN,
        attack="ml_on_release",
        seed=0,
        baseline_settings=_settings(),
        attack_params={"baseline_settings": FAST, **attack_params},
    )
    return AlcFamily.headline_interval(result.measures())


def _settings():
    from alc_dask.baseline import BaselineSettings

    return BaselineSettings(**FAST)


def test_a_copy_of_the_members_is_flagged(truth):
    head = alc_interval(truth, "copy")
    assert head.low >= AlcFamily.threshold.value
    assert interval_label(head.low, head.high, AlcFamily.threshold.value) is Label.FLAGGED


def test_a_bootstrap_of_other_people_teaches_no_more_than_the_population(truth):
    """The baseline learns the same population: the ALC's interval reaches 0 or below, and is not flagged."""
    head = alc_interval(truth, "bootstrap")
    assert head.low <= 0
    assert interval_label(head.low, head.high, AlcFamily.threshold.value) is not Label.FLAGGED


def test_shuffled_marginals_teach_less_than_the_population(truth):
    head = alc_interval(truth, "marginals")
    assert head.value < 0 and interval_label(head.low, head.high, AlcFamily.threshold.value) is Label.PASS


@pytest.mark.long  # two ALC scenarios to their halt: 25-50 s on a busy machine
def test_noise_weakens_the_attack(truth):
    """Noisy copies, none of whose rows is a member's: less noise, more inferred."""
    alcs = [alc_interval(truth, name).value for name in ("noisy_5", "noisy_20")]
    assert alcs[0] > alcs[1] > 0


def test_held_out_selection_learns_the_population_from_a_copy(truth):
    """Chosen as the baseline chooses (by held-out rows) the model generalizes: on the copy it is no leak."""
    assert alc_interval(truth, "copy", selection="held_out").low < AlcFamily.threshold.value


def predictions(release, attack, rows=np.arange(0, 1000, 7), source="original", tolerance=None):
    task = AttributeTask(
        SECRET if tolerance is None else "income", KNOWN if tolerance is None else ("age", "occupation", "education", "hours_per_week"), tolerance
    )
    prepared = attack.prepare(release, task)
    return prepared, attack.predict(prepared, TargetBlock(release, task, rows, source))


def test_same_seed_same_predictions_another_seed_another_sample(truth):
    release = truth.release("noisy_10")
    attack = build_attack("ml_on_release", max_rows=600, baseline_settings=FAST)
    _, first = predictions(release, attack)
    _, again = predictions(release, build_attack("ml_on_release", max_rows=600, baseline_settings=FAST))
    np.testing.assert_array_equal(first.codes, again.codes)
    np.testing.assert_array_equal(first.confidence, again.confidence)
    _, other = predictions(release, build_attack("ml_on_release", max_rows=600, baseline_settings=FAST, seed=1))
    assert not np.array_equal(first.confidence, other.confidence)


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        yield client


@pytest.mark.parametrize("tolerance", [None, Tolerance(0.1)])
def test_a_release_kept_on_the_workers_gives_what_a_copied_one_gives(truth, client, tolerance):
    """A sample smaller than the release (rows drawn across its parts) and all of it: the same
    model and predictions from the copied release, its parts in this process and its parts on two workers."""
    copied = truth.release("noisy_5")
    for max_rows in (700, 5000):
        attack = build_attack("ml_on_release", max_rows=max_rows, baseline_settings=FAST)
        model, expected = predictions(copied, attack, tolerance=tolerance)
        for release in (partition(copied, 300), partition(copied, 300, client=client)):
            parted_model, found = predictions(release, attack, tolerance=tolerance)
            assert (parted_model.choice.name, parted_model.choice.expected_prc) == (model.choice.name, model.choice.expected_prc)
            np.testing.assert_array_equal(found.codes, expected.codes)
            np.testing.assert_array_equal(found.confidence, expected.confidence)
            if tolerance is not None:
                np.testing.assert_array_equal(found.values, expected.values)
                assert np.isfinite(found.values).all()


def test_control_targets_are_predicted_by_the_same_model(truth):
    release = truth.release("copy")
    attack = build_attack("ml_on_release", baseline_settings=FAST)
    prepared, on_control = predictions(release, attack, rows=np.arange(50), source="control")
    guessed, confidence = prepared.predict(prepared.layout.matrix(release.control.rows(np.arange(50))))
    np.testing.assert_array_equal(on_control.codes, guessed)
    np.testing.assert_array_equal(on_control.confidence, confidence)


def test_bad_parameters_and_tasks_are_named(truth):
    with pytest.raises(SettingError, match="selection"):
        build_attack("ml_on_release", selection="best")
    with pytest.raises(SettingError, match=r"baseline_settings\.candidates\[0\]"):
        build_attack("ml_on_release", baseline_settings={"candidates": ["deep_net"]})
    with pytest.raises(SettingError, match="max_rows"):
        build_attack("ml_on_release", max_rows=0)
    narrow = Release.load(truth.members, [truth.releases["copy"].drop(columns="income")], control=truth.control)
    with pytest.raises(ScenarioError, match="every known column"):
        build_attack("ml_on_release").check(narrow, AttributeTask(SECRET, KNOWN))


@pytest.mark.parametrize(
    ("secret", "aux_cols", "least_risk"),
    [(SECRET, KNOWN, 0.5), ("income", ("age", "sex", "region", "education", "occupation", "hours_per_week"), 0.05)],
)
def test_inference_option_guesses_with_the_model_trained_on_the_release(truth, secret, aux_cols, least_risk):
    """A categorical secret and a continuous one (right within 5 %): the copy gives members away, the
    bootstrap no one. A forest's number is its trees' mean, which blurs the number it remembers: less on the copy."""

    def measures(release):
        family = Inference(aux_cols=list(aux_cols), secret=secret, n_attacks=300, attack="ml_on_release")
        return family.evaluate(truth.release(release), seed=0).measures

    copy, bootstrap = measures("copy"), measures("bootstrap")
    assert copy["attack"] == "ml_on_release" and copy["privacy_risk_low"] > least_risk
    assert bootstrap["privacy_risk_low"] == 0.0


def test_inference_option_refuses_an_exact_number():
    truth = truth_releases(100, seed=0)
    with pytest.raises(ScenarioError, match="tolerance above 0"):
        Inference(aux_cols=["age"], secret="income", tolerance=0, attack="ml_on_release").check(truth.release("copy"))


def test_inference_keeps_its_nearest_row_attack_and_ids_by_default():
    from alc_dask.jobs.scenarios import scenario_id

    nearest = Inference(aux_cols=["age"], secret="sex")
    assert nearest.labels()["attack"] == "nearest" and "attack" not in nearest.identity()
    assert scenario_id(nearest) != scenario_id(Inference(aux_cols=["age"], secret="sex", attack="ml_on_release"))
