"""The Bayesian attack on a group-anonymized release (Boreale et al. 2020) as an attack of the ALC family.

The attacker knows the target is one of the release's people and knows their quasi-identifiers; it
guesses the most probable sensitive value under p_A (Lemma 1), with p_A of that value as the
confidence. So a k-anonymous or Anatomy release gets an ALC with the same baselines and reports
as any other release. Its preparation, the chains and the posterior they give, depends on the
release and the chains' settings only: it runs once per release, settings and seed in a worker
process and serves every scenario, batch of targets and ``relative_threat`` evaluation there.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from alc_dask.attacks.base import ABSTAINED, AttributeAttack, AttributeTask, Predictions, TargetBlock
from alc_dask.data import ColumnKind, Release, ScenarioError
from alc_dask.data.generalization import value_text
from alc_dask.data.grouped import GroupedTable
from alc_dask.families.relative_threat.group_posterior import Chain, ChainSettings, Posterior, sample_chains
from alc_dask.measure._checks import check_count


@dataclass(frozen=True, eq=False)
class GroupPosterior:
    """The chains run on a release's grouped table and the posterior they give for every victim
    (original and control rows)."""

    chains: list[Chain]
    posterior: Posterior


class BayesianGroup(AttributeAttack):
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
        ChainSettings(iterations, burn_in, thin, alpha, beta, swaps)  # the chains' own checks
        self.iterations, self.burn_in, self.thin, self.chains = iterations, burn_in, thin, chains
        self.alpha, self.beta, self.swaps, self.seed = alpha, beta, swaps, seed

    @property
    def settings(self) -> ChainSettings:
        return ChainSettings(self.iterations, self.burn_in, self.thin, self.alpha, self.beta, self.swaps)

    def check(self, release: Release, task: AttributeTask) -> None:
        """``ScenarioError`` when the scenario is not the grouped table's: its sensitive column as the
        secret, categorical, its quasi-identifiers known (``plan`` asks before any work)."""
        _grouped_for(release, task.secret, task.known, task.tolerance)

    def preparation_key(self, task: AttributeTask) -> Hashable:
        """The chains depend on the release and the settings only (the task is checked, not used)."""
        return self.identity()

    def prepared_on(self, release: Release) -> object:
        """The grouped table: the prior baseline's stand-ins of a release hold the same one."""
        return release.grouped if release.grouped is not None else release

    def prepare(self, release: Release, task: AttributeTask) -> GroupPosterior:
        grouped = release.grouped
        if grouped is None:
            raise ScenarioError("bayesian_group: the release has no group-anonymized table (release.grouped)")
        chains = sample_chains(grouped, self.settings, self.seed, self.chains)
        victims = grouped.original_qi if grouped.control_qi is None else np.concatenate([grouped.original_qi, grouped.control_qi])
        return GroupPosterior(chains, Posterior.build(grouped, chains, victims))

    def predict(self, prepared: GroupPosterior, targets: TargetBlock) -> Predictions:
        task = targets.task
        grouped = _grouped_for(targets.release, task.secret, task.known, task.tolerance)
        victims = grouped.original_qi if targets.source == "original" else grouped.control_qi
        if victims is None:
            raise ScenarioError("bayesian_group: the release has no control table")
        posterior = prepared.posterior
        rows = posterior.rows_of(victims[targets.rows])
        p = np.where(rows[:, None] >= 0, posterior.attacker[np.maximum(rows, 0)], np.nan)
        abstained = np.isnan(p).any(axis=1)
        best = np.argmax(np.where(abstained[:, None], 0.0, p), axis=1)
        codes = np.where(abstained, ABSTAINED, _release_codes(targets.release, grouped)[best]).astype(np.int32)
        confidence = np.where(abstained, 0.0, np.nanmax(np.where(abstained[:, None], 0.0, p), axis=1))
        return Predictions(codes, confidence, abstained)


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
