"""One family's evaluation of a known-column subset, and its measure on a half of the targets.

The worst-columns search (``alc_dask.apps.worst_columns``) runs each subset as one evaluation of
its family on every target, then measures it on the *selection* half of the targets (to choose the
subset) and on the *held-out* half (to report the chosen one): the maximum over many subsets is
then not luck, as the held-out targets played no part in choosing. The halves are fixed by the
seed, one split per table (the original's rows, the control's), so a person is on the same side
for every subset. The measure on a half is the family's own, from the evaluation's per-record
predictions and the project's measure functions:

- ``alc``: the best cuts of base and attack (as a scenario that ran out of targets measures them:
  ``HaltingMonitor.finish``), the base never below always guessing the most common value (as the
  family's summary does), their ALC and the family's conservative interval;
- ``inference``: Anonymeter's privacy risk from the half's attack and control counts (the random
  baseline's counts, which only check that the attack is an attack, are the whole evaluation's);
- ``membership``: the ROC of the half's members and non-members, its ALC at the evaluation's skew,
  and the family's interval.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from alc_dask.apps.battery import POPULATION_FACTOR
from alc_dask.seeds import stream

SELECTION, HELD_OUT = "selection", "held_out"
FAMILIES = ("alc", "inference", "membership")
MEMBERSHIP_ATTACK = "distance_ratio"
"""The membership attack searched when none is named (the battery's first)."""


@dataclass(frozen=True)
class Measured:
    """A family's headline on one half of the targets: its value, interval and the targets it rests on."""

    value: float
    low: float
    high: float
    targets: int

    @classmethod
    def nothing(cls) -> Measured:
        return cls(float("nan"), float("nan"), float("nan"), 0)


class Halves:
    """The seeded split of each table's rows into the selection half and the held-out half (the
    selection half has the extra row of an odd count)."""

    def __init__(self, seed: int, rows: dict[str, int]):
        self.selection = {table: stream(seed, f"worst columns halves: {table}").permutation(n) < (n + 1) // 2 for table, n in rows.items()}

    def keep(self, half: str, table: str, targets) -> np.ndarray:
        """Whether each of ``targets`` (rows of ``table``) is in ``half``."""
        chosen = self.selection[table][np.asarray(targets, dtype=np.int64)]
        return chosen if half == SELECTION else ~chosen


InHalf = Callable[[str, np.ndarray], np.ndarray]
"""Whether each target (rows of the named table: ``original`` or ``control``) is in the half measured."""


class SubsetAttack:
    """What a family's search needs: the job entry of a subset, the job's settings, and the measure on a half."""

    family: str
    headline: str

    def entry(self, columns: tuple[str, ...]) -> dict:
        raise NotImplementedError

    def job_settings(self) -> dict:
        return {}

    def measure(self, predictions: pd.DataFrame, row: pd.Series, in_half: InHalf) -> Measured:
        raise NotImplementedError


class AlcSubsets(SubsetAttack):
    """The secret inferred from the subset by ``attack`` (default: the family's, best row match),
    against the battery's ML baseline (its job's); each evaluation attacks at least ``targets``
    people (halting only after that)."""

    family = headline = "alc"

    def __init__(self, secret: str, targets: int, floor_correct: np.ndarray, attack: str | None = None):
        self.secret, self.targets, self.floor_correct, self.attack = secret, targets, floor_correct, attack

    def entry(self, columns):
        return {"secret": self.secret, "known": list(columns)} | ({"attack": {"name": self.attack}} if self.attack else {})

    def job_settings(self):
        """Every subset measured on the same number of targets: the reference's rules, no waiting to settle."""
        return {"halting": {"min_pairs": self.targets, "settle_at": None}}

    def measure(self, predictions, row, in_half):
        from alc_dask.families.alc.family import AlcFamily
        from alc_dask.measure import HaltingMonitor, HaltingRules, MeasureSettings, alc

        base, attack = (predictions[predictions["side"] == side].sort_values("target") for side in ("base", "attack"))
        targets = attack["target"].to_numpy(dtype=np.int64)
        if not np.array_equal(targets, base["target"].to_numpy(dtype=np.int64)):
            raise ValueError(f"evaluation {row['scenario_id']}: its base and attack predictions are not of the same targets")
        keep = in_half("original", targets)
        if not keep.any():
            return Measured.nothing()
        settings = MeasureSettings()
        sides = [(frame["correct"].to_numpy(dtype=bool)[keep], frame["confidence"].to_numpy(dtype=float)[keep]) for frame in (base, attack)]
        best = HaltingMonitor(HaltingRules(), measure=settings).finish(*sides[0], *sides[1])
        floor = settings.at_full_recall(self.floor_correct[targets[keep]])
        base_best = floor if floor.prc > best.base.prc else best.base
        value = float(alc(base_best.prc, best.attack.prc, abs_weight=settings.abs_weight))
        head = AlcFamily.headline_interval({"alc": value, "pairs": int(keep.sum()), **base_best.to_dict("base_"), **best.attack.to_dict("attack_")})
        return Measured(head.value, head.low, head.high, int(keep.sum()))


class InferenceSubsets(SubsetAttack):
    """Anonymeter's inference of the secret from the subset, by ``attack`` (default: the nearest release row's secret)."""

    family = "inference"
    headline = "privacy_risk"

    def __init__(self, secret: str, targets: int, attack: str | None = None):
        self.secret, self.targets, self.attack = secret, targets, attack

    def entry(self, columns):
        entry = {"family": "inference", "secret": self.secret, "aux_cols": list(columns), "n_attacks": self.targets}
        return entry | ({"attack": self.attack} if self.attack else {})

    def measure(self, predictions, row, in_half):
        from alc_dask.measure import AttackCounts

        attack, control = (predictions[predictions["side"] == side] for side in ("attack", "control"))
        keep_attack, keep_control = in_half("original", attack["target"].to_numpy()), in_half("control", control["target"].to_numpy())
        if not (keep_attack.any() and keep_control.any()):
            return Measured.nothing()
        counts = AttackCounts(
            int(keep_attack.sum()),
            int(attack["correct"].to_numpy(dtype=bool)[keep_attack].sum()),
            int(row["n_baseline_attacks"]),
            int(row["n_baseline_success"]),
            int(keep_control.sum()),
            int(control["correct"].to_numpy(dtype=bool)[keep_control].sum()),
        )
        risk = counts.measures(float(row["confidence_level"]))
        return Measured(risk["privacy_risk"], risk["privacy_risk_low"], risk["privacy_risk_high"], int(keep_attack.sum()))


class MembershipSubsets(SubsetAttack):
    """A membership attack (default ``MEMBERSHIP_ATTACK``) on the subset's columns, at the battery's
    skew (a population ``POPULATION_FACTOR`` times the original), on ``targets`` members and as many non-members."""

    family = "membership"
    headline = "membership_alc"

    def __init__(self, targets: int, original_rows: int, attack: str | None = None):
        self.targets, self.population, self.attack = targets, max(POPULATION_FACTOR * original_rows, original_rows + 1), attack or MEMBERSHIP_ATTACK

    def entry(self, columns):
        people = {"n_members": self.targets, "n_non_members": self.targets}
        return {"family": "membership", "attack": self.attack, "columns": list(columns), "population": self.population, **people}

    def measure(self, predictions, row, in_half):
        from alc_dask.families.membership.family import Membership
        from alc_dask.measure import Roc, Skew

        members, others = (predictions[predictions["side"] == side] for side in ("member", "non_member"))
        keep_members, keep_others = in_half("original", members["target"].to_numpy()), in_half("control", others["target"].to_numpy())
        if not (keep_members.any() and keep_others.any()):
            return Measured.nothing()
        scores = [frame["confidence"].to_numpy(dtype=float)[keep] for frame, keep in ((members, keep_members), (others, keep_others))]
        roc = Roc.from_scores(*scores)
        best = roc.precision_at(Skew.parse(row["skew"]), float(row["confidence_level"]))
        head = Membership.headline_interval(
            {
                "membership_alc": best.alc,
                "baseline_precision": best.baseline,
                "best_precision_low": best.precision_low,
                "best_precision_high": best.precision_high,
                "best_recall": best.recall,
                "n_members": roc.n_members,
                "n_non_members": roc.n_non_members,
            }
        )
        return Measured(head.value, head.low, head.high, roc.n_members + roc.n_non_members)


def measured_on(attack: SubsetAttack, predictions: pd.DataFrame, row: pd.Series, halves: Halves, half: str) -> Measured:
    """``attack``'s measure of one evaluation (its predictions and scores row) on ``half`` of the targets."""
    return attack.measure(predictions, row, lambda table, targets: halves.keep(half, table, targets))
