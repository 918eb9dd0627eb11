"""The ALC's interval as the verdict judges it: valid however often the halting rules look, on the
ALC's own scale, and what the tables could show at best.

**Looking early costs no error.** A scenario may stop once its interval settles against the
threshold; a fixed-level interval read at a time chosen that way covers less than it says. So the
verdict looks only at ``FIRST_LOOK`` pairs and each doubling of it (50, 100, 200, 400, ...; the
halting rules stop only there, or when the targets or the budget run out), and spends the error
over the looks: the ``k``-th look uses ``α_k = α / (k (k + 1))``, and since ``Σ_k α_k = α`` the
intervals of all looks together miss the truth with chance at most ``α`` (a union bound: a
confidence sequence over the looks; Howard et al. 2021 give sharper ones). Doubling keeps the looks
few: after 3 200 pairs it is the 7th, each side's ``z`` about 3.2 instead of 1.96; the halting rules
pay the width back by attacking until the interval settles.

**The two sides.** The ALC compares the attack's PRC with the baseline's (Francis & Wagner 2025,
eq. 8). Each side's precision gets a Wilson interval at ``1 − α_k / 2``, so both hold together with
chance ``1 − α_k``; the ALC's lower end pairs the baseline's upper end with the attack's lower end
(the ALC falls as the baseline rises), its upper end the other way round.

**Its scale.** At recall 1 the ALC is ``1 − e_attack / e_base``, one minus the ratio of the error
rates: at most 1, and unbounded below as the baseline's errors vanish. An interval's lower end below
``ALC_FLOOR`` (the baseline errs less than half as often as the attack) says nothing more for a
verdict whose threshold is 0.5, and is shown as ``ALC_FLOOR``.

**What the tables can show.** A baseline right for nearly everyone leaves the attack no room: even
an attack right for every one of the ``available`` targets could not put the lower end at the
threshold (`best_provable_alc`). Such an evaluation is not informative, not inconclusive. The mirror
case: where the baseline is right for nearly everyone it keeps at its best cut and the attack as
nearly, the interval at the rates seen still straddles the threshold on every available target
(`interval_with_every_target`): the tables cannot settle it, and with an ALC below the threshold
the evaluation is not informative either (a census's household role, 98.8% right for the sixth of
people the baseline is surest of, the attack 98.5%: telling 1.2% errors from 0.6% takes more people
than the table holds).
Where the room exists but the targets ran out, `smallest_flagged_alc` says what a flag needed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from alc_dask.measure.coefficient import alc, prc
from alc_dask.measure.interval import wilson_interval

FIRST_LOOK = 50
"""Pairs at the verdict's first look (the halting rules' first check); the next looks double it."""
ALC_FLOOR = -1.0
"""The lowest ALC an interval shows: below it the baseline errs less than half as often as the attack."""


@dataclass(frozen=True)
class Cut:
    """One side's precision/recall measure as counts: predictions kept, right among them, recall."""

    n: int
    correct: int
    recall: float


@dataclass(frozen=True)
class PrcShape:
    """How a PRC and an ALC are computed from precision and recall (``MeasureSettings``' figures)."""

    rmin: float = 1e-4
    alpha: float = 3.0
    abs_weight: float = 0.0

    def prc(self, precision: float, recall: float) -> float:
        return float(prc(precision, recall, rmin=self.rmin, alpha=self.alpha))

    def alc(self, base_prc: float, attack_prc: float) -> float:
        return float(alc(base_prc, attack_prc, abs_weight=self.abs_weight))


def look_index(trials: int) -> int:
    """Which look ``trials`` pairs are (1 up to ``FIRST_LOOK``, then one more each doubling; a count
    between two looks, where the targets ran out, counts as the later one).

    >>> [look_index(n) for n in (10, 50, 100, 150, 200, 3200)]
    [1, 1, 2, 3, 3, 7]
    """
    return 1 + max(0, math.ceil(math.log2(max(trials, 1) / FIRST_LOOK) - 1e-12))


def next_look(trials: int) -> int:
    """The verdict's first look after ``trials`` pairs (``FIRST_LOOK`` times a power of two).

    >>> next_look(0), next_look(50), next_look(120)
    (50, 100, 200)
    """
    look = FIRST_LOOK
    while look <= trials:
        look *= 2
    return look


def look_confidence(confidence: float, trials: int) -> float:
    """The confidence of one side's interval at the look of ``trials`` pairs: ``1 − α_k / 2`` with
    ``α_k = α / (k (k + 1))`` and ``k = look_index(trials)``.

    >>> round(look_confidence(0.95, 50), 4), round(look_confidence(0.95, 3200), 6)
    (0.9875, 0.999554)
    """
    look = look_index(trials)
    return 1.0 - (1.0 - confidence) / (look * (look + 1)) / 2.0


def _precision_interval(cut: Cut, confidence: float) -> tuple[float, float]:
    if cut.n <= 0:
        return 0.0, 0.0
    return wilson_interval(cut.n, min(max(cut.correct / cut.n, 0.0), 1.0), confidence)


