"""The near-copy share: how many more released rows lie nearer to a member than to another released
row than a release holding none of its members would put there.

Each released row is asked one question: is its nearest neighbour among the members (the original's
people) or among the release's other rows, both searched among as many rows? This is the
nearest-neighbour two-sample statistic of Schilling (1986, JASA 81, §2), read from the release's
side as the synthetic half of Yale et al.'s nearest-neighbour adversarial accuracy (2020,
Neurocomputing 416, §3.2). Ties count half.

Why a release of other people scores at most one half, whatever generator made it: locally, a
released row at ``x`` finds its neighbour among the members with probability ``p(x) / (p(x) + q(x))``
(``p`` the population's density, ``q`` the release's, as many rows on each side), so the share is
``∫ q p / (p + q)``, and ``p q / (p + q) ≤ (p + q) / 4`` (harmonic below arithmetic mean) bounds
it by ``1/2``, equality when the release is a sample of the population itself. A smoother release
(marginals, a cautious generator) scores less. A release holding near copies of a share ``f`` of
its members puts those rows next to their member, so the share is about ``f + (1 − f) / 2``: the
headline ``2·share − 1`` estimates ``f``, the share of released rows that give their member away
beyond chance. It needs no control table: the release's own rows are the comparison.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from alc_dask.measure._checks import as_float_array
from alc_dask.measure.interval import wilson_interval


class NearerShare(NamedTuple):
    """Released rows nearer to a member than to another released row, beyond one half."""

    near_copy_share: float
    """``2·nearer − 1``: the share of released rows beyond chance that sit by a member; ≤ 0 for a release of other people."""
    low: float
    high: float
    nearer: float
    """The share of released rows whose nearest neighbour is a member (ties half)."""
    ties: float
    """The share of released rows as near to a member as to another released row."""
    n_rows: int


def nearer_share(to_members, to_released, confidence_level: float = 0.95) -> NearerShare:
    """The near-copy share of released rows with distances ``to_members`` (each to its nearest
    member) and ``to_released`` (each to its nearest other released row), with the Wilson interval of
    the nearer share mapped onto the headline's scale [−1, 1] (each row's outcome is 0, ½ or 1, whose
    variance is at most a coin's of the same mean, so the interval is conservative).

    >>> from alc_dask.measure.nearer import nearer_share
    >>> copy = nearer_share([0.0, 0.0, 0.0, 0.0], [0.2, 0.1, 0.3, 0.0])
    >>> copy.nearer, copy.near_copy_share, copy.ties
    (0.875, 0.75, 0.25)
    """
    members = as_float_array("to_members", to_members)
    released = as_float_array("to_released", to_released)
    if members.shape != released.shape or members.ndim != 1:
        raise ValueError(f"nearer share: {members.shape} distances to members and {released.shape} to released rows")
    n = members.size
    if n == 0:
        return NearerShare(float("nan"), -1.0, 1.0, float("nan"), float("nan"), 0)
    outcome = np.where(members < released, 1.0, np.where(members == released, 0.5, 0.0))
    nearer = float(outcome.mean())
    low, high = wilson_interval(n, nearer, confidence_level)
    return NearerShare(2 * nearer - 1, 2 * low - 1, 2 * high - 1, nearer, float(np.mean(members == released)), n)
