"""Membership inference at realistic base rates (Francis & Wagner 2024, §5), as pure functions of attack scores.

Almost every membership attack is reported on as many members as non-members, which overstates it:
a real attacker meets far more non-members. An ROC (true and false positive rates at every
threshold of the attack's score) holds what is needed to speak of any "observational skew" M:N
(members to non-members among the people the attacker looks at): precision is
``TPR·M / (TPR·M + FPR·N)`` and recall is TPR. The trivial attack, "everyone is a member", has
precision ``M / (M + N)`` at recall 1.

An ROC is kept as raw counts (false and true positives at each threshold), so any figure here can be
recomputed later at another skew or confidence level. Rates measured on few records are not taken
at face value where it matters: a point with no false positive among N non-members does not prove a
false positive rate of 0, only one below about 3/N. So the best precision at a skew is chosen by its
lower confidence bound (a bound that holds for all the curve's points at once), and precisions are computed from the Wilson midpoints of TPR and FPR (as the
ALC's "probabilistic precision" is; Francis & Wagner 2025, §3.5), which keep such a point's precision where the data
can support it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alc_dask.measure._checks import as_float_array, as_nonempty_1d, in_open_unit
from alc_dask.measure.coefficient import alc, prc
from alc_dask.measure.interval import wilson_interval, z_score
from alc_dask.shown import shown

DEFAULT_SKEWS = ("1:1", "1:2", "1:5", "1:10", "1:50", "1:100", "1:1000")
"""The grid every membership evaluation reports (Francis & Wagner 2024, §5, recommend a common set of skews)."""
FPR_TARGETS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5)
RECALLS = (0.001, 0.01, 0.1, 0.5)
"""Recalls at which precision is reported besides the best one."""


@dataclass(frozen=True)
class Skew:
    """An observational skew: ``members`` members for ``non_members`` non-members (only the ratio matters).

    A real attacker meets far more non-members than members; precision is only meaningful at the
    skew it meets.

    Parameters
    ----------
    members, non_members : float
        Positive numbers.

    Raises
    ------
    ValueError
        A count that is not a positive number.

    Examples
    --------
    >>> from alc_dask.measure import Skew
    >>> skew = Skew.parse("1:100")
    >>> str(skew), skew.in_words(), round(skew.baseline, 4)
    ('1:100', '1 member in 101 people', 0.0099)
    >>> str(Skew.of_population(1000, 101000))
    '1000:100000'
    """

    members: float
    non_members: float

    def __post_init__(self):
        for name in ("members", "non_members"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"skew {self}: {name} must be a positive number; got {shown(value)}")

    @classmethod
    def parse(cls, text: str) -> Skew:
        """``"1:100"`` (members:non-members); a clear error for anything else."""
        parts = str(text).split(":")
        try:
            if len(parts) != 2:
                raise ValueError
            members, non_members = (float(p) for p in parts)
        except ValueError:
            raise ValueError(f"skew {text!r} is not of the form members:non-members, e.g. 1:100") from None
        if not members > 0:
            raise ValueError(f"skew {text!r} has no members: precision among non-members only is meaningless")
        if not non_members > 0:
            raise ValueError(f"skew {text!r} has no non-members: every guess of membership would be right")
        return cls(members, non_members)

    @classmethod
    def of_population(cls, members: int, population: int) -> Skew:
        """The skew of a release of ``members`` people drawn from ``population`` people."""
        if not 0 < members < population:
            raise ValueError(f"population {shown(population)} must be larger than the {members} members of the release")
        return cls(members, population - members)

    def __str__(self) -> str:
        return f"{_number(self.members)}:{_number(self.non_members)}"

    @property
    def baseline(self) -> float:
        """Precision of guessing that everyone is a member."""
        return self.members / (self.members + self.non_members)

    def in_words(self) -> str:
        """e.g. "1 member in 101 people"."""
        return f"1 member in {_round_number((self.members + self.non_members) / self.members)} people"


def precision_at_skew(tpr, fpr, members: float, non_members: float):
    """Precision of a membership attack at a skew: ``TPR·M / (TPR·M + FPR·N)``.

    Parameters
    ----------
    tpr, fpr : float or array_like
        True and false positive rates in [0, 1]; arrays are taken element-wise.
    members, non_members : float
        The skew ``M:N``.

    Returns
    -------
    float or numpy.ndarray
        The precision; NaN where the attack claims no one (TPR = FPR = 0).

    Raises
    ------
    ValueError
        A rate outside [0, 1], or a skew count that is not positive.

    Examples
    --------
    A TPR of 0.5 at an FPR of 1% is 98% precise on as many members as non-members, 33% at 1:100:

    >>> from alc_dask.measure import precision_at_skew
    >>> round(precision_at_skew(0.5, 0.01, 1, 1), 3), round(precision_at_skew(0.5, 0.01, 1, 100), 3)
    (0.98, 0.333)
    """
    skew = Skew(members, non_members)
    tpr = as_float_array("tpr", tpr, low=0.0, high=1.0)
    fpr = as_float_array("fpr", fpr, low=0.0, high=1.0)
    claimed = tpr * skew.members + fpr * skew.non_members
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.where(claimed > 0, tpr * skew.members / claimed, np.nan)
    return float(result) if result.ndim == 0 else result


@dataclass(frozen=True)
class TprAtFpr:
    """The true positive rate at a false positive rate the non-members can resolve.

    Attributes
    ----------
    fpr_target : float
        The false positive rate asked for.
    fpr : float
        The false positive rate actually reached (at most the target).
    tpr, tpr_low, tpr_high : float
        The true positive rate there, and its Wilson interval.

    Examples
    --------
    >>> from alc_dask.measure import Roc
    >>> roc = Roc.from_scores([0.9, 0.8, 0.7, 0.4] * 5, [0.6, 0.3, 0.2, 0.1] * 5)
    >>> [(point.fpr_target, point.tpr) for point in roc.tpr_at_fpr()]
    [(0.1, 0.75)]
    """

    fpr_target: float
    fpr: float
    tpr: float
    tpr_low: float
    tpr_high: float


@dataclass(frozen=True)
class PrecisionAtSkew:
    """What a membership attack achieves at one skew (see `Roc.precision_at`).

    Attributes
    ----------
    skew : str
        The skew, as ``"1:100"``.
    baseline : float
        Precision of the all-member guess.
    precision, precision_low, precision_high : float
        The best precision the data supports (the point of highest lower bound) and its bounds.
    recall : float
        The recall (TPR) at that point.
    above_baseline : bool
        The precision's lower bound is above the baseline.
    alc : float
        The ALC of the attack over the all-member guess (PRC at recall 1): the attack's PRC at the
        point whose PRC of the lower precision bound is highest.
    at_recall : tuple of (float, float)
        (recall, precision) at each of ``RECALLS`` the attack reaches.

    Examples
    --------
    >>> import numpy as np
    >>> from alc_dask.measure import Roc, Skew
    >>> rng = np.random.default_rng(0)
    >>> roc = Roc.from_scores(rng.normal(1, 1, 1000), rng.normal(0, 1, 1000))
    >>> at = roc.precision_at(Skew(1, 10))
    >>> at.skew, round(at.baseline, 4), at.above_baseline
    ('1:10', 0.0909, True)
    """

    skew: str
    baseline: float
    precision: float
    precision_low: float
    precision_high: float
    recall: float
    above_baseline: bool
    alc: float
    at_recall: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Roc:
    """False and true positives at every distinct threshold of a score, highest threshold first,
    from (0, 0) to (``n_non_members``, ``n_members``).

    Kept as counts, so any figure can be recomputed later at another skew or confidence level.
    Points inside a straight vertical or horizontal run are dropped: no figure depends on them.

    Parameters
    ----------
    false_positives, true_positives : numpy.ndarray
        Counts at each threshold (build with `from_scores` or `from_counts`).
    n_members, n_non_members : int
        The records scored.

    Examples
    --------
    >>> from alc_dask.measure import Roc
    >>> roc = Roc.from_scores([0.9, 0.8, 0.7, 0.4], [0.6, 0.3, 0.2, 0.1])
    >>> roc.auc()
    0.9375
    >>> roc.tpr.tolist(), roc.fpr.tolist()
    ([0.0, 0.75, 0.75, 1.0, 1.0], [0.0, 0.0, 0.25, 0.25, 1.0])
    """

    false_positives: np.ndarray
    true_positives: np.ndarray
    n_members: int
    n_non_members: int

    @classmethod
    def from_scores(cls, member_scores, non_member_scores) -> Roc:
        """The ROC of a score that is higher for records more likely to be members.

        Raises ``ValueError`` on an empty side or a NaN score."""
        members = _scores("member_scores", member_scores)
        non_members = _scores("non_member_scores", non_member_scores)
        scores = np.concatenate([members, non_members])
        is_member = np.concatenate([np.ones(members.size, bool), np.zeros(non_members.size, bool)])
        order = np.argsort(-scores, kind="stable")
        scores, is_member = scores[order], is_member[order]
        last_of_tie = np.append(scores[1:] != scores[:-1], True)
        tp = np.cumsum(is_member)[last_of_tie]
        fp = np.cumsum(~is_member)[last_of_tie]
        return cls.from_counts(np.append(0, fp), np.append(0, tp), members.size, non_members.size)

    @classmethod
    def from_counts(cls, false_positives, true_positives, n_members: int, n_non_members: int) -> Roc:
        """An ROC from stored counts (as a results row keeps them)."""
        fp, tp = np.asarray(false_positives, np.int64), np.asarray(true_positives, np.int64)
        keep = np.ones(fp.size, bool)
        keep[1:-1] = ~(((fp[1:-1] == fp[:-2]) & (fp[1:-1] == fp[2:])) | ((tp[1:-1] == tp[:-2]) & (tp[1:-1] == tp[2:])))
        return cls(fp[keep], tp[keep], int(n_members), int(n_non_members))

    @property
    def tpr(self) -> np.ndarray:
        """True positive rates, highest threshold first."""
        return self.true_positives / self.n_members

    @property
    def fpr(self) -> np.ndarray:
        """False positive rates, highest threshold first."""
        return self.false_positives / self.n_non_members

    def auc(self) -> float:
        """Area under the ROC: the chance that a random member scores above a random non-member (ties half)."""
        fp, tp = self.false_positives.astype(float), self.true_positives.astype(float)
        return float(np.sum(np.diff(fp) * (tp[1:] + tp[:-1]) / 2) / (self.n_members * self.n_non_members))

    def auc_interval(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """The AUC's interval: normal, with DeLong's variance (DeLong, DeLong & Clarke-Pearson 1988,
        Biometrics 44(3), §2), ``S10 / M + S01 / N``, the variances over members of the share of
        non-members each outscores and over non-members of the share of members outscoring each
        (ties half). Every record of one ROC step has the same share, and a merged run holds records
        of one side only, so the counts give them exactly. Clipped to [0, 1]."""
        z = z_score(in_open_unit("confidence_level", confidence_level))
        fp, tp = self.false_positives.astype(float), self.true_positives.astype(float)
        new_fp, new_tp = np.diff(fp), np.diff(tp)
        outscored = (self.n_non_members - fp[1:] + new_fp / 2) / self.n_non_members
        outscoring = (tp[:-1] + new_tp / 2) / self.n_members
        variance = _weighted_variance(outscored, new_tp) / self.n_members + _weighted_variance(outscoring, new_fp) / self.n_non_members
        auc, half = self.auc(), z * float(np.sqrt(variance))
        return max(0.0, auc - half), min(1.0, auc + half)

    def tpr_at_fpr(self, targets=FPR_TARGETS, confidence_level: float = 0.95) -> list[TprAtFpr]:
        """The TPR at each target FPR the non-members can resolve (target · N ≥ 1), with its interval
        and the FPR actually reached; targets finer than 1/N are left out, never labelled."""
        found = []
        for target in targets:
            if target * self.n_non_members < 1:
                continue
            point = np.flatnonzero(self.false_positives <= target * self.n_non_members + 1e-9)[-1]
            tp = int(self.true_positives[point])
            low, high = wilson_interval(self.n_members, tp / self.n_members, confidence_level)
            found.append(TprAtFpr(float(target), float(self.fpr[point]), tp / self.n_members, low, high))
        return found

    def precision_at(self, skew: Skew, confidence_level: float = 0.95) -> PrecisionAtSkew:
        """At ``skew``: the best precision the data supports (the point of highest lower bound), its
        interval and recall, the precision at each of ``RECALLS``, and the ALC over the all-member guess.

        Points are picked from the data by their lower bounds, which hold for every point of the
        curve at once (Bonferroni over the points): with a bound per point, or by the point
        estimates, one of thousands of points would clear the baseline by luck alone."""
        in_open_unit("confidence_level", confidence_level)
        claims = np.flatnonzero(self.true_positives + self.false_positives > 0)
        recall = self.tpr[claims]
        centre, _, _ = self._precisions(skew, confidence_level, claims)
        _, low, high = self._precisions(skew, 1.0 - (1.0 - confidence_level) / claims.size, claims)
        best, strongest = int(np.argmax(low)), int(np.argmax(prc(low, recall)))
        at_recall = tuple((wanted, float(centre[np.argmax(recall >= wanted)])) for wanted in RECALLS if recall[-1] >= wanted)
        return PrecisionAtSkew(
            skew=str(skew),
            baseline=skew.baseline,
            precision=float(centre[best]),
            precision_low=float(low[best]),
            precision_high=float(high[best]),
            recall=float(recall[best]),
            above_baseline=bool(low[best] > skew.baseline),
            alc=float(alc(prc(skew.baseline, 1.0), prc(centre[strongest], recall[strongest]))),
            at_recall=at_recall,
        )

    def precision_recall(self, skew: Skew) -> tuple[np.ndarray, np.ndarray]:
        """The measured precision-recall curve at ``skew`` (points where the attack claims someone)."""
        claims = self.true_positives + self.false_positives > 0
        return self.tpr[claims], precision_at_skew(self.tpr[claims], self.fpr[claims], skew.members, skew.non_members)

    def supported_precision_recall(self, skew: Skew, confidence_level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """The curve with precision from the Wilson midpoints of TPR and FPR: where the measured
        curve shows precision 1 at any skew for a point with no false positive among few
        non-members, this one shows what those non-members can support."""
        claims = np.flatnonzero(self.true_positives + self.false_positives > 0)
        return self.tpr[claims], self._precisions(skew, in_open_unit("confidence_level", confidence_level), claims)[0]

    def _precisions(self, skew: Skew, confidence_level: float, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """At ``points``: precision from the Wilson midpoints of TPR and FPR, and its bounds (from the
        lower TPR and upper FPR bounds, and the reverse)."""
        tpr, fpr = self.tpr[points], self.fpr[points]
        tpr_low, tpr_high = wilson_interval(np.full(tpr.size, self.n_members), tpr, confidence_level)
        fpr_low, fpr_high = wilson_interval(np.full(fpr.size, self.n_non_members), fpr, confidence_level)

        def at(tpr, fpr):
            return np.nan_to_num(precision_at_skew(tpr, fpr, skew.members, skew.non_members))

        return at((tpr_low + tpr_high) / 2, (fpr_low + fpr_high) / 2), at(tpr_low, fpr_high), at(tpr_high, fpr_low)


def _scores(name: str, values) -> np.ndarray:
    scores = as_nonempty_1d(name, values, dtype=float)
    missing = np.flatnonzero(np.isnan(scores))
    if missing.size:
        raise ValueError(f"{name} holds NaN (first at position {missing[0]}): every record needs a score")
    return scores


def paired_auc_interval(member_scores, non_member_scores, confidence_level: float = 0.95) -> tuple[float, float]:
    """The AUC's interval when each person is scored once as a member and once as a non-member
    (``member_scores[i]`` and ``non_member_scores[i]`` are one person's): normal, with the variance
    of the AUC's projection on the people, ``(S10 + S01 + 2 C) / N``, where ``C`` is the covariance,
    over people, of the share of non-member scores a person's member score beats and the share of
    member scores beating their non-member score (DeLong et al. 1988's placements, paired as
    Hoeffding's decomposition of a two-sample U-statistic on pairs gives). Clipped to [0, 1].

    >>> import numpy as np
    >>> from alc_dask.measure.membership import paired_auc_interval
    >>> rng = np.random.default_rng(0)
    >>> person = rng.normal(size=2000)
    >>> low, high = paired_auc_interval(person + rng.normal(size=2000), person + rng.normal(size=2000))
    >>> low < 0.5 < high, round(high - low, 3)
    (True, 0.026)
    """
    members = _scores("member_scores", member_scores)
    non_members = _scores("non_member_scores", non_member_scores)
    if members.size != non_members.size:
        raise ValueError(f"paired scores: {members.size} member scores and {non_members.size} non-member scores")
    z = z_score(in_open_unit("confidence_level", confidence_level))
    x, y, n = np.sort(members), np.sort(non_members), members.size
    beaten = (np.searchsorted(y, members, "left") + np.searchsorted(y, members, "right")) / (2.0 * n)
    beating = (2 * n - np.searchsorted(x, non_members, "left") - np.searchsorted(x, non_members, "right")) / (2.0 * n)
    auc = float(beaten.mean())
    if n < 2:
        return 0.0, 1.0
    variance = (np.var(beaten, ddof=1) + np.var(beating, ddof=1) + 2 * np.cov(beaten, beating)[0, 1]) / n
    half = z * float(np.sqrt(max(variance, 0.0)))
    return max(0.0, auc - half), min(1.0, auc + half)


def _weighted_variance(values: np.ndarray, counts: np.ndarray) -> float:
    """The sample variance (n - 1 in the denominator) of ``values`` each held by ``counts`` records; 0 for fewer than two."""
    n = counts.sum()
    if n < 2:
        return 0.0
    mean = np.sum(values * counts) / n
    return float(np.sum(counts * (values - mean) ** 2) / (n - 1))


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _round_number(value: float) -> str:
    """A count as people say it: 101, 1.5, 1001 (not 1.001e+03)."""
    return f"{value:.1f}".removesuffix(".0") if value < 1e6 else f"{value:.3g}"
