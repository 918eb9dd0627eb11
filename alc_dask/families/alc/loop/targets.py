"""The order in which a scenario attacks its targets, and what their recall is measured against."""

import numpy as np

from alc_dask.data import Release, ScenarioError
from alc_dask.families.alc.targets import TargetSelector, select_rows
from alc_dask.measure import RecallBasis, pretargeted_scale
from alc_dask.seeds import stream


def target_order(release: Release, targets, seed: int) -> tuple[np.ndarray, str, float]:
    """(rows in a seeded random order, recall basis, recall scale) for ``targets``: None (every
    original row), a ``TargetSelector`` or its dict form (a pre-targeted group), or row indices."""
    rng = stream(seed, "targets")
    population = release.original.n_rows
    if targets is None:
        return rng.permutation(population), "random", 1.0
    if isinstance(targets, dict):
        targets = TargetSelector.model_validate(targets)
    if isinstance(targets, TargetSelector):
        rows = select_rows(release, targets)
        basis = RecallBasis(targets.recall_basis)
        return rng.permutation(rows), basis.value, pretargeted_scale(len(rows), population, basis)
    rows = np.unique(np.asarray(targets, dtype=np.int64))
    if rows.size == 0 or rows.min() < 0 or rows.max() >= population:
        raise ScenarioError(f"targets: row indices must lie in [0, {population}); got {len(rows)} rows")
    return rng.permutation(rows), "random", 1.0
