"""Anonymeter's rates and risks from counts, checked on the example output printed in PETsARD's documentation of
Anonymeter."""

import math
from dataclasses import replace

import numpy as np
import pytest

from alc_dask.measure import AttackCounts, SuccessRate, bounded, residual_rate, success_rate


def test_seed_example_no_success_in_2000_attacks():
    """PETsARD's printed example: 0 successes of 2000 for every attack gives risk 0, top 0.0013568577."""
    measures = AttackCounts(2000, 0, 2000, 0, 2000, 0).measures()
    assert measures["attack_rate"] == pytest.approx(0.0009585236406264672, rel=1e-9)
    assert measures["attack_rate_err"] == pytest.approx(0.0009585236406264671, rel=1e-9)
    assert measures["baseline_rate"] == measures["control_rate"] == measures["attack_rate"]
    assert measures["privacy_risk"] == 0.0
    assert measures["privacy_risk_low"] == 0.0
    assert measures["privacy_risk_high"] == pytest.approx(0.0013568577126237004, rel=1e-9)
    assert measures["beats_baseline"] is False


def test_wilson_rate_is_pulled_towards_one_half_and_error_shrinks_with_attacks():
    small, large = success_rate(10, 5), success_rate(1000, 500)
    assert small.value == pytest.approx(0.5) and large.value == pytest.approx(0.5)
    assert large.error < small.error
    assert success_rate(100, 100).value < 1.0 and success_rate(100, 0).value > 0.0
    assert success_rate(0, 0) == SuccessRate(0.5, pytest.approx(0.5))


def test_residual_risk_normalizes_by_what_the_control_left():
    main, control = SuccessRate(0.6, 0.0), SuccessRate(0.2, 0.0)
    assert residual_rate(main, control).value == pytest.approx(0.5)
    assert math.isnan(residual_rate(main, SuccessRate(1.0, 0.01)).value)


def test_a_control_won_every_time_leaves_no_risk_to_measure():
    """Wilson's correction keeps a control rate of 100 of 100 below 1, and 500 of 500 members above
    it: read as a residual, 0.79 [0.50, 1], flagged."""
    measures = AttackCounts(500, 500, 500, 500, 100, 100).measures()
    assert all(math.isnan(measures[name]) for name in ("privacy_risk", "privacy_risk_low", "privacy_risk_high"))
    assert measures["control_rate"] == success_rate(100, 100).value


def test_risk_is_bounded_and_recomputable_at_another_confidence():
    counts = AttackCounts(500, 400, 500, 10, 500, 40)
    at95, at99 = counts.measures(0.95), counts.measures(0.99)
    assert 0 <= at95["privacy_risk_low"] <= at95["privacy_risk"] <= at95["privacy_risk_high"] <= 1
    assert at99["privacy_risk_high"] - at99["privacy_risk_low"] > at95["privacy_risk_high"] - at95["privacy_risk_low"]
    assert bounded(SuccessRate(-0.2, 0.1)).value == 0.0 and bounded(SuccessRate(1.2, 0.1)).high == 1.0


def test_without_control_the_risk_is_the_main_rate():
    measures = AttackCounts(100, 30, 100, 1).measures()
    assert measures["privacy_risk"] == pytest.approx(measures["attack_rate"])
    assert math.isnan(measures["control_rate"])


@pytest.mark.parametrize("n_attacks, n_success", [(10, 11), (10, -1), (-1, 0)])
def test_impossible_counts_are_rejected(n_attacks, n_success):
    with pytest.raises(ValueError, match="n_success"):
        success_rate(n_attacks, n_success)


def test_confidence_level_outside_the_unit_interval_is_rejected():
    with pytest.raises(ValueError, match="confidence_level"):
        success_rate(10, 5, confidence_level=1.0)


def _paired_outcomes(rng, n, main, control, both):
    """n people's two outcomes, right through the release (``main``) and through others (``control``),
    with ``both`` the chance of being right both ways (their correlation)."""
    cells = rng.multinomial(1, [both, main - both, control - both, 1 - main - control + both], size=n).argmax(axis=1)
    return np.isin(cells, (0, 1)), np.isin(cells, (0, 2))


@pytest.mark.parametrize("main, control, both", [(0.6, 0.5, 0.4), (0.63, 0.58, 0.5), (0.35, 0.3, 0.2)])
def test_the_paired_risk_interval_covers_the_true_risk_at_its_level(main, control, both):
    """Without a control table both attacks are made on the same people: the interval from the
    rates' covariance is narrower than the independent one and still covers the true risk in about
    95% of draws."""
    rng = np.random.default_rng(0)
    truth = (main - control) / (1 - control)
    covered, narrower = 0, 0
    draws = 2000
    for _ in range(draws):
        through_release, through_others = _paired_outcomes(rng, 2000, main, control, both)
        counts = AttackCounts(2000, int(through_release.sum()), 1, 0, 2000, int(through_others.sum()), int((through_release & through_others).sum()))
        paired, independent = counts.measures(), replace(counts, n_both_success=None).measures()
        covered += paired["privacy_risk_low"] <= truth <= paired["privacy_risk_high"]
        narrower += paired["privacy_risk_high"] - paired["privacy_risk_low"] < independent["privacy_risk_high"] - independent["privacy_risk_low"]
    assert 0.93 <= covered / draws <= 0.975, covered / draws
    assert narrower == draws


def test_a_paired_count_from_other_people_is_ignored():
    """The covariance is only read when both sides attacked the same number of people."""
    counts = AttackCounts(100, 60, 100, 0, 80, 40, n_both_success=30)
    assert counts.paired_covariance() == 0.0
    assert counts.measures() == replace(counts, n_both_success=None).measures()
