"""The WP29 baselines' bulk draws give exactly what their loops of ``rng.choice`` calls give, and
leave the generator where the loops leave it (a later draw of the evaluation depends on it)."""

import numpy as np
import pytest

from alc_dask.families.wp29.draws import random_conditions, samples_without_replacement


def generators(seed: int, buffered: bool) -> tuple[np.random.Generator, np.random.Generator]:
    """Two generators in the same state; ``buffered``: half of a 64-bit draw kept for the next 32-bit one."""
    first, second = np.random.default_rng(seed), np.random.default_rng(seed)
    for rng in (first, second):
        rng.integers(0, 7, dtype=np.int32) if buffered else rng.random()
    assert first.bit_generator.state == second.bit_generator.state
    assert first.bit_generator.state["has_uint32"] == int(buffered)
    return first, second


@pytest.mark.parametrize("n", [1, 5, 12, 300, 9274, 10_000, 10_001, 14_988, 200_000])
@pytest.mark.parametrize("k", [1, 2, 10, 400])
def test_samples_are_those_of_the_loop(n, k):
    if k > n:
        pytest.skip("a sample larger than the population")
    for seed, buffered in ((0, False), (1, True)):
        loop, bulk = generators(seed, buffered)
        expected = np.array([loop.choice(n, k, replace=False) for _ in range(60)]).reshape(60, k)
        np.testing.assert_array_equal(samples_without_replacement(bulk, n, k, 60), expected)
        assert bulk.bit_generator.state == loop.bit_generator.state


def conditions_loop(rng, n_columns, n_cols, count, n_values, n_ops):
    drawn = []
    for _ in range(count):
        for j in sorted(rng.choice(n_columns, n_cols, replace=False)):
            drawn.append((j, rng.choice(np.arange(n_values[j])), rng.choice(np.arange(n_ops[j]))))
    return np.array(drawn, dtype=np.int64).reshape(count, n_cols, 3) if drawn else np.zeros((count, n_cols, 3), dtype=np.int64)


@pytest.mark.parametrize("n_columns, n_cols", [(1, 1), (15, 1), (15, 3), (6, 6), (40, 5)])
def test_random_conditions_are_those_of_the_loop(n_columns, n_cols):
    sizes = np.random.default_rng(n_columns)
    n_values = sizes.integers(1, 3000, n_columns)
    n_values[0] = 1  # one value: the loop's choice draws nothing
    n_ops = sizes.choice([2, 6], n_columns)
    for seed, buffered in ((2, False), (3, True)):
        loop, bulk = generators(seed, buffered)
        expected = conditions_loop(loop, n_columns, n_cols, 200, n_values, n_ops)
        got = np.stack(random_conditions(bulk, n_columns, n_cols, 200, n_values, n_ops), axis=-1)
        np.testing.assert_array_equal(got, expected)
        assert bulk.bit_generator.state == loop.bit_generator.state
        assert bulk.integers(0, 1000, 5).tolist() == loop.integers(0, 1000, 5).tolist()


def test_no_conditions_draw_nothing():
    loop, bulk = generators(4, True)
    columns, values, ops = random_conditions(bulk, 5, 2, 0, np.ones(5, dtype=np.int64), np.full(5, 2))
    assert columns.shape == values.shape == ops.shape == (0, 2)
    assert bulk.bit_generator.state == loop.bit_generator.state
