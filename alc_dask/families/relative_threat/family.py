"""Relative privacy threat of a group-anonymized release (Boreale et al. 2020): what does a k-anonymous or
Anatomy table tell an attacker about a person known to be in it, beyond what it teaches anyone
about the population?

The population is learned from the release by Gibbs sampling (``alc_dask.families.relative_threat.group_posterior``); every
row of the cleartext table (the release's original) is a victim. Reported: the shares of rows
whose sensitive value the attacker (GT_A), the learner (GT_L), the random-worlds reasoner (GT_RW)
and the ideal learner of the cleartext (ideal accuracy) would guess; the relative global threat
RGT_A; the relative threat Ti of the attacker's rows; faithfulness RF; absolute errors; and the
chains' convergence. The headline is the ALC of the attacker over the learner at recall 1, so the
risk label means what it means for every family: how far the attacker beats a non-member.
"""

from __future__ import annotations

import json
from typing import Annotated

import numpy as np
import pyarrow as pa
from pydantic import Field, model_validator

from alc_dask.attacks.base import AttributeTask
from alc_dask.attacks.prepared import prepared_state
from alc_dask.data import GroupedTable, ScenarioError
from alc_dask.families.base import CheckExamples, Evaluation, EvaluationFamily, FamilyParams, HeadlineInterval, column, exposed_records
from alc_dask.families.relative_threat.attack import BayesianGroup
from alc_dask.families.relative_threat.group_posterior import Chain, ChainSettings, FlatModel, Posterior
from alc_dask.measure import alc, risk_label
from alc_dask.measure.relative_threat import (
    absolute_error,
    empirical_total_variation,
    geweke_z,
    global_threat,
    ideal_parameters,
    naive_bayes_posterior,
    relative_global_threat,
    relative_threat,
    split_rhat,
    threatened,
)
from alc_dask.measure.verdict import ALC_AT_RISK
from alc_dask.seeds import stream

RHAT_LIMIT = 1.1
GEWEKE_OUTSIDE_LIMIT = 0.1
"""Converged: every parameter's split-R̂ below 1.1, and no more than 10% of the Geweke z-scores
beyond ±1.96 (5% are, by chance, in a chain at its stationary law)."""

RELATIVE_THREAT_FIELDS = (
    column("scheme", pa.string(), "how the release groups its rows: generalized (k-anonymity, l-diversity) or anatomy"),
    column("sensitive", pa.string(), "the sensitive column the attacker infers"),
    column("quasi_identifiers", pa.string(), "the release's quasi-identifiers, as a JSON list"),
    column("n_rows", pa.int64(), "rows of the release"),
    column("n_groups", pa.int64(), "groups of the release"),
    column("mean_group_size", pa.float64(), "mean rows per group"),
    column("min_group_size", pa.int64(), "rows of the smallest group (the release's k)"),
    column("min_diversity", pa.int64(), "fewest distinct sensitive values in a group (the release's l)"),
    column("gt_attacker", pa.float64(), "GT_A: share of rows whose sensitive value the Bayesian attacker's best guess gets right"),
    column("gt_learner", pa.float64(), "GT_L: the same share for the learner of the population from the same table"),
    column("gt_random_worlds", pa.float64(), "GT_RW: the same share for the random-worlds reasoner"),
    column("ideal_accuracy", pa.float64(), "the same share for the ideal learner of the cleartext"),
    column("baseline_accuracy", pa.float64(), "share of the most frequent sensitive value"),
    column("rgt_attacker", pa.float64(), "RGT_A = max(0, GT_A - GT_L): the relative global threat"),
    column("alc_over_learner", pa.float64(), "ALC of the attacker over the learner at recall 1"),
    column("faithfulness", pa.float64(), "RF = 1 - ETV(p_I, p_L): how well the learner matches the ideal"),
    column("abs_attacker", pa.float64(), "ABS_A: the attacker's absolute error"),
    column("abs_random_worlds", pa.float64(), "ABS_RW: the random-worlds reasoner's absolute error"),
    column("ti_max", pa.float64(), "largest relative threat Ti = p_A(s) / p_L(s) among the rows the attacker threatens"),
    column("ti_doubled_share", pa.float64(), "share of the rows threatened under p_A whose Ti is at least 2"),
    column("ti_doubled_rows", pa.int64(), "rows threatened under p_A whose Ti is at least 2"),
    column("threat_attacker", pa.list_(pa.float32()), "p_A(s) of each row threatened under p_A (no values, only probabilities)"),
    column("threat_learner", pa.list_(pa.float32()), "p_L(s) of the same rows"),
    column("chains", pa.int64(), "Gibbs chains run"),
    column("iterations", pa.int64(), "sweeps per chain"),
    column("burn_in", pa.int64(), "sweeps discarded at the start of each chain"),
    column("draws", pa.int64(), "parameter draws kept, over all chains"),
    column("chain_seconds", pa.float64(), "seconds of the slowest chain"),
    column("chain_workers", pa.int64(), "Dask workers that ran the chains (1 off a cluster)"),
    column("acceptance", pa.float64(), "Anatomy's swap acceptance rate (null for a generalized release)"),
    column("geweke_outside", pa.float64(), "share of parameters with Geweke |z| > 1.96 (about 5% at stationarity)"),
    column("geweke_max", pa.float64(), "largest Geweke |z|"),
    column("rhat_max", pa.float64(), "largest split-R-hat across chains"),
    column("converged", pa.bool_(), "R-hat < 1.1 with at most 10% of the Geweke z-scores beyond 1.96"),
    column("risk", pa.string(), "risk label of the ALC over the learner: no loss, safe, at risk or serious"),
    column("warning", pa.string(), "chains that did not converge, original values outside the release's domain, ..."),
)


