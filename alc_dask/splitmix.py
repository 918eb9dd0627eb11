"""SplitMix64 (Steele, Lea and Flood 2014): random words a Numba kernel draws in nanoseconds from a
key held in a register, and streams of its own for each item of a loop (``item_key``).

A stream per item makes an item's draws independent of the order items are met in: a kernel may
tile its loops for the cache, and its results stay the same.

Kernels inline these functions, and Numba's cache of a kernel does not notice a change made here:
touch the kernels' modules (``neighbors/weighted.py``, the chains' ``gibbs_kernels.py``) after
editing this one.
"""

import numba
import numpy as np

TO_UNIT = 1.0 / 9007199254740992.0
"""2**-53: a 53-bit integer to [0, 1)."""

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(nogil=True, cache=True, inline="always")
def next_word(key):
    """The next 64-bit word, and the advanced key."""
    key += GOLDEN_GAMMA
    z = key
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31)), key


@numba.njit(nogil=True, cache=True, inline="always")
def uniform(key):
    """A uniform in [0, 1), and the advanced key."""
    word, key = next_word(key)
    return (word >> np.uint64(11)) * TO_UNIT, key


@numba.njit(nogil=True, cache=True, inline="always")
def item_key(seed, item):
    """The key of item ``item``'s own stream under ``seed``: the seed's word mixed with the item's
    index, then mixed again, so that neighbouring items' streams share no structure."""
    seed_word, _ = next_word(np.uint64(seed))
    word, _ = next_word(seed_word ^ np.uint64(item))
    return word
