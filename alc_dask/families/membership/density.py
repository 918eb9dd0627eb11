"""Density-ratio membership (``density_ratio``): a record is scored by how much more likely it is
under a model of the release than under a model of the population,
``log p_release(x) − log p_population(x)`` (van Breugel, Sun, Qian & van der Schaar 2023, "Membership
Inference Attacks against Synthetic Data through Overfitting Detection", AISTATS, DOMIAS §3, eq. 2).
A release that overfits its members is denser around them than the population is, even where it
copies no record (which a distance to the closest row misses: Yao, Krčo, Ganev & de Montjoye 2025,
"The DCR Delusion", arXiv:2505.01524).
No classifier telling release rows from population rows is trained: both densities are fitted apart.

**The population** is modelled by a reference sample of the control table that never holds the
record scored: the control's rows are split at random (``seed``) into two halves of equal size (an
odd row left out of both); a non-member is scored against the half that does not hold it, a
member against a half drawn at random (same ``seed``). Every record thus meets a reference of the
same size, none its own row (two-fold cross-fitting), and every control row serves as a target and
as a reference for others. A separate ``release.reference`` table is not offered: the control table
already is the population's sample the family requires, and a second one would need its own
loading, encoding, cluster and fingerprint paths for what a split gives.

**Densities** (``density``):

- ``knn`` (default): the k-nearest-neighbour density (Loftsgaarden & Quesenberry 1965),
  ``p̂(x) = k / (N · V_d · r_k(x)^d)``, with ``r_k`` the Gower distance to the k-th nearest row of a
  table of N rows. The log ratio is then ``d · (log r_k'(reference) − log r_k(release)) + log(k N_ref /
  (k' N_release))``: the size term is the same for every record and ``d > 0`` multiplies every score
  alike, so the score ``log(r_k'(reference) + ε) − log(r_k(release) + ε)`` ranks records exactly as
  the ratio does (every measure of the family reads the ranking only). ε = 1e-9 keeps an exact copy
  (distance 0) finite. ``k`` (default 1) is the release's neighbour: leaks are local (a near copy of
  a member is one row), and every larger k smooths it away (on the known-truth noisy copies, k = 5
  kept about a fifth of k = 1's AUC above 0.5); ``reference_k`` (default 5) the reference's, whose density has
  no such spike and is steadier smoothed. Distances are measured on one scale in both tables, the
  release's (each continuous column's range over the release and the records scored), so the radii
  compare; the release is searched where it is held (one task per block on a cluster, the same
  answer as a copied release), the reference halves in the evaluating process. With ``k = 1`` the
  release's search is ``closest_distance``'s, made once for both.
- ``mixture``: a mixture density for numeric-heavy tables (``alc_dask.families.membership.mixture``:
  ``components`` Gaussian components, default 10, on the standardised continuous columns, each with
  its own smoothed categorical frequencies), fitted on at most ``fit_rows`` (default 20 000) seeded
  rows of the release and of each reference half; the score is the difference of the two log densities.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from alc_dask.attacks.base import MembershipAttack
from alc_dask.attacks.prepared import prepared_state
from alc_dask.data import EncodedTable, Release, ScenarioError
from alc_dask.families.membership.attacks import ClosestDistance, MembershipRecords, MembershipTask
from alc_dask.measure import SettingError
from alc_dask.measure._checks import check_count
from alc_dask.seeds import derived_seed, stream

DENSITIES = ("knn", "mixture")
DISTANCE_FLOOR = 1e-9
"""Added to both distances before their logarithm: an exact copy (distance 0) scores high but finite."""


@dataclass(frozen=True, eq=False)
class ReferenceSplit:
    """The control's two halves (sorted row numbers) and, per record scored, the half it is scored against."""

    halves: tuple[np.ndarray, np.ndarray]
    half_of_record: np.ndarray

    @classmethod
    def of(cls, n_control: int, task: MembershipTask, seed: int) -> ReferenceSplit:
        rng = stream(seed, "density reference split")
        order, size = rng.permutation(n_control), n_control // 2
        halves = (np.sort(order[:size]), np.sort(order[size : 2 * size]))
        holder = np.full(n_control, -1)
        holder[halves[0]], holder[halves[1]] = 0, 1
        drawn = rng.integers(0, 2, task.n_members + task.control_rows.size)
        own = np.concatenate([np.full(task.n_members, -1), holder[task.control_rows]])
        return cls(halves, np.where(own >= 0, 1 - own, drawn))

    def per_record(self, by_half: list[np.ndarray]) -> np.ndarray:
        """Each record's value from its own half (``by_half``: every record's value against each half)."""
        return np.where(self.half_of_record == 0, by_half[0], by_half[1])


