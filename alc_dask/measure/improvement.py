"""Precision improvement at matched coverage (Francis & Wagner 2024, §4.3, eq. 6).

The ALC compares the attack's best precision-recall point with the baseline's best, each chosen on
its own. Precision improvement instead holds coverage equal: the baseline's precision is measured on
exactly the targets the attack made predictions for, and
``PI = (P_atk - P_base) / (1 - P_base)``: the share of the room above the baseline that the attack
takes. A release is vulnerable only if the attack's precision *and* coverage exceed the baseline's:
a baseline that is as precise on at least as many targets (at any of its own confidence cuts) makes
the attack no vulnerability, however precise.

Precisions are Wilson midpoints (as the ALC's are: Francis & Wagner 2025, §3.5), so with coverage 1 and equal
coverages PI is the ALC's relative form.
"""

from dataclasses import dataclass

import numpy as np

from alc_dask.measure._checks import as_correctness, as_float_array, same_length
from alc_dask.measure.coefficient import PRC_CEILING
from alc_dask.measure.interval import wilson_interval


def precision_improvement(attack_precision, base_precision):
    """``(P_atk - P_base) / (1 - P_base)``: the share of the room above the baseline's precision the attack takes.

    Both are clipped below 1 first (as PRCs are for the ALC), so a perfect baseline gives 0 against
    a perfect attack and a very negative PI against any other, never a division by 0.

    Parameters
    ----------
    attack_precision, base_precision : float or array_like
        Precisions in [0, 1]; arrays are taken element-wise.

    Returns
    -------
    float or numpy.ndarray
        The precision improvement, at most 1.

    Raises
    ------
    ValueError
        A precision outside [0, 1], or NaN.

    Examples
    --------
    >>> from alc_dask.measure import precision_improvement
    >>> precision_improvement(0.9, 0.5)
    0.8
    >>> round(precision_improvement(0.5, 0.9), 3)
    -4.0
    """
    attack = np.minimum(as_float_array("attack_precision", attack_precision, low=0.0, high=1.0), PRC_CEILING)
    base = np.minimum(as_float_array("base_precision", base_precision, low=0.0, high=1.0), PRC_CEILING)
    result = (attack - base) / (1.0 - base)
    return float(result) if result.ndim == 0 else result


@dataclass(frozen=True)
class MatchedCoverage:
    """Precision improvement of an attack over the baseline on exactly the targets the attack predicted for.

    Attributes
    ----------
    pi, pi_low, pi_high : float
        The precision improvement and its interval (from both precisions' Wilson intervals).
    coverage : float
        The share of the targets the attack made predictions for (the same for both sides).
    attack_precision : float
        The attack's precision (Wilson midpoint) on those targets.
    base_precision, base_precision_low, base_precision_high : float
        The baseline's precision on exactly those targets, and its interval.
    vulnerable : bool
        PI above 0 and no cut of the baseline as precise as the attack on at least as many targets.
    predicted, attack_correct, base_correct : int
        The targets the attack predicted for, and how many of them each side got right: the counts
        the verdict recomputes PI's interval from (``measure.sequential.pi_interval``).

    Examples
    --------
    >>> from alc_dask.measure import MatchedCoverage
    >>> MatchedCoverage.none().vulnerable
    False
    """

    pi: float
    pi_low: float
    pi_high: float
    coverage: float
    attack_precision: float
    base_precision: float
    base_precision_low: float
    base_precision_high: float
    vulnerable: bool
    predicted: int = 0
    attack_correct: int = 0
    base_correct: int = 0

    @classmethod
    def none(cls) -> "MatchedCoverage":
        """The attack made no prediction: nothing to compare."""
        nan = float("nan")
        return cls(nan, nan, nan, 0.0, nan, nan, nan, nan, False)

    def to_dict(self) -> dict:
        """The figures as a scores row's ``pi_*`` columns."""
        return {
            "pi": self.pi,
            "pi_low": self.pi_low,
            "pi_high": self.pi_high,
            "pi_coverage": self.coverage,
            "pi_attack_precision": self.attack_precision,
            "pi_base_precision": self.base_precision,
            "pi_base_precision_low": self.base_precision_low,
            "pi_base_precision_high": self.base_precision_high,
            "pi_vulnerable": self.vulnerable,
            "pi_predicted": self.predicted,
            "pi_attack_correct": self.attack_correct,
            "pi_base_correct": self.base_correct,
        }