class RelativeThreatParams(FamilyParams):
    iterations: Annotated[int, Field(ge=2)] = 100_000
    burn_in: Annotated[int, Field(ge=0)] = 50_000
    thin: Annotated[int, Field(ge=1)] = 100
    """Keep every ``thin``-th draw of the parameters after burn-in."""
    chains: Annotated[int, Field(ge=1, le=16)] = 2
    alpha: Annotated[float, Field(gt=0)] = 1.0
    """Dirichlet prior of the sensitive values' distribution."""
    beta: Annotated[float, Field(gt=0)] = 1.0
    """Dirichlet prior of each quasi-identifier's distribution given the sensitive value."""
    swaps: Annotated[int, Field(ge=1)] = 1
    """Metropolis swap proposals per group and sweep (Anatomy)."""
    faithfulness_points: Annotated[int, Field(ge=100)] = 10_000
    """Points drawn from the ideal distribution to estimate faithfulness (eq. 21)."""

    @model_validator(mode="after")
    def _draws_kept(self):
        self.chain_settings()  # the chains' own checks (a draw must be left after burn-in)
        return self

    def chain_settings(self) -> ChainSettings:
        return ChainSettings(self.iterations, self.burn_in, self.thin, self.alpha, self.beta, self.swaps)


class RelativeThreat(EvaluationFamily):
    name = "relative_threat"
    criterion = "inference"
    Params = RelativeThreatParams
    headline = "alc_over_learner"
    threshold = ALC_AT_RISK
    scale = "the ALC of the Bayesian attacker over a learner of the population from the same table (Boreale et al. 2020, relative threat)"

    @classmethod
    def headline_interval(cls, row):
        """A point: the accuracies are over every row of the release, averaged over the chains'
        draws, which give no sampling interval of the threat."""
        value = float(row["alc_over_learner"])
        return HeadlineInterval(value, value, value, None)

    @classmethod
    def evidence(cls, row) -> str:
        return (
            f"the Bayesian attacker gets the sensitive value of {float(row['gt_attacker']):.1%} of rows right; a learner of the population "
            f"from the same table, {float(row['gt_learner']):.1%} (ALC {float(row['alc_over_learner']):.2f})"
        )

    @classmethod
    def exposed(cls, predictions, row):
        """Rows whose sensitive value the attacker guesses right and the learner of the population
        (from the same table) does not: what the release tells of them beyond what it tells of anyone."""
        right = predictions[predictions["correct"].eq(True)]
        learned = right.loc[right["side"] == "learner", "target"]
        attacker = right.loc[right["side"] == "attacker", "target"]
        return exposed_records(attacker[~attacker.isin(learned)], f"{row['sensitive']} inferred beyond what the population teaches")

    run_dependent = frozenset({"chain_seconds", "chain_workers"})

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """Short chains (a few hundred draws: enough to rank a copy above a fresh sample, not to converge)."""
        return CheckExamples([{"iterations": 600, "burn_in": 200, "thin": 10, "chains": 2, "faithfulness_points": 1000}], release="grouped")

    @classmethod
    def report_section(cls, scores):
        from alc_dask.families.relative_threat.section import section

        return section(cls.name, scores)

    fields = RELATIVE_THREAT_FIELDS

    def describe(self) -> str:
        return "relative threat"

    def check(self, release) -> None:
        if getattr(release, "grouped", None) is None:
            raise ScenarioError("relative_threat: the release has no group-anonymized table (release.grouped)")

    def evaluate(self, release, seed: int) -> Evaluation:
        self.check(release)
        p, grouped = self.params, release.grouped
        attack = BayesianGroup(p.iterations, p.burn_in, p.thin, p.chains, p.alpha, p.beta, p.swaps, seed)
        prepared = prepared_state(attack, release, AttributeTask(grouped.sensitive, tuple(grouped.quasi_identifiers)))
        return _threats(p, grouped, prepared.chains, prepared.posterior, seed)


