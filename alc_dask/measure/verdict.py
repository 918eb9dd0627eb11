"""Labels decided from an interval, not a point, and a release's verdict as its worst label.

A headline measured with an interval ``[low, high]`` is judged against a threshold on its own scale:
**flagged** when the whole interval is past the threshold (``low >= threshold``), **pass** when the
whole interval is below it (``high < threshold``), **inconclusive** when it straddles. A point past
the threshold whose interval reaches below it is therefore inconclusive: the evidence does not yet
say. An evaluation that cannot speak of the release at all (a constant secret, a secret the
baseline already infers for nearly everyone, no predicate made) is **not informative**: its own
label, below pass, that neither blocks a pass nor counts as inconclusive. The rule and its values
are the project's own; the thresholds are each family's, with their sources.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from alc_dask.measure._checks import SettingError
from alc_dask.measure.risk import RiskThresholds


class Label(StrEnum):
    NOT_INFORMATIVE = "not_informative"
    PASS = "pass"
    INCONCLUSIVE = "inconclusive"
    FLAGGED = "flagged"


SEVERITY = (Label.NOT_INFORMATIVE, Label.PASS, Label.INCONCLUSIVE, Label.FLAGGED)
"""Labels from best to worst: a release's verdict is its informative evaluations' worst."""
VERDICTS = (Label.PASS, Label.INCONCLUSIVE, Label.FLAGGED)
"""What a release's verdict can be: not informative is an evaluation's label, never a release's."""


@dataclass(frozen=True)
class Threshold:
    """The headline value from which an evaluation is flagged, and where that value comes from."""

    value: float
    source: str

    def __post_init__(self):
        if not math.isfinite(self.value):
            raise SettingError("threshold", self.value, "a finite number")


ALC_AT_RISK = Threshold(RiskThresholds().at_risk, "Francis & Wagner 2025, §6.1: an ALC from 0.5 is at risk")
"""The threshold of every headline that is an ALC (of an attack over its baseline)."""
REIDENTIFICATION = Threshold(
    0.09, "the re-identification risk threshold of EMA Policy 0070 and Health Canada's clinical-data guidance (0.09); Anonymeter sets none"
)
"""The threshold of a headline that is a probability of singling out, linking, inferring or identifying someone."""


def one_sided(confidence_level: float) -> float:
    """The two-sided level whose interval's upper end is the one-sided upper bound at
    ``confidence_level``: ``2·level − 1`` (0.90 for 0.95), what a pass is read from.

    A pass claims that every evaluation of a release is below its threshold: an intersection of
    claims, which as a test of "some evaluation is at or past its threshold" keeps the level of
    each one-sided test without correction for how many there are (Berger 1982, the
    intersection-union test; as in equivalence testing, Schuirmann 1987's two one-sided tests). A
    flag needs only one evaluation past its threshold: it keeps the two-sided interval's lower end,
    an error of 2.5% each.

    >>> from alc_dask.measure.verdict import one_sided
    >>> round(one_sided(0.95), 2)
    0.9
    """
    return 2.0 * confidence_level - 1.0


def interval_label(low: float, high: float, threshold: float) -> Label:
    """Flagged when ``low >= threshold``, pass when ``high < threshold``, inconclusive otherwise.

    An interval that is not known (NaN bounds: nothing was measured) is inconclusive, never pass.
    """
    if math.isnan(low) or math.isnan(high):
        return Label.INCONCLUSIVE
    if low > high:
        raise SettingError("low", low, f"at most high ({high})")
    if low >= threshold:
        return Label.FLAGGED
    if high < threshold:
        return Label.PASS
    return Label.INCONCLUSIVE


def worst(labels) -> Label:
    """The worst of ``labels`` (pass when there are none: nothing was found)."""
    return max((Label(label) for label in labels), key=SEVERITY.index, default=Label.PASS)


def release_verdict(labels) -> Label:
    """A release's verdict from its evaluations' labels: the worst informative one; inconclusive
    when no evaluation could speak of the release (none ran, or none was informative), since
    nothing measured is not a pass."""
    informative = [Label(label) for label in labels if Label(label) is not Label.NOT_INFORMATIVE]
    return worst(informative) if informative else Label.INCONCLUSIVE


def trials_to_settle(point: float, low: float, high: float, trials: float, threshold: float) -> int | None:
    """About how many trials in all (attacks, targets) would put the interval wholly on one side of
    ``threshold``, were the point to stay where it is: the interval's half-width shrinks as
    1/sqrt(trials), so it must shrink by |point - threshold| / half-width. None when it cannot
    settle (the point is on the threshold) or nothing is known; 0 when it is settled already."""
    half = (high - low) / 2
    gap = abs(point - threshold)
    if not all(math.isfinite(v) for v in (point, low, high, trials)) or trials <= 0:
        return None
    if interval_label(low, high, threshold) is not Label.INCONCLUSIVE:
        return 0
    if gap == 0:
        return None
    return math.ceil(trials * (half / gap) ** 2)