def matched_coverage(predicted, attack_correct, base_correct, base_confidence, confidence_level: float = 0.95) -> MatchedCoverage:
    """PI of the attack's predictions against the baseline's on the same targets, and the verdict.

    The ALC compares each side's best cut chosen on its own; this holds coverage equal, so an
    attack that is precise only where the baseline is too is no vulnerability.

    Parameters
    ----------
    predicted : array_like of bool
        Per target, whether the attack made a prediction (did not abstain).
    attack_correct, base_correct : array_like of bool
        Per target, whether the attack's and the baseline's predictions were right.
    base_confidence : array_like of float
        The baseline's rank scores: its own cuts decide whether it dominates the attack.
    confidence_level : float, default 0.95
        The Wilson intervals' confidence level.

    Returns
    -------
    MatchedCoverage
        `MatchedCoverage.none` when the attack predicted for no target.

    Raises
    ------
    ValueError
        Empty or mismatched inputs, or values other than booleans or 0/1.

    Examples
    --------
    An attack predicting for half the targets, 90% right, against a coin-flip baseline:

    >>> from alc_dask.measure import matched_coverage
    >>> predicted = [True] * 100 + [False] * 100
    >>> attack_correct = [True] * 90 + [False] * 110
    >>> result = matched_coverage(predicted, attack_correct, [True, False] * 100, [0.5] * 200)
    >>> result.coverage, round(result.pi, 2), result.vulnerable
    (0.5, 0.77, True)
    """
    kept = as_correctness("predicted", predicted)
    attack_hits, base_hits = as_correctness("attack_correct", attack_correct), as_correctness("base_correct", base_correct)
    base_rank = as_float_array("base_confidence", base_confidence)
    same_length(predicted=kept, attack_correct=attack_hits, base_correct=base_hits, base_confidence=base_rank)
    n = int(kept.sum())
    if n == 0:
        return MatchedCoverage.none()
    attack_low, attack_high = wilson_interval(n, attack_hits[kept].mean(), confidence_level)
    base_low, base_high = wilson_interval(n, base_hits[kept].mean(), confidence_level)
    attack, base = (attack_low + attack_high) / 2, (base_low + base_high) / 2
    coverage = n / kept.size
    pi = precision_improvement(attack, base)
    dominated = _baseline_dominates(base_hits, base_rank, attack, coverage, confidence_level)
    return MatchedCoverage(
        pi=pi,
        pi_low=precision_improvement(attack_low, base_high),
        pi_high=precision_improvement(attack_high, base_low),
        coverage=coverage,
        attack_precision=attack,
        base_precision=base,
        base_precision_low=base_low,
        base_precision_high=base_high,
        vulnerable=bool(pi > 0 and not dominated),
        predicted=n,
        attack_correct=int(attack_hits[kept].sum()),
        base_correct=int(base_hits[kept].sum()),
    )


def _baseline_dominates(hits: np.ndarray, rank: np.ndarray, precision: float, coverage: float, confidence_level: float) -> bool:
    """Whether a cut of the baseline's ranking (ties kept together) covers at least ``coverage`` of
    the targets with at least ``precision`` (Wilson midpoint)."""
    order = np.argsort(-rank, kind="stable")
    ends = np.flatnonzero(np.append(rank[order][1:] != rank[order][:-1], True))
    kept = ends + 1
    low, high = wilson_interval(kept, np.cumsum(hits[order])[ends] / kept, confidence_level)
    return bool(np.any((kept / hits.size >= coverage) & ((low + high) / 2 >= precision)))