def _threats(p: RelativeThreatParams, grouped: GroupedTable, chains: list[Chain], posterior: Posterior, seed: int) -> Evaluation:
    """The measures of the release's threats to its original rows under the chains' posterior, and the per-row table."""
    victims = grouped.original_qi
    rows = posterior.rows_of(victims)
    truth = grouped.original_sensitive
    p_attacker, p_learner, p_worlds = posterior.attacker[rows], posterior.learner[rows], posterior.random_worlds[rows]
    model = FlatModel(grouped)
    theta_ideal, phi_ideal = ideal_parameters(truth, victims, grouped.domain_sizes(), model.n_sensitive, p.alpha, p.beta)
    p_ideal = naive_bayes_posterior(theta_ideal, phi_ideal, model.offsets, victims)
    gt = {name: global_threat(q, truth) for name, q in (("attacker", p_attacker), ("learner", p_learner), ("worlds", p_worlds), ("ideal", p_ideal))}
    ti = relative_threat(p_attacker, p_learner, truth)
    under_attack = ~np.isnan(ti)
    right = truth[under_attack]
    doubled = int(np.sum(ti[under_attack] >= 2.0))
    diagnostics = _diagnostics(chains)
    headline = float(alc(gt["learner"], gt["attacker"]))
    warnings = [] if diagnostics["converged"] else [_not_converged(diagnostics)]
    outside = int(np.sum((victims < 0).any(axis=1) | (truth < 0)))
    if outside:
        warnings.append(f"{outside} original rows have a value outside the release's domain (missing): counted as not threatened")
    sizes = grouped.group_sizes
    distributions = {"attacker": p_attacker, "learner": p_learner, "random_worlds": p_worlds, "ideal": p_ideal}
    return Evaluation(
        {
            "scheme": grouped.scheme,
            "sensitive": grouped.sensitive,
            "quasi_identifiers": json.dumps(list(grouped.quasi_identifiers)),
            "n_rows": grouped.n_rows,
            "n_groups": grouped.n_groups,
            "mean_group_size": float(sizes.mean()),
            "min_group_size": int(sizes.min()),
            "min_diversity": int(grouped.distinct_sensitive_per_group().min()),
            "gt_attacker": gt["attacker"],
            "gt_learner": gt["learner"],
            "gt_random_worlds": gt["worlds"],
            "ideal_accuracy": gt["ideal"],
            "baseline_accuracy": float(np.bincount(grouped.sensitive_codes).max() / grouped.n_rows),
            "rgt_attacker": relative_global_threat(gt["attacker"], gt["learner"]),
            "alc_over_learner": headline,
            "faithfulness": _faithfulness(theta_ideal, phi_ideal, model.offsets, chains, p.faithfulness_points, seed),
            "abs_attacker": absolute_error(p_attacker, truth),
            "abs_random_worlds": absolute_error(p_worlds, truth),
            "ti_max": float(np.nanmax(ti)) if under_attack.any() else float("nan"),
            "ti_doubled_share": doubled / max(int(under_attack.sum()), 1),
            "ti_doubled_rows": doubled,
            "threat_attacker": p_attacker[under_attack, right].astype(np.float32).tolist(),
            "threat_learner": p_learner[under_attack, right].astype(np.float32).tolist(),
            "chains": p.chains,
            "iterations": p.iterations,
            "burn_in": p.burn_in,
            "draws": sum(len(c.thetas) for c in chains),
            "chain_seconds": max(c.seconds for c in chains),
            "chain_workers": len({c.worker for c in chains}),
            "acceptance": float(np.mean([c.acceptance for c in chains])) if grouped.scheme == "anatomy" else None,
            **diagnostics,
            "risk": risk_label(headline),
            "warning": "; ".join(warnings) or None,
        },
        _per_victim(distributions, truth),
    )