class DensityRatio(MembershipAttack):
    """Score: log density under a model of the release minus log density under a model of the population (see the module)."""

    def __init__(self, density: str = "knn", k: int = 1, reference_k: int = 5, components: int = 10, fit_rows: int = 20_000, seed: int = 0):
        if density not in DENSITIES:
            raise SettingError("density", density, f"one of {', '.join(DENSITIES)}")
        for name, value in (("k", k), ("reference_k", reference_k), ("components", components), ("fit_rows", fit_rows)):
            check_count(name, value)
        check_count("seed", seed, minimum=0)
        self.density, self.k, self.reference_k, self.components, self.fit_rows, self.seed = density, k, reference_k, components, fit_rows, seed

    def check(self, release: Release, task: MembershipTask) -> None:
        needed = self.reference_k if self.density == "knn" else 1
        if release.control.n_rows // 2 < needed:
            raise ScenarioError(
                f"density_ratio: each half of the control table ({release.control.n_rows // 2} rows) must hold at least {needed} rows (reference_k) to model the population"
            )

    def prepare(self, release: Release, task: MembershipTask) -> np.ndarray:
        """Every record's score (log density ratio, or a score ranking as it does)."""
        self.check(release, task)
        split = ReferenceSplit.of(release.control.n_rows, task, self.seed)
        if self.density == "knn":
            return self._knn_scores(release, task, split)
        return self._mixture_scores(release, task, split)

    def score(self, prepared: np.ndarray, records: MembershipRecords) -> np.ndarray:
        return prepared

    def _knn_scores(self, release: Release, task: MembershipTask, split: ReferenceSplit) -> np.ndarray:
        from alc_dask.neighbors.nearest import k_nearest  # Numba's: imported to measure, not to build the attack

        records, released = task.records(release), release.anonymized[task.table]
        if self.k == 1:
            in_release = prepared_state(ClosestDistance(), release, task)  # the same search: made once for both attacks
        else:
            in_release = k_nearest(records, released, task.columns, self.k, shared_as=task.key)[0][:, -1]
        on_release_scale = {"value_min": released.value_min, "value_max": released.value_max}
        in_reference = [
            k_nearest(records, replace(release.control.rows(half), **on_release_scale), task.columns, self.reference_k)[0][:, -1] for half in split.halves
        ]
        return np.log(split.per_record(in_reference) + DISTANCE_FLOOR) - np.log(in_release + DISTANCE_FLOOR)

    def _mixture_scores(self, release: Release, task: MembershipTask, split: ReferenceSplit) -> np.ndarray:
        from alc_dask.families.membership.mixture import MixtureDensity, RowLayout

        records, released = task.records(release), release.anonymized[task.table]
        rng = stream(self.seed, "density mixture rows")
        fitted_on = [_rows_at_most(released, np.arange(released.n_rows), self.fit_rows, rng)]
        fitted_on += [_rows_at_most(release.control, half, self.fit_rows, rng) for half in split.halves]
        levels = {c: release.columns[c].codes.n_codes for c in task.columns if release.columns[c].codes is not None}
        layout = RowLayout.of(task.columns, levels, fitted_on[0], [*fitted_on, records])
        models = [MixtureDensity.fit(layout, table, self.components, derived_seed(self.seed, "density mixture", i)) for i, table in enumerate(fitted_on)]
        in_release, *in_reference = (model.log_density(records) for model in models)
        return in_release - split.per_record(in_reference)


def _rows_at_most(table, rows: np.ndarray, most: int, rng: np.random.Generator) -> EncodedTable:
    """``rows`` of ``table``, or a seeded sample of ``most`` of them, gathered in row order."""
    chosen = rows if rows.size <= most else np.sort(rng.choice(rows, most, replace=False))
    return table.rows(chosen)
