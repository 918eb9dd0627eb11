"""Relative privacy threat of group-anonymized tables (Boreale et al. 2020, §IV) and the convergence of the
chains that estimate it.

A row (s, r) of the cleartext table is threatened under a distribution q over the sensitive values
when s is q's most probable value (Definition 1); its threat level is then q(s). The attacker
(p_A: knows the victim is in the table) is compared with the learner (p_L: what the table teaches
about the population, which anyone may learn): the relative threat ``Ti = p_A(s) / p_L(s)`` of a
row threatened under p_A, and ``RGT_A = max(0, GT_A − GT_L)`` over the table. When several values
tie for the most probable, the row counts as threatened in the share a uniform pick among them
would guess right (Boreale et al., §VI-B, average 500 such random picks for the random-worlds
attacker; this is their expectation).
"""

from __future__ import annotations

import numpy as np

TIE = 1e-12
"""Probabilities this close to the maximum tie with it."""


def threatened(probabilities: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Per row, the chance a guess of q's most probable value is right: 1 or 0, a share when values
    tie, and 0 for a row without a distribution (NaN: the victim is outside the release's domain)."""
    p = np.asarray(probabilities, dtype=np.float64)
    truth = np.asarray(truth)
    rows = np.arange(len(p))
    valid = ~np.isnan(p).any(axis=1) & (truth >= 0)
    filled = np.where(valid[:, None], p, 0.0)
    top = filled >= filled.max(axis=1, keepdims=True) - TIE
    hit = top[rows, np.maximum(truth, 0)]
    return np.where(valid & hit, 1.0 / np.maximum(top.sum(axis=1), 1), 0.0)


def global_threat(probabilities: np.ndarray, truth: np.ndarray) -> float:
    """GT (eq. 17): the share of rows threatened."""
    return float(threatened(probabilities, truth).mean()) if len(truth) else float("nan")


def relative_global_threat(gt_attacker: float, gt_learner: float) -> float:
    """RGT_A (eq. 18): how many more rows the attacker threatens than the learner, as a share."""
    return max(0.0, gt_attacker - gt_learner)


def relative_threat(p_attacker: np.ndarray, p_learner: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Ti (eq. 16) of each row threatened under p_A (NaN for the others): p_A(s) / p_L(s)."""
    rows = np.arange(len(truth))
    under_attack = threatened(p_attacker, truth) > 0
    safe_truth = np.maximum(truth, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = p_attacker[rows, safe_truth] / p_learner[rows, safe_truth]
    return np.where(under_attack, ratio, np.nan)


def absolute_error(probabilities: np.ndarray, truth: np.ndarray) -> float:
    """ABS: Σ_rows Σ_s |1{s_i = s} − q(s | r_i)| = Σ_rows 2 (1 − q(s_i | r_i)) (a row without a
    distribution counts 2, as wrong as can be)."""
    p = np.asarray(probabilities, dtype=np.float64)
    right = p[np.arange(len(truth)), np.maximum(truth, 0)]
    right = np.where(np.isnan(right) | (truth < 0), 0.0, right)
    return float(np.sum(2.0 * (1.0 - right)))


def ideal_parameters(
    sensitive: np.ndarray, tuples: np.ndarray, domain_sizes: np.ndarray, n_sensitive: int, alpha: float = 1.0, beta: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """The posterior-mean parameters learned from the cleartext table (eq. 20, naive Bayes over the
    quasi-identifiers): θ_s = (α + γ_s)/(α_0 + N) and φ_a(v | s) = (β + δ^s_{a,v})/(β D_a + γ_s),
    flat on the value axis of ``alc_dask.families.relative_threat.gibbs_kernels``. Rows with a value outside the domain
    (code < 0) are left out of the counts."""
    keep = (sensitive >= 0) & (tuples >= 0).all(axis=1)
    sensitive, tuples = sensitive[keep], tuples[keep]
    offsets = np.concatenate([[0], np.cumsum(domain_sizes)])
    gamma = np.bincount(sensitive, minlength=n_sensitive).astype(np.float64)
    theta = (alpha + gamma) / (alpha * n_sensitive + len(sensitive))
    phi = np.empty((n_sensitive, offsets[-1]))
    for a, size in enumerate(domain_sizes):
        delta = np.zeros((n_sensitive, size))
        np.add.at(delta, (sensitive, tuples[:, a]), 1.0)
        phi[:, offsets[a] : offsets[a + 1]] = (beta + delta) / (beta * size + gamma[:, None])
    return theta, phi


def naive_bayes_posterior(theta: np.ndarray, phi: np.ndarray, offsets: np.ndarray, tuples: np.ndarray) -> np.ndarray:
    """q(s | r) ∝ θ_s Π_a φ(r_a | s) for each tuple (NaN rows for tuples outside the domain)."""
    outside = (tuples < 0).any(axis=1)
    safe = np.maximum(tuples, 0) + offsets[:-1]
    log_q = np.log(theta)[None, :] + np.log(phi)[:, safe].sum(axis=2).T
    q = np.exp(log_q - log_q.max(axis=1, keepdims=True))
    q /= q.sum(axis=1, keepdims=True)
    q[outside] = np.nan
    return q


def empirical_total_variation(p_reference: np.ndarray, p_other: np.ndarray) -> float:
    """ETV (eq. 21): ½ mean |1 − p_other / p_reference| over points drawn from p_reference."""
    return float(0.5 * np.mean(np.abs(1.0 - p_other / p_reference)))


def geweke_z(draws: np.ndarray, first: float = 0.1, last: float = 0.5) -> np.ndarray:
    """Geweke's z per column of ``draws`` (iterations × parameters): the means of the first 10% and
    the last 50% of the chain compared, their variances from batch means (autocorrelation allowed)."""
    n = len(draws)
    head, tail = draws[: max(2, int(first * n))], draws[n - max(2, int(last * n)) :]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (head.mean(axis=0) - tail.mean(axis=0)) / np.sqrt(_mean_variance(head) + _mean_variance(tail))
    return np.where(np.isfinite(z), z, 0.0)


def _mean_variance(draws: np.ndarray) -> np.ndarray:
    """Variance of the mean of correlated draws, from √n batch means."""
    n = len(draws)
    batches = max(2, int(np.sqrt(n)))
    size = n // batches
    means = draws[: batches * size].reshape(batches, size, -1).mean(axis=1)
    return means.var(axis=0, ddof=1) * size / n


def split_rhat(chains: np.ndarray) -> np.ndarray:
    """Split-R̂ per parameter (Gelman et al.) of ``chains`` (chains × iterations × parameters): each
    chain cut in halves, between- against within-half variance; near 1 once the chains agree.
    A parameter constant across every half gives 1."""
    n = chains.shape[1] // 2
    halves = np.concatenate([chains[:, :n], chains[:, n : 2 * n]], axis=0)
    within = halves.var(axis=1, ddof=1).mean(axis=0)
    between = n * halves.mean(axis=1).var(axis=0, ddof=1)
    pooled = (n - 1) / n * within + between / n
    with np.errstate(divide="ignore", invalid="ignore"):
        rhat = np.sqrt(pooled / within)
    return np.where(within > 0, rhat, 1.0)
