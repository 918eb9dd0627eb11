"""The Bayesian attack on a group-anonymized release (Boreale et al. 2020) as an attack of the ALC family.

The attacker knows the target is one of the release's people and knows their quasi-identifiers; it
guesses the most probable sensitive value under p_A (Lemma 1), with p_A of that value as the
confidence. So a k-anonymous or Anatomy release gets an ALC with the same baselines and reports
as any other release. The chains run once per release, settings and seed in a worker process and
serve every scenario and batch of targets there.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

import numpy as np

from alc_dask.attacks.base import ABSTAINED, Predictions
from alc_dask.data import ColumnKind, Release, ScenarioError
from alc_dask.data.generalization import value_text
from alc_dask.data.grouped import GroupedTable
from alc_dask.families.relative_threat.group_posterior import ChainSettings, Posterior, sample_chains
from alc_dask.measure._checks import check_count

_POSTERIORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


class BayesianGroup:
    """Predict argmax p_A; the chains' settings as in the ``relative_threat`` family."""

    def __init__(
        self,
        iterations: int = 100_000,
        burn_in: int = 50_000,
        thin: int = 100,
        chains: int = 2,
        alpha: float = 1.0,
        beta: float = 1.0,
        swaps: int = 1,
        seed: int = 0,
    ):
        check_count("chains", chains)
        self.settings = ChainSettings(iterations, burn_in, thin, alpha, beta, swaps)
        self.chains, self.seed = chains, seed

    def check(self, release: Release, secret: str, known: Sequence[str], tolerance=None) -> None:
        """``ScenarioError`` when the scenario is not the grouped table's: its sensitive column as the
        secret, categorical, its quasi-identifiers known (``plan`` asks before any work)."""
        _grouped_for(release, secret, known, tolerance)

    def predict(self, release: Release, secret: str, known: Sequence[str], target_rows, source: str = "original", client=None, tolerance=None) -> Predictions:
        grouped = _grouped_for(release, secret, known, tolerance)
        victims = grouped.original_qi if source == "original" else grouped.control_qi
        if victims is None:
            raise ScenarioError("bayesian_group: the release has no control table")
        posterior = self._posterior(grouped)
        rows = posterior.rows_of(victims[target_rows])
        p = np.where(rows[:, None] >= 0, posterior.attacker[np.maximum(rows, 0)], np.nan)
        abstained = np.isnan(p).any(axis=1)
        best = np.argmax(np.where(abstained[:, None], 0.0, p), axis=1)
        codes = np.where(abstained, ABSTAINED, _release_codes(release, grouped)[best]).astype(np.int32)
        confidence = np.where(abstained, 0.0, np.nanmax(np.where(abstained[:, None], 0.0, p), axis=1))
        return Predictions(codes, confidence, abstained)

    def _posterior(self, grouped: GroupedTable) -> Posterior:
        key = (self.settings, self.chains, self.seed)
        with _LOCK:
            known = _POSTERIORS.setdefault(grouped, {})
            if key in known:
                return known[key]
        chains = sample_chains(grouped, self.settings, self.seed, self.chains)
        victims = grouped.original_qi if grouped.control_qi is None else np.concatenate([grouped.original_qi, grouped.control_qi])
        posterior = Posterior.build(grouped, chains, victims)
        with _LOCK:
            known[key] = posterior
        return posterior


def _grouped_for(release: Release, secret: str, known: Sequence[str], tolerance) -> GroupedTable:
    grouped = getattr(release, "grouped", None)
    if grouped is None:
        raise ScenarioError("bayesian_group: the release has no group-anonymized table (release.grouped)")
    if secret != grouped.sensitive:
        raise ScenarioError(f"bayesian_group: secret {secret!r} is not the release's sensitive column {grouped.sensitive!r}")
    if set(known) != set(grouped.quasi_identifiers):
        raise ScenarioError(f"bayesian_group: known must be the release's quasi-identifiers {list(grouped.quasi_identifiers)}; got {list(known)}")
    if tolerance is not None or release.column(secret).kind is not ColumnKind.CATEGORICAL:
        raise ScenarioError(f"bayesian_group: secret {secret!r} must be categorical (predicted as a value, not within a tolerance)")
    return grouped


def _release_codes(release: Release, grouped: GroupedTable) -> np.ndarray:
    """The release's code of each of the grouped table's sensitive values (missing code when absent)."""
    table = release.column(grouped.sensitive).codes
    text = {value_text(v): code for code, v in enumerate(table.values)}
    return np.array([text.get(v, table.missing_code) for v in grouped.sensitive_values], dtype=np.int64)
