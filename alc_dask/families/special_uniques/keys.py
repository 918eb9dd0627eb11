"""The value combinations of a table's rows on subsets of its key variables, as one integer per row.

A combination's key is exact (the codes in mixed radix, each column's radix its number of codes in
the release's shared encoding) when the radices' product fits in 63 bits, so the same values give
the same key in every table and block of a release. Past that (many columns of many values) it is
a 64-bit hash of the codes: two different combinations then share a key with probability about
n² / 2^65 among n distinct ones (below 1e-8 for a million).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

EXACT_LIMIT = 2**63


@dataclass(frozen=True)
class KeySpace:
    """The key variables (``columns``, with ``radix``: their numbers of codes), and the subsets of
    them searched for minimal sample uniques: every subset of 1 to ``max_size`` variables, by size."""

    columns: tuple[str, ...]
    radix: tuple[int, ...]
    max_size: int

    @property
    def subsets(self) -> tuple[tuple[int, ...], ...]:
        return tuple(s for k in range(1, self.max_size + 1) for s in combinations(range(len(self.columns)), k))

    @property
    def full(self) -> tuple[int, ...]:
        """Every key variable: the combination sample uniques and pairs are counted on (DIS)."""
        return tuple(range(len(self.columns)))

    def children(self) -> list[list[int]]:
        """Per subset, the positions (in ``subsets``) of its subsets one variable smaller."""
        position = {s: i for i, s in enumerate(self.subsets)}
        return [[position[c] for c in combinations(s, len(s) - 1)] if len(s) > 1 else [] for s in self.subsets]

    def keys(self, codes: list[np.ndarray], subset: tuple[int, ...]) -> np.ndarray:
        """The key of every row on ``subset`` (positions in ``columns``), from each key variable's codes."""
        if math.prod(self.radix[i] for i in subset) < EXACT_LIMIT:
            key = np.zeros(len(codes[0]), dtype=np.uint64)
            for i in subset:
                key = key * np.uint64(self.radix[i]) + codes[i].astype(np.uint64)
            return key
        key = np.full(len(codes[0]), np.uint64(len(subset)), dtype=np.uint64)
        for i in subset:
            key = _mix(key * np.uint64(0x100000001B3) + codes[i].astype(np.uint64) + np.uint64(i + 1))
        return key


def number_of_subsets(n_keys: int, max_size: int) -> int:
    return sum(math.comb(n_keys, k) for k in range(1, max_size + 1))


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer: every input bit moves about half the output bits."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))
