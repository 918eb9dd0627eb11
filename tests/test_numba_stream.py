"""The chains' reading of Numba's np.random stream gives Numba's own draws, value for value."""

import numba
import numpy as np
import pytest

from alc_dask.families.relative_threat.numba_stream import DOUBLES, even_index, gamma_table, next_double, refill, standard_gamma, state_words


@numba.njit
def _numba_doubles(seed, n):
    np.random.seed(seed)
    return np.array([np.random.random() for _ in range(n)])


@numba.njit
def _stream_doubles(seed, n):
    np.random.seed(seed)
    words, doubles = state_words(), np.zeros(DOUBLES)
    index = even_index(words)
    out = np.empty(n)
    for i in range(n):
        out[i], index = next_double(words, doubles, index)
    return out


@numba.njit
def _numba_gammas(seed, shapes, rounds):
    np.random.seed(seed)
    out = np.empty((rounds, shapes.shape[0]))
    for r in range(rounds):
        for i in range(shapes.shape[0]):
            out[r, i] = np.random.gamma(shapes[i], 1.0)
        out[r, 0] += np.random.binomial(7, 0.3)  # Numba's generator in between, as the multinomials do
    return out


@numba.njit
def _stream_gammas(seed, shapes, rounds):
    np.random.seed(seed)
    words, doubles = state_words(), np.zeros(DOUBLES)
    table = gamma_table(shapes)
    out = np.empty((rounds, shapes.shape[0]))
    for r in range(rounds):
        index = even_index(words)
        for i in range(shapes.shape[0]):
            out[r, i], index = standard_gamma(table, i, words, doubles, index)
        words[0] = index
        out[r, 0] += np.random.binomial(7, 0.3)
        refill(words, doubles)
    return out


def test_doubles_are_numbas_across_blocks():
    assert np.array_equal(_stream_doubles(11, 1000), _numba_doubles(11, 1000))  # 1000 doubles: four blocks of 624 words


@pytest.mark.parametrize("seed", [0, 5, 2**31 - 2])
def test_gammas_are_numbas_for_every_kind_of_shape(seed):
    shapes = np.array([1.0, 2.0, 1.5, 0.3, 0.999, 7.0, 250.0, 5693.0, 1.0, 0.05])  # Cheng's, the exponential, Numba's own below 1
    expected, actual = _numba_gammas(seed, shapes, 300), _stream_gammas(seed, shapes, 300)
    assert np.array_equal(actual, expected)


@numba.njit
def _odd_index():
    np.random.seed(1)
    np.random.randint(0, 10)  # one word
    return even_index(state_words())


def test_an_odd_index_is_refused():
    with pytest.raises(ValueError, match="odd"):
        _odd_index()
