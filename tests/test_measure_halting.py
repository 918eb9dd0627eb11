"""The halting state machine on scripted sequences: every halt code is reachable."""

import numpy as np
import pytest

from alc_dask.measure import HaltCode, HaltingMonitor, HaltingRules, alc

REFERENCE = HaltingRules(settle_at=None)
"""The reference implementation's rules alone (the tests of each of its halt codes)."""


def constant(n_correct: int, n_wrong: int, confidence: float = 1.0):
    """Predictions of one confidence: the only cut keeps them all (recall 1)."""
    correct = np.r_[np.ones(n_correct, bool), np.zeros(n_wrong, bool)]
    return correct, np.full(len(correct), confidence)


def check(monitor, base, attack):
    return monitor.check(*base, *attack)


def test_checkpoints_every_50_pairs_from_50_on():
    monitor = HaltingMonitor(REFERENCE)
    assert [n for n in range(1, 201) if monitor.is_checkpoint(n)] == [50, 100, 150, 200]
    assert [n for n in range(1, 40) if HaltingMonitor(HaltingRules(min_pairs=10, check_every=7, settle_at=None)).is_checkpoint(n)] == [10, 17, 24, 31, 38]


def test_early_high_loose():
    # Base at 10% on 50 pairs: too few for a tight interval, but a loose one is certain the attack wins.
    result = check(HaltingMonitor(REFERENCE), constant(5, 45), constant(50, 0))
    assert result.halt_code is HaltCode.EARLY_HIGH_LOOSE
    assert not result.tight and result.alc_early_high > 0.9


def test_early_low_loose():
    result = check(HaltingMonitor(REFERENCE), constant(50, 0), constant(5, 45))
    assert result.halt_code is HaltCode.EARLY_LOW_LOOSE
    assert result.alc_early_low < 0.0


def test_loose_without_decision_goes_on():
    result = check(HaltingMonitor(REFERENCE), constant(25, 25), constant(30, 20))
    assert not result.halted


def test_early_low_tight():
    result = check(HaltingMonitor(REFERENCE), constant(50, 0), constant(0, 50))
    assert result.halt_code is HaltCode.EARLY_LOW_TIGHT
    assert result.tight and result.alc < 0


def test_early_high_tight():
    result = check(HaltingMonitor(REFERENCE), constant(0, 200), constant(200, 0))
    assert result.halt_code is HaltCode.EARLY_HIGH_TIGHT
    assert result.alc > 0.98


def test_diminishing_returns_after_two_equal_checks():
    monitor = HaltingMonitor(REFERENCE)
    base, attack = constant(240, 60), constant(250, 50)
    first = check(monitor, base, attack)
    assert not first.halted and first.tight
    second = check(monitor, base, attack)
    assert second.halt_code is HaltCode.DIMINISHING_RETURNS
    assert second.alc == pytest.approx(alc(second.base.prc, second.attack.prc))


def test_progress_keeps_the_loop_going():
    monitor = HaltingMonitor(REFERENCE)
    assert not check(monitor, constant(240, 60), constant(240, 60)).halted
    # The attack gains far more than max(0.01, 5% of the distance to 1): go on.
    assert not check(monitor, constant(240, 60), constant(290, 10)).halted


def high_alc_sequence(expected_base_prc):
    monitor = HaltingMonitor(REFERENCE, expected_base_prc=expected_base_prc)
    base, attack = constant(80, 320), constant(280, 120)  # ALC about 0.62: at risk
    check(monitor, base, attack)
    return check(monitor, base, attack)


def test_close_to_expected():
    probe = HaltingMonitor(REFERENCE)
    check(probe, constant(80, 320), constant(280, 120))
    base_prc = probe.best_base_.prc
    result = high_alc_sequence(expected_base_prc=base_prc + 0.02)
    assert result.halt_code is HaltCode.CLOSE_TO_EXPECTED
    assert 0.5 <= result.alc < 0.75


def test_base_far_below_expectation_goes_on():
    assert not high_alc_sequence(expected_base_prc=0.9).halted


