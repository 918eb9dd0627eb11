"""The best PRC over the rank-score cuts of a set of predictions (Francis & Wagner 2025, §3.4–3.6).

An attacker who ranks predictions by confidence may keep only the top ones: every cut of the
ranking trades recall for precision. The best admissible cut measures what the attacker (or the
baseline) can achieve. Cuts fall only between distinct confidence values, so predictions of equal
confidence are kept or dropped together (the project's rule, after §3.4's "at or above the threshold";
the reference implementation splits tie groups). Sorting once and cumulating makes every cut O(1):
O(n log n) in all, instead of re-counting each prefix.
"""

from dataclasses import asdict, dataclass

import numpy as np

from alc_dask.measure._checks import as_correctness, as_float_array, as_nonempty_1d, check_number, same_length
from alc_dask.measure.coefficient import prc as prc_of
from alc_dask.measure.interval import wilson_interval
from alc_dask.shown import shown


@dataclass(frozen=True)
class PrcResult:
    """One precision/recall measure: the predictions kept at a cut, and what they achieve.

    Attributes
    ----------
    n, attempts, correct : int
        Predictions kept, attempts made, and kept predictions that were right.
    precision : float
        The midpoint of the Wilson interval of ``correct / n``: what PRC and ALC use, so that a
        few lucky predictions do not count as precision 1.
    measured_precision : float
        ``correct / n``.
    recall : float
        ``n / attempts``, times the recall scale of a pre-targeted attack.
    interval_low, interval_high, interval_width : float
        The Wilson interval of the precision and its width.
    prc : float
        The precision-recall coefficient (see `prc`).
    confidence_cut : float
        The lowest confidence kept (NaN when nothing is kept, -inf at full recall).

    Examples
    --------
    >>> from alc_dask.measure import best_prc
    >>> result = best_prc([True] * 300 + [True, False] * 100, [0.9] * 300 + [0.2] * 200)
    >>> result.n, result.recall, result.found
    (300, 0.6, True)
    >>> sorted(result.to_dict("attack_"))[:2]
    ['attack_attempts', 'attack_confidence_cut']
    """

    n: int
    attempts: int
    correct: int
    precision: float
    measured_precision: float
    recall: float
    interval_low: float
    interval_high: float
    interval_width: float
    prc: float
    confidence_cut: float

    @classmethod
    def empty(cls, attempts: int) -> "PrcResult":
        """No admissible cut: nothing is predicted and every figure is 0."""
        return cls(0, attempts, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, float("nan"))

    @property
    def found(self) -> bool:
        """Whether a cut was admissible (something was kept)."""
        return self.n > 0

    def to_dict(self, prefix: str = "") -> dict:
        """The fields as a flat dict, each name after ``prefix`` (``"base_"``, ``"attack_"``: a scores row's columns)."""
        return {prefix + key: value for key, value in asdict(self).items()}


def _validated(correct, confidence) -> tuple[np.ndarray, np.ndarray]:
    hits = as_correctness("correct", correct)
    conf = as_float_array("confidence", as_nonempty_1d("confidence", confidence, dtype=float))
    same_length(correct=hits, confidence=conf)
    return hits, conf


def _measure(n, correct, attempts, recall_scale, confidence_level, rmin, alpha):
    """Wilson interval, midpoint precision, recall and PRC of cuts keeping ``n`` of ``attempts``."""
    low, high = wilson_interval(n, correct / n, confidence_level)
    midpoint = (low + high) / 2.0
    recall = n / attempts * recall_scale
    return low, high, midpoint, recall, prc_of(midpoint, recall, rmin=rmin, alpha=alpha)


def best_prc(
    correct,
    confidence,
    *,
    max_interval: float = 0.1,
    confidence_level: float = 0.95,
    rmin: float = 1e-4,
    alpha: float = 3.0,
    recall_scale: float = 1.0,
) -> PrcResult:
    """The cut with the largest PRC among those whose Wilson interval is narrower than ``max_interval``.

    An attacker keeps only its most confident predictions when that pays: this is the best such
    choice whose precision is known to within ``max_interval``. Cuts fall between distinct
    confidences; among cuts with equal PRC the one keeping fewest predictions wins.

    Parameters
    ----------
    correct : array_like of bool or 0/1
        Whether attempt ``i`` was right.
    confidence : array_like of float
        Attempt ``i``'s rank score, higher for surer predictions; the same length as ``correct``.
    max_interval : float, default 0.1
        The widest Wilson interval a cut may have; positive.
    confidence_level : float, default 0.95
        The Wilson interval's confidence level.
    rmin, alpha : float
        The PRC's parameters (see `prc`).
    recall_scale : float, default 1.0
        Multiplies recall, in (0, 1]: ``T_pre / T_all`` for a pre-targeted attack's recall relative
        to the population (Francis & Wagner 2025, §3.5, eq. 4; see `pretargeted_scale`).

    Returns
    -------
    PrcResult
        The best cut; `PrcResult.empty` (every figure 0) when no cut is admissible.

    Raises
    ------
    ValueError
        Empty or mismatched inputs, correctness other than booleans or 0/1, NaN confidences, or a
        parameter out of range.

    Examples
    --------
    An attack right on its 300 most confident predictions and at chance on 200 others keeps the 300:

    >>> from alc_dask.measure import best_prc
    >>> result = best_prc([True] * 300 + [True, False] * 100, [0.9] * 300 + [0.2] * 200)
    >>> result.n, result.recall, result.confidence_cut
    (300, 0.6, 0.9)
    >>> round(result.precision, 4), round(result.prc, 4)
    (0.9937, 0.9935)
    """
    hits, conf = _validated(correct, confidence)
    if not 0.0 < recall_scale <= 1.0:
        raise ValueError(f"recall_scale must lie in (0, 1]; got {shown(recall_scale)}")
    if max_interval <= 0:
        raise ValueError(f"max_interval must be positive; got {shown(max_interval)}")
    attempts = len(hits)
    order = np.argsort(-conf)  # order within a tie group is irrelevant: cuts fall between groups
    sorted_conf = conf[order]
    cumulative_correct = np.cumsum(hits[order])
    cut_ends = np.flatnonzero(np.append(sorted_conf[1:] != sorted_conf[:-1], True))
    n = cut_ends + 1
    tp = cumulative_correct[cut_ends]
    low, high, midpoint, recall, prcs = _measure(n, tp, attempts, recall_scale, confidence_level, rmin, alpha)
    admissible = (high - low < max_interval) & (prcs > 0)
    if not admissible.any():
        return PrcResult.empty(attempts)
    best = int(np.argmax(np.where(admissible, prcs, -np.inf)))
    return PrcResult(
        n=int(n[best]),
        attempts=attempts,
        correct=int(tp[best]),
        precision=float(midpoint[best]),
        measured_precision=float(tp[best] / n[best]),
        recall=float(recall[best]),
        interval_low=float(low[best]),
        interval_high=float(high[best]),
        interval_width=float(high[best] - low[best]),
        prc=float(prcs[best]),
        confidence_cut=float(sorted_conf[cut_ends[best]]),
    )


