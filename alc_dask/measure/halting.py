"""When to stop attacking: the reference implementation's halting rules as a small state machine
(Francis & Wagner 2025, §5.1, give their idea; the reference's thresholds are the defaults).

Attacks are expensive, so a scenario stops as soon as its ALC is known well enough: at once when
even loose intervals put it far from the decision thresholds, or when neither the base nor the
attack PRC improves any more. Every threshold is a field of :class:`HaltingRules`.
"""

from dataclasses import dataclass
from enum import StrEnum

from alc_dask.measure._checks import check_count, check_number, check_order
from alc_dask.measure.best import MeasureSettings, PrcResult
from alc_dask.measure.coefficient import alc as alc_of


class HaltCode(StrEnum):
    EARLY_HIGH_LOOSE = "early_high_loose"
    EARLY_LOW_LOOSE = "early_low_loose"
    EARLY_LOW_TIGHT = "early_low_tight"
    EARLY_HIGH_TIGHT = "early_high_tight"
    DIMINISHING_RETURNS = "diminishing_returns"
    CLOSE_TO_EXPECTED = "close_to_expected"
    EXHAUSTED = "exhausted"


@dataclass(frozen=True)
class HaltingRules:
    min_pairs: int = 50
    check_every: int = 50
    tight_interval: float = 0.1
    loose_interval: float = 0.25
    loose_high_alc: float = 0.9
    loose_low_alc: float = 0.0
    tight_low_alc: float = 0.0
    tight_high_alc: float = 0.98
    min_progress: float = 0.01
    progress_share: float = 0.05
    diminishing_alc: float = 0.5
    expected_split_alc: float = 0.75
    expected_loose_closeness: float = 0.05
    expected_tight_closeness: float = 0.01

    def __post_init__(self):
        """Refuse rules that cannot be applied; a ``SettingError`` names the field and the value."""
        check_count("min_pairs", self.min_pairs)
        check_count("check_every", self.check_every)
        for name in ("tight_interval", "loose_interval"):  # Wilson intervals are at most 1 wide
            check_number(name, getattr(self, name), 0.0, 1.0, open_low=True)
        check_order("tight_interval", self.tight_interval, "loose_interval", self.loose_interval)
        for name in _ALC_THRESHOLDS:  # an ALC is at most 1; 1 disables a "higher than" rule
            check_number(name, getattr(self, name), high=1.0)
        check_order("loose_low_alc", self.loose_low_alc, "loose_high_alc", self.loose_high_alc)
        check_order("tight_low_alc", self.tight_low_alc, "tight_high_alc", self.tight_high_alc)
        for name in ("min_progress", "progress_share", "expected_loose_closeness", "expected_tight_closeness"):
            check_number(name, getattr(self, name), 0.0, 1.0)


_ALC_THRESHOLDS = ("loose_high_alc", "loose_low_alc", "tight_low_alc", "tight_high_alc", "diminishing_alc", "expected_split_alc")


@dataclass(frozen=True)
class Checkpoint:
    """What one check saw: the measures it used, their ALC, and whether (and why) to halt.

    ``tight`` says whether both measures come from tight-interval cuts. ``alc_early_high`` and
    ``alc_early_low`` are the optimistic and pessimistic ALCs from the loose intervals (NaN unless used).
    """

    pairs: int
    halt_code: HaltCode | None
    base: PrcResult
    attack: PrcResult
    alc: float
    tight: bool
    alc_early_high: float = float("nan")
    alc_early_low: float = float("nan")

    @property
    def halted(self) -> bool:
        return self.halt_code is not None


