"""Precision improvement at matched coverage: the vectors of Francis & Wagner 2024 (§4.3), its
agreement with the ALC at recall 1, and the verdict that a dominating baseline overrules."""

import numpy as np
import pytest

from alc_dask.measure import MatchedCoverage, alc, matched_coverage, prc_at_full_recall, precision_improvement


@pytest.mark.parametrize(("attack", "base", "expected"), [(0.75, 0.5, 0.5), (0.97, 0.94, 0.5), (0.5, 0.5, 0.0), (0.4, 0.8, -2.0)])
def test_seed_vectors(attack, base, expected):
    assert precision_improvement(attack, base) == pytest.approx(expected)


def test_a_perfect_baseline_does_not_divide_by_zero():
    assert precision_improvement(1.0, 1.0) == 0.0 and precision_improvement(0.9, 1.0) < -1e6


@pytest.mark.parametrize("seed", range(5))
def test_at_recall_1_with_equal_coverage_it_is_the_alc(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 2000))
    attack, base = rng.random(n) < rng.uniform(0.3, 0.95), rng.random(n) < rng.uniform(0.1, 0.9)
    matched = matched_coverage(np.ones(n, bool), attack, base, np.ones(n))
    expected = alc(prc_at_full_recall(base).prc, prc_at_full_recall(attack).prc)
    assert matched.coverage == 1.0 and matched.pi == pytest.approx(expected, abs=1e-12)
    assert matched.pi_low <= matched.pi <= matched.pi_high


def test_baseline_precision_is_taken_on_the_attacks_targets_only():
    """The attack predicts for the first half, where the baseline is mostly wrong; the baseline is
    right on the whole second half, which does not count at matched coverage."""
    predicted = np.r_[np.ones(100, bool), np.zeros(100, bool)]
    attack = np.r_[np.ones(90, bool), np.zeros(110, bool)]
    base = np.r_[np.ones(20, bool), np.zeros(80, bool), np.ones(100, bool)]
    matched = matched_coverage(predicted, attack, base, np.ones(200))
    assert matched.coverage == 0.5
    assert matched.base_precision == pytest.approx(0.2, abs=0.02) and matched.attack_precision == pytest.approx(0.9, abs=0.02)
    assert matched.pi > 0.8 and matched.vulnerable


def test_a_baseline_as_precise_on_as_many_targets_overrules_the_attack():
    """Francis & Wagner 2024, §4.5: a precise attack is no vulnerability if the baseline, ranking by its own
    confidence, is as precise on at least as many targets."""
    predicted = np.r_[np.ones(100, bool), np.zeros(100, bool)]
    attack = np.r_[np.ones(90, bool), np.zeros(110, bool)]
    base = np.r_[np.zeros(80, bool), np.ones(120, bool)]  # right on 20 of the attack's targets, and on all 100 others
    confident = np.r_[np.zeros(80), np.ones(120)]  # and it knows where it is right
    matched = matched_coverage(predicted, attack, base, confident)
    assert matched.pi > 0.5 and not matched.vulnerable
    unranked = matched_coverage(predicted, attack, base, np.ones(200))  # all-or-nothing: 60% precise, not dominating
    assert unranked.vulnerable


def test_no_prediction_no_comparison():
    matched = matched_coverage(np.zeros(10, bool), np.ones(10, bool), np.ones(10, bool), np.ones(10))
    assert matched.coverage == 0.0 and not matched.vulnerable and np.isnan(matched.pi)
    assert set(MatchedCoverage.none().to_dict()) == set(matched.to_dict())


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="mismatched lengths"):
        matched_coverage(np.ones(3, bool), np.ones(3, bool), np.ones(2, bool), np.ones(3))
    with pytest.raises(ValueError, match="base_precision must be <= 1"):
        precision_improvement(0.5, 1.5)


def test_every_alc_scenario_reports_pi_beside_the_alc():
    from alc_dask.apps.synthetic import make_demo_release
    from alc_dask.data import Release
    from alc_dask.families.alc.family import AlcFamily
    from alc_dask.report import summarize

    tables = make_demo_release(1500, seed=2)
    release = Release.load(tables["original"], [tables["weak"]], control=tables["control"])
    measures = AlcFamily(secret="income", known=["age", "sex", "region", "education", "occupation"]).evaluate(release, seed=1).measures
    assert measures["pi_attack_precision"] == pytest.approx(measures["attack_precision"])
    assert measures["pi_coverage"] == pytest.approx(measures["attack_n"] / measures["attack_attempts"])
    assert measures["pi_low"] <= measures["pi"] <= measures["pi_high"] and isinstance(measures["pi_vulnerable"], bool)
    row = {**measures, "status": "ok", "family": "alc", "release": "weak", "scenario_id": "income-1", "known": "[]"}
    section = summarize(__import__("pandas").DataFrame([row])).section("Attribute inference")
    assert ("vulnerable at matched coverage" in section.notes[0]) and ("pi" in section.tables["Worst scenarios"].columns)
