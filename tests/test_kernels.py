"""The Numba kernel against a plain numpy brute force and against the `gower` package."""

import gower
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alc_dask import Release
from alc_dask.neighbors.best_match import best_matches
from alc_dask.neighbors.kernel import best_match_histograms


def brute_force(q_codes, q_values, q_low, q_span, codes, values, secret, n_codes):
    """Every query against every row with whole-matrix numpy, the distance written from Francis & Wagner 2025, §5.2, scaled as the reference implementation scales it:
    continuous distances summed in column order, plus categorical mismatches, over the columns."""
    continuous = np.zeros((len(q_codes), codes.shape[1] if codes.size else values.shape[1]))
    for j in range(values.shape[0]):
        x, y = q_values[:, j][:, None], values[j][None, :]
        scaled = np.abs((y - q_low[:, j][:, None]) / q_span[:, j][:, None] - x)
        scaled = np.where(np.isnan(y), 1.0, scaled)
        continuous += np.where(np.isnan(x), np.where(np.isnan(y), 0.0, 1.0), scaled)
    mismatches = (codes.T[None, :, :] != q_codes[:, None, :]).sum(axis=2)
    distances = (continuous + mismatches) / (codes.shape[0] + values.shape[0])
    best = distances.min(axis=1)
    histogram = np.stack([np.bincount(secret[distances[q] == best[q]], minlength=n_codes) for q in range(len(best))])
    return best, histogram


def random_block(rng, n_queries, n_rows, n_cat, n_cont, cardinality, missing):
    def with_missing(a):
        return np.where(rng.random(a.shape) < missing, np.nan, a)

    q_codes = rng.integers(0, cardinality, (n_queries, n_cat)).astype(np.int32)
    codes = rng.integers(0, cardinality, (n_cat, n_rows)).astype(np.int32)
    q_values = with_missing(rng.integers(0, 6, (n_queries, n_cont)) / 5)
    values = with_missing(rng.integers(0, 6, (n_cont, n_rows)) / 5)
    q_low = rng.choice([0.0, -0.2], (n_queries, n_cont))
    q_span = rng.choice([1.2, 1.4], (n_queries, n_cont))  # block values scale into [0, 1]
    return q_codes, q_values, q_low, q_span, codes, values


@pytest.mark.parametrize("seed", range(6))
def test_kernel_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_cat, n_cont = int(rng.integers(0, 4)), int(rng.integers(1, 4))
    q_codes, q_values, q_low, q_span, codes, values = random_block(rng, 40, 3000, n_cat, n_cont, 3, 0.15)
    secret = rng.integers(0, 5, 3000).astype(np.int32)
    distance, histogram = best_match_histograms(
        q_codes, q_values, q_low, q_span, np.ones_like(q_span), codes, values, np.arange(n_cat), np.arange(n_cont), secret, 5
    )
    expected_distance, expected_histogram = brute_force(q_codes, q_values, q_low, q_span, codes, values, secret, 5)
    np.testing.assert_array_equal(distance, expected_distance)
    np.testing.assert_array_equal(histogram, expected_histogram)
    assert (histogram.sum(axis=1) > 1).any(), "the data should produce ties"


@settings(max_examples=60, deadline=None)
@given(
    n_queries=st.integers(1, 6),
    n_rows=st.integers(0, 2500),
    n_cat=st.integers(0, 3),
    n_cont=st.integers(0, 3),
    cardinality=st.integers(1, 4),
    missing=st.sampled_from([0.0, 0.3]),
    seed=st.integers(0, 2**32 - 1),
)
def test_kernel_equals_brute_force_on_any_shape(n_queries, n_rows, n_cat, n_cont, cardinality, missing, seed):
    if n_cat + n_cont == 0:
        n_cat = 1
    rng = np.random.default_rng(seed)
    block = random_block(rng, n_queries, n_rows, n_cat, n_cont, cardinality, missing)
    q_codes, q_values, q_low, q_span, codes, values = block
    secret = rng.integers(0, 3, n_rows).astype(np.int32)
    distance, histogram = best_match_histograms(
        q_codes, q_values, q_low, q_span, np.ones_like(q_span), codes, values, np.arange(n_cat), np.arange(n_cont), secret, 3
    )
    if n_rows == 0:
        assert np.isinf(distance).all() and histogram.sum() == 0
        return
    expected_distance, expected_histogram = brute_force(q_codes, q_values, q_low, q_span, codes, values, secret, 3)
    np.testing.assert_array_equal(distance, expected_distance)
    np.testing.assert_array_equal(histogram, expected_histogram)