def alc_interval(base: Cut, attack: Cut, trials: int, confidence: float = 0.95, shape: PrcShape = PrcShape()) -> tuple[float, float]:
    """The ALC's interval at the look after ``trials`` pairs, valid over all looks together at
    ``confidence``, its lower end never below ``ALC_FLOOR``.

    >>> low, high = alc_interval(Cut(1000, 600, 1.0), Cut(1000, 900, 1.0), 1000)
    >>> round(low, 3), round(high, 3)
    (0.606, 0.842)
    """
    level = look_confidence(confidence, trials)
    base_low, base_high = _precision_interval(base, level)
    attack_low, attack_high = _precision_interval(attack, level)
    low = shape.alc(shape.prc(base_high, base.recall), shape.prc(attack_low, attack.recall))
    high = shape.alc(shape.prc(base_low, base.recall), shape.prc(attack_high, attack.recall))
    return max(low, ALC_FLOOR), max(high, ALC_FLOOR)


def pi_interval(predicted: int, attack_correct: int, base_correct: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Precision improvement at matched coverage (Francis & Wagner 2024, §4.3, eq. 6) with its
    interval at the look after ``trials`` pairs: the ALC's interval (`alc_interval`) of both sides
    at recall 1 on the ``predicted`` targets, where the PRC is the precision and the ALC is PI.

    >>> low, high = pi_interval(2000, 2000, 1200, 2000)
    >>> round(low, 2), round(high, 2)
    (0.98, 1.0)
    """
    return alc_interval(Cut(predicted, base_correct, 1.0), Cut(predicted, attack_correct, 1.0), trials, confidence)


def _as_many(base: Cut, targets: int) -> Cut:
    """The baseline's cut at its measured precision and recall, measured on ``targets`` targets."""
    n = max(1, round(targets * base.recall)) if base.n else 0
    return Cut(n, round(n * base.correct / base.n) if base.n else 0, base.recall)


def best_provable_alc(base: Cut, trials: int, available: int, confidence: float = 0.95, shape: PrcShape = PrcShape()) -> float:
    """The lower end of the ALC's interval of an attack right for every one of ``available``
    targets (recall 1), against the baseline on as many at the lower end of its precision's
    interval after ``trials`` pairs (the most room for an attack the data allow): the most these
    tables could show, whatever the attack.

    >>> round(best_provable_alc(Cut(1000, 700, 1.0), 1000, 20_000), 3)  # room enough
    0.998
    >>> best_provable_alc(Cut(5000, 4999, 1.0), 5000, 5000) < 0.5  # the baseline leaves ~1 person in 5 000 to find
    True
    >>> best_provable_alc(Cut(150, 150, 1.0), 150, 30_000) > 0.5  # 150 right of 150 may still leave room in 30 000
    True
    """
    if available <= 0:
        return ALC_FLOOR
    room = _precision_interval(base, look_confidence(confidence, trials))[0] if base.n else 0.0
    n = max(1, round(available * base.recall)) if base.n else 0
    baseline = Cut(n, math.floor(n * room), base.recall)
    return alc_interval(baseline, Cut(available, available, 1.0), available, confidence, shape)[0]


def interval_with_every_target(base: Cut, attack: Cut, available: int, confidence: float = 0.95, shape: PrcShape = PrcShape()) -> tuple[float, float]:
    """The ALC's interval had both sides kept their measured precision and recall on every one of
    ``available`` targets: the narrowest these tables allow at the rates seen. Where it still
    straddles the threshold, no number of the targets there are could settle the evaluation.

    >>> low, high = interval_with_every_target(Cut(865, 855, 0.173), Cut(865, 852, 0.173), 5000)
    >>> low < 0.5 < high  # 98.8% against 98.5% where each is surest: 5 000 people cannot tell
    True
    >>> interval_with_every_target(Cut(100, 60, 1.0), Cut(100, 62, 1.0), 5000)[1] < 0.5  # room: more targets settle it
    True
    """
    if available <= 0 or base.n <= 0 or attack.n <= 0:
        return ALC_FLOOR, 1.0
    return alc_interval(_as_many(base, available), _as_many(attack, available), available, confidence, shape)


def smallest_flagged_alc(base: Cut, targets: int, threshold: float, confidence: float = 0.95, shape: PrcShape = PrcShape()) -> float | None:
    """The smallest ALC an attack keeping every prediction (recall 1) on ``targets`` targets needed
    for its interval to lie wholly at or past ``threshold``, against the baseline as measured; None
    when even a perfect attack could not.

    >>> round(smallest_flagged_alc(Cut(1000, 600, 1.0), 1000, 0.5), 2)
    0.67
    """
    baseline = _as_many(base, targets)
    base_precision = baseline.correct / baseline.n if baseline.n else 0.0

    def flagged(precision: float) -> bool:
        attack = Cut(targets, round(targets * precision), 1.0)
        return alc_interval(baseline, attack, targets, confidence, shape)[0] >= threshold

    if targets <= 0 or not flagged(1.0):
        return None
    low, high = base_precision, 1.0
    for _ in range(40):  # bisection on the attack's precision: the lower end grows with it
        middle = (low + high) / 2
        low, high = (low, middle) if flagged(middle) else (middle, high)
    return shape.alc(shape.prc(base_precision, baseline.recall), shape.prc(high, 1.0))
