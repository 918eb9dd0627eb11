"""A control table read at the original's size: the range of isolating predicates holds the truth
when the predicates' match probabilities are known, and a small control never flags a fresh sample."""

import numpy as np
import pytest

from alc_dask.measure.isolation import isolating_range

CAP = 50


def truth(p: np.ndarray, size: int) -> float:
    """Expected predicates isolating exactly one of ``size`` records: sum of size p (1 - p)^(size - 1)."""
    return float(np.sum(size * p * (1.0 - p) ** (size - 1)))


@pytest.mark.parametrize(
    "draw",
    [
        lambda rng, n: rng.exponential(1 / 2000, n),
        lambda rng, n: rng.beta(0.3, 300, n),
        lambda rng, n: np.where(rng.random(n) < 0.3, rng.uniform(0, 1e-4, n), rng.uniform(1e-3, 5e-2, n)),
    ],
    ids=["exponential", "beta", "mixture"],
)
@pytest.mark.parametrize("n_control", [250, 500, 1000])
def test_the_range_holds_the_count_at_the_original_size(draw, n_control):
    rng = np.random.default_rng(7)
    p = np.clip(draw(rng, 2000), 0, 1)
    counts = np.minimum(rng.binomial(n_control, p), CAP)
    low, high = isolating_range(counts, n_control, 2000, CAP)
    assert low <= truth(p, 2000) <= high


def test_a_larger_control_gives_a_narrower_range():
    rng = np.random.default_rng(3)
    p = rng.exponential(1 / 1500, 2000)
    widths = []
    for n_control in (250, 1000, 4000):
        low, high = isolating_range(np.minimum(rng.binomial(n_control, p), CAP), n_control, 2000, CAP)
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2]


def test_no_predicates_none_isolating():
    assert isolating_range(np.zeros(0), 500, 2000, CAP) == (0.0, 0.0)