def test_kernel_picks_known_columns_only():
    rng = np.random.default_rng(7)
    q_codes, q_values, q_low, q_span, codes, values = random_block(rng, 10, 600, 4, 3, 4, 0.0)
    secret = rng.integers(0, 3, 600).astype(np.int32)
    cat, cont = np.array([3, 1]), np.array([2])
    distance, histogram = best_match_histograms(
        q_codes[:, cat], q_values[:, cont], q_low[:, cont], q_span[:, cont], np.ones((10, 1)), codes, values, cat, cont, secret, 3
    )
    expected = brute_force(q_codes[:, cat], q_values[:, cont], q_low[:, cont], q_span[:, cont], codes[cat], values[cont], secret, 3)
    np.testing.assert_array_equal(distance, expected[0])
    np.testing.assert_array_equal(histogram, expected[1])


def test_empty_block_matches_nothing():
    distance, histogram = best_match_histograms(
        np.zeros((3, 1), np.int32),
        np.zeros((3, 0)),
        np.zeros((3, 0)),
        np.zeros((3, 0)),
        np.ones((3, 0)),
        np.zeros((1, 0), np.int32),
        np.zeros((0, 0)),
        np.arange(1),
        np.arange(0),
        np.zeros(0, np.int32),
        4,
    )
    assert np.isinf(distance).all() and histogram.sum() == 0


@pytest.mark.parametrize("seed", range(3))
def test_minimum_distance_equals_gower_package(make_table, seed):
    """`gower.gower_matrix` of one query against a table normalizes by the range over both, as the
    reference implementation does. It works in float32, hence the tolerance on top of our 3-decimal rounding."""
    rng = np.random.default_rng(seed)
    original = make_table(rng, 25).drop(columns=["x2"])
    anonymized = make_table(rng, 300, extra_letter="e").drop(columns=["x2"])
    for table in (original, anonymized):  # gower: missing categories compare as a category, no NaN numbers
        for column in ("c0", "c1", "c2", "k"):
            table[column] = table[column].astype(object).where(table[column].notna(), "<missing>")
        for column in ("x0", "x1"):
            table[column] = table[column].fillna(50.0)
    release = Release.load(original, [anonymized], columns={"k": "categorical"})
    known = ["c0", "c1", "k", "x0", "x1"]
    matches = best_matches(release.original, release.anonymized, release.column("c2"), known)
    cat = [c for c in known if c != "x0" and c != "x1"]
    as_gower = {c: object for c in cat}
    for i in range(len(original)):
        query = original.iloc[[i]][known].astype(as_gower)
        candidates = anonymized[known].astype(as_gower)
        distances = gower.gower_matrix(query, candidates, cat_features=[c in cat for c in known])[0]
        assert abs(matches.distance[i] - distances.min()) <= 0.0005 + 1e-6


def test_a_halved_column_measures_as_if_its_values_were_halved_first():
    """Near ±1.8e308, `y - low` overflows: the kernel halves y itself where the query's scale is 0.5."""
    rng = np.random.default_rng(2)
    values = rng.choice([-1.7e308, 1.7e308, 0.0, 9e307], (1, 500)) * rng.uniform(0.5, 1, (1, 500))
    low, span = np.full((4, 1), -0.85e308), np.full((4, 1), 1.7e308)
    queries = (values[:, :4].T * 0.5 - low) / span
    secret = rng.integers(0, 3, 500).astype(np.int32)
    common = (np.zeros((4, 0), np.int32), queries, low, span)
    halved = best_match_histograms(*common, np.full((4, 1), 0.5), np.zeros((0, 500), np.int32), values, np.arange(0), np.arange(1), secret, 3)
    expected = best_match_histograms(*common, np.ones((4, 1)), np.zeros((0, 500), np.int32), values * 0.5, np.arange(0), np.arange(1), secret, 3)
    np.testing.assert_array_equal(halved[0], expected[0])
    np.testing.assert_array_equal(halved[1], expected[1])
    np.testing.assert_array_equal(halved[0], 0.0)
