"""Small releases whose truth is known, so that tests pin each attack's power: what a release
leaks is fixed by how it was made, not by what an attack finds.

From one synthetic population (``alc_dask.apps.synthetic``): the members (the original), a control
table of other people, and the releases

- ``copy``: the members themselves (leaks everyone);
- ``noisy_5``, ``noisy_10``, ``noisy_20``: noisy copies of the members (each number moved by a
  Gaussian of that share of its column's standard deviation, each category replaced by another with
  that probability), no row identical to any member's (leaks, less and less);
- ``marginals``: each column of the members shuffled on its own (every marginal exact, every
  dependence between columns gone: teaches less than the population);
- ``smoothed_marginals``: each column drawn on its own from a smoothed marginal of the members: a
  category fewer than ``RARE_COUNT`` members hold is never drawn, a number is drawn uniformly within
  one of ``BINS`` quantile bins (kept on its column's grid); no rare value of a member is republished;
- ``bootstrap``: rows drawn with replacement from other people of the same population, neither
  members nor the control's (teaches about the population, nothing about the members).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from alc_dask.apps.synthetic import make_population
from alc_dask.data import Release
from alc_dask.seeds import stream

NOISE_LEVELS = (0.05, 0.10, 0.20)
LEAKING = ("copy", *(f"noisy_{round(100 * level)}" for level in NOISE_LEVELS))
"""The releases that give members away."""
HARMLESS = ("marginals", "smoothed_marginals", "bootstrap")
"""The releases that give no member away."""
RARE_COUNT = 10
"""A category held by fewer members than this is never drawn in the smoothed marginals."""
BINS = 20
"""Quantile bins of a numeric column in the smoothed marginals."""
MAX_NUDGES = 100
"""Rounds of nudging a noisy row still identical to a member's before giving up (one is nearly always enough)."""


@dataclass(frozen=True)
class TruthReleases:
    """The members, the control table and every known-truth release (name -> its anonymized table).

    Attributes
    ----------
    members : pandas.DataFrame
        The original: the people every release is made from.
    control : pandas.DataFrame
        Other people of the same population, never released.
    releases : dict of str to pandas.DataFrame
        ``copy``, ``noisy_5``, ``noisy_10``, ``noisy_20``, ``marginals`` and ``bootstrap``.

    Examples
    --------
    >>> from alc_dask.testing.truth import truth_releases
    >>> truth = truth_releases(rows=500)
    >>> release = truth.release("noisy_5")  # a Release: the members, the noisy copy and the control
    >>> release.original.n_rows, release.control.n_rows
    (500, 500)
    """

    members: pd.DataFrame
    control: pd.DataFrame
    releases: dict[str, pd.DataFrame]

    def release(self, name: str, **load) -> Release:
        """The release ``name`` loaded with the members as its original and the control table (``load``: `Release.load`'s options)."""
        return Release.load(self.members, [self.releases[name]], control=self.control, **load)


def truth_releases(rows: int = 1000, seed: int = 0, control_rows: int | None = None) -> TruthReleases:
    """``rows`` members and every known-truth release of them: to check that an attack or a family
    flags the releases that give members away and passes those that do not.

    Parameters
    ----------
    rows : int, default 1000
        Members (rows of the original).
    seed : int, default 0
        Seeds the population and every release.
    control_rows : int, optional
        Other people as the control table (default ``rows``).

    Returns
    -------
    TruthReleases

    Examples
    --------
    >>> from alc_dask.testing.truth import HARMLESS, LEAKING, truth_releases
    >>> truth = truth_releases(rows=500)
    >>> list(truth.members.columns[:4])
    ['age', 'sex', 'region', 'education']
    >>> LEAKING, HARMLESS
    (('copy', 'noisy_5', 'noisy_10', 'noisy_20'), ('marginals', 'smoothed_marginals', 'bootstrap'))
    """
    members = make_population(rows, seed)
    control = make_population(rows if control_rows is None else control_rows, seed + 1)
    others = make_population(rows, seed + 2)
    releases = {"copy": members.copy()}
    for level, name in zip(NOISE_LEVELS, LEAKING[1:], strict=True):
        releases[name] = noisy_copy(members, level, seed)
    releases["marginals"] = marginals(members, seed)
    releases["smoothed_marginals"] = smoothed_marginals(members, seed)
    releases["bootstrap"] = others.sample(rows, replace=True, random_state=stream(seed, "truth bootstrap")).reset_index(drop=True)
    return TruthReleases(members, control, releases)


