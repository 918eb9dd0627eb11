"""PRC, ALC, Wilson intervals, recall and risk labels against the reference implementation's
vectors (anonymity-loss-coefficient 1.0.32) and properties."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from alc_dask.measure import (
    RiskThresholds,
    alc,
    prc,
    pretargeted_scale,
    recall_pretargeted,
    recall_random,
    risk_label,
    wilson_interval,
)

# The reference rounds to 4 decimals: half a unit in the 4th place, plus float noise.
ROUNDING = 5e-5 + 1e-9

PRC_VECTORS = [
    (1.0, 1.0, 1.0),
    (0.9, 0.2, 0.8952),
    (0.95, 0.05, 0.9173),
    (0.5, 0.01, 0.4375),
    (0.8, 0.001, 0.4625),
    (0.99, 0.0001, 0.0001),
    (0.7, 0.00005, 0.0001),
    (0.6, 0.5, 0.5997),
]

ALC_VECTORS = [
    (0.1, 1, 0.3, 1, 0.2222),
    (0.75, 1, 0.95, 1, 0.8),
    (0.99, 1, 0.999, 1, 0.9),
    (0.5, 1, 0.5, 1, 0.0),
    (0.8, 1, 0.6, 1, -1.0),
    (0.2, 1, 0.96, 0.001, 0.4438),
    (0.05, 1, 0.525, 1, 0.5),
    (0.5, 0.3, 0.9, 0.01, 0.5759),
]

WILSON_VECTORS = [
    (10, 0.5, 0.2366, 0.7634),
    (50, 0.9, 0.7864, 0.9565),
    (100, 1.0, 0.963, 1.0),
    (400, 0.25, 0.2101, 0.2947),
    (1, 0.0, 0.0, 0.7935),
    (1000, 0.973, 0.961, 0.9814),
]


@pytest.mark.parametrize("precision, recall, expected", PRC_VECTORS)
def test_prc_matches_spec_vectors(precision, recall, expected):
    assert prc(precision, recall) == pytest.approx(expected, abs=ROUNDING)


def test_prc_is_vectorised():
    p, r, expected = map(np.array, zip(*PRC_VECTORS))
    np.testing.assert_allclose(prc(p, r), expected, atol=ROUNDING)


@pytest.mark.parametrize("p_base, r_base, p_atk, r_atk, expected", ALC_VECTORS)
def test_alc_matches_spec_vectors(p_base, r_base, p_atk, r_atk, expected):
    # The reference rounds each PRC before the ALC, so allow two roundings.
    assert alc(prc(p_base, r_base), prc(p_atk, r_atk)) == pytest.approx(expected, abs=2 * ROUNDING)


def test_alc_absolute_weight_gives_plain_difference():
    assert alc(0.2, 0.6, abs_weight=1.0) == pytest.approx(0.4)
    assert alc(0.2, 0.6, abs_weight=0.5) == pytest.approx(0.5 * 0.4 + 0.5 * 0.5)


def test_alc_never_divides_by_zero_at_perfect_base():
    assert alc(1.0, 1.0) == 0.0
    assert alc(1.0, 0.5) < -1e6


@pytest.mark.parametrize("n, precision, low, high", WILSON_VECTORS)
def test_wilson_matches_spec_vectors(n, precision, low, high):
    got_low, got_high = wilson_interval(n, precision)
    assert got_low == pytest.approx(low, abs=ROUNDING)
    assert got_high == pytest.approx(high, abs=ROUNDING)


def test_wilson_of_no_predictions_is_zero_and_vectorised():
    assert wilson_interval(0, 0.0) == (0.0, 0.0)
    low, high = wilson_interval(np.array([0, 10]), np.array([0.0, 0.5]))
    np.testing.assert_allclose(low, [0.0, 0.2366], atol=ROUNDING)
    np.testing.assert_allclose(high, [0.0, 0.7634], atol=ROUNDING)


def test_wilson_narrows_with_confidence_level():
    low90, high90 = wilson_interval(100, 0.5, confidence=0.90)
    low99, high99 = wilson_interval(100, 0.5, confidence=0.99)
    assert high90 - low90 < high99 - low99


unit = st.floats(0.0, 1.0)


@given(p1=unit, p2=unit, r=st.floats(1e-6, 1.0))
def test_prc_is_monotone_in_precision(p1, p2, r):
    low, high = sorted((p1, p2))
    assert prc(low, r) <= prc(high, r) + 1e-12


above_rmin = st.floats(1e-4, 1.0, exclude_min=True)
below_rmin = st.floats(0.0, 1e-4)


@given(r1=above_rmin, r2=above_rmin, p=unit)
def test_prc_is_monotone_in_recall_above_rmin(r1, r2, p):
    low, high = sorted((r1, r2))
    assert prc(p, low) <= prc(p, high) + 1e-12


@given(r=below_rmin, p=unit)
def test_prc_is_the_recall_itself_at_or_below_rmin(r, p):
    # Francis & Wagner 2025, §4.1: at or below Rmin precision no longer matters.
    assert prc(p, r) == r


@given(value=unit, w=unit)
def test_alc_is_zero_when_both_prcs_are_equal(value, w):
    assert alc(value, value, abs_weight=w) == pytest.approx(0.0, abs=1e-12)


@given(base=unit, attack=unit)
def test_alc_is_at_most_one_and_sign_follows_gain(base, attack):
    value = alc(base, attack)
    assert value <= 1.0
    assert np.sign(value) == np.sign(min(attack, 0.99999999) - min(base, 0.99999999))


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda: prc(float("nan"), 0.5), "precision"),
        (lambda: prc(0.5, 1.5), "recall"),
        (lambda: prc(-0.1, 0.5), "precision"),
        (lambda: prc(0.5, 0.5, rmin=0.0), "rmin"),
        (lambda: alc(0.5, float("nan")), "prc_attack"),
        (lambda: alc(1.2, 0.5), "prc_base"),
        (lambda: alc(0.2, 0.5, abs_weight=2.0), "abs_weight"),
        (lambda: wilson_interval(-1, 0.5), "n"),
        (lambda: wilson_interval(10, 1.01), "precision"),
        (lambda: wilson_interval(10, 0.5, confidence=1.0), "confidence"),
        (lambda: risk_label(float("nan")), "alc"),
        (lambda: recall_random(5, 0), "attempts"),
        (lambda: recall_random(6, 5), "predictions"),
        (lambda: recall_pretargeted(1, 5, 0, 100), "pretargeted"),
        (lambda: recall_pretargeted(1, 5, 10, 100, basis="everyone"), "everyone"),
    ],
)
def test_bad_input_names_the_argument(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()


def test_recall_definitions():
    assert recall_random(30, 120) == 0.25
    assert recall_pretargeted(30, 120, pretargeted=50, population=1000) == pytest.approx(0.25 * 0.05)
    assert recall_pretargeted(30, 120, pretargeted=50, population=1000, basis="pretargeted") == 0.25
    assert pretargeted_scale(50, 1000, "population") == 0.05


def test_risk_labels_at_and_around_thresholds():
    values = [-0.3, 0.0, 0.01, 0.4999, 0.5, 0.7499, 0.75, 1.0]
    expected = ["no loss", "no loss", "safe", "safe", "at risk", "at risk", "serious", "serious"]
    assert list(risk_label(values)) == expected
    assert risk_label(0.6) == "at risk"
    assert risk_label(0.6, RiskThresholds(at_risk=0.7, serious=0.9)) == "safe"


def test_risk_thresholds_must_be_ordered():
    with pytest.raises(ValueError, match="risk thresholds"):
        RiskThresholds(at_risk=0.8, serious=0.7)
