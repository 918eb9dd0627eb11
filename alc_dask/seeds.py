"""One seed, independent random streams: one per purpose.

A user who makes a test release with ``swap_frame(frame, 0.1, seed=7)`` and evaluates it with
``seed=7`` must not get targets that are exactly the swapped rows, as two generators started from
one seed would give. Every purpose (targets, swaps, training rows, models, predicates, samples,
chains) therefore draws from ``numpy.random.SeedSequence([seed, key of the purpose, *keys])``:
streams that are independent of each other yet the same wherever, and in whatever order, they are
drawn.
"""

import zlib

import numpy as np


def stream(seed: int, purpose: str, *keys: int) -> np.random.Generator:
    """The generator of ``purpose`` (and ``keys``, e.g. a share and a count) under ``seed``."""
    return np.random.default_rng(_sequence(seed, purpose, keys))


def derived_seed(seed: int, purpose: str, *keys: int) -> int:
    """A 31-bit seed of ``purpose`` for what takes an integer (scikit-learn's ``random_state``)."""
    return int(_sequence(seed, purpose, keys).generate_state(1)[0] & 0x7FFFFFFF)


def _sequence(seed: int, purpose: str, keys: tuple[int, ...]) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(seed), zlib.crc32(purpose.encode()), *map(int, keys)])


def sample_rows(n_rows: int, wanted: int, rng: np.random.Generator) -> np.ndarray:
    """Every row of ``n_rows``, or ``wanted`` of them drawn by ``rng``, in row order."""
    return np.arange(n_rows) if n_rows <= wanted else np.sort(rng.choice(n_rows, wanted, replace=False))