def _per_victim(distributions: dict[str, np.ndarray], truth: np.ndarray) -> pa.Table:
    """Per original row and distribution (``side``): whether its most probable value is the row's
    (``correct``: the row is threatened under it) and that value's probability (``confidence``:
    the threat level); ``abstained`` where the release says nothing of the row."""
    sides, targets, correct, confidence, abstained = [], [], [], [], []
    for side, q in distributions.items():
        missing = np.isnan(q).any(axis=1)
        sides += [side] * len(truth)
        targets.append(np.arange(len(truth)))
        correct.append(threatened(q, truth) > 0)
        confidence.append(np.where(missing, 0.0, np.nanmax(np.where(missing[:, None], 0.0, q), axis=1)))
        abstained.append(missing)
    return pa.table(
        {
            "target": np.concatenate(targets),
            "side": sides,
            "correct": np.concatenate(correct),
            "confidence": np.concatenate(confidence),
            "abstained": np.concatenate(abstained),
        }
    )


def _diagnostics(chains) -> dict:
    """Geweke's z of every parameter in every chain, and the split-R̂ across chains."""
    draws = np.stack([np.concatenate([c.thetas, c.phis.reshape(len(c.phis), -1)], axis=1) for c in chains])
    z = np.abs(np.concatenate([geweke_z(chain) for chain in draws]))
    rhat = split_rhat(draws)
    outside, rhat_max = float(np.mean(z > 1.96)), float(np.max(rhat))
    return {
        "geweke_outside": outside,
        "geweke_max": float(z.max()),
        "rhat_max": rhat_max,
        "converged": bool(rhat_max < RHAT_LIMIT and outside <= GEWEKE_OUTSIDE_LIMIT),
    }


def _not_converged(diagnostics: dict) -> str:
    return (
        f"the chains did not converge (largest split-R̂ {diagnostics['rhat_max']:.3f}, limit {RHAT_LIMIT}; "
        f"{diagnostics['geweke_outside']:.1%} of Geweke z-scores beyond ±1.96, limit {GEWEKE_OUTSIDE_LIMIT:.0%}): run more iterations"
    )


def _faithfulness(theta: np.ndarray, phi: np.ndarray, offsets: np.ndarray, chains, points: int, seed: int) -> float:
    """RF = 1 − ETV(p_I, p_L) (Definition 2, eq. 21) on points drawn from the ideal distribution."""
    rng = stream(seed, "faithfulness points")
    sensitive = rng.choice(len(theta), size=points, p=theta)
    tuples = np.empty((points, len(offsets) - 1), dtype=np.int64)
    for a in range(len(offsets) - 1):
        block = phi[:, offsets[a] : offsets[a + 1]]
        cumulative = np.cumsum(block[sensitive], axis=1)
        tuples[:, a] = np.minimum((cumulative < rng.random(points)[:, None] * cumulative[:, -1:]).sum(axis=1), block.shape[1] - 1)
    ideal = theta[sensitive] * np.prod(phi[sensitive[:, None], tuples + offsets[:-1]], axis=1)
    thetas = np.concatenate([c.thetas for c in chains])
    phis = np.concatenate([c.phis for c in chains])
    from alc_dask.families.relative_threat.gibbs_kernels import learner_joint  # Numba: imported to measure, not to check parameters

    learned = learner_joint(thetas, phis, offsets, tuples, sensitive)
    return 1.0 - empirical_total_variation(ideal, learned)