def noisy_copy(members: pd.DataFrame, level: float, seed: int = 0) -> pd.DataFrame:
    """The members with noise of ``level``, numbers kept on their column's grid, and no row equal
    to any member's (such a row has a number nudged by one step of its grid until it is not; in a
    table without a number column, its values are noised again)."""
    rng = stream(seed, "truth noise", round(1000 * level))
    noisy = members.copy()
    numeric = [c for c in members.columns if pd.api.types.is_numeric_dtype(members[c])]
    steps = {c: _grid_step(members[c].to_numpy()) for c in numeric}
    for column in members.columns:
        if column in steps:
            moved = members[column].to_numpy() + rng.normal(0, level * members[column].std(), len(members))
            noisy[column] = np.round(moved / steps[column]) * steps[column] if steps[column] else moved
        else:
            noisy[column] = _replaced(members[column].to_numpy(), level, rng)
    for _ in range(MAX_NUDGES):
        same = _equal_to_a_member(noisy, members)
        if not same.any():
            return noisy
        if not numeric:
            for column in members.columns:
                noisy.loc[same, column] = _replaced(members[column].to_numpy(), level, rng)[same]
            continue
        column = numeric[int(rng.integers(len(numeric)))]
        noisy.loc[same, column] += rng.choice([-1, 1], int(same.sum())) * (steps[column] or level * members[column].std())
    raise RuntimeError(f"noise {level}: rows still equal to members after {MAX_NUDGES} nudges")


def marginals(members: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Each column of the members in its own random order."""
    rng = stream(seed, "truth marginals")
    return pd.DataFrame({column: rng.permutation(members[column].to_numpy()) for column in members.columns})


def smoothed_marginals(members: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """As many rows as the members, each column drawn on its own: categories from the members'
    frequencies with those fewer than ``RARE_COUNT`` members hold left out, numbers uniformly within
    a quantile bin drawn at random (each bin holds about as many members), rounded to the column's grid."""
    rng = stream(seed, "truth smoothed marginals")
    drawn = {}
    for column in members.columns:
        values = members[column].to_numpy()
        if pd.api.types.is_numeric_dtype(members[column]):
            edges = np.quantile(values, np.linspace(0, 1, BINS + 1))
            bins = rng.integers(BINS, size=len(values))
            numbers = rng.uniform(edges[bins], edges[bins + 1])
            step = _grid_step(values)
            drawn[column] = np.round(numbers / step) * step if step else numbers
        else:
            categories, counts = np.unique(values, return_counts=True)
            common = counts >= RARE_COUNT
            drawn[column] = rng.choice(categories[common], len(values), p=counts[common] / counts[common].sum())
    return pd.DataFrame(drawn)


def _replaced(values: np.ndarray, level: float, rng: np.random.Generator) -> np.ndarray:
    """``values`` with each replaced, with probability ``level``, by another value drawn by the column's frequencies."""
    categories, counts = np.unique(values, return_counts=True)
    result = values.copy()
    for i in np.flatnonzero(rng.random(len(values)) < level):
        weights = np.where(categories == values[i], 0, counts)
        if weights.sum():
            result[i] = categories[rng.choice(len(categories), p=weights / weights.sum())]
    return result


def _grid_step(values: np.ndarray) -> float:
    """The coarsest of 1000, 100, 10, 1 every value is a multiple of (0 for values off every grid: left unrounded)."""
    for step in (1000.0, 100.0, 10.0, 1.0):
        if np.all(np.mod(values, step) == 0):
            return step
    return 0.0


def _equal_to_a_member(rows: pd.DataFrame, members: pd.DataFrame) -> np.ndarray:
    keys = set(members.itertuples(index=False, name=None))
    return np.array([row in keys for row in rows.itertuples(index=False, name=None)], dtype=bool)