class HaltingMonitor:
    """Checks paired base/attack predictions every ``check_every`` pairs and decides when to halt.

    Keeps the best tight base and attack measures seen so far (chosen independently), which are
    the scenario's final result when it halts for diminishing returns or runs out of targets.
    """

    def __init__(
        self,
        rules: HaltingRules = HaltingRules(),
        *,
        expected_base_prc: float | None = None,
        measure: MeasureSettings = MeasureSettings(),
    ):
        self.rules = rules
        self.expected_base_prc = expected_base_prc
        self.measure = measure
        self.best_base_: PrcResult | None = None
        self.best_attack_: PrcResult | None = None

    def is_checkpoint(self, pairs: int) -> bool:
        return pairs >= self.rules.min_pairs and (pairs - self.rules.min_pairs) % self.rules.check_every == 0

    def check(self, base_correct, base_confidence, attack_correct, attack_confidence) -> Checkpoint:
        """Measure all pairs so far and apply the rules in the reference implementation's order."""
        pairs = self._pairs(base_correct, attack_correct)
        rules = self.rules
        base = self.measure.best_prc(base_correct, base_confidence, rules.tight_interval)
        attack = self.measure.best_prc(attack_correct, attack_confidence, rules.tight_interval)
        if not (base.found and attack.found):
            return self._loose_check(pairs, base_correct, base_confidence, attack_correct, attack_confidence)

        now = self._alc(base, attack)
        if now < rules.tight_low_alc:
            return Checkpoint(pairs, HaltCode.EARLY_LOW_TIGHT, base, attack, now, tight=True)
        if now > rules.tight_high_alc:
            return Checkpoint(pairs, HaltCode.EARLY_HIGH_TIGHT, base, attack, now, tight=True)

        if self.best_base_ is None:
            self.best_base_, self.best_attack_ = base, attack
            return Checkpoint(pairs, None, base, attack, now, tight=True)
        base_progress = self._progressed(base, self.best_base_)
        attack_progress = self._progressed(attack, self.best_attack_)
        self._keep_best(base, attack)
        if base_progress or attack_progress:
            return Checkpoint(pairs, None, base, attack, now, tight=True)
        return self._stalled(pairs)

    def finish(self, base_correct, base_confidence, attack_correct, attack_confidence) -> Checkpoint:
        """Out of targets: the best measures over everything seen, tight where possible, else loose."""
        pairs = self._pairs(base_correct, attack_correct)
        tight_base = self.measure.best_prc(base_correct, base_confidence, self.rules.tight_interval)
        tight_attack = self.measure.best_prc(attack_correct, attack_confidence, self.rules.tight_interval)
        if tight_base.found and tight_attack.found:
            if self.best_base_ is None:
                self.best_base_, self.best_attack_ = tight_base, tight_attack
            self._keep_best(tight_base, tight_attack)
        if self.best_base_ is not None:
            base, attack, tight = self.best_base_, self.best_attack_, True
        else:
            base = self.measure.best_prc(base_correct, base_confidence, self.rules.loose_interval)
            attack = self.measure.best_prc(attack_correct, attack_confidence, self.rules.loose_interval)
            tight = False
        return Checkpoint(pairs, HaltCode.EXHAUSTED, base, attack, self._alc(base, attack), tight=tight)

    def _loose_check(self, pairs, base_correct, base_confidence, attack_correct, attack_confidence) -> Checkpoint:
        rules = self.rules
        base = self.measure.best_prc(base_correct, base_confidence, rules.loose_interval)
        attack = self.measure.best_prc(attack_correct, attack_confidence, rules.loose_interval)
        if not (base.found and attack.found):
            return Checkpoint(pairs, None, base, attack, self._alc(base, attack), tight=False)
        prc = self.measure.prc
        early_high = self._alc_of_prcs(prc(base.interval_high, base.recall), prc(attack.interval_low, attack.recall))
        early_low = self._alc_of_prcs(prc(base.interval_low, base.recall), prc(attack.interval_high, attack.recall))
        code = None
        if early_high > rules.loose_high_alc:
            code = HaltCode.EARLY_HIGH_LOOSE
        elif early_low < rules.loose_low_alc:
            code = HaltCode.EARLY_LOW_LOOSE
        return Checkpoint(pairs, code, base, attack, self._alc(base, attack), False, early_high, early_low)

    def _stalled(self, pairs: int) -> Checkpoint:
        """Neither side improves: halt unless the ALC is high and the base is still short of expectation.

        A baseline without an expected PRC (prior, control: no model selection promised more) has
        nothing left to catch up with, so a stall halts it whatever the ALC; waiting for an
        expectation that never comes ran such scenarios through every target (30 000 pairs).
        """
        rules = self.rules
        base, attack = self.best_base_, self.best_attack_
        best_alc = self._alc(base, attack)
        code = None
        if best_alc < rules.diminishing_alc or self.expected_base_prc is None:
            code = HaltCode.DIMINISHING_RETURNS
        else:
            closeness = rules.expected_loose_closeness if best_alc < rules.expected_split_alc else rules.expected_tight_closeness
            if self.expected_base_prc - base.prc < closeness:
                code = HaltCode.CLOSE_TO_EXPECTED
        return Checkpoint(pairs, code, base, attack, best_alc, tight=True)

    def _progressed(self, now: PrcResult, best: PrcResult) -> bool:
        needed = max(self.rules.min_progress, self.rules.progress_share * (1.0 - best.prc))
        return now.prc - best.prc >= needed

    def _keep_best(self, base: PrcResult, attack: PrcResult) -> None:
        if base.prc > self.best_base_.prc:
            self.best_base_ = base
        if attack.prc > self.best_attack_.prc:
            self.best_attack_ = attack

    def _alc(self, base: PrcResult, attack: PrcResult) -> float:
        return self._alc_of_prcs(base.prc, attack.prc)

    def _alc_of_prcs(self, base_prc: float, attack_prc: float) -> float:
        return alc_of(base_prc, attack_prc, abs_weight=self.measure.abs_weight)

    @staticmethod
    def _pairs(base_correct, attack_correct) -> int:
        if len(base_correct) != len(attack_correct):
            raise ValueError(f"base and attack predictions must come in pairs; got {len(base_correct)} base and {len(attack_correct)} attack")
        return len(base_correct)
