"""The chains' variates follow their laws, and each path of the hidden draws picks values with the
probabilities of its cell."""

import numba
import numpy as np
import pytest
from scipy import stats

from alc_dask.families.relative_threat.gibbs_kernels import _draw_each, _swap_sweep
from alc_dask.families.relative_threat.variates import EXPONENTIAL_X, NORMAL_X, exponential, gamma, gamma_table, normal
from alc_dask.splitmix import uniform


@numba.njit
def _draws(kind, n, shape, seed):
    key, table, out = np.uint64(seed), gamma_table(np.array([shape])), np.empty(n)
    for j in range(n):
        if kind == 0:
            out[j], key = uniform(key)
        elif kind == 1:
            out[j], key = normal(key)
        elif kind == 2:
            out[j], key = exponential(key)
        else:
            out[j], key = gamma(table, 0, key)
    return out


def test_the_ziggurats_layers_close_at_zero_with_the_published_edges():
    assert NORMAL_X[1] == 3.442619855899 and EXPONENTIAL_X[1] == 7.697117470131487
    for x in (NORMAL_X, EXPONENTIAL_X):
        assert np.all(np.diff(x) < 0) and x[-1] == 0.0 and 0 < x[-2] < 0.3  # the top layer is narrow: the recursion closed


@pytest.mark.parametrize("kind, law", [(0, stats.uniform), (1, stats.norm), (2, stats.expon)])
def test_uniform_normal_and_exponential_variates_follow_their_laws(kind, law):
    x = _draws(kind, 400_000, 1.0, 7)
    assert stats.kstest(x, law.cdf).pvalue > 1e-3
    assert x.mean() == pytest.approx(law.mean(), abs=0.01) and x.var() == pytest.approx(law.var(), rel=0.02)


def test_the_normals_tail_beyond_the_ziggurats_edge_has_its_mass():
    x = np.abs(_draws(1, 4_000_000, 1.0, 3))
    expected = 2 * stats.norm.sf(NORMAL_X[1]) * len(x)  # about 2 300 draws from the tail's own sampler
    assert abs((x > NORMAL_X[1]).sum() - expected) < 5 * np.sqrt(expected)
    assert stats.kstest(x[x > 2.5], stats.truncnorm(2.5, np.inf).cdf).pvalue > 1e-3


@pytest.mark.parametrize("shape", [0.05, 0.5, 0.999, 1.0, 1.5, 2.0, 7.0, 250.0, 5693.0])
def test_gamma_variates_follow_their_law_below_at_and_above_shape_one(shape):
    x = _draws(3, 200_000, shape, 5)
    assert stats.kstest(x, stats.gamma(shape).cdf).pvalue > 1e-3
    assert x.mean() == pytest.approx(shape, rel=0.02)


def test_the_same_key_gives_the_same_draws():
    assert np.array_equal(_draws(3, 1000, 2.5, 9), _draws(3, 1000, 2.5, 9))
    assert not np.array_equal(_draws(3, 1000, 2.5, 9), _draws(3, 1000, 2.5, 10))


@numba.njit
def _hidden_counts(phi, bounds, values, rows, sweeps):
    counts = np.zeros(phi.shape[0], dtype=np.int64)
    prefix, cumulative, key = np.zeros(phi.shape[0] + 1), np.empty(phi.shape[0]), np.uint64(3)
    for i in range(phi.shape[0]):  # as _draw_phi sums them
        prefix[i + 1] = prefix[i] + phi[i]
    for _ in range(sweeps):
        key = _draw_each(phi, prefix, bounds, values, rows, counts, cumulative, key)
    return counts


def test_each_path_of_the_hidden_draws_picks_values_in_proportion_to_phi():
    """Four cells of one flat axis: two values (32-bit thresholds), consecutive values (the prefix
    sums), scattered values (their own cumulative sums) and 90 consecutive values (bisection)."""
    rng = np.random.default_rng(0)
    phi = rng.gamma(1.0, size=110) * 3.0  # unnormalised, as the chains hand it over
    cells = [np.array([3, 4]), np.arange(5, 11), np.array([0, 2, 11, 15, 19]), np.arange(20, 110)]
    bounds = np.concatenate([[0], np.cumsum([len(c) for c in cells])]).astype(np.int64)
    rows = np.array([7, 5, 3, 9], dtype=np.int64)
    sweeps = 40_000
    counts = _hidden_counts(phi, bounds, np.concatenate(cells).astype(np.int64), rows, sweeps)
    for cell, n in zip(cells, rows):
        expected = phi[cell] / phi[cell].sum() * n * sweeps
        assert counts[cell].sum() == n * sweeps
        assert stats.chisquare(counts[cell], expected).pvalue > 1e-4, cell
    outside = np.setdiff1d(np.arange(110), np.concatenate(cells))
    assert counts[outside].sum() == 0


@numba.njit
def _swap_acceptance(phi, sweeps):
    tuples = np.empty((2, 8), dtype=np.int64)
    counts = np.zeros((2, 16), dtype=np.int64)
    for a in range(8):
        tuples[0, a], tuples[1, a] = 2 * a, 2 * a + 1
        counts[0, 2 * a] += 1
        counts[1, 2 * a + 1] += 1
    assign, sensitive = np.arange(2), np.array([0, 1])
    held = (np.zeros(4, dtype=np.int64), np.array([0, 2, 4]), np.zeros(2, dtype=np.int64))
    key, proposed, accepted = np.uint64(5), 0, 0
    for now in range(sweeps):
        key, proposed, accepted = _swap_sweep(phi, tuples, np.array([0]), np.array([2]), sensitive, assign, counts, 1, key, proposed, accepted, held, now)
    return accepted / proposed


def test_a_swap_of_tiny_likelihoods_is_accepted_at_its_ratio_not_by_underflow():
    """Sixteen likelihoods of 1e-45 multiply to 0 on both sides of the swap: its ratio, 1/4 one way
    and 4 back, must come from the attributes' own ratios (acceptance 2 of 5 proposals), not from
    0 >= 0 (every proposal)."""
    phi = np.full((2, 16), 1e-45)
    phi[0, 1] = 0.25e-45  # sensitive 0 with attribute 0's second value: a quarter as likely
    assert _swap_acceptance(phi, 40_000) == pytest.approx(0.4, abs=0.015)
