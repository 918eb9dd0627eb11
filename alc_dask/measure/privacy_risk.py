"""Anonymeter's risk measures (Giomi et al. 2023), as pure functions of attack counts; their names
and output follow Anonymeter's documentation.

Each evaluation counts successes of three attacks: the main attack on original records, a random
baseline attack, and the main attack on control records (never used for the release). A rate is
Wilson's corrected estimate with its symmetric error; the privacy risk is the main rate's excess
over the control rate, normalized by what the control left to gain:
``risk = (main - control) / (1 - control)``, its error propagated from both rates (with their
covariance where both attacks were made on the same people), and the risk and its interval bounded
to [0, 1]. The counts are what results keep, so a risk can be recomputed at
any confidence level.
"""

from dataclasses import dataclass, replace
from math import sqrt

from alc_dask.measure._checks import in_open_unit
from alc_dask.measure.interval import z_score
from alc_dask.shown import shown


@dataclass(frozen=True)
class SuccessRate:
    """An attack's success rate with its symmetric error (see `success_rate`).

    Attributes
    ----------
    value, error : float
        The Wilson-corrected rate and its error.

    Examples
    --------
    >>> from alc_dask.measure import success_rate
    >>> rate = success_rate(100, 30)
    >>> round(rate.value, 4), round(rate.error, 4)
    (0.3074, 0.0884)
    """

    value: float
    error: float


@dataclass(frozen=True)
class PrivacyRisk:
    """A privacy risk and its interval, bounded to [0, 1] (see `bounded`).

    Attributes
    ----------
    value, low, high : float
        The risk and its interval.

    Examples
    --------
    >>> from alc_dask.measure import SuccessRate, bounded
    >>> bounded(SuccessRate(0.05, 0.1))
    PrivacyRisk(value=0.05, low=0.0, high=0.15000000000000002)
    """

    value: float
    low: float
    high: float


def success_rate(n_attacks: int, n_success: float, confidence_level: float = 0.95) -> SuccessRate:
    """Wilson's estimate ``(s + z²/2) / (n + z²)`` and error ``z / (n + z²) · sqrt(s(n - s)/n + z²/4)``.

    Corrected so that few attacks do not give a rate of exactly 0 or 1, as Anonymeter reports it.

    Parameters
    ----------
    n_attacks : int
        Attacks made; no attacks give the uninformed 0.5 ± 0.5.
    n_success : float
        Attacks won, in [0, n_attacks]; may be fractional (a control count scaled to the original's size).
    confidence_level : float, default 0.95
        In (0, 1).

    Returns
    -------
    SuccessRate

    Raises
    ------
    ValueError
        Counts out of range, or ``confidence_level`` outside (0, 1).

    Examples
    --------
    >>> from alc_dask.measure import success_rate
    >>> rate = success_rate(100, 30)
    >>> round(rate.value, 4), round(rate.error, 4)
    (0.3074, 0.0884)
    >>> success_rate(0, 0).value
    0.5
    """
    if n_attacks < 0 or not 0 <= n_success <= max(n_attacks, 0):
        raise ValueError(f"need 0 <= n_success <= n_attacks; got n_success {shown(n_success)}, n_attacks {shown(n_attacks)}")
    z = z_score(in_open_unit("confidence_level", confidence_level))
    z2 = z * z
    spread = n_success * (n_attacks - n_success) / n_attacks if n_attacks else 0.0
    denominator = n_attacks + z2
    return SuccessRate((n_success + z2 / 2) / denominator, z / denominator * sqrt(spread + z2 / 4))


def residual_rate(main: SuccessRate, control: SuccessRate, covariance: float = 0.0) -> SuccessRate:
    """The main rate's excess over the control's, normalized: ``(main - control) / (1 - control)``.

    What the attack wins on the original beyond what it wins on people never released. The error is
    the delta method's: ``r_m = 1 / (1 - control)`` and ``r_c = (main - 1) / (1 - control)²`` the
    partial derivatives, ``error² = (r_m e_m)² + (r_c e_c)² + 2 r_m r_c covariance``. The covariance
    (on the errors' scale) is 0 for rates of different people; for rates of the same people it is
    positive where one person's two outcomes go together, and narrows the interval (``r_c < 0``).

    Parameters
    ----------
    main, control : SuccessRate
        The main attack's rate on original records and its rate on control records.
    covariance : float, default 0.0
        Of the two rates, scaled as their errors are (see ``AttackCounts.paired_covariance``).

    Returns
    -------
    SuccessRate
        The residual rate with its propagated error; NaN when the control always succeeds.

    Examples
    --------
    >>> from alc_dask.measure import residual_rate, success_rate
    >>> residual = residual_rate(success_rate(100, 30), success_rate(100, 10))
    >>> round(residual.value, 4), round(residual.error, 4)
    (0.2176, 0.1129)
    """
    if control.value >= 1.0:
        return SuccessRate(float("nan"), float("nan"))
    gap = 1.0 - control.value
    value = (main.value - control.value) / gap
    by_main, by_control = 1.0 / gap, (main.value - 1.0) / gap**2
    variance = (main.error * by_main) ** 2 + (control.error * by_control) ** 2 + 2 * by_main * by_control * covariance
    return SuccessRate(value, sqrt(max(variance, 0.0)))