def test_a_baseline_without_expectation_halts_when_stalled_at_high_alc():
    """Prior and control baselines have no expected PRC: a stall at ALC >= 0.5 used to run them to the last target."""
    result = high_alc_sequence(expected_base_prc=None)
    assert result.halt_code is HaltCode.DIMINISHING_RETURNS
    assert result.alc >= 0.5


def test_exhausted_reports_the_best_measures_seen():
    monitor = HaltingMonitor(REFERENCE)
    check(monitor, constant(240, 60), constant(250, 50))
    result = monitor.finish(*constant(200, 100), *constant(200, 100))
    assert result.halt_code is HaltCode.EXHAUSTED
    assert result.base.correct == 240 and result.attack.correct == 250


def test_exhausted_with_too_few_pairs_falls_back_to_loose_cuts():
    result = HaltingMonitor(REFERENCE).finish(*constant(20, 20), *constant(30, 10))
    assert result.halt_code is HaltCode.EXHAUSTED and not result.tight


def test_thresholds_are_parameters():
    rules = HaltingRules(tight_high_alc=0.5, settle_at=None)
    result = HaltingMonitor(rules).check(*constant(80, 320), *constant(280, 120))
    assert result.halt_code is HaltCode.EARLY_HIGH_TIGHT


def test_unpaired_predictions_are_refused():
    with pytest.raises(ValueError, match="pairs"):
        HaltingMonitor(REFERENCE).check(*constant(10, 0), *constant(11, 0))


def test_inconsistent_rules_are_refused():
    with pytest.raises(ValueError, match="interval"):
        HaltingRules(tight_interval=0.3, loose_interval=0.2)


def test_two_perfect_sides_do_not_halt_while_the_alc_is_unsettled():
    """The reference's rules stop a secret that 97% of people share when the baseline and the attack
    are both right for every target so far; the verdict's interval then spans far below 0 to 1."""
    reference, waiting = HaltingMonitor(REFERENCE), HaltingMonitor(available=30_000)
    for monitor in (reference, waiting):
        assert not check(monitor, constant(150, 0), constant(150, 0)).halted
    assert check(reference, constant(200, 0), constant(200, 0)).halt_code is HaltCode.DIMINISHING_RETURNS
    assert not check(waiting, constant(200, 0), constant(200, 0)).halted


def test_a_stop_waits_for_the_verdicts_next_look_and_keeps_its_code():
    """600 pairs are no look of the verdict (50 times a power of two), 800 are."""
    reference, waiting = HaltingMonitor(REFERENCE), HaltingMonitor(available=30_000)
    assert not check(waiting, constant(225, 225), constant(300, 150)).halted  # 450: the first check, past the look at 400
    assert check(reference, constant(300, 300), constant(600, 0)).halt_code is HaltCode.EARLY_HIGH_TIGHT
    assert not check(waiting, constant(300, 300), constant(600, 0)).halted
    assert check(waiting, constant(400, 400), constant(800, 0)).halt_code is HaltCode.EARLY_HIGH_TIGHT


def test_an_alc_that_no_attack_could_settle_halts_as_the_rules_say():
    """A baseline right for 999 of 1 000 targets, of 1 000 in all: even an attack right for all of
    them could not show an ALC of 0.5, so waiting is pointless."""
    for available, halts in ((800, True), (100_000, False)):
        monitor = HaltingMonitor(available=available)
        check(monitor, constant(399, 1), constant(400, 0))
        assert check(monitor, constant(799, 1), constant(800, 0)).halted is halts


def test_the_budget_is_a_rule():
    assert HaltingRules(max_pairs=400).max_pairs == 400
    with pytest.raises(ValueError, match="max_pairs"):
        HaltingRules(max_pairs=0)


def test_checks_that_miss_the_doublings_still_look():
    """Checks every 100 pairs from 50 never fall on 100, 200, 400: the first check past each is the look."""
    monitor = HaltingMonitor(HaltingRules(check_every=100), available=30_000)
    assert check(monitor, constant(75, 75), constant(150, 0)).halted
