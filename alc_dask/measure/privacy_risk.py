"""Anonymeter's risk measures (Giomi et al. 2023), as pure functions of attack counts; their names
and output follow Anonymeter's documentation.

Each evaluation counts successes of three attacks: the main attack on original records, a random
baseline attack, and the main attack on control records (never used for the release). A rate is
Wilson's corrected estimate with its symmetric error; the privacy risk is the main rate's excess
over the control rate, normalized by what the control left to gain:
``risk = (main - control) / (1 - control)``, its error propagated from both rates, and the risk and
its interval bounded to [0, 1]. The counts are what results keep, so a risk can be recomputed at
any confidence level.
"""

from dataclasses import dataclass
from math import sqrt

from alc_dask.measure._checks import in_open_unit
from alc_dask.measure.interval import z_score
from alc_dask.shown import shown


@dataclass(frozen=True)
class SuccessRate:
    value: float
    error: float


@dataclass(frozen=True)
class PrivacyRisk:
    value: float
    low: float
    high: float


def success_rate(n_attacks: int, n_success: float, confidence_level: float = 0.95) -> SuccessRate:
    """Wilson's estimate ``(s + z²/2) / (n + z²)`` and error ``z / (n + z²) · sqrt(s(n - s)/n + z²/4)``.

    ``n_success`` may be fractional (a control count scaled to the original's size). No attacks
    give the uninformed 0.5 ± 0.5.
    """
    if n_attacks < 0 or not 0 <= n_success <= max(n_attacks, 0):
        raise ValueError(f"need 0 <= n_success <= n_attacks; got n_success {shown(n_success)}, n_attacks {shown(n_attacks)}")
    z = z_score(in_open_unit("confidence_level", confidence_level))
    z2 = z * z
    spread = n_success * (n_attacks - n_success) / n_attacks if n_attacks else 0.0
    denominator = n_attacks + z2
    return SuccessRate((n_success + z2 / 2) / denominator, z / denominator * sqrt(spread + z2 / 4))


def residual_rate(main: SuccessRate, control: SuccessRate) -> SuccessRate:
    """The main rate's excess over the control's, normalized; NaN when the control always succeeds."""
    if control.value >= 1.0:
        return SuccessRate(float("nan"), float("nan"))
    gap = 1.0 - control.value
    value = (main.value - control.value) / gap
    error = sqrt((main.error / gap) ** 2 + (control.error * (main.value - 1.0) / gap**2) ** 2)
    return SuccessRate(value, error)


def bounded(rate: SuccessRate) -> PrivacyRisk:
    """The value and ``value ± error`` clipped to [0, 1]."""

    def clip(x: float) -> float:
        return min(max(x, 0.0), 1.0)

    return PrivacyRisk(clip(rate.value), clip(rate.value - rate.error), clip(rate.value + rate.error))


@dataclass(frozen=True)
class AttackCounts:
    """Attacks made and won by the main, baseline and control attacks of one evaluation.

    ``n_control_attacks`` is 0 when the release has no control table: the risk is then the main
    rate itself, as in Anonymeter.
    """

    n_attacks: int
    n_success: int
    n_baseline_attacks: int
    n_baseline_success: int
    n_control_attacks: int = 0
    n_control_success: float = 0.0

    def measures(self, confidence_level: float = 0.95) -> dict:
        """Rates, errors, the risk with its interval, and whether the attack beats the baseline (an
        evaluation that could make no attack never does)."""
        main = success_rate(self.n_attacks, self.n_success, confidence_level)
        baseline = success_rate(self.n_baseline_attacks, self.n_baseline_success, confidence_level)
        control = success_rate(self.n_control_attacks, self.n_control_success, confidence_level) if self.n_control_attacks else None
        risk = bounded(residual_rate(main, control) if control else main)
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


def singling_out_probability(n, w_max: float):
    """Chance that a predicate isolates exactly one of ``n`` records, for predicates whose match
    probability is uniform on [0, ``w_max``]: ``(1 - (n w + 1)(1 - w)^n) / (n + 1)``. Anonymeter fits
    it (times a norm) to counts on subsamples, to scale a control table's count to another size."""
    return (1.0 - (n * w_max + 1.0) * (1.0 - w_max) ** n) / (n + 1.0)
