"""An empirical lower bound on a release's differential privacy ε from a membership attack's ROC,
the way DP auditing reads an attack (Jagielski, Ullman & Oprea 2020, "Auditing differentially private machine learning", NeurIPS; Nasr et al. 2021).

An (ε, δ)-DP mechanism bounds every test of "is this person in the data?": at any threshold of an
attack's score, ``TPR ≤ e^ε·FPR + δ`` (members called members against non-members called members),
and, for the complementary test, ``1 − FPR ≤ e^ε·(1 − TPR) + δ`` (Kairouz, Oh & Viswanath 2015,
Theorem 2.1). A measured ROC point therefore proves ``ε ≥ ln((TPR − δ) / FPR)`` and
``ε ≥ ln((1 − FPR − δ) / (1 − TPR))``, once the measured rates are replaced by what the records
support: a one-sided Clopper–Pearson *lower* bound of TPR and *upper* bound of FPR (Clopper &
Pearson 1934), so a point with no false positive among N non-members proves an FPR below about
ln(1/α)/N, not 0. The bound is the largest over the ROC's thresholds, and never below 0.

Choosing the best threshold on the same records would let luck through, so the bounds hold for
every threshold at once (Bonferroni): a threshold cuts between two consecutive members' scores
(``n_members`` possible cuts) and two consecutive non-members' (``n_non_members``), and the rate
at each cut is a uniform order statistic, whose Clopper–Pearson bound is exact. Half of
``1 − confidence_level`` goes to the TPR bounds, spread over the members' cuts, half to the FPR
bounds over the non-members'. No records are set aside to choose the threshold (as a split would),
and the bound is a function of the ROC's counts alone: results that keep them can be audited again
at another δ or confidence level.

The records' outcomes are taken as independent draws, as when each is a separate run of the
mechanism (Jagielski et al. 2020 train a model per trial); many records of one release share it,
which the bound does not model (Steinke, Nasr & Jagielski 2023 audit one run with randomly included
canaries instead). The rule is the project's own reading of these papers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from alc_dask.measure._checks import in_open_unit
from alc_dask.measure.membership import Roc
from alc_dask.shown import shown


@dataclass(frozen=True)
class EpsilonBound:
    """What an attack's ROC proves about ε, and at which threshold.

    Attributes
    ----------
    epsilon : float
        The lower bound on ε (0 when no threshold proves more).
    delta : float
        The δ the bound is for.
    confidence_level : float
        The chance that the bound holds (for every threshold at once).
    point : int
        The ROC point (index into its counts) whose threshold proves the most.
    tpr_low, fpr_high : float
        The lower bound of that point's true positive rate and the upper bound of its false positive rate.
    complement : bool
        Whether it is proved by the complementary test (non-members called non-members).

    Examples
    --------
    >>> from alc_dask.measure import Roc, epsilon_lower_bound
    >>> bound = epsilon_lower_bound(Roc.from_scores([1.0] * 500, [0.0] * 500))
    >>> bound.point, round(bound.tpr_low, 3), round(bound.fpr_high, 3), bound.complement
    (1, 0.98, 0.02, True)
    """

    epsilon: float
    delta: float
    confidence_level: float
    point: int
    tpr_low: float
    fpr_high: float
    complement: bool


def clopper_pearson_lower(successes, trials, alpha):
    """One-sided Clopper–Pearson lower bound of a rate at confidence ``1 − alpha`` (0 for no success)."""
    from scipy.stats import beta

    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    return np.where(k > 0, beta.ppf(alpha, np.maximum(k, 1), n - k + 1), 0.0)


def clopper_pearson_upper(successes, trials, alpha):
    """One-sided Clopper–Pearson upper bound of a rate at confidence ``1 − alpha`` (1 when all succeed)."""
    from scipy.stats import beta

    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    return np.where(k < n, beta.ppf(1 - alpha, k + 1, np.maximum(n - k, 1)), 1.0)


def epsilon_lower_bound(roc: Roc, delta: float = 0.0, confidence_level: float = 0.95) -> EpsilonBound:
    """The largest ε any threshold of ``roc`` proves at ``delta``, holding for all thresholds at once
    with probability ``confidence_level``: what a membership attack shows of a release's DP promise.

    Parameters
    ----------
    roc : Roc
        The attack's ROC on members and non-members.
    delta : float, default 0.0
        The δ of the (ε, δ) guarantee, in [0, 1).
    confidence_level : float, default 0.95
        In (0, 1).

    Returns
    -------
    EpsilonBound
        The bound (never below 0) and the threshold that proves it.

    Raises
    ------
    ValueError
        ``delta`` or ``confidence_level`` out of range.

    Examples
    --------
    A release that gives away every one of 500 members against 500 non-members proves ε ≥ 3.9:

    >>> from alc_dask.measure import Roc, epsilon_lower_bound
    >>> roc = Roc.from_scores([1.0] * 500, [0.0] * 500)
    >>> round(epsilon_lower_bound(roc).epsilon, 2)
    3.91
    >>> round(epsilon_lower_bound(roc, delta=1e-5, confidence_level=0.99).epsilon, 2)
    3.76
    """
    in_open_unit("confidence_level", confidence_level)
    if not 0.0 <= delta < 1.0:
        raise ValueError(f"delta must be in [0, 1); got {shown(delta)}")
    error = 1.0 - confidence_level
    tpr_low = clopper_pearson_lower(roc.true_positives, roc.n_members, error / (2 * roc.n_members))
    fpr_high = clopper_pearson_upper(roc.false_positives, roc.n_non_members, error / (2 * roc.n_non_members))
    with np.errstate(divide="ignore"):
        direct = np.log(np.maximum(tpr_low - delta, 0.0) / fpr_high)
        complement = np.log(np.maximum(1.0 - fpr_high - delta, 0.0) / (1.0 - tpr_low))
    proved = np.maximum(direct, complement)
    point = int(np.argmax(proved))
    return EpsilonBound(
        epsilon=max(0.0, float(proved[point])),
        delta=float(delta),
        confidence_level=float(confidence_level),
        point=point,
        tpr_low=float(tpr_low[point]),
        fpr_high=float(fpr_high[point]),
        complement=bool(complement[point] > direct[point]),
    )


def generator_text(declared: Mapping[str, Any]) -> str:
    """A declaration in a few words, e.g. "MST 0.1.0, ε = 1, δ = 1e-05"."""
    words = " ".join(str(declared[key]) for key in ("name", "version") if declared.get(key))
    promise = [f"{symbol} = {declared[key]:g}" for key, symbol in (("epsilon", "ε"), ("delta", "δ")) if declared.get(key) is not None]
    return ", ".join([words, *promise])
