"""The Pitman–Yor scaling law of identification (Rocher et al. 2025): its vectors, its quantities against a
simulation, the (h, γ) <-> (d, α) round trip, and the fits."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import gammaln

from alc_dask.measure.pitman_yor import PitmanYor, inverse_digamma, log_gamma_ratio
from alc_dask.measure.scaling_fits import fit_baselines, fit_correctness, fit_profile


def test_web_fingerprints_at_four_billion_devices():
    """Rocher et al. 2025 (Results): h = 41.54, γ = 0.68 identify 4e9 devices with 75% correctness (h in nats)."""
    assert PitmanYor.of_entropy(41.54, 0.68).correctness(4e9) == pytest.approx(0.75, abs=0.01)
    assert PitmanYor.of_entropy(41.54 * np.log(2), 0.68).correctness(4e9) < 0.6  # h read as bits (28.8 nats) is far off


def test_two_measurements_forecast_ten_times_further():
    """Rocher et al. 2025, Introduction: κ 0.99 at 100 and 0.80 at 1 000 forecast κ ≈ 0.21 at 10 000 (it
    takes a tail lighter than geometric, γ < 0, allowed as an option)."""
    fit = fit_correctness([100, 1000], [0.99, 0.80], allow_negative_gamma=True)
    assert fit.converged and fit.correctness(10_000) == pytest.approx(0.21, abs=0.01)
    assert fit_correctness([100, 1000], [0.99, 0.80]).correctness(10_000) > 0.3  # γ kept in [0, 1] cannot follow


@settings(max_examples=300, deadline=None)
@given(h=st.floats(0.5, 40.0), gamma=st.floats(-1.0, 0.95))
def test_parameters_round_trip_and_correctness_falls_with_n(h, gamma):
    model = PitmanYor.of_entropy(h, gamma)
    assert model.h == pytest.approx(h, rel=1e-6) and model.gamma == pytest.approx(gamma, abs=1e-6)
    again = PitmanYor.of_entropy(model.h, model.gamma)
    assert again.d == pytest.approx(model.d, rel=1e-9, abs=1e-9) and again.alpha == pytest.approx(model.alpha, rel=1e-6)
    sizes = np.geomspace(1, 1e10, 25)
    kappa = model.correctness(sizes)
    assert kappa[0] == 1.0 and np.all(np.diff(kappa) <= 1e-12) and np.all((kappa >= 0) & (kappa <= 1))
    unique = model.uniqueness(sizes)
    assert np.all(unique <= kappa + 1e-12)  # a unique record is identified
    assert np.all(unique <= model.k_violations(sizes, 3) + 1e-12) and np.all(model.k_violations(sizes, 3) <= 1)


def test_a_huge_negative_discount_is_k_equally_likely_sets():
    """d = −δ, α = Kδ: K sets with Dirichlet(δ) weights, equal as δ grows. At δ = 1e12 (γ < 0 with
    h of 30 nats and more reaches such discounts) the quantities are the uniform ones to ~1e-12,
    where a difference of two Stirling series loses them entirely."""
    sizes = np.array([1.0, 2.0, 5.0, 30.0, 1e4])
    for sets in (2, 10, 1000):
        model = PitmanYor(-1e12, sets * 1e12)
        assert model.correctness(sizes) == pytest.approx(sets * -np.expm1(sizes * np.log1p(-1 / sets)) / sizes, abs=1e-9)
        assert model.uniqueness(sizes) == pytest.approx((1 - 1 / sets) ** (sizes - 1), abs=1e-9)
        alone_or_pair = (1 - 1 / sets) ** (sizes - 1) + (sizes - 1) / sets * (1 - 1 / sets) ** np.maximum(sizes - 2, 0)
        assert model.k_violations(sizes, 3) == pytest.approx(alone_or_pair, abs=1e-9)
    assert PitmanYor.of_entropy(34.8, -0.9).correctness(2.0) == pytest.approx(1.0, abs=1e-12)  # was 0.9977


def test_k_violations_among_fewer_records_than_k():
    """Among fewer than k records every set is smaller than k (terms for more others than there are
    records are left out, not evaluated at negative arguments)."""
    assert PitmanYor(0.5, 0.2).k_violations(np.array([1.0, 2.0, 3.0, 4.0]), 5).tolist() == pytest.approx([1.0] * 4)


def simulated(model: PitmanYor, n: int, runs: int, rng) -> np.ndarray:
    """κ, uniqueness and the share in sets below 5 over Chinese-restaurant draws of n records."""
    found = []
    for _ in range(runs):
        sets = []
        for _record in range(n):
            weights = np.array([size - model.d for size in sets] + [model.alpha + model.d * len(sets)])
            chosen = rng.choice(len(weights), p=weights / weights.sum())
            if chosen == len(sets):
                sets.append(1)
            else:
                sets[chosen] += 1
        sizes = np.array(sets)
        found.append((len(sizes) / n, (sizes == 1).sum() / n, sizes[sizes < 5].sum() / n))
    return np.mean(found, axis=0)


@pytest.mark.parametrize(("d", "alpha"), [(0.3, 50.0), (0.0, 20.0), (0.7, 5.0)])
def test_quantities_agree_with_a_simulation(d, alpha):
    model = PitmanYor(d, alpha)
    kappa, unique, below_5 = simulated(model, 150, 200, np.random.default_rng(1))
    assert model.correctness(150) == pytest.approx(kappa, abs=0.01)
    assert model.uniqueness(150) == pytest.approx(unique, abs=0.015)
    assert model.k_violations(150, 5) == pytest.approx(below_5, abs=0.015)


def test_log_gamma_ratios_stay_exact_for_huge_arguments():
    for z, m in [(0.3, 0.7), (5.0, 2.5), (1e3, -0.4), (50.0, 0.68)]:
        assert log_gamma_ratio(z, m) == pytest.approx(gammaln(z + m) - gammaln(z), abs=1e-9)
    assert log_gamma_ratio(1e10, 0.5) == pytest.approx(0.5 * np.log(1e10), abs=1e-9)  # Γ(z+m)/Γ(z) → z^m
    assert inverse_digamma(np.array([-5.0, 0.0, 3.0])) == pytest.approx([0.21161420, 1.46163215, 20.58346303], rel=1e-6)


def test_huge_concentrations_neither_overflow_nor_warn():
    """A flat fit (every record alone in its set) walks to α beyond 1e77, where x**4 of a Python
    float raised OverflowError: nearly everyone is then alone among any number of people."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for alpha in (1e80, 1e200, 1e300):
            model = PitmanYor(0.0, alpha)
            assert model.correctness(1e7) == pytest.approx(1.0) and model.uniqueness(np.array([10.0, 1e10])) == pytest.approx([1.0, 1.0])
        assert PitmanYor(-1e200, 1e300).correctness(1e7) == pytest.approx(1.0)  # 1e100 equally likely sets


