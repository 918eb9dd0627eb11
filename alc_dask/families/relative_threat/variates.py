"""The chains' random variates, from one SplitMix64 key the caller keeps in a register.

A chain draws a few hundred million variates (a gamma per parameter and sweep, a uniform per hidden
value), so each costs nanoseconds here:

- uniforms: SplitMix64 (``alc_dask.splitmix``), 53 bits per double;
- normal and exponential variates: the ziggurat (Marsaglia and Tsang 2000, J. Stat. Softw. 5(8)),
  one 64-bit word per draw in all but about 1% of draws (the low bits pick the layer, the high 53
  the abscissa), without a logarithm or an exponential;
- gamma variates: Marsaglia and Tsang's method (2000, ACM TOMS 26(3)): a normal and a uniform per
  try, accepted by the squeeze ``u < 1 − 0.0331 x⁴`` in about 98% of tries before any logarithm.
  Shape 1 is an exponential; a shape a < 1 is a draw of shape a + 1 times ``u^(1/a)``.

Each kernel passes the key in and gets the advanced key back: ``value, key = gamma(table, i, key)``.
The chains inline these functions, and Numba's cache of a chain does not notice a change made here:
touch ``gibbs_kernels.py`` after editing this module (a stale cache kept timing the old gamma).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from alc_dask.splitmix import TO_UNIT, next_word, uniform


def _ziggurat(density, inverse, layers: int, edge: float, area: float) -> tuple[np.ndarray, np.ndarray]:
    """Layer i spans abscissas [0, x[i]) and densities [f(x[i]), f(x[i + 1])] (all of equal area);
    layer 0 is the base, whose width x[0] = area / f(edge) folds the tail beyond ``edge`` in.
    Returns x (layers + 1 values, x[layers] = 0) and f(x)."""
    x = np.empty(layers + 1)
    x[0], x[1] = area / density(edge), edge
    for i in range(1, layers - 1):
        x[i + 1] = inverse(min(1.0, area / x[i] + density(x[i])))
    x[layers] = 0.0
    return x, density(x)


NORMAL_X, NORMAL_F = _ziggurat(lambda x: np.exp(-0.5 * np.square(x)), lambda y: math.sqrt(-2.0 * math.log(y)), 128, 3.442619855899, 9.91256303526217e-3)
"""The normal's 128 layers (Marsaglia and Tsang 2000, Table 1: r = 3.442619855899, v = 9.91256303526217e-3)."""
NORMAL_EDGE = NORMAL_X[1]
EXPONENTIAL_X, EXPONENTIAL_F = _ziggurat(lambda x: np.exp(-np.asarray(x)), lambda y: -math.log(y), 256, 7.697117470131487, 3.949659822581572e-3)
"""The exponential's 256 layers (r = 7.697117470131487, v = 3.949659822581572e-3)."""
EXPONENTIAL_EDGE = EXPONENTIAL_X[1]


@numba.njit(nogil=True, cache=True, inline="always")
def _open_uniform(key):
    """A uniform in (0, 1): safe to take the logarithm of."""
    word, key = next_word(key)
    return ((word >> np.uint64(11)) + 0.5) * TO_UNIT, key


@numba.njit(nogil=True, cache=True, inline="always")
def normal(key):
    """A standard normal variate (ziggurat), and the advanced key."""
    while True:
        word, key = next_word(key)
        i = np.int64(word & np.uint64(127))
        z = (2.0 * (word >> np.uint64(11)) * TO_UNIT - 1.0) * NORMAL_X[i]
        if abs(z) < NORMAL_X[i + 1]:
            return z, key
        if i == 0:  # the tail beyond the edge (Marsaglia 1964)
            while True:
                a, key = _open_uniform(key)
                b, key = _open_uniform(key)
                x = -math.log(a) / NORMAL_EDGE
                if -2.0 * math.log(b) > x * x:
                    return (NORMAL_EDGE + x if z > 0 else -NORMAL_EDGE - x), key
        u, key = uniform(key)
        if NORMAL_F[i] + u * (NORMAL_F[i + 1] - NORMAL_F[i]) < math.exp(-0.5 * z * z):
            return z, key


@numba.njit(nogil=True, cache=True, inline="always")
def exponential(key):
    """A standard exponential variate (ziggurat), and the advanced key."""
    while True:
        word, key = next_word(key)
        i = np.int64(word & np.uint64(255))
        z = (word >> np.uint64(11)) * TO_UNIT * EXPONENTIAL_X[i]
        if z < EXPONENTIAL_X[i + 1]:
            return z, key
        if i == 0:  # the tail: memoryless
            u, key = _open_uniform(key)
            return EXPONENTIAL_EDGE - math.log(u), key
        u, key = uniform(key)
        if EXPONENTIAL_F[i] + u * (EXPONENTIAL_F[i + 1] - EXPONENTIAL_F[i]) < math.exp(-z):
            return z, key


SHAPE, D, C, POWER = range(4)
"""The columns of a ``gamma_table``: the shape, Marsaglia and Tsang's d = a − 1/3 and c = 1/√(9d)
(of a + 1 below shape 1), and 1/a below shape 1."""


@numba.njit(nogil=True, cache=True)
def gamma_table(shapes):
    """Per shape, the constants of its draws: looked up, not recomputed, at every variate."""
    table = np.zeros((shapes.shape[0], 4))
    for i in range(shapes.shape[0]):
        shape = shapes[i]
        table[i, SHAPE] = shape
        boosted = shape + 1.0 if shape < 1.0 else shape
        table[i, D] = boosted - 1.0 / 3.0
        table[i, C] = 1.0 / math.sqrt(9.0 * table[i, D])
        table[i, POWER] = 1.0 / shape
    return table


@numba.njit(nogil=True, cache=True, inline="always")
def _marsaglia_tsang(d, c, key):
    """A gamma variate of shape d + 1/3 (at least 1), c = 1/√(9d), and the advanced key."""
    while True:
        x, key = normal(key)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u, key = _open_uniform(key)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2 or math.log(u) < 0.5 * x2 + d * (1.0 - v + math.log(v)):
            return d * v, key


@numba.njit(nogil=True, cache=True)
def _boosted(value, power, key):
    """``value`` times u^power: a variate of shape a + 1 made one of shape a (power 1/a). A call of its
    own: inlined, its ``pow`` made every gamma variate twice as slow (measured)."""
    u, key = _open_uniform(key)
    return value * u**power, key


@numba.njit(nogil=True, cache=True, inline="always")
def gamma(table, i, key):
    """A gamma variate of shape ``table[i, SHAPE]`` and scale 1, and the advanced key."""
    shape = table[i, SHAPE]
    if shape == 1.0:
        return exponential(key)
    value, key = _marsaglia_tsang(table[i, D], table[i, C], key)
    if shape < 1.0:
        return _boosted(value, table[i, POWER], key)
    return value, key