def bounded(rate: SuccessRate) -> PrivacyRisk:
    """The value and ``value ± error`` clipped to [0, 1]: a risk, as reported.

    Parameters
    ----------
    rate : SuccessRate

    Returns
    -------
    PrivacyRisk

    Examples
    --------
    >>> from alc_dask.measure import SuccessRate, bounded
    >>> bounded(SuccessRate(0.05, 0.1)).low
    0.0
    """

    def clip(x: float) -> float:
        return min(max(x, 0.0), 1.0)

    return PrivacyRisk(clip(rate.value), clip(rate.value - rate.error), clip(rate.value + rate.error))


LITTLE_ROOM = 0.8
"""A control success from which the risk's error is at least five times the rates' (it divides by
what the control left to gain): there, a release no attack learns from may be unable to pass at
any number of attacks the tables allow, and such an evaluation is not informative unless flagged
(``AttackCounts.highest_without_excess``)."""


@dataclass(frozen=True)
class AttackCounts:
    """Attacks made and won by the main, baseline and control attacks of one evaluation.

    The counts are what results keep, so the risk can be recomputed at any confidence level.

    Parameters
    ----------
    n_attacks, n_success : int
        The main attack's attacks on original records, and its successes.
    n_baseline_attacks, n_baseline_success : int
        The random baseline attack's.
    n_control_attacks : int, default 0
        The main attack's attacks on control records; 0 when the release has no control table:
        the risk is then the main rate itself, as in Anonymeter.
    n_control_success : float, default 0.0
        Its successes (fractional when scaled to the original's size). When they are all its attacks,
        the risk is NaN: the attack needs no release to succeed on anyone, and Wilson's correction
        (a control rate below 1 however many attacks won) would otherwise read an excess that is not there.
    n_both_success : int, optional
        Where both attacks were made on the same people, one each (without a control table: each
        member through the release and through the original's other people), the people both
        won: the rates' covariance then enters the risk's error (``paired_covariance``). None:
        different people, independent rates.

    Examples
    --------
    >>> from alc_dask.measure import AttackCounts
    >>> counts = AttackCounts(100, 30, 100, 5, n_control_attacks=100, n_control_success=10)
    >>> measures = counts.measures()
    >>> round(measures["privacy_risk"], 4), measures["beats_baseline"]
    (0.2176, True)
    """

    n_attacks: int
    n_success: int
    n_baseline_attacks: int
    n_baseline_success: int
    n_control_attacks: int = 0
    n_control_success: float = 0.0
    n_both_success: int | None = None

    def paired_covariance(self, confidence_level: float = 0.95) -> float:
        """The covariance of the main and control rates on their errors' scale, ``z² / (n + z²)²
        (both - main · control / n)`` as Wilson's error is ``z / (n + z²) sqrt(s (n - s) / n + z²/4)``;
        0 unless both attacks were made on the same ``n`` people (``n_both_success`` given).

        >>> from alc_dask.measure import AttackCounts
        >>> round(AttackCounts(100, 60, 100, 0, 100, 50, n_both_success=45).paired_covariance(), 6)
        0.005344
        >>> AttackCounts(100, 60, 100, 0, 100, 50).paired_covariance()
        0.0
        """
        n = self.n_attacks
        if self.n_both_success is None or not n or self.n_control_attacks != n:
            return 0.0
        z = z_score(in_open_unit("confidence_level", confidence_level))
        return z * z / (n + z * z) ** 2 * (self.n_both_success - self.n_success * self.n_control_success / n)

    def measures(self, confidence_level: float = 0.95) -> dict:
        """Rates, errors, the risk with its interval, and whether the attack beats the baseline (an
        evaluation that could make no attack never does)."""
        main = success_rate(self.n_attacks, self.n_success, confidence_level)
        baseline = success_rate(self.n_baseline_attacks, self.n_baseline_success, confidence_level)
        control = success_rate(self.n_control_attacks, self.n_control_success, confidence_level) if self.n_control_attacks else None
        if control and self.n_control_success >= self.n_control_attacks:
            risk = PrivacyRisk(float("nan"), float("nan"), float("nan"))
        else:
            risk = bounded(residual_rate(main, control, self.paired_covariance(confidence_level)) if control else main)
        return {
            "privacy_risk": risk.value,
            "privacy_risk_low": risk.low,
            "privacy_risk_high": risk.high,
            "attack_rate": main.value,
            "attack_rate_err": main.error,
            "baseline_rate": baseline.value,
            "baseline_rate_err": baseline.error,
            "control_rate": control.value if control else float("nan"),
            "control_rate_err": control.error if control else float("nan"),
            "beats_baseline": bool(self.n_attacks) and main.value > baseline.value,
        }

    def highest_without_excess(self, confidence_level: float = 0.95) -> float:
        """The upper end of the risk's interval had the main attack done exactly as well as on the
        control (its successes at the control's rate): what these counts could show at best of a
        release that teaches nothing. At or past a threshold, no outcome clears the release.

        >>> from alc_dask.measure import AttackCounts
        >>> round(AttackCounts(5000, 4600, 5000, 0, 5000, 4585).highest_without_excess(), 2)
        0.13
        >>> round(AttackCounts(5000, 2500, 5000, 0, 5000, 2500).highest_without_excess(), 3)
        0.039
        """
        if not self.n_control_attacks:
            return float("nan")
        null = round(self.n_attacks * self.n_control_success / self.n_control_attacks)
        return replace(self, n_success=null).measures(confidence_level)["privacy_risk_high"]

    def uncleared_reach(self, threshold: float, confidence_level: float = 0.95) -> float | None:
        """``highest_without_excess`` when the control succeeds on ``LITTLE_ROOM`` or more of its
        attacks and that reach is at or past ``threshold``: counts that no outcome could clear;
        None otherwise (the families call such an evaluation not informative unless flagged).

        >>> from alc_dask.measure import AttackCounts
        >>> round(AttackCounts(5000, 4600, 5000, 0, 5000, 4585).uncleared_reach(0.09), 2)
        0.13
        >>> AttackCounts(300, 90, 300, 0, 300, 80).uncleared_reach(0.09) is None  # few attacks, room left: inconclusive
        True
        """
        if not self.n_control_attacks or self.n_control_success / self.n_control_attacks < LITTLE_ROOM:
            return None
        reach = self.highest_without_excess(confidence_level)
        return reach if reach >= threshold else None

    def smallest_flagged(self, threshold: float, confidence_level: float = 0.95) -> float | None:
        """The smallest privacy risk these attacks could have flagged: the risk at the fewest
        successes whose interval's lower end reaches ``threshold``, the other counts as they are.
        None when even every attack won would not: too few attacks, or a control that leaves too
        little to gain, cannot speak of the release at all.

        >>> from alc_dask.measure import AttackCounts
        >>> round(AttackCounts(2000, 0, 2000, 0, 2000, 500).smallest_flagged(0.09), 3)
        0.126
        >>> AttackCounts(2, 0, 2, 0, 2, 0).smallest_flagged(0.09) is None
        True
        """

        def low(successes: int) -> float:
            return replace(self, n_success=successes).measures(confidence_level)["privacy_risk_low"]

        if not self.n_attacks or not low(self.n_attacks) >= threshold:
            return None
        fewest, most = 0, self.n_attacks  # low() never falls as successes grow: bisect the first that reaches it
        while fewest < most:
            middle = (fewest + most) // 2
            fewest, most = (fewest, middle) if low(middle) >= threshold else (middle + 1, most)
        return replace(self, n_success=fewest).measures(confidence_level)["privacy_risk"]


def singling_out_probability(n, w_max: float):
    """Chance that a predicate isolates exactly one of ``n`` records, for predicates whose match
    probability is uniform on [0, ``w_max``]: ``(1 - (n w + 1)(1 - w)^n) / (n + 1)``.

    Anonymeter fits it (times a norm) to counts on subsamples, to scale a control table's count
    to another size.

    Parameters
    ----------
    n : int or array_like
        Records.
    w_max : float
        The largest match probability of a predicate.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> from alc_dask.measure import singling_out_probability
    >>> round(singling_out_probability(1000, 0.001), 6)
    0.000264
    """
    return (1.0 - (n * w_max + 1.0) * (1.0 - w_max) ** n) / (n + 1.0)