def test_map_fit_recovers_a_simulated_profile():
    rng = np.random.default_rng(2)
    true = PitmanYor.of_entropy(6.0, 0.4)
    sets = []
    for i in range(5000):
        if rng.random() < (true.alpha + true.d * len(sets)) / (i + true.alpha):
            sets.append(1)
        else:
            weights = np.array(sets) - true.d
            j = rng.choice(len(sets), p=weights / weights.sum())
            sets[j] += 1
    sizes, counts = np.unique(sets, return_counts=True)
    fit = fit_profile(sizes, counts)
    assert fit.converged and fit.model.h == pytest.approx(6.0, abs=0.5) and fit.model.gamma == pytest.approx(0.4, abs=0.1)


def test_baselines_and_bad_input():
    fits = fit_baselines([10, 100, 1000], [0.999, 0.98, 0.85])
    assert set(fits) == {"ENT", "EXP", "POL"} and all(0 <= f.correctness(5000) <= 1 for f in fits.values())
    with pytest.raises(ValueError, match="at least two"):
        fit_correctness([100], [0.9])
    with pytest.raises(ValueError, match="within \\[0, 1\\]"):
        fit_correctness([100, 200], [0.9, 1.2])
    with pytest.raises(ValueError, match="at least 1"):
        PitmanYor(0.2, 3.0).correctness(0)
    with pytest.raises(ValueError, match="alpha must be above"):
        PitmanYor(0.5, -0.6)