def prc_at_full_recall(correct, *, confidence_level: float = 0.95, rmin: float = 1e-4, alpha: float = 3.0, recall_scale: float = 1.0) -> PrcResult:
    """The measure when every attempt counts as a prediction (recall 1): the prior approach's view.

    Parameters
    ----------
    correct : array_like of bool or 0/1
        Whether each attempt was right.
    confidence_level, rmin, alpha, recall_scale : float
        As for `best_prc`.

    Returns
    -------
    PrcResult
        Every attempt kept (``confidence_cut`` -inf), its interval whatever its width.

    Raises
    ------
    ValueError
        Empty input, or correctness other than booleans or 0/1.

    Examples
    --------
    >>> from alc_dask.measure import prc_at_full_recall
    >>> result = prc_at_full_recall([True] * 300 + [True, False] * 100)
    >>> result.n, result.recall, round(result.precision, 4)
    (500, 1.0, 0.7977)
    """
    hits = as_correctness("correct", correct)
    attempts, tp = len(hits), int(hits.sum())
    low, high, midpoint, recall, prc_value = _measure(np.array(attempts), np.array(tp), attempts, recall_scale, confidence_level, rmin, alpha)
    return PrcResult(
        n=attempts,
        attempts=attempts,
        correct=tp,
        precision=float(midpoint),
        measured_precision=tp / attempts,
        recall=float(recall),
        interval_low=float(low),
        interval_high=float(high),
        interval_width=float(high - low),
        prc=float(prc_value),
        confidence_cut=float("-inf"),
    )


@dataclass(frozen=True)
class MeasureSettings:
    """The parameters every PRC of one scenario shares, so base and attack are measured alike.

    Parameters
    ----------
    confidence_level : float, default 0.95
        The Wilson intervals' confidence level, in (0, 1).
    rmin : float, default 1e-4
        The PRC's recall floor, in (0, 1) (see `prc`).
    alpha : float, default 3.0
        The PRC's exponent; positive.
    abs_weight : float, default 0.0
        The ALC's weight of the absolute improvement, in [0, 1] (see `alc`).
    recall_scale : float, default 1.0
        Multiplies recall, in (0, 1] (see `best_prc`).

    Raises
    ------
    SettingError
        A value out of range, naming the field.

    Examples
    --------
    >>> from alc_dask.measure import MeasureSettings
    >>> settings = MeasureSettings(rmin=1e-3)
    >>> round(settings.prc(0.9, 0.01), 4)
    0.6333
    >>> round(settings.at_full_recall([True] * 300 + [True, False] * 100).prc, 4)
    0.7977
    >>> MeasureSettings(alpha=0)
    Traceback (most recent call last):
    ...
    alc_dask.measure._checks.SettingError: alpha must be a number greater than 0; got 0
    """

    confidence_level: float = 0.95
    rmin: float = 1e-4
    alpha: float = 3.0
    abs_weight: float = 0.0
    recall_scale: float = 1.0

    def __post_init__(self):
        """Refuse values no PRC can be measured with; a ``SettingError`` names the field and the value."""
        check_number("confidence_level", self.confidence_level, 0.0, 1.0, open_low=True, open_high=True)
        check_number("rmin", self.rmin, 0.0, 1.0, open_low=True, open_high=True)
        check_number("alpha", self.alpha, 0.0, open_low=True)
        check_number("abs_weight", self.abs_weight, 0.0, 1.0)
        check_number("recall_scale", self.recall_scale, 0.0, 1.0, open_low=True)

    def best_prc(self, correct, confidence, max_interval: float) -> PrcResult:
        """`best_prc` with these settings."""
        return best_prc(
            correct,
            confidence,
            max_interval=max_interval,
            confidence_level=self.confidence_level,
            rmin=self.rmin,
            alpha=self.alpha,
            recall_scale=self.recall_scale,
        )

    def at_full_recall(self, correct) -> PrcResult:
        """`prc_at_full_recall` with these settings."""
        return prc_at_full_recall(correct, confidence_level=self.confidence_level, rmin=self.rmin, alpha=self.alpha, recall_scale=self.recall_scale)

    def prc(self, precision: float, recall: float) -> float:
        """`prc` with these settings."""
        return prc_of(precision, recall, rmin=self.rmin, alpha=self.alpha)
